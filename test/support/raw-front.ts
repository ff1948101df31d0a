// A TCP front for the faulty-proxy tests' HTTP proxies: the requests an HTTP-level proxy built on
// node:http cannot relay as sent (a request line naming HTTP/2.0, CONNECT, any `Expect`: Node's
// server answers or swallows those itself) go straight to the server, byte for byte; every other
// connection goes to the proxy behind. With a fault, the front is instead a gateway that answers
// those requests its own way (`x-protocol-refusals` broken outside the server).
//
// The connection onwards leaves from the client's own loopback address, as the proxies' upstream
// requests do, so the server still tells the suite's clients apart (the public rate limit is per IP).
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What a faulty front does with a request it reads: answer it itself, or pass an edited header block on. */
export type FrontAction = { answer: string; keepOpen?: boolean } | { rewrite: string };
/** A fault: its action on a request's header block (the request line first), or undefined to relay it honestly. */
export type FrontFault = (head: string) => FrontAction | undefined;

const MAX_HEAD = 64 * 1024;

/** Whether a node:http proxy cannot relay the request as sent (see the top of this file). */
function beyondHttpProxy(head: string): boolean {
  const [line = ''] = head.split('\r\n', 1);
  const [method = '', , version = ''] = line.split(' ');
  return method === 'CONNECT' || !/^HTTP\/1\.[01]$/.test(version) || /\r\nexpect:/i.test(head);
}

export async function startRawFront(
  proxyUrl: string,
  serverUrl: string,
  fault?: FrontFault,
): Promise<{ url: string; close(): Promise<void> }> {
  const proxy = new URL(proxyUrl);
  const server = new URL(serverUrl);
  const sockets = new Set<Socket>();
  const front = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0 && buffered.length < MAX_HEAD) return;
      client.off('data', onData);
      client.pause();
      const head = buffered.subarray(0, end < 0 ? buffered.length : end + 4).toString('latin1');
      const rest = buffered.subarray(end < 0 ? buffered.length : end + 4);
      const action = end < 0 ? undefined : fault?.(head);
      if (action && 'answer' in action) {
        if (action.keepOpen) client.write(action.answer);
        else client.end(action.answer);
        return;
      }
      const sent = action && 'rewrite' in action ? action.rewrite : head;
      const to = beyondHttpProxy(sent) ? server : proxy;
      const from = client.remoteAddress?.replace(/^::ffff:/, '');
      const onward = connect({
        host: to.hostname,
        port: Number(to.port),
        ...(from?.startsWith('127.') ? { localAddress: from } : {}),
      });
      sockets.add(onward);
      onward.on('close', () => sockets.delete(onward));
      onward.on('error', () => client.destroy());
      onward.write(Buffer.concat([Buffer.from(sent, 'latin1'), rest]));
      client.pipe(onward);
      onward.pipe(client);
      client.resume();
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/**
 * A gateway that answers the requests of `x-protocol-refusals` its own way, as a careless front
 * does: HTTP/2.0 gets its HTML 400 page, CONNECT a tunnel's 200, an unknown `Expect` is dropped
 * and the request passed on, and `Expect: 100-continue` gets the gateway's own `100 Continue`
 * whatever the Content-Length (it buffers every body before asking the server).
 */
export const carelessGateway: FrontFault = (head) => {
  const [line = ''] = head.split('\r\n', 1);
  const [method = '', , version = ''] = line.split(' ');
  if (method === 'CONNECT') return { answer: 'HTTP/1.1 200 Connection Established\r\n\r\n' };
  if (!/^HTTP\/1\.[01]$/.test(version)) {
    const page = '<html><body><h1>400 Bad Request</h1></body></html>';
    return {
      answer: `HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\nConnection: close\r\n\r\n${page}`,
    };
  }
  const expect = /\r\nexpect:\s*([^\r]*)/i.exec(head)?.[1]?.trim();
  if (expect === undefined) return undefined;
  if (expect.toLowerCase() === '100-continue') return { answer: 'HTTP/1.1 100 Continue\r\n\r\n', keepOpen: true };
  return { rewrite: head.replace(/\r\nexpect:[^\r]*/i, '') };
};
