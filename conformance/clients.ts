// Several clients on one machine. The public surface counts its rate limit per client IP (60 per
// 60 s, the public document's x-rate-limit-classes), so one address running the whole public suite would spend most of the run
// waiting for windows to reset. Against a deployment on this machine's loopback network the suite
// acts as many clients instead: every address of 127.0.0.0/8 is this host on Linux, so binding a
// connection's source to 127.0.0.N makes the server see client N, with a window of its own. The
// limits are still honoured per client (the recorder waits when one client's window is spent and
// no other is free); the checks of the rate limit itself pin one client. Remote deployments get
// one client, the machine's own address.
import { connect } from 'node:net';
import { createTransport, type TransportFailure, type TransportFetch } from './bundle/transport.mjs';

/** Hears of a request the transport sent once more (see transport.mjs for when it does). */
export type ResendListener = (method: string, url: string, failure: TransportFailure) => void;

/** The client addresses of a run: one (the default route) unless the deployment is on loopback. */
export class ClientPool {
  private readonly fetches = new Map<string, TransportFetch>();
  /** Told of each request sent once more (the recorder logs it). */
  onResend: ResendListener | undefined;
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

  /** The kit's transport (transport.mjs: its one resend rule) from this address. */
  fetchFrom(address: string): typeof fetch {
    let f = this.fetches.get(address);
    if (!f) {
      f = createTransport({ localAddress: address, onResend: (...a) => this.onResend?.(...a) });
      this.fetches.set(address, f);
    }
    return f;
  }

  close(): void {
    for (const f of this.fetches.values()) f.close();
    this.fetches.clear();
  }
}
