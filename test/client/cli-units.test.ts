// The CLI's pure parts: shell quoting (checked by a real /bin/sh), the facts read from a
// deployment's partner document (checked against the bundled contract), and raw HTTP messages.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contractFromDocument } from '../../client/cli/deployment-contract.ts';
import { parseHttpMessage } from '../../client/cli/http-message.ts';
import { shellQuote } from '../../client/cli/shell-quote.ts';
import { partnerDoc } from '../server/support/contract.ts';

const run = promisify(execFile);

describe('shellQuote', () => {
  it('gives back every string (no NUL) unchanged through /bin/sh', async () => {
    const words = fc.sample(
      fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
      { numRuns: 200, seed: 21 },
    );
    words.push("'", "''", '"$HOME"', '`id`', '\\', '\n', ' a b ', '~', '*', '-n', '', '!x', '$(id)', "it's");
    const script = `printf '%s\\0' ${words.map(shellQuote).join(' ')}`;
    const { stdout } = await run('/bin/sh', ['-c', script], { encoding: 'utf8' });
    expect(stdout.split('\0').slice(0, -1)).toEqual(words);
  });
});

describe('contractFromDocument', () => {
  it('reads the signing window and the delivery rules from the partner document', () => {
    const signing = partnerDoc['x-signing'] as { 'timestamp-skew-seconds': number };
    const delivery = partnerDoc['x-webhook-delivery'] as unknown as {
      'delivered-kinds': string[];
      'timeout-seconds': number;
    };
    expect(contractFromDocument(partnerDoc)).toEqual({
      skewSeconds: signing['timestamp-skew-seconds'],
      deliveredKinds: delivery['delivered-kinds'],
      deliveryTimeoutSeconds: delivery['timeout-seconds'],
      source: 'deployment',
    });
  });

  it('falls back per fact on a document without them', () => {
    expect(contractFromDocument({ 'x-signing': { 'timestamp-skew-seconds': 'soon' } })).toMatchObject({
      skewSeconds: 300,
      deliveredKinds: undefined,
      deliveryTimeoutSeconds: 5,
    });
    expect(contractFromDocument('not a document').source).toBe('built-in');
  });
});

describe('parseHttpMessage', () => {
  it('keeps the body bytes exactly and reads the headers, with CRLF or LF line ends', () => {
    const body = '{"a":"b"}\r\n\r\nmore';
    const crlf = parseHttpMessage(Buffer.from(`POST /x HTTP/1.1\r\nX-Service-Signature: abc\r\n\r\n${body}`));
    expect(crlf?.headers.get('x-service-signature')).toBe('abc');
    expect(crlf?.body.toString()).toBe(body);
    const lf = parseHttpMessage(Buffer.from('POST /x HTTP/1.1\nX-Service-Event-Id: evt_1\n\n{"a":1}\n'));
    expect(lf?.headers.get('x-service-event-id')).toBe('evt_1');
    expect(lf?.body.toString()).toBe('{"a":1}\n');
    expect(parseHttpMessage(Buffer.from('{"id":"evt_1"}'))).toBeUndefined();
  });
});
