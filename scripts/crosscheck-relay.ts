// The two small relays around `prism proxy` in the cross-check (scripts/crosscheck.ts): they
// carry through Prism what its forwarder (prism-http/dist/forwarder/index.js, 5.14.2) would
// otherwise lose, so the server answers the suite exactly as it answers it directly, and Prism
// validates those answers:
//
//   suite ──▶ front relay ──▶ prism proxy <document> ──▶ back relay ──▶ reference server
//
//  - the client's address: the public surface counts its rate limit per client IP and the suite
//    acts as many clients (127.0.0.2-254, conformance/clients.ts); Prism connects from one
//    address. The front relay names the caller's address in a header, the back relay connects to
//    the server from that address.
//  - `Host`: Prism drops it (the server would see the back relay's address and build its issuer,
//    links and redirects on it). The front relay names it, the back relay sets it again.
//  - headers the caller did not send: Prism adds `accept`, `accept-encoding` and `user-agent`
//    when absent, which would change the server's content negotiation; the back relay removes
//    the ones the front relay says were absent.
//  - redirects: Prism's forwarder fetches upstream with node-fetch's default `redirect: follow`,
//    so it would validate the page a 3xx points to instead of the 3xx. The back relay hands Prism
//    a 3xx with its `Location` renamed (node-fetch follows only a 3xx that has one) and the front
//    relay renames it back; the violation that causes (a documented `Location` missing) is the
//    relay's own doing and is reported apart (see `relocated`).
//
// The front relay also records every exchange with Prism's `sl-violations` header, whoever sent
// it (the suite's recorders fetch in different ways: bound sockets, global fetch).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const CLIENT = 'x-crosscheck-client';
const HOST = 'x-crosscheck-host';
const ABSENT = 'x-crosscheck-absent';
const LOCATION = 'x-crosscheck-location';
/** The headers Prism's forwarder fills in when the request has none. */
const FILLED_BY_PRISM = ['accept', 'accept-encoding', 'user-agent'];

export interface RelayedExchange {
  method: string;
  /** The URL as the caller sent it to the front relay. */
  url: string;
  requestHeaders: http.IncomingHttpHeaders;
  status: number;
  /** Prism's `sl-violations` header, when it sent one. */
  violations: string | null;
  /** The answer was a 3xx whose `Location` was hidden from Prism (see above). */
  relocated: boolean;
}

export interface Relay {
  url: string;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closer(server: http.Server, agents: Iterable<http.Agent>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const agent of agents) agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads the whole request, then relays it. A caller that goes away before its body is complete
 * (the suite's raw checks announce bodies they never send) has nothing to relay: its socket is
 * closed, and nothing is left rejected.
 */
function whenRead(req: http.IncomingMessage, res: http.ServerResponse, relay: (body: Buffer) => void): void {
  bodyOf(req).then(relay, () => res.destroy());
}

/** Sends one request on and pipes the answer back through `answer`, which may edit its headers. */
function pass(
  target: URL,
  req: http.IncomingMessage,
  body: Buffer,
  headers: http.OutgoingHttpHeaders,
  options: { agent: http.Agent; localAddress?: string },
  answer: (upstream: http.IncomingMessage) => http.OutgoingHttpHeaders,
  res: http.ServerResponse,
): void {
  const out = http.request(
    {
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...headers, 'content-length': String(body.length) },
      agent: options.agent,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    },
    (upstream) => {
      const edited = answer(upstream);
      res.writeHead(upstream.statusCode ?? 502, upstream.statusMessage, edited);
      upstream.pipe(res);
    },
  );
  out.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`relay: ${err.message}`);
  });
  if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(req.method ?? 'GET')) out.end(body);
  else out.end();
}

/** What the caller sent, minus hop-by-hop headers. */
function forwardable(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)) continue;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The front relay: the suite's base URL; sends everything to Prism and records what Prism says. */
export async function startFrontRelay(prismUrl: string, record: (exchange: RelayedExchange) => void): Promise<Relay> {
  const target = new URL(prismUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const server = http.createServer((req, res) => {
    whenRead(req, res, (body) => {
      const headers = forwardable(req.headers);
      const absent = FILLED_BY_PRISM.filter((h) => req.headers[h] === undefined);
      headers[CLIENT] = req.socket.remoteAddress ?? '';
      if (req.headers.host !== undefined) headers[HOST] = req.headers.host;
      if (absent.length > 0) headers[ABSENT] = absent.join(',');
      pass(
        target,
        req,
        body,
        headers,
        { agent },
        (upstream) => {
          const edited = { ...upstream.headers };
          const hidden = edited[LOCATION];
          if (hidden !== undefined) {
            edited.location = String(hidden);
            delete edited[LOCATION];
          }
          const violations = upstream.headers['sl-violations'];
          record({
            method: (req.method ?? 'GET').toUpperCase(),
            url: `http://${req.headers.host ?? target.host}${req.url ?? '/'}`,
            requestHeaders: req.headers,
            status: upstream.statusCode ?? 0,
            violations: typeof violations === 'string' ? violations : null,
            relocated: hidden !== undefined,
          });
          return edited;
        },
        res,
      );
    });
  });
  return { url: await listen(server), close: closer(server, [agent]) };
}

/** The back relay: Prism's upstream; restores what Prism lost and sends the request to the server. */
export async function startBackRelay(serverUrl: string): Promise<Relay> {
  const target = new URL(serverUrl);
  const agents = new Map<string, http.Agent>();
  const agentFor = (address: string) => {
    let agent = agents.get(address);
    if (!agent) agents.set(address, (agent = new http.Agent({ keepAlive: true, maxSockets: 8 })));
    return agent;
  };
  const server = http.createServer((req, res) => {
    whenRead(req, res, (body) => {
      const headers = forwardable(req.headers);
      const client = String(req.headers[CLIENT] ?? '').replace(/^::ffff:/, '');
      const host = req.headers[HOST];
      const absent = String(req.headers[ABSENT] ?? '')
        .split(',')
        .filter(Boolean);
      for (const name of [CLIENT, HOST, ABSENT, ...absent]) delete headers[name];
      if (typeof host === 'string') headers.host = host;
      // Only a loopback address of this machine can be a connection's source here.
      const localAddress = /^127\.\d+\.\d+\.\d+$/.test(client) ? client : undefined;
      pass(
        target,
        req,
        body,
        headers,
        { agent: agentFor(localAddress ?? ''), ...(localAddress ? { localAddress } : {}) },
        (upstream) => {
          const edited = { ...upstream.headers };
          const status = upstream.statusCode ?? 0;
          if (status >= 300 && status < 400 && edited.location !== undefined) {
            edited[LOCATION] = edited.location;
            delete edited.location;
          }
          return edited;
        },
        res,
      );
    });
  });
  return { url: await listen(server), close: closer(server, agents.values()) };
}
