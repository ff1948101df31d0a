// An HTTP request sent from a chosen local address: the throttling tests stand for many clients
// (127.0.0.0/8 is all loopback, so every address in it reaches the server on this machine).
import { request, type IncomingHttpHeaders } from 'node:http';

export interface FromAddress {
  method: string;
  path: string;
  /** The source address, in 127.0.0.0/8. */
  address: string;
  headers?: Record<string, string | number>;
  body?: string;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

let sent = 0;
/**
 * A loopback source address this process has not handed out before: one per simulated browser,
 * so the public surface's per-address window (`x-rate-limit` class `public`, `per: caller`)
 * belongs to that browser alone and a test's total number of pages never meets its quota.
 */
export function freshLoopbackAddress(): string {
  const n = sent++;
  return `127.${200 + (Math.floor(n / (254 * 256)) % 50)}.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

/** Sends one request to `baseUrl` on a connection of its own, from `o.address`. */
export function requestFrom(baseUrl: string, o: FromAddress): Promise<Reply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: o.method,
        path: o.path,
        localAddress: o.address,
        agent: false,
        headers: o.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}
