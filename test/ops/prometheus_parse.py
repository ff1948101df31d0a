"""Parses a Prometheus text exposition (stdin) with the official Python client's parser and
prints its families as JSON (a value that is not finite as its text, NaN or +Inf): the independent reader of test/ops/metrics-peer.test.ts."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families

families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)} for s in family.samples],
    })
json.dump(families, sys.stdout)
