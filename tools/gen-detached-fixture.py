#!/usr/bin/env python3
"""Derive tests/fixtures/longhorn/settings-upgrade.json from the shared Longhorn reference.

The fixture is the oracle of the tests of `lhc diff`'s settings warnings
(tests/it/upgrade.rs): for every release 1.5.0 ... 1.12.1, which settings Longhorn applies only
once volumes are detached (and how: refused, or applied later), the chart keys that write each
setting, and each setting's default. lhc's own data (data/longhorn/releases/, written by
tools/gen-longhorn-data.py from the same reference) is never the oracle.

Input (REF defaults to /work/shared/ref/longhorn): REF/settings-all-releases.json
  releases.<v>.requires_detached_volumes_detail  -> releases.<v>.requires_detached
                                                    (setting, function, effect, condition, via)
  keys.<key>.versions.<v>.setting, known_to_manager, manager_default
                                                 -> releases.<v>.chart_keys.<key> =
                                                    {setting, default}, for keys known to the
                                                    manager at that release

Usage (from the worktree root):
  python3 tools/gen-detached-fixture.py [--ref REF]           write the fixture
  python3 tools/gen-detached-fixture.py [--ref REF] --check   compare with the committed file
Output is deterministic: sorted keys, indent=1, UTF-8, LF, trailing newline.
"""

import argparse
import hashlib
import json
import pathlib
import sys

OUT = pathlib.Path("tests/fixtures/longhorn/settings-upgrade.json")
INPUT = "settings-all-releases.json"
FIELDS = ("setting", "function", "effect", "condition", "via")


def build(ref: pathlib.Path) -> str:
    raw = (ref / INPUT).read_bytes()
    data = json.loads(raw)
    releases = {}
    for v in data["versions"]:
        info = data["releases"][v]
        detached = [{f: d[f] for f in FIELDS if f in d}
                    for d in info["requires_detached_volumes_detail"]]
        chart_keys = {}
        for key, entry in data["keys"].items():
            at = entry["versions"].get(v)
            if at is None or not at.get("known_to_manager"):
                continue
            chart_keys[key] = {"setting": at["setting"], "default": at["manager_default"]}
        releases[v] = {"requires_detached": detached, "chart_keys": chart_keys}
    fixture = {
        "source": "derived by tools/gen-detached-fixture.py from the shared Longhorn reference "
                  "settings-all-releases.json (longhorn/longhorn-manager types/setting.go, "
                  "datastore/longhorn.go and controller/setting_controller.go at each release "
                  "tag; chart keys from each chart's default-setting.yaml)",
        "sha256": {INPUT: hashlib.sha256(raw).hexdigest()},
        "releases": releases,
    }
    return json.dumps(fixture, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref", default="/work/shared/ref/longhorn", type=pathlib.Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = build(args.ref)
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is not what the reference gives; run tools/gen-detached-fixture.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
