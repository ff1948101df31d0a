// What every drill shares: its result (pass/fail with figures and the failures it saw) and a
// bounded wait.
export interface DrillResult {
  name: string;
  ok: boolean;
  seconds: number;
  figures: Record<string, unknown>;
  failures: string[];
  /** Set when the drill could not run here (e.g. no PostgreSQL); it then passes, loudly marked. */
  skipped?: string;
}

export interface DrillOptions {
  quick: boolean;
  log: (line: string) => void;
}

/** Collects failed expectations instead of stopping at the first, so a report lists them all. */
export class Checks {
  readonly failures: string[] = [];
  expect(condition: boolean, message: string): void {
    if (!condition) this.failures.push(message);
  }
}

export async function timed(
  name: string,
  run: (checks: Checks, figures: Record<string, unknown>, skip: (why: string) => void) => Promise<void>,
): Promise<DrillResult> {
  const started = Date.now();
  const checks = new Checks();
  const figures: Record<string, unknown> = {};
  let skipped: string | undefined;
  try {
    await run(checks, figures, (why) => {
      skipped = why;
    });
  } catch (err) {
    checks.failures.push(`crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  return {
    name,
    ok: checks.failures.length === 0,
    seconds: (Date.now() - started) / 1000,
    figures,
    failures: checks.failures,
    ...(skipped ? { skipped } : {}),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}
