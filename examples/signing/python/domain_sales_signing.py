#!/usr/bin/env python3
"""Sign Domain Sales partner API requests and verify webhook deliveries (Python 3.8+, standard library only).

The recipe is spec/docs/signing.md; the known answers are spec/vectors/signing.json. Copy the
functions above the "command line" marker into your code: canonical_query, canonical_string,
sign_request and signed_headers sign a request; verify_webhook checks a delivery.

Usage:
  python3 domain_sales_signing.py request METHOD TARGET [BODY]
      env SERVICE_BASE_URL, SERVICE_KEY_ID, SERVICE_SECRET; IDEMPOTENCY_KEY (optional, POST /orders).
      Signs and sends exactly BODY's bytes; prints the HTTP status, then the response body.
  python3 domain_sales_signing.py verify-webhook SECRET SIGNATURE_HEADER < raw-body
      Prints "valid" (exit 0) or "invalid" (exit 1).
  python3 domain_sales_signing.py vectors path/to/signing.json
      Prints what this code computes for every vector, one JSON object per line.
"""

import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
HEX_DIGITS = "0123456789abcdefABCDEF"


class MalformedQuery(ValueError):
    """The API answers a malformed query with HTTP 400 validation_error."""


def decode_component(raw):
    """Strict percent-decoding: only %XX escapes, "+" stays a plus, the result must be valid UTF-8.

    urllib.parse.unquote is NOT suitable: it leaves malformed escapes in place and replaces
    invalid UTF-8 instead of rejecting it.
    """
    out = bytearray()
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "%":
            pair = raw[i + 1:i + 3]
            if len(pair) != 2 or pair[0] not in HEX_DIGITS or pair[1] not in HEX_DIGITS:
                raise MalformedQuery("%r at offset %d is not a valid escape" % (raw[i:i + 3], i))
            out.append(int(pair, 16))
            i += 3
        else:
            try:
                out += ch.encode("utf-8")
            except UnicodeEncodeError:  # an unpaired surrogate has no UTF-8 form
                raise MalformedQuery("unpaired surrogate in %r" % raw)
            i += 1
    try:
        # The strict codec refuses overlongs, encoded surrogates, code points above U+10FFFF,
        # stray continuation bytes and truncated sequences.
        return out.decode("utf-8")
    except UnicodeDecodeError as err:
        raise MalformedQuery("escapes in %r are not valid UTF-8 (%s)" % (raw, err.reason))


def encode_component(text):
    """UTF-8 bytes; only A-Z a-z 0-9 - _ . ~ literal, every other byte as %XX in uppercase."""
    return "".join(chr(b) if b in UNRESERVED else "%%%02X" % b for b in text.encode("utf-8"))


def canonical_query(raw_query):
    """The raw query string (after "?", never a parsed dict) in canonical form."""
    pairs = []
    for part in raw_query.split("&"):
        if part == "":
            continue
        key, _, value = part.partition("=")  # splits at the first "="; no "=" gives ""
        pairs.append((decode_component(key), decode_component(value)))
    # Python compares str by code point, the order the protocol requires (not UTF-16 units).
    pairs.sort()
    return "&".join(encode_component(k) + "=" + encode_component(v) for k, v in pairs)


def body_sha256_hex(method, body):
    if method in ("GET", "HEAD") or not body:
        return EMPTY_BODY_SHA256
    return hashlib.sha256(body).hexdigest()


def canonical_string(method, path, raw_query, timestamp, nonce, body):
    """Six lines: METHOD, PATH (as sent), canonical query, timestamp, nonce, body SHA-256."""
    method = method.upper()
    return "\n".join([method, path, canonical_query(raw_query), timestamp, nonce, body_sha256_hex(method, body)])


def sign_request(secret, canonical):
    """The X-Service-Signature header value: v1= and the lowercase hex HMAC-SHA256."""
    return "v1=" + hmac.new(secret.encode("utf-8"), canonical.encode("utf-8"), hashlib.sha256).hexdigest()


def signed_headers(key_id, secret, method, target, body=b""):
    """The four X-Service-* headers for one attempt (a retry calls this again: new nonce)."""
    path, _, query = target.partition("?")
    timestamp = str(int(time.time()))  # whole seconds, not milliseconds
    nonce = str(uuid.uuid4())  # random (os.urandom), fresh for every attempt
    return {
        "X-Service-Key-Id": key_id,
        "X-Service-Timestamp": timestamp,
        "X-Service-Nonce": nonce,
        "X-Service-Signature": sign_request(secret, canonical_string(method, path, query, timestamp, nonce, body)),
    }


def webhook_signature(secret, body):
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_webhook(secret, body, signature_header):
    """Whether X-Service-Signature (bare lowercase hex, no v1=) matches the raw body bytes."""
    return hmac.compare_digest(webhook_signature(secret, body).encode(), (signature_header or "").encode())


# --- command line ----------------------------------------------------------------------------


def send(method, target, body, sign_body=None):
    """Sends body's exact bytes; sign_body (a test aid) signs other bytes than those sent."""
    method = method.upper()
    headers = signed_headers(os.environ["SERVICE_KEY_ID"], os.environ["SERVICE_SECRET"], method, target,
                             body if sign_body is None else sign_body)
    if body:
        headers["Content-Type"] = "application/json"
    if os.environ.get("IDEMPOTENCY_KEY"):
        headers["Idempotency-Key"] = os.environ["IDEMPOTENCY_KEY"]
    request = urllib.request.Request(os.environ["SERVICE_BASE_URL"].rstrip("/") + target,
                                     data=body if method not in ("GET", "HEAD") else None,
                                     headers=headers, method=method)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:  # 4xx and 5xx still carry the API's Error body
        return err.code, err.read()


def vectors(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = []
    for case in doc["canonical_query"]:
        out.append(("canonical_query", case["name"], canonical_query(case["query"])))
    for case in doc.get("invalid_query", []):
        try:
            result = canonical_query(case["query"])
        except MalformedQuery:
            result = "rejected"
        out.append(("invalid_query", case["name"], result))
    for c in doc["signatures"]:
        canonical = canonical_string(c["method"], c["path"], c["query"], c["timestamp"], c["nonce"],
                                     c["body"].encode("utf-8"))
        out.append(("signature", c["name"], sign_request(c["secret"], canonical)))
    for c in doc["webhooks"]:
        out.append(("webhook", c["name"], webhook_signature(c["secret"], c["body"].encode("utf-8"))))
    for kind, name, result in out:
        print(json.dumps({"kind": kind, "name": name, "result": result}, ensure_ascii=False))


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "vectors" and len(argv) == 3:
        vectors(argv[2])
        return 0
    if command == "request" and len(argv) in (4, 5):
        # os.fsencode gives back the exact bytes of the argument, even if they are not UTF-8.
        body = os.fsencode(argv[4]) if len(argv) == 5 else b""
        sign_body = os.environb.get(b"SIGN_BODY")
        status, content = send(argv[2], argv[3], body, sign_body)
        sys.stdout.write("%d\n" % status)
        sys.stdout.flush()
        sys.stdout.buffer.write(content)
        return 0
    if command == "verify-webhook" and len(argv) == 4:
        valid = verify_webhook(argv[2], sys.stdin.buffer.read(), argv[3])
        print("valid" if valid else "invalid")
        return 0 if valid else 1
    print(__doc__.split("Usage:")[1].rstrip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
