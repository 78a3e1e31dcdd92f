#!/usr/bin/env python3
"""Records how Helm, kubectl and kustomize read the YAML fixtures of tests/fixtures/yaml11/.

    tools/record-yaml-readings.py --helm .cache/bin/helm [--kubectl kubectl] [--check]

- `values/<case>.yaml`, a Helm values file: `helm template` of a chart whose one template is
  `{{ toJson .Values }}` and whose own values are empty, with `-f <case>.yaml`. Written to
  `values/<case>.helm.json`: the values Helm hands the chart, or `{"error": ...}` when Helm
  refuses the file.
- `manifests/<case>.yaml`, Kubernetes objects: `kubectl label --local -f <case>.yaml -o json
  probe-` (kubectl's reading, as `kubectl apply -f` decodes the file, without a cluster) to
  `manifests/<case>.kubectl.json`; `kubectl kustomize` of a kustomization that lists the file,
  its output read by kubectl again (what Flux's kustomize-controller applies) to
  `manifests/<case>.kustomize.json`. Each is `{"documents": [...]}`, with `"error"` when the
  tool stopped; the empty `metadata.labels` that `label` adds is taken out.

Also writes the readings of every case of tests/import/ that has a `record` file, whose lines
are `helm FILE` (a values file), `kubectl FILE` or `kustomize FILE` (objects):
`expected-values.yaml`, Helm's reading of the values file (or kustomize's of a HelmRelease's
`spec.values`), and `expected-objects.yaml`, the objects as kubectl or kustomize read them; both
JSON, which YAML readers read alike.

`--check` writes nothing and exits 1 when a recorded reading differs from the tools' own.
The paths the tools print are replaced by the case's file name, so readings do not depend on
where they were made. The header of tests/fixtures/yaml11/README.md says which versions made
the files in the repository.
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "yaml11"
IMPORTS = REPO / "tests" / "import"


def dump(value):
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def first_error(stderr, replacements):
    """The tool's error message, without klog's time and process id (`E1201 20:28:05.06 4552
    run.go:72] "command failed" err=...`), on one line."""
    text = re.sub(r"(?m)^[EWI]\d{4} [0-9:.]+ +\d+ [^]]+\] ", "", stderr)
    text = re.sub(r'^"command failed" err=', "", text.strip())
    text = " ".join(l.strip() for l in text.splitlines() if l.strip())
    for old, new in replacements:
        text = text.replace(old, new)
    return text.strip()


def helm_reading(helm, chart, path):
    run = subprocess.run(
        [helm, "template", "probe", str(chart), "-f", str(path)],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        return {"error": first_error(run.stderr, [(str(path), path.name)])}
    body = [l for l in run.stdout.split("\n") if l.startswith("{")]
    return json.loads(body[0])


def json_stream(text):
    decoder, out, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        value, at = decoder.raw_decode(text, at)
        out.append(value)


def kubectl_reading(kubectl, path, shown):
    run = subprocess.run(
        [kubectl, "label", "--local", "-f", str(path), "-o", "json", "probe-"],
        capture_output=True,
        text=True,
    )
    documents = []
    for doc in json_stream(run.stdout):
        items = doc.get("items") if doc.get("kind") == "List" else None
        for d in items if items is not None else [doc]:
            meta = d.get("metadata", {})
            if meta.get("labels") == {}:
                del meta["labels"]
            documents.append(d)
    out = {"documents": documents}
    if run.returncode != 0:
        out["error"] = first_error(run.stderr, [(str(path), shown)])
    return out


def kustomize_reading(kubectl, path):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        shutil.copy(path, tmp / path.name)
        (tmp / "kustomization.yaml").write_text(f"resources:\n- {path.name}\n")
        run = subprocess.run(
            [kubectl, "kustomize", str(tmp)], capture_output=True, text=True
        )
        if run.returncode != 0:
            return {"documents": [], "error": first_error(run.stderr, [(str(tmp), ".")])}
        built = tmp / "built.yaml"
        built.write_text(run.stdout)
        return kubectl_reading(kubectl, built, "built.yaml")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--helm", required=True, help="the helm binary (Helm 4.1.4 recorded these)")
    ap.add_argument("--kubectl", default="kubectl")
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args()

    readings = {}
    with tempfile.TemporaryDirectory() as tmp:
        chart = pathlib.Path(tmp) / "probe"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: probe\nversion: 0.1.0\n")
        (chart / "values.yaml").write_text("")
        (chart / "templates" / "values.json").write_text("{{ toJson .Values }}\n")
        for path in sorted((FIXTURES / "values").glob("*.yaml")):
            readings[path.with_suffix(".helm.json")] = dump(helm_reading(args.helm, chart, path))
        for case in sorted(p for p in IMPORTS.iterdir() if (p / "record").exists()):
            objects = []
            for line in (case / "record").read_text().splitlines():
                tool, name = line.split()
                if tool == "helm":
                    value = helm_reading(args.helm, chart, case / name)
                    readings[case / "expected-values.yaml"] = dump(value)
                elif tool == "kubectl":
                    objects += kubectl_reading(args.kubectl, case / name, name)["documents"]
                elif tool == "kustomize":
                    read = kustomize_reading(args.kubectl, case / name)["documents"]
                    for o in read:
                        if o.get("kind") == "HelmRelease":
                            values = o.get("spec", {}).get("values", {})
                            readings[case / "expected-values.yaml"] = dump(values)
                        else:
                            objects.append(o)
                else:
                    sys.exit(f"{case / 'record'}: unknown tool {tool!r}")
            if objects:
                readings[case / "expected-objects.yaml"] = dump(objects)
    for path in sorted((FIXTURES / "manifests").glob("*.yaml")):
        readings[path.with_suffix(".kubectl.json")] = dump(
            kubectl_reading(args.kubectl, path, path.name)
        )
        readings[path.with_suffix(".kustomize.json")] = dump(kustomize_reading(args.kubectl, path))

    stale = []
    for path, text in readings.items():
        old = path.read_text() if path.exists() else None
        if old != text:
            stale.append(path.relative_to(REPO))
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print("readings that differ from the tools' own:", *stale, sep="\n  ", file=sys.stderr)
        return 1
    print(f"{len(readings)} readings, {len(stale)} {'differ' if args.check else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
