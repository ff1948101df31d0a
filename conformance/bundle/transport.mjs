// The one HTTP transport of the conformance kit and of a failure bundle's replay.mjs: a fetch
// built on node:http / node:https (so it knows what global fetch hides: whether a request went
// out on a kept-alive socket and whether any byte of the answer came back), with the kit's one
// rule for sending a request again after a connection failure. Plain JavaScript, so a bundle
// (replay.mjs beside it) runs with Node alone; transport.d.mts types it for the kit.
//
// The rule (`resendable`): a request whose connection failed before any byte of its answer
// arrived is sent once more, on a new connection, when
//
// - its method is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE): RFC 9110 §9.2.2 lets a
//   client retry such a request automatically, whether or not the first copy was applied; or
// - whatever its method, the failure proves the first copy was never read: it went out on a
//   socket reused from the keep-alive pool (the server had answered everything sent on it before
//   and it sat idle), and the connection was reset or closed (ECONNRESET, EPIPE) before a single
//   byte of the answer. That is the race RFC 9112 §9.5 describes (the server closes a connection
//   it sees as idle just as the client sends a new request on it), the "some means to detect that
//   the original request was never applied" of RFC 9110 §9.2.2, and the case Node's http
//   documentation (`request.reusedSocket`) and browsers (Chromium's ShouldResendRequest) resend.
//   A server that had read the request would be processing it; the failure would then come on a
//   connection it was answering, not on one it closed for idleness before any answer began.
//   Besides, the kit's non-idempotent partner requests are signed with a nonce a deployment uses
//   once and its orders carry an Idempotency-Key: the identical copy resent can never be applied
//   twice.
//
// Anything else (a timeout, a refused connection, a reset after part of the answer, a reset of a
// non-idempotent request on a fresh connection) is the deployment's answer and reaches the check.
import http from 'node:http';
import https from 'node:https';

/** Methods a client may retry automatically (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Error codes of a connection that failed under a request (a reset, or written to after the peer closed it). */
const BROKEN_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Whether a request that failed this way may be sent once more (see the rule above).
 * `failure`: the error's `code`, whether the socket was reused from the pool, and how many bytes
 * of the answer arrived before the failure.
 */
export function resendable(method, failure) {
  if (!BROKEN_CONNECTION.has(failure.code ?? '') || failure.answerBytes > 0) return false;
  if (IDEMPOTENT_METHODS.has(method.toUpperCase())) return true;
  return failure.reusedSocket && (failure.code === 'ECONNRESET' || failure.code === 'EPIPE');
}

/**
 * A fetch (the subset the kit uses: method, headers, body, signal; redirects never followed) over
 * node:http / node:https. `localAddress` binds the connections' source address (a client of the
 * kit's pool on loopback); `onResend(method, url, failure)` hears of each resend.
 */
export function createTransport(options = {}) {
  const { localAddress, onResend } = options;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };
  const fetchImpl = async (input, init = {}) => {
    const request = await normalise(input, init);
    try {
      return await exchange(request, agents[request.url.protocol], localAddress);
    } catch (err) {
      const failure = err?.transportFailure;
      if (!failure || !resendable(request.method, failure)) throw asFetchError(err);
      onResend?.(request.method, request.url.href, failure);
      // A connection of its own: never another pooled socket that may be just as stale.
      try {
        return await exchange(request, false, localAddress);
      } catch (again) {
        throw asFetchError(again);
      }
    }
  };
  fetchImpl.close = () => {
    for (const agent of Object.values(agents)) agent.destroy();
  };
  return fetchImpl;
}

/** The parts of a fetch call the transport sends. */
async function normalise(input, init) {
  const fromRequest = typeof input === 'object' && input !== null && !(input instanceof URL) && 'url' in input;
  const url = new URL(fromRequest ? input.url : String(input));
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`the kit's transport speaks http and https, not ${url.protocol}`);
  const headers = {};
  new Headers(init.headers ?? (fromRequest ? input.headers : undefined)).forEach((value, name) => {
    headers[name] = value;
  });
  const method = String(init.method ?? (fromRequest ? input.method : 'GET')).toUpperCase();
  let body = await bodyBytes(init.body);
  if (body === undefined && fromRequest && input.body) body = Buffer.from(await input.arrayBuffer());
  if (body !== undefined) headers['content-length'] = String(body.length);
  return { url, method, headers, body, signal: init.signal ?? undefined };
}

async function bodyBytes(body) {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** One attempt. A connection failure rejects with `transportFailure` set (code, reusedSocket, answerBytes). */
function exchange(request, agent, localAddress) {
  const send = request.url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let answerBytes = 0;
    let readBefore = 0;
    const req = send(
      request.url,
      {
        method: request.method,
        headers: request.headers,
        agent,
        ...(localAddress !== undefined ? { localAddress } : {}),
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
          }
          const status = res.statusCode ?? 500;
          const nullBody = status === 204 || status === 205 || status === 304;
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
    // How many bytes the socket had read when this request got it: any more is the answer's.
    req.on('socket', (socket) => {
      readBefore = socket.bytesRead;
    });
    req.on('error', (err) => {
      const socket = req.socket;
      answerBytes = socket ? socket.bytesRead - readBefore : 0;
      if (typeof err.code === 'string')
        err.transportFailure = { code: err.code, reusedSocket: req.reusedSocket === true, answerBytes };
      reject(err);
    });
    if (request.signal) {
      if (request.signal.aborted) req.destroy(abortError(request.signal));
      else request.signal.addEventListener('abort', () => req.destroy(abortError(request.signal)), { once: true });
    }
    req.end(request.body);
  });
}

function abortError(signal) {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** The error shape fetch callers know: a TypeError "fetch failed" whose cause is the connection's error. */
function asFetchError(err) {
  if (!(err instanceof Error) || err.name === 'AbortError' || err instanceof TypeError) return err;
  const wrapped = new TypeError('fetch failed', { cause: err });
  if (err.transportFailure) wrapped.transportFailure = err.transportFailure;
  return wrapped;
}
