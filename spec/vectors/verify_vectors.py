#!/usr/bin/env python3
"""Recompute every vector in signing.json in Python, independently of the TypeScript implementation.

Python 3 standard library only (hashlib, hmac, json). Exits 0 when every canonical query,
canonical string, request signature and webhook signature matches and every invalid_query case
is rejected; exits 1 and lists the mismatches otherwise.

The protocol functions (canonical_query, canonical_string, sign_request, webhook_signature) are
those of examples/signing/python/domain_sales_signing.py, the Python signer partners copy from;
examples/signing/ has the same in PHP, Ruby, shell, Go and Java.

Usage: python3 spec/vectors/verify_vectors.py [path/to/signing.json]
       python3 spec/vectors/verify_vectors.py --requests recorded.json
The second form verifies recorded requests (a JSON array of {"secret", "method", "target",
"headers", "body_base64"}, where target is the raw request target and headers are lowercase
names) the way a server would, and exits 1 if any signature does not verify.
"""

import base64
import hmac
import json
import os
import re
import sys

# The protocol itself lives in the partner-facing Python signer; this file only checks the vectors
# (and recorded requests) with it, so there is one Python copy of the recipe.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "signing", "python"))
from domain_sales_signing import (  # noqa: E402
    MalformedQuery,
    canonical_query,
    canonical_string,
    sign_request,
    webhook_signature,
)


# ---------------------------------------------------------------------------------------------

SHAPES = {
    "canonical_query": {"name", "query", "canonical"},
    "invalid_query": {"name", "query"},
    "signatures": {"name", "secret", "method", "path", "query", "timestamp", "nonce", "body",
                   "canonical_string", "signature"},
    "webhooks": {"name", "secret", "body", "signature"},
}
MINIMUM = {"canonical_query": 40, "invalid_query": 1, "signatures": 10, "webhooks": 4}


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "signing.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)

    failures = []

    def fail(section, name, message):
        failures.append("%s / %s: %s" % (section, name, message))

    extra = set(doc) - set(SHAPES) - {"description"}
    if extra:
        fail("document", "-", "unexpected top-level members %s" % sorted(extra))
    for section, fields in SHAPES.items():
        entries = doc.get(section)
        if section != "invalid_query" and not isinstance(entries, list):
            fail(section, "-", "missing or not an array")
            continue
        entries = entries or []
        if len(entries) < MINIMUM[section]:
            fail(section, "-", "only %d entries, expected at least %d" % (len(entries), MINIMUM[section]))
        names = [e.get("name") for e in entries if isinstance(e, dict)]
        if len(set(names)) != len(names):
            fail(section, "-", "names are not unique")
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != fields or not all(isinstance(v, str) for v in entry.values()):
                fail(section, repr(entry)[:60], "must have exactly the string members %s" % sorted(fields))

    for case in doc.get("canonical_query", []):
        try:
            got = canonical_query(case["query"])
        except MalformedQuery as err:
            fail("canonical_query", case["name"], "rejected: %s" % err)
            continue
        if got != case["canonical"]:
            fail("canonical_query", case["name"], "expected %r, computed %r" % (case["canonical"], got))

    for case in doc.get("invalid_query", []):
        try:
            got = canonical_query(case["query"])
        except MalformedQuery:
            continue
        fail("invalid_query", case["name"], "accepted, giving %r" % got)

    for case in doc.get("signatures", []):
        name = case["name"]
        try:
            canonical = canonical_string(case["method"], case["path"], case["query"], case["timestamp"],
                                         case["nonce"], case["body"].encode("utf-8"))
        except MalformedQuery as err:
            fail("signatures", name, "query rejected: %s" % err)
            continue
        if canonical != case["canonical_string"]:
            fail("signatures", name, "canonical string: expected %r, computed %r" % (case["canonical_string"], canonical))
        if len(canonical.split("\n")) != 6:
            fail("signatures", name, "canonical string does not have six lines")
        if not re.fullmatch(r"v1=[0-9a-f]{64}", case["signature"]):
            fail("signatures", name, "signature is not v1= and 64 lowercase hex digits")
        signature = sign_request(case["secret"], canonical)
        if not hmac.compare_digest(signature, case["signature"]):
            fail("signatures", name, "expected %s, computed %s" % (case["signature"], signature))

    for case in doc.get("webhooks", []):
        if not re.fullmatch(r"[0-9a-f]{64}", case["signature"]):
            fail("webhooks", case["name"], "signature is not 64 lowercase hex digits (no v1= prefix)")
        signature = webhook_signature(case["secret"], case["body"].encode("utf-8"))
        if not hmac.compare_digest(signature, case["signature"]):
            fail("webhooks", case["name"], "expected %s, computed %s" % (case["signature"], signature))

    counts = ", ".join("%d %s" % (len(doc.get(s) or []), s) for s in SHAPES)
    if failures:
        print("signing vectors: %d mismatch(es) in %s" % (len(failures), path), file=sys.stderr)
        for line in failures:
            print("  " + line, file=sys.stderr)
        return 1
    print("signing vectors OK: %s" % counts)
    return 0


def verify_requests(path):
    """Checks each recorded request's X-Service-Signature against its own timestamp and nonce."""
    with open(path, encoding="utf-8") as f:
        requests = json.load(f)
    failures = []
    for i, req in enumerate(requests):
        headers = req["headers"]
        target = req["target"]
        path_part, _, query = target.partition("?")
        body = base64.b64decode(req["body_base64"])
        try:
            canonical = canonical_string(req["method"], path_part, query, headers["x-service-timestamp"],
                                         headers["x-service-nonce"], body)
        except (MalformedQuery, KeyError) as err:
            failures.append("request %d (%s %s): %s" % (i, req["method"], target, err))
            continue
        expected = sign_request(req["secret"], canonical)
        if not hmac.compare_digest(expected, headers.get("x-service-signature", "")):
            failures.append("request %d (%s %s): signature does not verify" % (i, req["method"], target))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("requests OK: %d verified" % len(requests))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--requests":
        sys.exit(verify_requests(sys.argv[2]))
    sys.exit(main(sys.argv))
