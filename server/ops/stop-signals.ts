// What a stop signal means, given the ones before it. Pure: server/main.ts feeds it each SIGTERM
// and SIGINT with the time it arrived and does what it answers.
//
// One stop can arrive as several deliveries of the same signal. A terminal's Ctrl-C signals the
// whole foreground process group, so under `npm start` node gets SIGINT from the terminal and
// again from npm, which relays SIGINT and SIGTERM to its child; `timeout npm start` and a
// runtime that signals the process group do the same with SIGTERM. Taking each repeat for a
// second, impatient signal cut the drain short on one keypress. So:
// - the first signal drains;
// - a SIGTERM after it never cuts the drain short: supervisors escalate with SIGKILL, not with
//   a second SIGTERM (Docker, Kubernetes, systemd), so a repeated SIGTERM is the same stop;
// - a SIGINT is a person at a terminal: a second one, pressed again, exits at once (README "The
//   drain"), unless it arrives within REPEAT_WINDOW_MS of the previous delivery, where it is that
//   same keypress relayed by npm.

/** npm relays a signal within milliseconds; a person presses a key again after hundreds. */
export const REPEAT_WINDOW_MS = 1000;

export type StopSignal = 'SIGTERM' | 'SIGINT';
export type StopAction = 'drain' | 'ignore' | 'exit';

export interface StopSignals {
  /** What to do about `signal`, delivered at `atMs` (a monotonic clock in ms). */
  receive(signal: StopSignal, atMs: number): StopAction;
}

export function stopSignals(): StopSignals {
  let lastMs: number | undefined;
  return {
    receive(signal, atMs) {
      const previous = lastMs;
      lastMs = atMs;
      if (previous === undefined) return 'drain';
      if (signal === 'SIGTERM') return 'ignore';
      return atMs - previous < REPEAT_WINDOW_MS ? 'ignore' : 'exit';
    },
  };
}
