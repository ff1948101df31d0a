// ESLint flat config: typescript-eslint's recommended rules, plus the type-aware rules that catch
// real bugs in an async server (a promise nobody awaits, a promise handed where a callback's result
// is ignored, awaiting a non-promise). Formatting is Prettier's job; eslint-config-prettier turns
// off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['generated/**', 'node_modules/**', 'docs-build/**', '**/dist/**', 'data/**', 'coverage/**', '.tmp/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        Headers: 'readonly',
        Response: 'readonly',
        URLSearchParams: 'readonly',
        DOMException: 'readonly',
      },
    },
  },
  {
    // The signed request's path, run for every request: on Node 20 an object literal that spreads
    // another and then adds properties takes V8's slow path, about 0.6 to 2 µs an object; one
    // such object made per request cost the signed GET a tenth of its throughput (bench/README.md,
    // "Figures behind design choices"). Properties first and the spread last, or written out.
    files: [
      'client/protocol/*.ts',
      'server/http/*.ts',
      'server/ops/access-log.ts',
      'server/ops/bucket-histogram.ts',
      'server/ops/metrics.ts',
      'server/partner/context.ts',
      'server/partner/router.ts',
      'server/store/credentials.ts',
      'server/store/direct.ts',
      'server/store/listing-reservation.ts',
      'server/store/nonce-ledger.ts',
      'server/store/prepared.ts',
      'server/store/replay-guard.ts',
      'server/store/row-cache.ts',
      'server/store/steps.ts',
    ],
    // Built once, at start-up.
    ignores: ['server/http/express-server.ts', 'server/http/validator.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement ~ Property',
          message:
            'A spread followed by more properties is slow on this path (bench/README.md): put the properties first, or write the object out.',
        },
      ],
    },
  },
  {
    // Tests read loosely typed JSON bodies; `any` stays out of the modules they test.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
