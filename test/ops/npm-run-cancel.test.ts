// The repository's long-running npm scripts stopped as a CI runner cancels a job: SIGTERM to the
// npm process alone. npm forwards it to its child, so that child must be the program itself
// (`exec` in package.json). With a shell in between, the shell died of the signal and the program
// ran on under init: `npm run conformance` went on testing the operator's deployment and never
// undid what it had changed, a bench's servers went on holding their ports.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, commandOf, descendants } from '../support/processes.ts';
import { ROOT, measureStartup } from '../support/startup.ts';

const startup = await measureStartup();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('npm run conformance, cancelled (SIGTERM to npm)', () => {
  let tree: number[] = [];
  afterAll(() => {
    for (const pid of tree) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it(
    'undoes what the run changed, says so, and leaves no process behind',
    async () => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.DATABASE_URL;
      // npm from the PATH, as a CI step runs it; the kit starts its own reference server.
      const npm = spawn('npm', ['run', 'conformance'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      npm.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      npm.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      const closed = new Promise<void>((resolve) => npm.once('close', () => resolve()));
      const until = performance.now() + startup.timeout(60, 60_000);
      while (!/^conformance: against /m.test(output)) {
        if (npm.exitCode !== null) throw new Error(`npm exited (${npm.exitCode}) before the run began:\n${output}`);
        if (performance.now() > until) throw new Error(`the run did not begin:\n${output}`);
        await sleep(Math.min(200, startup.ms / 4));
      }
      tree = descendants(npm.pid as number);
      const kit = tree.filter((pid) => commandOf(pid).includes('conformance/cli.ts'));
      expect(kit.length, `the process tree under npm:\n${tree.map(commandOf).join('\n')}`).toBeGreaterThan(0);

      process.kill(npm.pid as number, 'SIGTERM');
      await closed;
      expect(output).toContain('interrupted: undoing what the run changed on the deployment');
      expect(output).toContain('interrupted: what the run changed was undone; no report written');
      const gone = performance.now() + 10 * startup.ms + 5_000;
      while (tree.some(alive) && performance.now() < gone) await sleep(100);
      expect(tree.filter(alive).map(commandOf), 'processes left running after npm ended').toEqual([]);
    },
    startup.timeout(120, 120_000),
  );
});

describe('package.json', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  // Every script that runs until it is stopped, or for minutes: the signal must reach it.
  it.each(['start', 'bench', 'drill', 'conformance', 'conformance:crosscheck', 'mock', 'mock:partner', 'mock:public'])(
    '`%s` runs its program as npm’s own child (exec), so a SIGTERM to npm reaches it',
    (name) => {
      expect(scripts[name]).toMatch(/^exec node --import tsx /);
    },
  );
});
