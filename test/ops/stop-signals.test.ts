// The meaning of a repeated stop signal (server/ops/stop-signals.ts, README "The drain"): one stop
// delivered twice drains; a person pressing Ctrl-C again exits.
import { describe, expect, it } from 'vitest';
import { REPEAT_WINDOW_MS, stopSignals } from '../../server/ops/stop-signals.ts';

describe('stop signals', () => {
  it('drains on the first signal, whichever it is', () => {
    expect(stopSignals().receive('SIGTERM', 0)).toBe('drain');
    expect(stopSignals().receive('SIGINT', 0)).toBe('drain');
  });

  it('never cuts the drain short on a repeated SIGTERM, however late', () => {
    const s = stopSignals();
    s.receive('SIGTERM', 0);
    expect(s.receive('SIGTERM', 5)).toBe('ignore');
    expect(s.receive('SIGTERM', 60_000)).toBe('ignore');
  });

  it("takes a SIGINT relayed by npm right after the terminal's for the same keypress", () => {
    const s = stopSignals();
    s.receive('SIGINT', 100);
    expect(s.receive('SIGINT', 100 + REPEAT_WINDOW_MS - 1)).toBe('ignore');
  });

  it('exits on a SIGINT pressed again, also after a SIGTERM', () => {
    const s = stopSignals();
    s.receive('SIGINT', 0);
    expect(s.receive('SIGINT', REPEAT_WINDOW_MS)).toBe('exit');
    const t = stopSignals();
    t.receive('SIGTERM', 0);
    expect(t.receive('SIGINT', 10 * REPEAT_WINDOW_MS)).toBe('exit');
  });

  it('measures the window from the latest delivery, so the relay does not shorten a second press', () => {
    const s = stopSignals();
    s.receive('SIGINT', 0);
    s.receive('SIGINT', 10); // npm's relay
    expect(s.receive('SIGINT', 10 + REPEAT_WINDOW_MS - 1)).toBe('ignore');
  });
});
