#!/usr/bin/env python3
"""Convert a Kubernetes CustomResourceDefinition into a strict JSON Schema.

Reads a CRD (YAML; `-` for stdin; multi-document files are fine, use --kind
to pick one CRD) and writes a standalone JSON Schema (draft 2020-12) for ONE
served version of it, made from `spec.versions[].schema.openAPIV3Schema`:

* `apiVersion` (const `<group>/<version>`) and `kind` (const) are required.
* `metadata` gets a permissive object schema: `name`, `namespace` (strings),
  `labels`, `annotations` (maps of strings); other metadata keys are allowed.
* Strictness: every object schema that declares `properties` and has neither
  `additionalProperties` nor `x-kubernetes-preserve-unknown-fields: true`
  gets `additionalProperties: false`, so unknown fields fail validation
  (the API server would silently prune them instead).
* `x-kubernetes-int-or-string: true` becomes
  `anyOf: [{type: integer}, {type: string}]` (unless the CRD already has
  that `anyOf`); `nullable: true` also allows `null`.
* `x-kubernetes-embedded-resource: true` allows `apiVersion`, `kind` and
  `metadata` in that object.
* Validation keywords are kept (type, enum, pattern, format, required,
  min*/max*, items, ...); `default` and `title` are kept as annotations.
  `description`, `example`, `externalDocs` and every `x-kubernetes-*` keyword
  are dropped -- including `x-kubernetes-validations` (CEL rules), which
  JSON Schema cannot express. An unknown keyword is an error.

Output is deterministic (sorted keys, 1-space indent, trailing newline).

Usage:
  tools/vendor-crd-schemas.py CRD.yaml --version V --out OUT.json
      [--kind KIND] [--id URL] [--source TEXT]

Needs python3 and PyYAML (`import yaml`; `pip install pyyaml` if missing).
"""

import argparse
import json
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("vendor-crd-schemas.py needs PyYAML: pip install pyyaml")

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Keywords copied unchanged (their values are not subschemas).
PLAIN_KW = (
    "type", "format", "enum", "pattern", "required", "default", "title",
    "minimum", "maximum", "multipleOf", "minLength", "maxLength",
    "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
)
# Keywords dropped (annotations, or Kubernetes extensions handled elsewhere).
DROP_KW = ("description", "example", "externalDocs")

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

INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]


class Converter:
    def __init__(self):
        self.preserved = []    # paths with x-kubernetes-preserve-unknown-fields
        self.cel = []          # paths with dropped x-kubernetes-validations
        self.strict = 0        # number of additionalProperties: false added

    def convert(self, node, path, structural=True):
        """Return the JSON Schema for OpenAPI v3 (Kubernetes) schema `node`.

        `structural` is False inside anyOf/allOf/oneOf/not: there Kubernetes
        only allows value validations, and a `properties` there must not
        close the object, so no `additionalProperties: false` is added."""
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise ValueError("%s: schema is not an object: %r" % (path, node))
        out = {}
        for key, value in node.items():
            if key in DROP_KW or key in ("nullable",) or key.startswith("x-kubernetes-"):
                continue
            if key in PLAIN_KW:
                out[key] = value
            elif key == "properties":
                out[key] = {name: self.convert(sub, "%s.%s" % (path, name), structural)
                            for name, sub in value.items()}
            elif key == "items":
                if isinstance(value, list):
                    raise ValueError("%s: tuple-form items is not supported" % path)
                out[key] = self.convert(value, path + "[]", structural)
            elif key == "additionalProperties":
                out[key] = self.convert(value, path + "{}", structural)
            elif key == "not":
                out[key] = self.convert(value, path + "!", False)
            elif key in ("anyOf", "allOf", "oneOf"):
                out[key] = [self.convert(sub, "%s|%s%d" % (path, key, i), False)
                            for i, sub in enumerate(value)]
            elif key in ("exclusiveMinimum", "exclusiveMaximum"):
                # OpenAPI 3.0 boolean form -> JSON Schema 2020-12 number form.
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if isinstance(value, bool):
                    if value:
                        if bound not in node:
                            raise ValueError("%s: %s without %s" % (path, key, bound))
                        out[key] = node[bound]
                else:
                    out[key] = value
            else:
                raise ValueError("%s: unsupported keyword %r" % (path, key))

        if "exclusiveMinimum" in out and out.get("minimum") == out["exclusiveMinimum"]:
            del out["minimum"]
        if "exclusiveMaximum" in out and out.get("maximum") == out["exclusiveMaximum"]:
            del out["maximum"]

        if node.get("x-kubernetes-validations"):
            self.cel.append(path or ".")
        preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
        if preserve:
            self.preserved.append(path or ".")

        if node.get("x-kubernetes-embedded-resource") is True:
            props = out.setdefault("properties", {})
            props.setdefault("apiVersion", {"type": "string"})
            props.setdefault("kind", {"type": "string"})
            props["metadata"] = METADATA_SCHEMA

        if node.get("x-kubernetes-int-or-string") is True:
            if "type" in out:
                raise ValueError("%s: int-or-string with a type" % path)
            if out.get("anyOf") != INT_OR_STRING:
                if "anyOf" in out:
                    out = {"allOf": [{"anyOf": INT_OR_STRING}, out]}
                else:
                    out["anyOf"] = list(INT_OR_STRING)

        if (structural and "properties" in out and "additionalProperties" not in out
                and not preserve):
            out["additionalProperties"] = False
            self.strict += 1

        if node.get("nullable") is True:
            if isinstance(out.get("type"), str) and "enum" not in out:
                out["type"] = [out["type"], "null"]
            else:
                out = {"anyOf": [{"type": "null"}, out]}
        return out


