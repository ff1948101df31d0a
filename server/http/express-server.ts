// An HTTP server for an Express app whose requests and responses are born with the app's
// prototypes (app.request, app.response) instead of being re-parented on arrival.
//
// Express 5 calls Object.setPrototypeOf on every req and res it handles (application.js,
// app.handle). V8 pays for that change of prototype on a live object long after it: far more
// young objects survive each scavenge, scavenges pause longer and a minimal Express app answers
// about half as many requests (figures: bench/README.md, "Figures behind design choices"); the
// reference server spent its time in V8 building shapes and looking up properties. With
// the prototype already in place, Express's call changes nothing: setting an object's prototype
// to the one it has returns at once (ECMA-262 OrdinarySetPrototypeOf, step 2).
import { IncomingMessage, ServerResponse, createServer, type Server, type ServerOptions } from 'node:http';
import type { Express } from 'express';

// An HTTP/1.1 request without Host reaches the app, which refuses it in the `Error` shape
// (message-checks.ts); Node's own answer to it is a bare 400 with no request id or log line.
const OPTIONS: ServerOptions = { requireHostHeader: false };

export function createExpressServer(app: Express, options: ServerOptions = {}): Server {
  const Request = bornWith(IncomingMessage, app.request);
  const Response = bornWith(ServerResponse, app.response);
  // Node's constructors are plain functions (Node 20); should one become a class, it cannot be
  // called on an object of ours, and the server is created as Express would create it.
  const server =
    !Request || !Response
      ? createServer({ ...OPTIONS, ...options }, app)
      : createServer({ ...OPTIONS, ...options, IncomingMessage: Request, ServerResponse: Response }, app);
  return answeringHalfClosedClients(server);
}

/**
 * A client may close its sending half once its request is written (`Connection: close`, then
 * `shutdown`; RFC 9112 §9.6 lets either side close; `nc -N` and hand-written clients do). By
 * default Node's HTTP server, on reading that FIN, ends the connection at once (`socketOnEnd` in
 * lib/_http_server.js, when `httpAllowHalfOpen` is false): an answer still being worked on, one
 * that waits on the store past a poll of the sockets, is then written to a closed socket and lost.
 * With `httpAllowHalfOpen` Node marks the last pending answer as the last, writes it, then ends
 * the connection; a half-closed connection with nothing pending is ended at once, as before. The
 * property is missing from Node's documentation but set by Node's own test suite
 * (test-http-server.js), and its removal was declined (nodejs/node#36819);
 * test/http/express-server.test.ts fails should it stop working.
 */
function answeringHalfClosedClients(server: Server): Server {
  return Object.assign(server, { httpAllowHalfOpen: true });
}

/**
 * A constructor for Node to call with `new`: the object it creates has `prototype` for its
 * prototype, and Node's constructor `node` runs on it. Undefined when `node` is a class (it cannot
 * run on an object it did not create). `Reflect.construct(node, args, F)` with `F.prototype =
 * prototype` would do the same for classes too, but V8 then built fresh shapes for every request.
 */
export function bornWith<C extends new (...args: never[]) => object>(node: C, prototype: object): C | undefined {
  if (/^class\b/.test(Function.prototype.toString.call(node))) return undefined;
  const construct = node as unknown as (this: object, ...args: unknown[]) => void;
  const born = function (this: object, ...args: unknown[]) {
    construct.apply(this, args);
  };
  born.prototype = prototype;
  return born as unknown as C;
}
