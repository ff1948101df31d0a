// The ceiling of the server's own stack: Express 5, routing by the contract index and
// express-openapi-validator over the matched operation (requests validated, as in the production
// profile), answering GET /availability with a fixed JSON body: no signature, no store, no rate
// limit. What the reference server adds to
// this is the cost of the partner protocol itself. `READY <url>` on stdout once it listens.
import express from 'express';
import { Contract } from '../../server/contract/index.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { openApiValidator } from '../../server/http/validator.ts';
import { listenForBench } from './lib/stack-server.ts';

const body: unknown = JSON.parse(process.env.BARE_BODY ?? '{}');
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const contract = Contract.load().partner;
app.use(matchOperation(contract), openApiValidator(contract, { validateResponses: false }));
app.get('/api/partner/v1/availability', (_req, res) => void res.json(body));
listenForBench(app);
