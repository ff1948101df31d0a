// The benchmarks' and drills' child processes end with them. A bench stopped by `kill`, `timeout`
// or a CI job's cancel gets SIGTERM alone (Ctrl-C reaches the whole process group; those do
// not), and its servers, Prism and pgbench would go on running, holding ports and CPU, under
// init. So every child is tracked here, and the first SIGTERM, SIGINT or SIGHUP stops them all
// (SIGTERM, then SIGKILL after STOP_MS), then ends this process as the signal would have. A
// SIGKILL of this process cannot be caught: the servers also watch their parent
// (server/ops/launcher.ts, in serve.ts, bare.ts and floor.ts).
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** How long a child gets to stop after SIGTERM before it is killed. */
const STOP_MS = 5_000;

const live = new Set<ChildProcess>();
let installed = false;

const ended = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

async function stopAll(): Promise<void> {
  const waiting = [...live].filter((c) => !ended(c));
  await Promise.all(
    waiting.map(
      (c) =>
        new Promise<void>((resolve) => {
          const killer = setTimeout(() => c.kill('SIGKILL'), STOP_MS);
          c.once('exit', () => {
            clearTimeout(killer);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

function install(): void {
  installed = true;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      console.error(`\n${signal}: stopping ${[...live].filter((c) => !ended(c)).length} child processes`);
      // A second signal ends this process at once.
      process.once(signal, () => process.exit(128 + constants.signals[signal]));
      void stopAll().finally(() => process.exit(128 + constants.signals[signal]));
    });
  // Any other end of this process (an uncaught error, process.exit): kill what is left.
  process.once('exit', () => {
    for (const c of live) if (!ended(c)) c.kill('SIGKILL');
  });
}

/** Tracks a child until it exits; the first call installs the signal handlers. */
export function track<C extends ChildProcess>(child: C): C {
  if (!installed) install();
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}
