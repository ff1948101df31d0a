// A language whose toolchain is missing fails; only a developer's explicit opt-out skips it, and
// never under CI (languages.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OPT_OUT_VARIABLE, optedOut } from './languages.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('SIGNING_LANGUAGES_OPTIONAL', () => {
  it('is off unless set: a missing toolchain fails', () => {
    vi.stubEnv('CI', '');
    vi.stubEnv(OPT_OUT_VARIABLE, '');
    expect(optedOut('java')).toBe(false);
  });

  it('opts out the languages it names, or all of them', () => {
    vi.stubEnv('CI', '');
    vi.stubEnv(OPT_OUT_VARIABLE, 'go, java');
    expect([optedOut('go'), optedOut('java'), optedOut('php')]).toEqual([true, true, false]);
    vi.stubEnv(OPT_OUT_VARIABLE, 'all');
    expect(optedOut('shell')).toBe(true);
  });

  it('is ignored under CI', () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv(OPT_OUT_VARIABLE, 'all');
    expect(optedOut('go')).toBe(false);
  });
});
