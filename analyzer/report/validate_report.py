#!/usr/bin/env python3
"""Validates a tracelint JSON report against report.schema.json.

    validate_report.py SCHEMA REPORT

Exit status: 0 valid, 1 invalid (each error on stderr), 77 when the
jsonschema module is missing (the test then skips visibly).
"""

import json
import sys


def main():
    try:
        import jsonschema
    except ImportError:
        print("python3 module jsonschema not installed (Debian: python3-jsonschema)",
              file=sys.stderr)
        return 77
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        report = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(report),
                    key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        print(f"{where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
