#!/usr/bin/env python3
"""Regenerates data/longhorn/settings.json from the Longhorn settings matrix.

The matrix (settings-matrix.json) was derived from longhorn/longhorn chart/values.yaml and
chart/templates/default-setting.yaml, and from longhorn/longhorn-manager types/setting.go, at the
chart tags listed in its "versions" field. This script reshapes it per chart version and applies
two corrections that were checked against the chart templates at those tags:

* "joined/quoted" (taintToleration, systemManagedComponentsNodeSelector) is `join ";" ...`
  without `| quote` in charts 1.6-1.10 and with `| quote` from 1.11: render "join-plain" or
  "join-quote".
* Chart 1.6.4 lists no ranges (the manager enforces them elsewhere); the range of the same setting
  in 1.7.3 is used when its type is unchanged.

Usage: tools/gen-longhorn-settings.py PATH/TO/settings-matrix.json > data/longhorn/settings.json
"""
import json
import sys

JOIN_QUOTED_FROM = (1, 11)


def ver_tuple(v):
    return tuple(int(x) for x in v.split("."))


def main(path):
    matrix = json.load(open(path))
    versions = matrix["versions"]
    out = {
        "source": "Derived by tools/gen-longhorn-settings.py from a settings matrix of "
        + matrix["source"],
        "versions": {},
    }
    for v in versions:
        settings = {}
        for key, entry in matrix["keys"].items():
            e = entry["versions"].get(v)
            if e is None:
                continue
            render = e["render"]
            if render == "joined/quoted":
                render = "join-quote" if ver_tuple(v)[:2] >= JOIN_QUOTED_FROM else "join-plain"
            elif render == "multiType":
                render = "multi"
            rng = e["range"]
            if rng is None and v == "1.6.4":
                nxt = entry["versions"].get("1.7.3")
                if nxt and nxt["type"] == e["type"]:
                    rng = nxt["range"]
            engines = None
            default = e["manager_default"]
            if e["data_engine_specific"]:
                try:
                    engines = sorted(json.loads(default).keys())
                except (TypeError, ValueError):
                    engines = None
            s = {
                "name": e["setting"],
                "type": e["type"] if e["type"] is not None else "unknown",
                "render": render,
                "category": e["category"],
            }
            if default is not None:
                s["default"] = default
            if e["choices"]:
                s["choices"] = [str(c) for c in e["choices"]]
            if rng:
                if rng.get("min") is not None:
                    s["min"] = rng["min"]
                if rng.get("max") is not None:
                    s["max"] = rng["max"]
            if engines:
                s["engines"] = engines
            if not e["known_to_manager"]:
                s["known_to_manager"] = False
            settings[key] = s
        out["versions"][v] = {"settings": dict(sorted(settings.items()))}
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/ref/longhorn/settings-matrix.json")
