// Patience (conformance/pacing.ts): waits for what a deployment does on its own time grow with
// the run's measured round trips, so a busy machine or a slow network waits longer instead of
// failing a healthy deployment.
import { describe, expect, it } from 'vitest';
import { patienceMs, slowRoundTripMs } from '../../conformance/pacing.ts';
import type { Exchange } from '../../conformance/http.ts';

const run = (ms: number[]) =>
  ({ http: { exchanges: ms.map((m) => ({ ms: m }) as Exchange) } }) as Parameters<typeof patienceMs>[0];

describe('patience', () => {
  it('the slow round trip is the 90th percentile of the run so far (a few outliers do not set it, a slow tenth does)', () => {
    expect(slowRoundTripMs([])).toBe(1);
    expect(slowRoundTripMs([{ ms: 0 }])).toBe(1);
    const quiet = Array.from({ length: 100 }, (_, i) => ({ ms: i < 85 ? 4 : 4000 }));
    expect(slowRoundTripMs(quiet)).toBe(4000);
    const mostlyQuiet = Array.from({ length: 100 }, (_, i) => ({ ms: i < 99 ? 4 : 4000 }));
    expect(slowRoundTripMs(mostlyQuiet)).toBe(4);
  });

  it("a wait is the base plus that many of the run's slow round trips: longer on a loaded run", () => {
    expect(patienceMs(run([5, 5, 5, 5]), 30_000, 200)).toBe(31_000);
    expect(patienceMs(run([300, 250, 400, 350]), 30_000, 200)).toBe(110_000);
    expect(patienceMs(run([]), 25_000, 50)).toBe(25_050);
  });
});