def load_crd(path, kind):
    if path == "-":
        docs = list(yaml.safe_load_all(sys.stdin))
    else:
        with open(path, encoding="utf-8") as fh:
            docs = list(yaml.safe_load_all(fh))
    crds = [d for d in docs if isinstance(d, dict)
            and d.get("kind") == "CustomResourceDefinition"
            and (kind is None or d["spec"]["names"]["kind"] == kind)]
    if len(crds) != 1:
        sys.exit("%s: expected exactly one matching CustomResourceDefinition, found %d"
                 " (use --kind)" % (path, len(crds)))
    return crds[0]


def build(crd, version, schema_id, source):
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    matches = [v for v in spec["versions"] if v["name"] == version]
    if not matches:
        sys.exit("%s: no version %r (have: %s)" % (
            kind, version, ", ".join(v["name"] for v in spec["versions"])))
    ver = matches[0]
    if not ver.get("served"):
        sys.exit("%s %s is not served" % (kind, version))
    api_version = "%s/%s" % (group, version)

    conv = Converter()
    top = ver["schema"]["openAPIV3Schema"]
    schema = conv.convert(top, "")
    if schema.get("type") != "object" or "properties" not in schema:
        raise ValueError("top-level schema is not an object with properties")
    props = schema["properties"]
    props["apiVersion"] = {"type": "string", "const": api_version}
    props["kind"] = {"type": "string", "const": kind}
    props["metadata"] = METADATA_SCHEMA
    required = ["apiVersion", "kind"]
    required += [r for r in schema.get("required", []) if r not in required]
    schema["required"] = required
    schema["additionalProperties"] = False

    schema["$schema"] = SCHEMA_DIALECT
    if schema_id:
        schema["$id"] = schema_id
    comment = "Generated by tools/vendor-crd-schemas.py from the %s %s CRD" % (
        kind, api_version)
    if source:
        comment += " (%s)" % source
    schema["$comment"] = comment + "; strict: unknown fields are rejected."
    return schema, conv, api_version, kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crd", help="CRD YAML file, or - for stdin")
    ap.add_argument("--version", required=True, help="CRD version name, e.g. v1")
    ap.add_argument("--kind", help="pick this CRD from a multi-document file")
    ap.add_argument("--out", required=True, help="output JSON file")
    ap.add_argument("--id", help="$id of the output schema")
    ap.add_argument("--source", help="provenance note for $comment (repo, tag, path)")
    args = ap.parse_args()

    crd = load_crd(args.crd, args.kind)
    schema, conv, api_version, kind = build(crd, args.version, args.id, args.source)
    text = json.dumps(schema, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    print("%s: %s %s, %d bytes, %d objects closed" % (
        args.out, api_version, kind, len(text.encode("utf-8")), conv.strict))
    for path in conv.preserved:
        print("  preserve-unknown-fields: %s" % path)
    for path in conv.cel:
        print("  dropped CEL rules (x-kubernetes-validations): %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
