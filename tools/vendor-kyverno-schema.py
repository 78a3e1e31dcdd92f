#!/usr/bin/env python3
"""Vendor a strict JSON Schema of Kyverno's ClusterPolicy (kyverno.io/v1).

Kyverno's own CRD (config/crds/kyverno/kyverno.io_clusterpolicies.yaml, about
1.4 MB) is not on any package registry this project can reach. The PyPI
package `cloudcoil-models-kyverno` carries Pydantic models generated from the
CRDs of one Kyverno release (1.13.4.0 = Kyverno v1.13.4). This script imports
the `kyverno.io/v1` models from that wheel, asks Pydantic for their JSON
Schema and turns it into the same kind of strict schema that
tools/vendor-crd-schemas.py makes from a CRD:

* every object that declares `properties` is closed
  (`additionalProperties: false`); untyped fields (`x-kubernetes-preserve-
  unknown-fields` in the CRD, `Any` in the models, for example
  `mutate.patchStrategicMerge` and `preconditions`) stay open (`{}`);
* `null` is not accepted where the models only allow it because every field
  is `Optional` (the CRD has no `nullable` fields on this path);
* `apiVersion` (const `kyverno.io/v1`) and `kind` (const `ClusterPolicy`)
  are required, `metadata` is the permissive object used for the Flux and
  Argo CD schemas;
* `title` and `default` (Pydantic annotations) are dropped; every validation
  keyword (`type`, `enum`, `required`, `maxLength`, ...) is kept.

Output is deterministic (sorted keys, 1-space indent, trailing newline). To
keep it byte for byte, the script refuses other versions of the inputs than
the pinned ones below.

Usage:
  python3 -m venv /tmp/kyv && /tmp/kyv/bin/pip install \\
      cloudcoil==0.6.0 pydantic==2.14.4 pydantic-core==2.50.5
  pip download cloudcoil-models-kyverno==1.13.4.0 --no-deps -d /tmp/kyv-whl
  /tmp/kyv/bin/python tools/vendor-kyverno-schema.py \\
      /tmp/kyv-whl/cloudcoil_models_kyverno-1.13.4.0-py3-none-any.whl
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
import zipfile

WHEEL_NAME = "cloudcoil_models_kyverno-1.13.4.0-py3-none-any.whl"
WHEEL_SHA256 = "35f2f7c714e5e15f0add9a71ff83a69e14a673de42d3ff57a6d1ac7a3975fb5b"
PINNED = {"pydantic": "2.14.4", "cloudcoil": "0.6.0"}
DEFAULT_WHEEL = "/tmp/kyv-whl/" + WHEEL_NAME
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://lhc.invalid/kyverno/clusterpolicy.json"

METADATA_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "additionalProperties": True,
}

DROP = ("title", "default", "description")
NULL = {"type": "null"}


def strict(node):
    """Return a strict copy of Pydantic schema `node`."""
    if isinstance(node, list):
        return [strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    alts = node.get("anyOf")
    if isinstance(alts, list) and NULL in alts:
        rest = [a for a in alts if a != NULL]
        merged = {k: v for k, v in node.items() if k != "anyOf" and k not in DROP}
        if len(rest) == 1:
            inner = dict(rest[0])
            inner.update(merged)
            return strict(inner)
        merged["anyOf"] = rest
        return strict(merged)
    out = {}
    for key, value in node.items():
        if key in DROP:
            continue
        if key in ("properties", "$defs"):
            out[key] = {k: strict(v) for k, v in value.items()}
        else:
            out[key] = strict(value)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def load_models(wheel):
    with open(wheel, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if os.path.basename(wheel) != WHEEL_NAME or digest != WHEEL_SHA256:
        sys.exit("%s: expected %s with sha256 %s, got sha256 %s" % (
            wheel, WHEEL_NAME, WHEEL_SHA256, digest))
    import importlib.metadata as md
    for dist, version in PINNED.items():
        have = md.version(dist)
        if have != version:
            sys.exit("needs %s==%s for byte-identical output, found %s" % (dist, version, have))
    # `cloudcoil` is a namespace package; unpack the wheel and put it on the path.
    tmp = tempfile.mkdtemp(prefix="kyverno-models-")
    with zipfile.ZipFile(wheel) as whl:
        whl.extractall(tmp)
    sys.path.insert(0, tmp)
    from cloudcoil.models.kyverno import v1  # noqa: E402
    return v1


def build(v1):
    raw = v1.ClusterPolicy.model_json_schema(by_alias=True, mode="validation")
    schema = strict(raw)
    defs = schema.get("$defs", {})
    props = schema["properties"]
    props["apiVersion"] = {"type": "string", "const": "kyverno.io/v1"}
    props["kind"] = {"type": "string", "const": "ClusterPolicy"}
    props["metadata"] = METADATA_SCHEMA
    required = ["apiVersion", "kind"] + [r for r in schema.get("required", [])
                                         if r not in ("apiVersion", "kind")]
    schema["required"] = required
    schema["additionalProperties"] = False
    schema["$schema"] = SCHEMA_DIALECT
    schema["$id"] = SCHEMA_ID
    schema["$comment"] = (
        "Generated by tools/vendor-kyverno-schema.py from the kyverno.io/v1 ClusterPolicy "
        "models of cloudcoil-models-kyverno 1.13.4.0 (generated from the Kyverno v1.13.4 "
        "CRDs); strict: unknown fields are rejected.")
    # Keep only the definitions still reachable from the root (ObjectMeta and
    # what only it uses are gone with the permissive metadata).
    reachable, pending = set(), set()
    collect_refs({k: v for k, v in schema.items() if k != "$defs"}, pending)
    while pending:
        name = pending.pop()
        if name in reachable:
            continue
        if name not in defs:
            raise ValueError("dangling $ref: %s" % name)
        reachable.add(name)
        collect_refs(defs[name], pending)
    schema["$defs"] = {name: defs[name] for name in sorted(reachable)}
    return schema


def collect_refs(node, refs):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            refs.add(ref[len("#/$defs/"):])
        for value in node.values():
            collect_refs(value, refs)
    elif isinstance(node, list):
        for value in node:
            collect_refs(value, refs)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", nargs="?", default=DEFAULT_WHEEL)
    ap.add_argument("--out", default=os.path.join(here, "..", "schemas", "kyverno",
                                                  "clusterpolicy.json"))
    args = ap.parse_args()
    schema = build(load_models(args.wheel))
    text = json.dumps(schema, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    print("%s (%d defs, %d bytes)" % (os.path.relpath(args.out),
                                      len(schema.get("$defs", {})), len(text.encode("utf-8"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
