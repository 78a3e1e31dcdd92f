#!/usr/bin/env python3
"""Vendor self-contained, strict Kubernetes JSON Schemas for offline tests.

Reads the `kubernetes-validate` wheel (PyPI, version 1.37.0), takes the
per-kind schemas from
    kubernetes_validate/kubernetes-json-schema/v1.NN.0-local-strict/
and writes, for each Kubernetes minor 1.25..1.37 and each kind listed in
KINDS, a standalone schema to
    schemas/kubernetes/v1.NN/<kind>.json
Kinds in VERSIONED_KINDS (MutatingAdmissionPolicy and its binding) are
written only for the minors that serve them, as <kind>-<version>.json for
each API version and <kind>.json for the newest one.
(relative to the repository root). Every definition reachable from the kind
is copied from the shared `_definitions.json` into a local `$defs`, and all
`$ref`s are rewritten to `#/$defs/<name>`. `description` and `x-kubernetes-*`
annotations are removed; everything that affects validation is kept.

Output is deterministic (sorted keys, 1-space indent, trailing newline).

Usage: tools/vendor-k8s-schemas.py [WHEEL] [--out DIR]
Stdlib only.
"""

import argparse
import json
import os
import sys
import zipfile

DEFAULT_WHEEL = "/tmp/kv/kubernetes_validate-1.37.0-py3-none-any.whl"
MINORS = range(25, 38)  # 1.25 .. 1.37 inclusive
# output name -> file name inside the version directory of the wheel
KINDS = {
    "storageclass": "storageclass-storage-v1.json",
    "namespace": "namespace-v1.json",
    "persistentvolumeclaim": "persistentvolumeclaim-v1.json",
    "configmap": "configmap-v1.json",
    "job": "job-batch-v1.json",
    "deployment": "deployment-apps-v1.json",
    "node": "node-v1.json",
    "clusterrole": "clusterrole-rbac-v1.json",
}
# Kinds that exist only in some minors, under one or more API versions (oldest
# first). For every version a minor has, `<kind>-<version>.json` is written;
# `<kind>.json` is a copy of the newest version that minor has (the one lhc
# writes for it). Minors without any version of the kind get no file.
VERSIONED_KINDS = {
    "mutatingadmissionpolicy": (
        "mutatingadmissionpolicy-admissionregistration-{version}.json",
        ("v1alpha1", "v1beta1", "v1")),
    "mutatingadmissionpolicybinding": (
        "mutatingadmissionpolicybinding-admissionregistration-{version}.json",
        ("v1alpha1", "v1beta1", "v1")),
}
SRC_DIR = "kubernetes_validate/kubernetes-json-schema/v1.{minor}.0-local-strict/"
DEFS_FILE = "_definitions.json"
ID_FMT = "https://lhc.invalid/kubernetes/v1.{minor}/{kind}.json"

# Keywords whose value is a map of name -> subschema.
MAP_KW = ("properties", "patternProperties", "$defs", "dependentSchemas")
# Keywords whose value is a single subschema.
ONE_KW = ("items", "additionalProperties", "not", "contains", "propertyNames",
          "if", "then", "else", "unevaluatedProperties", "unevaluatedItems")
# Keywords whose value is a list of subschemas.
LIST_KW = ("allOf", "anyOf", "oneOf", "prefixItems")

REF_PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")


def ref_name(ref):
    for prefix in REF_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix):]
    raise ValueError("unsupported $ref: %r" % ref)


def clean(node, found):
    """Return a copy of schema `node` without annotations, with refs made
    local; names of referenced definitions are added to `found`."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        raise ValueError("unexpected schema node: %r" % (node,))
    out = {}
    for key, value in node.items():
        if key in ("description", "$id") or key.startswith("x-kubernetes-"):
            continue
        if key == "$ref":
            name = ref_name(value)
            found.add(name)
            out[key] = "#/$defs/" + name
        elif key in MAP_KW:
            out[key] = {k: clean(v, found) for k, v in value.items()}
        elif key in ONE_KW:
            out[key] = clean(value, found)
        elif key in LIST_KW:
            out[key] = [clean(v, found) for v in value]
        else:
            out[key] = value
    return out


def build(top, definitions, minor, kind):
    found = set()
    schema = clean(top, found)
    defs = {}
    pending = sorted(found)
    while pending:
        name = pending.pop()
        if name in defs:
            continue
        if name not in definitions:
            raise KeyError("v1.%d %s: missing definition %s" % (minor, kind, name))
        more = set()
        defs[name] = clean(definitions[name], more)
        pending.extend(sorted(more - set(defs)))
    if "$defs" in schema:
        raise ValueError("kind schema already has $defs")
    schema["$schema"] = top["$schema"]
    schema["$id"] = ID_FMT.format(minor=minor, kind=kind)
    if defs:
        schema["$defs"] = defs
    return schema


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", nargs="?", default=DEFAULT_WHEEL)
    ap.add_argument("--out", default=os.path.join(here, "..", "schemas", "kubernetes"))
    args = ap.parse_args()

    with zipfile.ZipFile(args.wheel) as whl:
        for minor in MINORS:
            src = SRC_DIR.format(minor=minor)
            definitions = json.loads(whl.read(src + DEFS_FILE))["$defs"]
            dest = os.path.join(args.out, "v1.%d" % minor)
            os.makedirs(dest, exist_ok=True)
            names = set(whl.namelist())
            outputs = [(kind, fname) for kind, fname in KINDS.items()]
            for kind, (pattern, versions) in VERSIONED_KINDS.items():
                present = [v for v in versions
                           if src + pattern.format(version=v) in names]
                outputs += [("%s-%s" % (kind, v), pattern.format(version=v))
                            for v in present]
                if present:
                    outputs.append((kind, pattern.format(version=present[-1])))
            for kind, fname in outputs:
                top = json.loads(whl.read(src + fname))
                write(build(top, definitions, minor, kind), dest, kind)
    return 0


def write(schema, dest, kind):
    text = json.dumps(schema, sort_keys=True, indent=1,
                      ensure_ascii=False) + "\n"
    path = os.path.join(dest, kind + ".json")
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    print("%s (%d defs, %d bytes)" % (
        os.path.relpath(path), len(schema.get("$defs", {})),
        len(text.encode("utf-8"))))


if __name__ == "__main__":
    sys.exit(main())
