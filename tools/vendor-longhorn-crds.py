#!/usr/bin/env python3
"""Vendor the Longhorn RecurringJob CRD as strict JSON Schemas, one per chart minor line.

Reads `releases/<version>/crds.yaml` of every release in REF (default
/work/shared/ref/longhorn; the CRDs as `helm template` renders them from the chart at tag
v<version>) and takes the `recurringjobs.longhorn.io` CustomResourceDefinition, version
`v1beta2`. For the newest patch release of each minor line it writes

  schemas/longhorn/v1.<minor>/recurringjob.json

a standalone JSON Schema (draft 2020-12) of the whole object, converted with the Converter of
tools/vendor-crd-schemas.py (same rules: `additionalProperties: false` on every object that
lists properties without `x-kubernetes-preserve-unknown-fields`, descriptions and
x-kubernetes-* dropped, validation keywords kept), with:

* `apiVersion` and `kind` limited by `enum` (`longhorn.io/v1beta2`, `RecurringJob`), required;
* `metadata` as the Kubernetes ObjectMeta subset of vendor-crd-schemas.py: `name`, `namespace`
  (strings), `labels`, `annotations` (maps of strings), other metadata keys allowed;
* `spec` and `status` from the CRD's openAPIV3Schema; neither is required (the CRD requires
  neither); the top level is closed.

It also writes schemas/longhorn/README.md (sources with sha256, history, how to regenerate).

Checks, printed to stdout: every patch release of a minor line must have the same converted
RecurringJob schema as the newest one (a difference is printed and makes the script fail);
the standalone copy crd-recurringjob-1.12.1.yaml (from deploy/longhorn.yaml) must have the same
`spec` as releases/1.12.1/crds.yaml. The history of the task enum, the spec/status fields and
the served versions across all releases is printed and written into the README.

Usage (from the worktree root):
  python3 tools/vendor-longhorn-crds.py [--ref REF]           write the files
  python3 tools/vendor-longhorn-crds.py [--ref REF] --check   compare with the committed files

Needs python3 and PyYAML (`pip install pyyaml` if `import yaml` fails). Output is
deterministic: sorted keys, 1-space indent, trailing newline.
"""

import argparse
import copy
import difflib
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("vendor-longhorn-crds.py needs PyYAML: pip install pyyaml")

