// One autocannon run, reduced to the figures the table shows. Requests that must differ each
// time (a fresh nonce, timestamp and signature; a fresh idempotency key) are built in
// autocannon's per-request `setupRequest` hook.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  method?: string;
  /** Path with its query. */
  path: string;
  /** Called for every request: the headers (and body) to send. */
  build?: () => { headers: Record<string, string>; body?: string; path?: string };
  headers?: Record<string, string>;
  /** Steady load: requests per second over all connections (default: as fast as possible). */
  overallRate?: number;
  /** The server's process id: its CPU time per answer is measured too (Linux /proc). */
  pid?: number | undefined;
}

export interface LoadResult {
  requests: number;
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  non2xx: number;
  /** CPU time the server process spent per answer, µs (user + system); NaN without a pid. */
  cpuMicrosPerRequest: number;
  /** The kernel's part of it (system time), µs. */
  systemMicrosPerRequest: number;
}

/** Linux's clock ticks per second in /proc/<pid>/stat (USER_HZ). */
export const TICKS_PER_SECOND = 100;

/** User and system CPU time of a process so far, µs (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTimes(pid: number | undefined): { user: number; system: number } {
  if (pid === undefined) return { user: NaN, system: NaN };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const micros = (ticks: string | undefined) => (Number(ticks) * 1_000_000) / TICKS_PER_SECOND;
    return { user: micros(fields[11]), system: micros(fields[12]) };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/** User + system CPU time of a process so far, µs. */
export function cpuMicros(pid: number | undefined): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const build = spec.build;
  const cpuBefore = cpuTimes(spec.pid);
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.duration,
    ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
    // The per-request hook makes autocannon re-serialise every request, which is what we want.
    requests: [
      {
        method: (spec.method ?? 'GET') as 'GET',
        path: spec.path,
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(build
          ? {
              setupRequest: (req: autocannon.Request) => {
                const built = build();
                return {
                  ...req,
                  headers: { ...req.headers, ...built.headers },
                  ...(built.body !== undefined ? { body: built.body } : {}),
                  ...(built.path ? { path: built.path } : {}),
                };
              },
            }
          : {}),
      },
    ],
  });
  const cpuAfter = cpuTimes(spec.pid);
  const user = cpuAfter.user - cpuBefore.user;
  const system = cpuAfter.system - cpuBefore.system;
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statuses[code] = (stat as { count: number }).count;
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    requests: answered,
    rps: answered / (result.duration || spec.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: answered > 0 ? (user + system) / answered : NaN,
    systemMicrosPerRequest: answered > 0 ? system / answered : NaN,
  };
}
