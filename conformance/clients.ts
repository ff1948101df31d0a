// Several clients on one machine. The public surface counts its rate limit per client IP (60 per
// 60 s, the public document's x-rate-limit-classes), so one address running the whole public suite would spend most of the run
// waiting for windows to reset. Against a deployment on this machine's loopback network the suite
// acts as many clients instead: every address of 127.0.0.0/8 is this host on Linux, so binding a
// connection's source to 127.0.0.N makes the server see client N, with a window of its own. The
// limits are still honoured per client (the recorder waits when one client's window is spent and
// no other is free); the checks of the rate limit itself pin one client. Remote deployments get
// one client, the machine's own address.
import http from 'node:http';
import { connect } from 'node:net';

/** A fetch that connects from a given local address (plain HTTP only). */
export function boundFetch(localAddress: string, agent: http.Agent): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.protocol !== 'http:') throw new Error(`a bound client speaks plain HTTP only, not ${url.protocol}`);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = await bodyBytes(init?.body);
    if (body !== undefined) headers['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          hostname: url.hostname,
          port: url.port || 80,
          path: `${url.pathname}${url.search}`,
          method: init?.method ?? 'GET',
          headers,
          localAddress,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const out = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value === undefined) continue;
              for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
            }
            const status = res.statusCode ?? 500;
            const nullBody = status === 204 || status === 205 || status === 304 || status < 200;
            resolve(
              new Response(nullBody ? null : Buffer.concat(chunks), {
                status: status < 200 ? 500 : status,
                statusText: res.statusMessage ?? '',
                headers: out,
              }),
            );
          });
        },
      );
      // Node's documented pattern: a reused keep-alive socket the server closed as idle fails
      // with ECONNRESET before the request was read; marked, so the caller can send it again.
      req.on('error', (err: Error & { code?: string; staleSocket?: boolean }) => {
        if (req.reusedSocket && err.code === 'ECONNRESET') err.staleSocket = true;
        reject(err);
      });
      init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end(body);
    });
  };
}

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** The client addresses of a run: one (the default route) unless the deployment is on loopback. */
export class ClientPool {
  private readonly agents = new Map<string, http.Agent>();
  private readonly fetches = new Map<string, typeof fetch>();
  private handedOut = 0;

  private constructor(readonly addresses: string[]) {}

  static single(): ClientPool {
    return new ClientPool([]);
  }

  /**
   * 127.0.0.2 to 127.0.0.254 when the base URL is plain HTTP on 127.0.0.0/8 and a connection from
   * 127.0.0.2 to it succeeds (Linux routes the whole block to loopback; other systems may not).
   */
  static async forBaseUrl(baseUrl: string): Promise<ClientPool> {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' || !/^127\.\d+\.\d+\.\d+$/.test(url.hostname)) return ClientPool.single();
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port || 80), localAddress: '127.0.0.2' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (!ok) return ClientPool.single();
    return new ClientPool(Array.from({ length: 253 }, (_, i) => `127.0.0.${i + 2}`));
  }

  get size(): number {
    return this.addresses.length;
  }

  /**
   * A client no check has used yet (its windows are untouched), or undefined when none is left.
   * Fresh clients come from the upper half of the block; the recorder rotates through the lower.
   */
  fresh(): string | undefined {
    const half = Math.floor(this.addresses.length / 2);
    if (this.handedOut >= this.addresses.length - half) return undefined;
    return this.addresses[this.addresses.length - 1 - this.handedOut++];
  }

  /** The addresses the recorder rotates through for requests that name no client. */
  shared(): string[] {
    return this.addresses.slice(0, Math.floor(this.addresses.length / 2));
  }

  fetchFrom(address: string): typeof fetch {
    let f = this.fetches.get(address);
    if (!f) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      this.agents.set(address, agent);
      const pooled = boundFetch(address, agent);
      const fresh = boundFetch(address, new http.Agent({ keepAlive: false }));
      // A request that failed on a stale kept-alive socket never reached the server: sent once more on a new connection.
      f = async (input: string | URL | Request, init?: RequestInit) => {
        try {
          return await pooled(input, init);
        } catch (err) {
          if ((err as { staleSocket?: unknown }).staleSocket !== true) throw err;
          return fresh(input, init);
        }
      };
      this.fetches.set(address, f);
    }
    return f;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.fetches.clear();
  }
}
