import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The default summary, plus each failure printed when it happens (test/support/failures-now.ts).
    reporters: ['default', './test/support/failures-now.ts'],
  },
});
