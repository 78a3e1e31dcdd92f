"""schemas/longhorn/: the Longhorn RecurringJob CRD as strict JSON Schemas, one per chart minor
line, from the `recurringjobs.longhorn.io` CRD (version v1beta2) each release's chart renders
(kept in data/longhorn/upstream/<v>.json `recurringjob_crd`).

For the newest patch release of each minor line it writes v1.<minor>/recurringjob.json, a
standalone JSON Schema (draft 2020-12) of the whole object, converted with the Converter of
tools/vendor-crd-schemas.py (`additionalProperties: false` on every object that lists
properties without `x-kubernetes-preserve-unknown-fields`, descriptions and x-kubernetes-*
dropped, validation keywords kept), with `apiVersion` and `kind` limited by `enum` and
required, `metadata` as the ObjectMeta subset of vendor-crd-schemas.py, and the top level
closed; and README.md (sources with sha256, history). Every patch release of a minor line must
have the same converted schema as the newest one.
"""

import copy
import difflib
import importlib.util
import json
from pathlib import Path

from .common import minor_of, vkey

OUT_DIR = "schemas/longhorn"
CRD_NAME = "recurringjobs.longhorn.io"
VERSION = "v1beta2"
TOOLS = Path(__file__).resolve().parent.parent


def load_vendor_tool():
    spec = importlib.util.spec_from_file_location("vendor_crd_schemas", TOOLS / "vendor-crd-schemas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VENDOR = load_vendor_tool()


def dump_json(obj):
    return json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def convert(crd, where):
    """The strict schema of the whole object, without $id/$comment/$schema."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    versions = [x for x in spec["versions"] if x["name"] == VERSION]
    if len(versions) != 1 or not versions[0].get("served"):
        raise ValueError("%s: %s %s is not served" % (where, CRD_NAME, VERSION))
    conv = VENDOR.Converter()
    schema = conv.convert(versions[0]["schema"]["openAPIV3Schema"], "")
    if schema.get("type") != "object" or "properties" not in schema:
        raise ValueError("%s: top-level schema is not an object with properties" % where)
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

Every CustomResourceDefinition of the chart as `helm template` ({helm}) renders it from
github.com/longhorn/longhorn, folder `chart/`, at tag `v<version>` (labels dropped), by
`tools/longhorn-release`; the `recurringjobs.longhorn.io` CRD, version `v1beta2`, is kept in
`data/longhorn/upstream/<version>.json` (`recurringjob_crd`). sha256 of the rendered CRDs
(the YAML text `tools/longhorn_release/chart.py` `crds_text` writes):

| release | CRDs sha256 |
|---|---|
{hashes}

Cross-check: the same CRD in `deploy/longhorn.yaml` of the same tag has the same `spec` as the
chart's render: {deploy_checked}.

## Changes from the CRD

`tools/longhorn-release` converts `spec.versions[v1beta2].schema.openAPIV3Schema` with
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
tools/longhorn-release write --check     # these files against data/longhorn/upstream/
```

(README.md, "Adding a Longhorn release", says how to regenerate from upstream.)
"""


def generate(order, ups):
    """({path: bytes}, problems) from the upstream facts of every release."""
    newest = {}
    for v in order:
        newest[minor_of(v)] = v
    sha, schemas, info, used, problems = {}, {}, {}, set(), []
    for v in order:
        crd = ups[v]["recurringjob_crd"]
        sha[v] = ups[v]["crds_sha256"]
        try:
            schemas[v], _ = convert(crd, v)
        except ValueError as err:
            problems.append(str(err))
            continue
        raw = [x for x in crd["spec"]["versions"] if x["name"] == VERSION][0]
        keywords_used(raw["schema"]["openAPIV3Schema"], used)
        info[v] = describe(crd, schemas[v])
    if problems:
        return {}, problems
    for v in order:
        top = newest[minor_of(v)]
        if schemas[v] != schemas[top]:
            a = dump_json(schemas[v]).splitlines()
            b = dump_json(schemas[top]).splitlines()
            diff = "\n".join(difflib.unified_diff(a, b, v, top, lineterm=""))
            problems.append("RecurringJob schema of %s differs from %s:\n%s" % (v, top, diff))
        deploy = ups[v].get("deploy_recurringjob")
        if deploy is not None and not deploy["same_spec"]:
            problems.append("%s: the RecurringJob CRD of deploy/longhorn.yaml has another spec "
                            "than the chart's render" % v)

    files = {}
    for m in sorted(newest, key=vkey):
        v = newest[m]
        schema = copy.deepcopy(schemas[v])
        schema["$schema"] = VENDOR.SCHEMA_DIALECT
        schema["$id"] = "https://lhc.invalid/longhorn/v%s/recurringjob.json" % m
        patches = [x for x in order if minor_of(x) == m]
        schema["$comment"] = (
            "Generated by tools/longhorn-release from the RecurringJob longhorn.io/%s CRD "
            "of Longhorn chart %s (the chart's CRDs as Helm renders them, sha256 %s); the "
            "same in %s; strict: unknown fields are rejected." % (
                VERSION, v, sha[v], ", ".join(patches)))
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
    checked = [v for v in order if ups[v].get("deploy_recurringjob")]
    helms = sorted({ups[v]["helm"] for v in order})
    files[OUT_DIR + "/README.md"] = README.format(
        table=table,
        helm="Helm " + ", ".join(helms),
        hashes="\n".join("| %s | `%s` |" % (v, sha[v]) for v in order),
        deploy_checked=("checked for %s\n(the sha256 of each deploy/longhorn.yaml is in "
                        "`data/longhorn/upstream/<version>.json`)" % compress(checked, order)
                        if checked else "not checked (no release was added with --deploy)"),
        first=order[0], last=order[-1],
        history="\n".join("- " + line for line in hist),
        keywords=kw_text, first_seen=first_seen_text,
    ).encode("utf-8")
    return files, problems


def compress(subset, order):
    """`1.5.0-1.12.1` for runs of consecutive releases."""
    runs, cur = [], []
    for v in order:
        if v in subset:
            cur.append(v)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return ", ".join(r[0] if len(r) == 1 else "%s-%s" % (r[0], r[-1]) for r in runs)
