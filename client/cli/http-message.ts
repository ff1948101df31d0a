// Splits a raw HTTP request as captured (`nc -l`, a proxy log, a saved delivery): the request
// line, header lines, an empty line, then the body bytes, kept exactly as they were.
export interface HttpMessage {
  headers: Map<string, string>;
  body: Buffer;
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d(\.\d)?\r?$/;

/** The message's headers (lowercase names) and body, or undefined when `raw` is not an HTTP request. */
export function parseHttpMessage(raw: Buffer): HttpMessage | undefined {
  const firstLineEnd = raw.indexOf('\n');
  if (firstLineEnd < 0 || !REQUEST_LINE.test(raw.subarray(0, firstLineEnd).toString('latin1'))) return undefined;
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const [end, gap] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : lf >= 0 ? [lf, 2] : [raw.length, 0];
  const headers = new Map<string, string>();
  for (const line of raw
    .subarray(firstLineEnd + 1, end)
    .toString('latin1')
    .split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.subarray(Math.min(raw.length, end + gap)) };
}
