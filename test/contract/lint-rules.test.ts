// The project's lint rules (plugins/contract-rules.js) must reject what they exist to reject.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);
let dir = '';

const config = `
extends: [recommended]
telemetry: off
plugins:
  - ${join(ROOT, 'plugins', 'contract-rules.js')}
rules:
  contract/tagged: error
  contract/error-response: error
  contract/x-scopes: { severity: error, allowed: [search, buy] }
  contract/x-rate-limit: { severity: error, allowed: [search, write, reporting] }
  contract/integer-maximum: error
`;

const doc = (op: string) => `openapi: 3.1.0
info: { title: t, version: '1', license: { name: MIT, identifier: MIT } }
servers: [{ url: 'https://api.example.com' }]
security: []
paths:
  /x:
    get:
${op}
components:
  schemas:
    Error: { type: object, required: [code, message], properties: { code: { type: string }, message: { type: string } } }
`;

const good = `      operationId: getX
      summary: Get x
      tags: [X]
      x-scopes: [search]
      x-rate-limit: search
      responses:
        '200': { description: ok }
        '400':
          description: bad
          content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } }`;

async function ruleIds(operation: string): Promise<string[]> {
  const file = join(dir, `doc-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, doc(operation));
  const args = ['lint', file, '--config', join(dir, 'redocly.yaml'), '--format=json'];
  let stdout: string;
  try {
    ({ stdout } = await run(join(ROOT, 'node_modules', '.bin', 'redocly'), args, { cwd: dir }));
  } catch (err) {
    stdout = (err as { stdout: string }).stdout;
  }
  const report = JSON.parse(stdout) as { problems: Array<{ ruleId: string }> };
  return report.problems.map((p) => p.ruleId).filter((id) => id.startsWith('contract/'));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lint-rules-'));
  await writeFile(join(dir, 'redocly.yaml'), config);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('contract lint rules', () => {
  it('pass a conforming operation', async () => {
    expect(await ruleIds(good)).toEqual([]);
  });
  it('reject a scope outside the allowed set', async () => {
    expect(await ruleIds(good.replace('x-scopes: [search]', 'x-scopes: [admin]'))).toEqual(['contract/x-scopes']);
  });
  it('reject a missing rate-limit class', async () => {
    expect(await ruleIds(good.replace('      x-rate-limit: search\n', ''))).toEqual(['contract/x-rate-limit']);
  });
  it('reject an operation without tags', async () => {
    expect(await ruleIds(good.replace('tags: [X]', 'tags: []'))).toEqual(['contract/tagged']);
  });
  it('reject an operation whose 4xx does not use the Error schema', async () => {
    const inline = good.replace("{ $ref: '#/components/schemas/Error' }", '{ type: object }');
    expect(await ruleIds(inline)).toEqual(['contract/error-response']);
  });
  const withInteger = (schema: string, where: 'query' | 'body') =>
    where === 'query'
      ? good.replace(
          '      responses:',
          `      parameters:\n        - { name: n, in: query, schema: ${schema} }\n      responses:`,
        )
      : good.replace(
          '      responses:',
          `      requestBody:\n        content:\n          application/json:\n            schema: { type: object, properties: { a: { type: array, items: { type: object, properties: { budget: ${schema} } } } } }\n      responses:`,
        );
  it('reject an integer of a request without a maximum, or one above 2^53 - 1, in a parameter or deep in a body', async () => {
    for (const where of ['query', 'body'] as const) {
      expect(await ruleIds(withInteger('{ type: integer, minimum: 1 }', where)), where).toEqual([
        'contract/integer-maximum',
      ]);
      expect(await ruleIds(withInteger('{ type: integer, maximum: 9007199254740992 }', where)), where).toEqual([
        'contract/integer-maximum',
      ]);
      expect(await ruleIds(withInteger('{ type: integer, maximum: 9007199254740991 }', where)), where).toEqual([]);
    }
  });
}, 30_000);
