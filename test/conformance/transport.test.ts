// The kit's one transport (conformance/bundle/transport.mjs): a request whose connection fails
// before any byte of its answer is sent once more when its method is idempotent, or, whatever
// the method, when it went out on a reused kept-alive socket (the idle-close race of RFC 9112
// §9.5); never otherwise. A server that closes the connection under chosen requests plays the
// deployment.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport, resendable, type TransportFailure } from '../../conformance/bundle/transport.mjs';
import { HttpRecorder } from '../../conformance/http.ts';

type Behaviour = 'answer' | 'close' | 'close-after-status-line';

/** A server that treats the nth request it receives (1-based, over all connections) as `plan` says. */
async function serverWith(plan: (n: number) => Behaviour): Promise<{ url: string; received: () => number }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    const behaviour = plan(++n);
    req.resume();
    req.on('end', () => {
      if (behaviour === 'close') req.socket.destroy();
      else if (behaviour === 'close-after-status-line') {
        req.socket.write('HTTP/1.1 200 OK\r\n');
        setTimeout(() => req.socket.destroy(), 20);
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer ${n}`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, received: () => n };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

describe('resendable (the rule)', () => {
  const failure = (over: Partial<TransportFailure>): TransportFailure => ({
    code: 'ECONNRESET',
    reusedSocket: false,
    answerBytes: 0,
    ...over,
  });
  it('idempotent methods: any broken connection before a byte of the answer', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) {
      expect(resendable(method, failure({}))).toBe(true);
      expect(resendable(method, failure({ code: 'EPIPE' }))).toBe(true);
    }
  });
  it('non-idempotent methods: only on a reused socket, reset or closed before a byte of the answer', () => {
    for (const method of ['POST', 'PATCH']) {
      expect(resendable(method, failure({ reusedSocket: true }))).toBe(true);
      expect(resendable(method, failure({ reusedSocket: true, code: 'EPIPE' }))).toBe(true);
      expect(resendable(method, failure({}))).toBe(false);
      expect(resendable(method, failure({ reusedSocket: true, code: 'ECONNABORTED' }))).toBe(false);
    }
  });
  it('never after a byte of the answer, nor for a refused connection or a timeout', () => {
    expect(resendable('GET', failure({ answerBytes: 1 }))).toBe(false);
    expect(resendable('POST', failure({ reusedSocket: true, answerBytes: 17 }))).toBe(false);
    expect(resendable('GET', failure({ code: 'ECONNREFUSED' }))).toBe(false);
    expect(resendable('GET', failure({ code: 'ETIMEDOUT' }))).toBe(false);
  });
});

describe('the transport', () => {
  it('a POST on a kept-alive socket the server closes as the request arrives is sent once more, on a new connection', async () => {
    const server = await serverWith((n) => (n === 2 ? 'close' : 'answer'));
    const resent: TransportFailure[] = [];
    const transport = createTransport({ onResend: (_m, _u, f) => resent.push(f) });
    expect(await (await transport(server.url, { method: 'POST', body: '{}' })).text()).toBe('answer 1');
    const second = await transport(server.url, { method: 'POST', body: '{"a":1}' });
    expect(await second.text()).toBe('answer 3');
    expect(server.received()).toBe(3);
    expect(resent).toEqual([{ code: 'ECONNRESET', reusedSocket: true, answerBytes: 0 }]);
    transport.close();
  });

  it('a POST whose new connection is closed before the answer is not sent again: the failure reaches the caller', async () => {
    const server = await serverWith(() => 'close');
    const transport = createTransport();
    await expect(transport(server.url, { method: 'POST', body: '{}' })).rejects.toThrow(/fetch failed/);
    expect(server.received()).toBe(1);
    transport.close();
  });

  it('a POST on a reused socket closed after part of the answer is not sent again', async () => {
    const server = await serverWith((n) => (n === 2 ? 'close-after-status-line' : 'answer'));
    const transport = createTransport();
    await transport(server.url, { method: 'POST', body: '{}' });
    await expect(transport(server.url, { method: 'POST', body: '{}' })).rejects.toThrow(/fetch failed/);
    expect(server.received()).toBe(2);
    transport.close();
  });

  it('a GET is sent once more after a broken new connection, and only once', async () => {
    const twice = await serverWith((n) => (n === 1 ? 'close' : 'answer'));
    const transport = createTransport();
    expect(await (await transport(twice.url)).text()).toBe('answer 2');
    const never = await serverWith(() => 'close');
    await expect(transport(never.url)).rejects.toThrow(/fetch failed/);
    expect(never.received()).toBe(2);
    transport.close();
  });

  it("the recorder's requests (partner, bearer, operator) go through it, and the resend is logged", async () => {
    const server = await serverWith((n) => (n === 2 ? 'close' : 'answer'));
    const origin = server.url.replace(/\/x$/, '');
    const lines: string[] = [];
    const http = new HttpRecorder(origin, undefined, (line) => lines.push(line));
    await http.send({ method: 'POST', target: '/api/partner/v1/quotes', body: '{}' });
    const second = await http.send({ method: 'POST', target: '/api/partner/v1/quotes', body: '{}' });
    expect(second.status).toBe(200);
    expect(second.responseBody).toBe('answer 3');
    expect(lines.join('\n')).toMatch(
      /sent once more: the connection failed \(ECONNRESET on a reused kept-alive socket\)/,
    );
    http.close();
  });
});
