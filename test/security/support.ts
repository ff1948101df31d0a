// What the security regression suite shares: requests written byte for byte on a socket (fetch
// cannot send an absolute-form target, a fragment or a forged Host) and the median of the timing
// checks.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names lowercased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `head` (request line and headers, without the blank line) and `body` on a fresh
 * connection with `Connection: close`, and reads the whole answer.
 */
export function rawRequest(baseUrl: string, head: string[], body: Buffer | string = ''): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const lines = text.slice(0, split < 0 ? text.length : split).split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rest = split < 0 ? '' : text.slice(split + 4);
      if (headers['transfer-encoding'] === 'chunked') rest = unchunk(rest);
      resolve({ status, headers, body: rest });
    });
    const lines = [...head, 'Connection: close'];
    if (bytes.length > 0) lines.push(`Content-Length: ${bytes.length}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    socket.end(bytes);
  });
}

function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    if (eol < 0) return out;
    const size = parseInt(text.slice(at, eol), 16);
    if (!size) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
