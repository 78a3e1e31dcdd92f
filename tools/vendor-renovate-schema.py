#!/usr/bin/env python3
"""Vendor the part of Renovate's configuration schema that renovate/lhc.json uses.

Renovate ships its JSON Schema (draft-07) as `renovate-schema.json` in its npm
package; the whole file is about 460 KB. This script keeps, byte for byte as
Renovate wrote them, the top-level properties a preset like renovate/lhc.json
uses (KEEP below) and every definition they reach through `$ref`, and nothing
else, so that tests/it/upgrade_command.rs validates the preset offline.

Output: schemas/renovate/renovate-schema.json (sorted keys, 1-space indent,
trailing newline). It refuses another Renovate version than the pinned one, so
that the file stays what this script makes.

Usage:
  cd /tmp && npm pack renovate@44.121.2 && tar -xzf renovate-44.121.2.tgz \\
      package/renovate-schema.json
  tools/vendor-renovate-schema.py /tmp/package/renovate-schema.json [--check]
"""

import json
import os
import sys

VERSION = "44.121.2"
KEEP = [
    "commitMessageTopic",
    "customManagers",
    "description",
    "extends",
    "ignoreUnstable",
    "labels",
    "packageRules",
    "separateMinorPatch",
    "separateMultipleMinor",
]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas", "renovate",
                   "renovate-schema.json")


def refs(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith("#/definitions/"):
                out.add(v[len("#/definitions/"):])
            else:
                refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    schema = json.load(open(argv[1], encoding="utf-8"))
    if schema.get("x-renovate-version") != VERSION:
        sys.exit(f"expected Renovate {VERSION}, got {schema.get('x-renovate-version')}")
    props = {k: schema["properties"][k] for k in KEEP}
    todo, seen = set(), set()
    refs(props, todo)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = set()
        refs(schema["definitions"][name], found)
        todo |= found - seen
    out = {
        "$comment": f"Part of renovate-schema.json of the npm package renovate@{VERSION}: the "
        f"properties {', '.join(KEEP)} and the definitions they reach; made by "
        "tools/vendor-renovate-schema.py",
        "$id": schema["$id"],
        "$schema": schema["$schema"],
        "title": schema["title"],
        "type": schema["type"],
        "properties": props,
        "definitions": {k: schema["definitions"][k] for k in sorted(seen)},
    }
    text = json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if "--check" in argv:
        same = os.path.exists(OUT) and open(OUT, encoding="utf-8").read() == text
        print("up to date" if same else f"differs: {OUT}")
        sys.exit(0 if same else 1)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUT} ({len(text)} bytes, {len(seen)} definitions)")


if __name__ == "__main__":
    main(sys.argv)
