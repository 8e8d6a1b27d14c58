#!/usr/bin/env python3
"""validate.py SCHEMA FILE...: check the schema (JSON Schema 2020-12), then
validate each FILE against it; print each file's first errors, exit 1 if any."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    for e in errors[:3]:
        print(f"{path}: /{'/'.join(map(str, e.path))}: {e.message[:200]}")
    bad += bool(errors)
sys.exit(1 if bad else 0)
