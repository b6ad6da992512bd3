#!/usr/bin/env python3
"""Validates a tracelint JSON report against a JSON Schema (report.schema.json,
batch.schema.json, the SARIF 2.1.0 schema), formats included.

    validate_report.py SCHEMA REPORT

"format" is checked: jsonschema's FormatChecker, plus RFC 3986 checks for
"uri" and "uri-reference" when the optional rfc3987 module that jsonschema
would use is not installed (so a malformed URI is never waved through).

Exit status: 0 valid, 1 invalid (each error on stderr), 77 when the
jsonschema module is missing (the test then skips visibly).
"""

import glob
import json
import os
import re
import sys
import urllib.parse

# RFC 3986 characters, with "%" only as the start of a percent-escape.
_URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")


def _is_uri_reference(value):
    return not isinstance(value, str) or bool(_URI_CHARS.match(value))


def _is_uri(value):
    if not isinstance(value, str):
        return True
    return _is_uri_reference(value) and bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:",
                                                       value)) and \
        urllib.parse.urlsplit(value).scheme != ""


def format_checker(jsonschema):
    checker = jsonschema.FormatChecker()
    if "uri" not in checker.checkers:
        checker.checks("uri")(_is_uri)
    if "uri-reference" not in checker.checkers:
        checker.checks("uri-reference")(_is_uri_reference)
    return checker


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
    # The repository's schemas refer to each other by $id (batch rows hold
    # analyze's findings): resolved from the files, never fetched.
    here = os.path.dirname(os.path.abspath(__file__))
    store = {}
    for path in glob.glob(os.path.join(here, "..", "..", "analyzer", "*", "*.schema.json")):
        with open(path, encoding="utf-8") as f:
            other = json.load(f)
        if "$id" in other:
            store[other["$id"]] = other
    kwargs = {"format_checker": format_checker(jsonschema)}
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        kwargs["registry"] = Registry().with_resources(
            (uri, Resource.from_contents(doc)) for uri, doc in store.items())
    except ImportError:
        kwargs["resolver"] = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = validator_class(schema, **kwargs)
    errors = sorted(validator.iter_errors(report),
                    key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        print(f"{where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
