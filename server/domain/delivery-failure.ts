// Why a webhook delivery attempt failed, in the words a partner reads (partner document,
// WebhookDelivery.last_error): a class and a fixed sentence, never the address connected to, a
// port, a resolver answer or a parser's text. Those would let anyone holding a credential map the
// network the server sits in (which ports of its loopback are closed, speak HTTP or stay silent;
// which internal names resolve, and to what). The operator reads the full detail in the server
// log (`delivery_failed`), never the partner.

/** The classes of WebhookDelivery.last_error. */
export type DeliveryFailureClass =
  | 'destination_refused'
  | 'connection_refused'
  | 'connection_failed'
  | 'tls_failed'
  | 'timeout'
  | 'not_http'
  | 'http_status';

export interface DeliveryFailure {
  class: DeliveryFailureClass;
  /** The receiver's status (`http_status` only). */
  status?: number;
  /** What happened, for the server log only: may name addresses, ports and library errors. */
  detail: string;
}

const SENTENCE: Record<Exclude<DeliveryFailureClass, 'http_status' | 'timeout'>, string> = {
  destination_refused:
    "the URL's host does not resolve, or not only to addresses this deployment's webhooks may reach (URL rules of PUT /api/partner/webhooks)",
  connection_refused: 'the connection was refused',
  connection_failed: 'the connection failed or was closed before an answer',
  tls_failed: 'the TLS handshake failed (certificate or protocol)',
  not_http: 'the receiver did not answer in HTTP',
};

/** `<class>[ <status>]: <sentence>`, the value of `last_error`. */
export function lastErrorOf(failure: DeliveryFailure, timeoutMs: number): string {
  switch (failure.class) {
    case 'http_status': {
      const status = failure.status ?? 0;
      const redirect = status >= 300 && status <= 399 ? '; redirects are not followed' : '';
      return `http_status ${status}: the receiver answered HTTP ${status}${redirect}`;
    }
    case 'timeout':
      return `timeout: no answer within ${timeoutMs / 1000} s`;
    default:
      return `${failure.class}: ${SENTENCE[failure.class]}`;
  }
}

// Node's TLS and certificate failures (tls, OpenSSL's X509 verification codes).
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH$)/;

/** The class of a socket or client error of an attempt (not a refused destination nor a timeout). */
export function classOfNetworkError(code: string | undefined): DeliveryFailureClass {
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code?.startsWith('HPE_')) return 'not_http';
  if (code !== undefined && TLS_CODE.test(code)) return 'tls_failed';
  return 'connection_failed';
}
