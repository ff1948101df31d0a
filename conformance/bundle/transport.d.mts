// Types of transport.mjs (plain JavaScript, so a bundle's replay.mjs runs with Node alone).

/** What is known of a connection that failed under a request. */
export interface TransportFailure {
  /** The error's code (ECONNRESET, EPIPE, ECONNREFUSED...). */
  code: string;
  /** The request went out on a socket reused from the keep-alive pool. */
  reusedSocket: boolean;
  /** Bytes of the answer that arrived before the failure. */
  answerBytes: number;
}

export const IDEMPOTENT_METHODS: ReadonlySet<string>;

/** Whether a request that failed this way may be sent once more (the rule at the top of transport.mjs). */
export function resendable(method: string, failure: TransportFailure): boolean;

export type TransportFetch = typeof fetch & {
  /** Closes the kept-alive connections. */
  close(): void;
};

export function createTransport(options?: {
  /** The source address of the connections (a client of the kit's pool on loopback). */
  localAddress?: string;
  /** Hears of each request sent once more. */
  onResend?: (method: string, url: string, failure: TransportFailure) => void;
}): TransportFetch;
