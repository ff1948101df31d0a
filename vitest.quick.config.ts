// `npm run test:quick`: the edit-run loop's subset. Everything but the files that are slow for
// what they are, each of which stays in `npm test` (and CI): real processes started and stopped
// (npm start, the drain, the banner, the sandbox under npx, the packaging check), a headless
// browser, the peer languages and tools (the six reference signers, Python's authlib and
// Prometheus parser, the MCP SDKs, Inspector and conformance suite, Redocly's diff and the
// gate's case list), the whole conformance suite run against a server or a faulty proxy, timing
// measurements, and the plan check on large tables. Without DATABASE_URL the PostgreSQL legs of
// the storage tests skip as well (they say so). README "Tests" has the times.
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

export const SLOW = [
  'test/browser/**',
  'test/packages/**',
  'test/mcp/conformance-suite.test.ts',
  'test/mcp/interop-*.test.ts',
  'test/protocol/python-reference.test.ts',
  'test/oauth/authlib.test.ts',
  'test/ops/metrics-peer.test.ts',
  'test/ops/drain.test.ts',
  'test/ops/npm-start.test.ts',
  'test/ops/sandbox-npx.test.ts',
  'test/ops/banner.test.ts',
  'test/conformance/reference-server.test.ts',
  'test/conformance/proof-of-power.test.ts',
  'test/conformance/faulty-proxy.test.ts',
  'test/conformance/public-faulty-proxy.test.ts',
  'test/conformance/baseline.test.ts',
  'test/conformance/bundle.test.ts',
  'test/contract/contract-diff.test.ts',
  'test/contract/gate-cases.test.ts',
  'test/signing-languages/**',
  'test/conformance/teardown.test.ts',
  'test/conformance/concurrent-sales.test.ts',
  'test/security/key-id-timing.test.ts',
  'test/server/plans.test.ts',
  'test/server/pg-idle-error.test.ts',
];

export default mergeConfig(base, defineConfig({ test: { exclude: [...configDefaults.exclude, ...SLOW] } }));