DEFAULT_REF = "/work/shared/ref/longhorn"
ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = "schemas/longhorn"
CRD_NAME = "recurringjobs.longhorn.io"
VERSION = "v1beta2"
STANDALONE = ("crd-recurringjob-1.12.1.yaml", "1.12.1")
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_vendor_tool():
    spec = importlib.util.spec_from_file_location(
        "vendor_crd_schemas", ROOT / "tools" / "vendor-crd-schemas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VENDOR = load_vendor_tool()


def vkey(version):
    return tuple(int(x) for x in version.split("."))


def minor_of(version):
    return ".".join(version.split(".")[:2])


def dump_json(obj):
    return json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def find_crd(text, where):
    found = [d for d in yaml.load_all(text, Loader=SAFE_LOADER)
             if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"
             and d.get("metadata", {}).get("name") == CRD_NAME]
    if len(found) != 1:
        sys.exit("%s: expected one %s CRD, found %d" % (where, CRD_NAME, len(found)))
    return found[0]


def convert(crd, where):
    """The strict schema of the whole object, without $id/$comment/$schema."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    versions = [x for x in spec["versions"] if x["name"] == VERSION]
    if len(versions) != 1 or not versions[0].get("served"):
        sys.exit("%s: %s %s is not served" % (where, CRD_NAME, VERSION))
    conv = VENDOR.Converter()
    schema = conv.convert(versions[0]["schema"]["openAPIV3Schema"], "")
    if schema.get("type") != "object" or "properties" not in schema:
        sys.exit("%s: top-level schema is not an object with properties" % where)
    props = schema["properties"]
    props["apiVersion"] = {"type": "string", "enum": ["%s/%s" % (group, VERSION)]}
    props["kind"] = {"type": "string", "enum": [kind]}
    props["metadata"] = copy.deepcopy(VENDOR.METADATA_SCHEMA)
    required = ["apiVersion", "kind"]
    schema["required"] = required + [r for r in schema.get("required", []) if r not in required]
    schema["additionalProperties"] = False
    return schema, conv


def describe(crd, schema):
    spec_props = schema["properties"].get("spec", {}).get("properties", {})
    status_props = schema["properties"].get("status", {}).get("properties", {})
    return {
        "tasks": list(spec_props.get("task", {}).get("enum", [])),
        "spec": sorted(spec_props),
        "status": sorted(status_props),
        "served": ["%s%s" % (x["name"], "" if x.get("served") else " (not served)")
                   for x in crd["spec"]["versions"]],
    }


CONSTRAINT_KW = ("default", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
                 "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
                 "x-kubernetes-validations", "x-kubernetes-preserve-unknown-fields")


def keywords_used(node, found):
    """The value constraints and defaults a raw CRD schema uses, anywhere."""
    if isinstance(node, dict):
        for key, sub in node.items():
            if key in CONSTRAINT_KW:
                found.add(key)
            if key == "properties":
                for prop in sub.values():
                    keywords_used(prop, found)
            elif isinstance(sub, (dict, list)) and key not in ("enum", "required"):
                keywords_used(sub, found)
    elif isinstance(node, list):
        for sub in node:
            keywords_used(sub, found)
    return found


def history(order, info):
    """One line per release where something of `describe` changed."""
    lines = []
    prev = None
    for v in order:
        cur = info[v]
        if prev is None:
            lines.append("%s: tasks %s; spec %s; status %s; versions %s" % (
                v, ", ".join(cur["tasks"]), ", ".join(cur["spec"]), ", ".join(cur["status"]),
                ", ".join(cur["served"])))
        else:
            parts = []
            for field in ("tasks", "spec", "status"):
                added = [x for x in cur[field] if x not in prev[field]]
                removed = [x for x in prev[field] if x not in cur[field]]
                if added:
                    parts.append("%s + %s" % (field, ", ".join(added)))
                if removed:
                    parts.append("%s - %s" % (field, ", ".join(removed)))
            if cur["served"] != prev["served"]:
                parts.append("versions %s" % ", ".join(cur["served"]))
            if parts:
                lines.append("%s: %s" % (v, "; ".join(parts)))
        prev = cur
    return lines


README = """\
# Vendored Longhorn JSON Schemas

Strict JSON Schemas (draft 2020-12) of the Longhorn `RecurringJob` (`longhorn.io/v1beta2`),
one per chart minor line, for checking the RecurringJob objects lhc writes or imports, offline.
They do not replace server-side validation (Longhorn's webhooks check much more, e.g. the cron
expression and the retain limit).

## Contents

| File | Made from |
|---|---|
{table}

Each file stands alone (no `$ref`s). `$id` is `https://lhc.invalid/longhorn/v1.<minor>/recurringjob.json`,
a placeholder that is never fetched; `$comment` names the source. Every patch release of a
minor line has the same RecurringJob schema as the newest one (checked by the tool), so one
file per line covers the whole line.

## Sources

`releases/<version>/crds.yaml` of the Longhorn chart reference data (`shared/ref/longhorn`):
every CustomResourceDefinition of the chart as `helm template` (Helm v4.1.4) renders it from
github.com/longhorn/longhorn, folder `chart/`, at tag `v<version>` (labels dropped). The
`recurringjobs.longhorn.io` CRD, version `v1beta2`, is used. sha256 of each file:

| release | `releases/<version>/crds.yaml` sha256 |
|---|---|
{hashes}

Cross-check: `crd-recurringjob-1.12.1.yaml` (sha256 `{standalone_sha}`, the same CRD taken from
`deploy/longhorn.yaml` at v1.12.1) has the same `spec` as `releases/1.12.1/crds.yaml`.

## Changes from the CRD

`tools/vendor-longhorn-crds.py` converts `spec.versions[v1beta2].schema.openAPIV3Schema` with
the converter of `tools/vendor-crd-schemas.py` (see `schemas/flux/README.md`):

- **Strict.** Each object schema that lists `properties` and has neither `additionalProperties`
  nor `x-kubernetes-preserve-unknown-fields: true` gets `additionalProperties: false`, and so
  does the top level: `spec.schedule` or a misspelt `spec.retian` fails validation, where the
  API server would silently prune it.
- `apiVersion` and `kind` are required and limited by `enum` (`longhorn.io/v1beta2`,
  `RecurringJob`). `metadata` is an object with `name`, `namespace` (strings), `labels` and
  `annotations` (maps of strings); other metadata keys (`generateName`, `uid`, ...) are allowed.
  `spec` and `status` are optional, as in the CRD.
- Dropped: every `description` and `x-kubernetes-*` keyword. {keywords}
  `spec.labels` and `spec.parameters` are maps of strings.

## History ({first} - {last}, every release)

The RecurringJob `v1beta2` schema, task enum, fields and served CRD versions, in release order
(only changes are listed after the first line):

{history}

First release with each task value: {first_seen}.

## Regenerating

```sh
python3 tools/vendor-longhorn-crds.py            # --ref PATH/TO/ref/longhorn for another copy
python3 tools/vendor-longhorn-crds.py --check    # fails if a file here is stale
```
"""


def generate(ref):
    ref = Path(ref)
    order = sorted((p.name for p in (ref / "releases").iterdir() if p.is_dir()), key=vkey)
    newest = {}
    for v in order:
        newest[minor_of(v)] = v
    sha, schemas, info, counts, used = {}, {}, {}, {}, set()
    for v in order:
        data = (ref / "releases" / v / "crds.yaml").read_bytes()
        sha[v] = hashlib.sha256(data).hexdigest()
        crd = find_crd(data.decode("utf-8"), "releases/%s/crds.yaml" % v)
        schemas[v], conv = convert(crd, v)
        raw = [x for x in crd["spec"]["versions"] if x["name"] == VERSION][0]
        keywords_used(raw["schema"]["openAPIV3Schema"], used)
        info[v] = describe(crd, schemas[v])
        counts[v] = (conv.strict, conv.preserved, conv.cel)

    problems = []
    for v in order:
        top = newest[minor_of(v)]
        if schemas[v] != schemas[top]:
            a = dump_json(schemas[v]).splitlines()
            b = dump_json(schemas[top]).splitlines()
            diff = "\n".join(difflib.unified_diff(a, b, v, top, lineterm=""))
            problems.append("RecurringJob schema of %s differs from %s:\n%s" % (v, top, diff))

    standalone = (ref / STANDALONE[0]).read_bytes()
    standalone_crd = find_crd(standalone.decode("utf-8"), STANDALONE[0])
    release_crd = find_crd((ref / "releases" / STANDALONE[1] / "crds.yaml").read_text("utf-8"),
                           STANDALONE[1])
    if standalone_crd["spec"] != release_crd["spec"]:
        problems.append("%s has a different spec from releases/%s/crds.yaml"
                        % (STANDALONE[0], STANDALONE[1]))

    files = {}
    for m in sorted(newest, key=vkey):
        v = newest[m]
        schema = copy.deepcopy(schemas[v])
        schema["$schema"] = VENDOR.SCHEMA_DIALECT
        schema["$id"] = "https://lhc.invalid/longhorn/v%s/recurringjob.json" % m
        patches = [x for x in order if minor_of(x) == m]
        schema["$comment"] = (
            "Generated by tools/vendor-longhorn-crds.py from the RecurringJob longhorn.io/%s CRD "
            "of Longhorn chart %s (shared/ref/longhorn releases/%s/crds.yaml, sha256 %s); the "
            "same in %s; strict: unknown fields are rejected." % (
                VERSION, v, v, sha[v], ", ".join(patches)))
        files["%s/v%s/recurringjob.json" % (OUT_DIR, m)] = dump_json(schema).encode("utf-8")

    hist = history(order, info)
    first_seen = {}
    for v in order:
        for task in info[v]["tasks"]:
            first_seen.setdefault(task, v)
    first_seen_text = ", ".join("`%s` %s" % (t, v) for t, v in first_seen.items())
    first_seen_text += " (%s is the oldest release here)" % order[0]
    if used:
        kw_text = ("The RecurringJob schemas use these constraint keywords (kept unless listed "
                   "above as dropped): %s." % ", ".join("`%s`" % k for k in sorted(used)))
    else:
        kw_text = ("No release's RecurringJob schema has a `default`, `pattern`, `format`, "
                   "bound or CEL rule (checked by the tool), so what remains is types, the `task` "
                   "enum and the closed objects.")
    table = "\n".join("| `v%s/recurringjob.json` | chart %s (same schema in %s) |" % (
        m, newest[m], ", ".join(x for x in order if minor_of(x) == m))
        for m in sorted(newest, key=vkey))
    files[OUT_DIR + "/README.md"] = README.format(
        table=table,
        hashes="\n".join("| %s | `%s` |" % (v, sha[v]) for v in order),
        standalone_sha=hashlib.sha256(standalone).hexdigest(),
        first=order[0], last=order[-1],
        history="\n".join("- " + line for line in hist),
        keywords=kw_text, first_seen=first_seen_text,
    ).encode("utf-8")
    return files, problems, hist, counts, newest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default=DEFAULT_REF, help="the Longhorn reference data folder")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    args = ap.parse_args()
    files, problems, hist, counts, newest = generate(args.ref)
    print("RecurringJob history:")
    for line in hist:
        print("  " + line)
    for m in sorted(newest, key=vkey):
        strict, preserved, cel = counts[newest[m]]
        print("v%s (from %s): %d objects closed, preserve-unknown-fields: %s, CEL rules dropped: %s"
              % (m, newest[m], strict, ", ".join(preserved) or "none", ", ".join(cel) or "none"))
    for p in problems:
        print("PROBLEM: " + p)
    if problems:
        return 1
    if args.check:
        stale = sorted(p for p, data in files.items()
                       if not (ROOT / p).exists() or (ROOT / p).read_bytes() != data)
        existing = {x.relative_to(ROOT).as_posix() for x in (ROOT / OUT_DIR).rglob("*") if x.is_file()} \
            if (ROOT / OUT_DIR).exists() else set()
        extra = sorted(existing - set(files))
        for p in stale:
            print("differs: " + p)
        for p in extra:
            print("not generated: " + p)
        if stale or extra:
            return 1
        print("up to date: %d files" % len(files))
        return 0
    for p, data in sorted(files.items()):
        target = ROOT / p
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        print("wrote %s (%d bytes)" % (p, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
