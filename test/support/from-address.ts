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
