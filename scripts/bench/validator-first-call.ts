// The validation step's first-request cost: every operation of the three documents called twice in
// one fresh process (in-process HTTP, the validator step alone behind the contract's routing), the
// first call building the operation's validator. Prints the first and second call of each
// operation, and the process CPU spent on all first calls. Usage:
//   npx tsx scripts/bench/validator-first-call.ts [--responses] [--warm] [--limit N]
// --warm: the production entry's warm-up (warmValidators) first, its CPU reported apart.
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Contract } from '../../server/contract/index.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { openApiValidator, warmValidators } from '../../server/http/validator.ts';

const args = process.argv.slice(2);
const validateResponses = args.includes('--responses');
const warm = args.includes('--warm');
const limitAt = args.indexOf('--limit');
const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : Infinity;

const contract = Contract.load();
const app = express();
app.use(express.json());
for (const api of ['partner', 'public', 'admin'] as const) {
  const surface = express.Router();
  surface.use(
    matchOperation(contract.of(api)),
    openApiValidator(contract.of(api), { validateResponses }),
    (_req, res) => void res.status(204).end(),
  );
  app.use((req, res, next) =>
    contract.of(api).match(req.method, req.path).kind === 'found' ? surface(req, res, next) : next(),
  );
}
app.use(errorHandler(() => {}));
const server = createServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const call = async (method: string, path: string): Promise<number> => {
  const started = performance.now();
  const res = await fetch(base + path, {
    method,
    ...(['POST', 'PUT', 'PATCH'].includes(method)
      ? { headers: { 'content-type': 'application/json' }, body: '{}' }
      : {}),
  });
  await res.arrayBuffer();
  return performance.now() - started;
};

const operations = contract.operations.slice(0, limit);
let warmCpu = 0;
if (warm) {
  const cpu = process.cpuUsage();
  await warmValidators();
  const used = process.cpuUsage(cpu);
  warmCpu = (used.user + used.system) / 1000;
}
const rows: Array<[string, number, number]> = [];
let firstCpu = 0;
for (const op of operations) {
  const path = op.path.replace(/\{[^}]+\}/g, 'x');
  const cpu = process.cpuUsage();
  const first = await call(op.method, path);
  const used = process.cpuUsage(cpu);
  firstCpu += (used.user + used.system) / 1000;
  rows.push([`${op.method} ${op.path}`, first, await call(op.method, path)]);
}
server.close();
for (const [name, first, second] of rows.slice(0, 12))
  console.log(`${first.toFixed(1).padStart(7)} ms first ${second.toFixed(1).padStart(6)} ms second  ${name}`);
const firsts = rows.map((r) => r[1]).sort((a, b) => a - b);
const seconds = rows.map((r) => r[2]).sort((a, b) => a - b);
const median = (xs: number[]): number => xs[Math.floor(xs.length / 2)] ?? NaN;
console.log(
  `${rows.length} operations (responses ${validateResponses ? 'on' : 'off'}): first call median ${median(firsts).toFixed(1)} ms, second ${median(seconds).toFixed(1)} ms; CPU for all first calls ${firstCpu.toFixed(0)} ms${warm ? `, for the warm-up before them ${warmCpu.toFixed(0)} ms` : ''}`,
);
