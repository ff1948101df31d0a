// Fuzz drill: schema-derived invalid requests to every operation of the partner and public
// documents, partner ones correctly signed, against a server in the sandbox profile (responses
// validated, so an answer outside the contract is a 500 and counted). Zero 5xx, zero crashes.
// Public operations that answer 500 "not available yet" are counted apart (the public surface
// may still be landing). Public calls rotate their loopback source address (127.0.0.2 to .254):
// the public rate limit counts per address and would otherwise answer most of them 429.
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { signFor, mint } from '../bench/lib/partner.ts';
import { Contract } from '../../server/contract/index.ts';
import { ROOT, spawnServer } from '../bench/lib/processes.ts';
import { fuzzRequest, operationsOf, seededRandom, type FuzzOperation, type FuzzRequest } from './fuzz-inputs.ts';
import { timed, type DrillOptions, type DrillResult } from './lib.ts';

interface Answer {
  status: number;
  body: string;
}

const ADDRESSES = Array.from({ length: 253 }, (_, i) => `127.0.0.${i + 2}`);
const OVERSIZED = 1024 * 1024 + 4096;
/** Node's default --max-http-header-size (request line and headers). */
const MAX_HEADER_BYTES = 16 * 1024;

function send(url: URL, req: FuzzRequest, agent: Agent, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.target,
        headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
        agent,
        ...(localAddress ? { localAddress } : {}),
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, 400) }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('timed out after 15 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

export async function fuzzDrill(o: DrillOptions & { requests: number; seed: number }): Promise<DrillResult> {
  return timed('fuzz', async (checks, figures) => {
    const server = await spawnServer({ validateResponses: true });
    let exited: string | undefined;
    server.child.once('exit', (code, signal) => {
      exited = `server exited (${code ?? signal}) during the fuzz:\n${server.output().slice(-2000)}`;
    });
    try {
      const credential = await mint(server.url);
      const url = new URL(server.url);
      const contract = Contract.load(join(ROOT, 'generated'));
      const documents = { partner: contract.partner.document, public: contract.public.document };
      const ops: Array<{ surface: 'partner' | 'public'; op: FuzzOperation }> = [
        ...operationsOf(contract.partner).map((op) => ({ surface: 'partner' as const, op })),
        ...operationsOf(contract.public).map((op) => ({ surface: 'public' as const, op })),
      ];
      figures.operations = {
        partner: ops.filter((x) => x.surface === 'partner').length,
        public: ops.filter((x) => x.surface === 'public').length,
      };
      const random = seededRandom(o.seed);
      const agents = new Map<string, Agent>();
      const agentFor = (address: string) => {
        let a = agents.get(address);
        // Public calls rotate over 253 addresses, so their sockets would sit idle past the server's
        // 5 s keep-alive and race its close: a connection per call instead.
        if (!a) agents.set(address, (a = new Agent({ keepAlive: address === 'partner', maxSockets: 4 })));
        return a;
      };
      const statuses: Record<string, number> = {};
      const perOperation: Record<string, Record<string, number>> = {};
      const fiveHundreds: string[] = [];
      const notAvailableYet = new Map<string, number>();
      const networkErrors: string[] = [];
      let cutOff = 0;
      let headerLimitCutOff = 0;
      let next = 0;
      let sent = 0;
      const started = Date.now();

      const one = async () => {
        const { surface, op } = ops[Math.floor(random() * ops.length)] as (typeof ops)[number];
        const req = fuzzRequest(documents[surface], op, random);
        const oversized = op.body !== undefined && random() < 0.01;
        if (oversized) {
          req.body = Buffer.alloc(OVERSIZED, 0x61);
          req.headers['content-type'] = op.body?.contentTypes[0] ?? 'application/json';
          req.mutation = `body of ${OVERSIZED} bytes`;
        }
        let address: string | undefined;
        if (surface === 'partner') {
          try {
            Object.assign(req.headers, signFor(credential, req.method, req.target, req.body ?? ''));
          } catch {
            // A query the protocol cannot canonicalise is refused before any signature is read.
            Object.assign(req.headers, {
              'X-Service-Key-Id': credential.keyId,
              'X-Service-Timestamp': String(Math.floor(Date.now() / 1000)),
              'X-Service-Nonce': `n${sent}`,
              'X-Service-Signature': 'v1=00',
            });
          }
        } else {
          address = ADDRESSES[sent % ADDRESSES.length];
          if (random() < 0.1) req.headers.authorization = 'Bearer not-a-real-token';
        }
        sent++;
        const label = `${surface} ${op.operationId} (${req.mutation})`;
        try {
          const answer = await send(url, req, agentFor(address ?? 'partner'), address);
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          const per = (perOperation[`${surface} ${op.operationId}`] ??= {});
          per[answer.status] = (per[answer.status] ?? 0) + 1;
          if (answer.status >= 500) {
            if (surface === 'public' && answer.status === 500 && /not available/i.test(answer.body)) {
              notAvailableYet.set(op.operationId, (notAvailableYet.get(op.operationId) ?? 0) + 1);
            } else if (fiveHundreds.length < 50)
              fiveHundreds.push(
                `${answer.status} ${req.method} ${req.target.slice(0, 160)} ${label}: ${answer.body.slice(0, 200)}`,
              );
            else fiveHundreds.push('…');
          }
        } catch (err) {
          // The server may cut an oversized upload off mid-send, and Node cuts off a request line
          // and headers beyond its 16 KiB limit (answering 431 or resetting): the limits working.
          const headBytes =
            req.target.length + Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
          if (oversized) cutOff++;
          else if (headBytes > MAX_HEADER_BYTES) headerLimitCutOff++;
          else networkErrors.push(`${label}: ${(err as Error).message}`);
        }
      };
      const workers = Array.from({ length: 16 }, async () => {
        while (next < o.requests && !exited) {
          next++;
          await one();
        }
      });
      await Promise.all(workers);
      for (const a of agents.values()) a.destroy();

      const alive = exited
        ? undefined
        : await fetch(`${server.url}/api/partner/v1/availability?domain=fuzz.com`, {
            headers: signFor(credential, 'GET', '/api/partner/v1/availability?domain=fuzz.com'),
          });
      const fiveXX = Object.entries(statuses).reduce((n, [s, c]) => n + (Number(s) >= 500 ? c : 0), 0);
      const notYet = [...notAvailableYet.values()].reduce((a, b) => a + b, 0);
      Object.assign(figures, {
        requests: sent,
        seconds: (Date.now() - started) / 1000,
        statuses,
        fiveXX: fiveXX - notYet,
        publicNotAvailableYet: Object.fromEntries(notAvailableYet),
        publicNotAvailableYetTotal: notYet,
        oversizedCutOffMidUpload: cutOff,
        headerLimitCutOff,
        networkErrors: networkErrors.length,
        perOperation,
      });
      checks.expect(!exited, exited ?? '');
      checks.expect(sent >= o.requests, `only ${sent} of ${o.requests} requests were sent`);
      checks.expect(
        fiveXX - notYet === 0,
        `${fiveXX - notYet} answers were 5xx:\n  ${fiveHundreds.slice(0, 20).join('\n  ')}`,
      );
      checks.expect(
        networkErrors.length === 0,
        `${networkErrors.length} requests failed without an answer:\n  ${networkErrors.slice(0, 10).join('\n  ')}`,
      );
      checks.expect(
        alive?.status === 200,
        `after the fuzz the server answered a valid request with ${alive?.status ?? 'nothing'}`,
      );
      if (notYet > 0)
        o.log(
          `  fuzz: ${notYet} public answers were 500 "not available yet" (${[...notAvailableYet.keys()].join(', ')})`,
        );
    } finally {
      await server.stop();
    }
  });
}
