// Time is injected everywhere, so tests can move it. `now()` is real (signature) time in ms;
// a partner's business time is now() plus that partner's test-clock offset.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and move. */
export function manualClock(start = Date.parse('2026-11-22T09:30:00Z')) {
  let t = start;
  return {
    now: () => t,
    set: (ms: number) => void (t = ms),
    advance: (ms: number) => void (t += ms),
  };
}
