"""What a Longhorn chart folder (`chart/` of longhorn/longhorn at a tag) says, without Helm:
Chart.yaml, the leaves of values.yaml, the `.Values.*` chains its templates read, and the
Rancher questions of questions.yaml.

chart.json (tests/fixtures/longhorn/releases/<v>/chart.json):
  version, appVersion, kubeVersion   Chart.yaml
  values_keys                        every leaf of values.yaml (a scalar, a null, a list or an
                                     empty map; lists are not descended into), sorted by path:
                                     {path, default, type, segments (only when a segment needs
                                     brackets in the path)}; `type` is what PyYAML (YAML 1.1)
                                     makes of the default
  templates_reference                every distinct `.Values.a.b...` chain in any file under
                                     templates/ (a regular-expression search: chains relative
                                     to a `with`/`range` block are not seen)
  templates_reference_undeclared     those chains values.yaml declares neither as a leaf nor as
                                     a map, with the files that read them
"""

import json
import re

import yaml

from .common import SAFE_LOADER, ToolError, load_yaml

VALUES_CHAIN = re.compile(r"\.Values((?:\.[A-Za-z0-9_]+)+)")
# questions.yaml of 1.5.0-1.5.3: a description that starts with `""` (invalid YAML).
QUESTIONS_REPAIR = (
    'description: ""This setting allows users to enable the offline replica rebuilding',
    'description: "This setting allows users to enable the offline replica rebuilding',
)
QUESTION_FIELDS = ("type", "min", "max", "default", "options", "label", "group")
# What makes a folder a Longhorn chart (checked before anything is rendered).
REQUIRED_FILES = ("Chart.yaml", "values.yaml", "questions.yaml", "templates/default-setting.yaml",
                  "templates/crds.yaml")


def yaml_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def value_key(segments):
    """A values path as lhc's loader spells it: dotted, a segment that holds `.`, `[`, `]`,
    `"` or `\\` (or is empty) bracketed and JSON-quoted."""
    out = ""
    for s in segments:
        if s and not any(c in s for c in '.[]"\\'):
            out += ("." if out else "") + s
        else:
            out += "[%s]" % json.dumps(s, ensure_ascii=False)
    return out


def walk_leaves(node, segments, out):
    if isinstance(node, dict) and node:
        for key, value in node.items():
            walk_leaves(value, segments + [str(key)], out)
    else:
        out.append((segments, node))


def read_chart_yaml(chart_dir):
    meta = load_yaml((chart_dir / "Chart.yaml").read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ToolError("%s/Chart.yaml is not a YAML map" % chart_dir)
    return meta


def check_is_longhorn(chart_dir):
    """Refuse a folder that is not a Longhorn chart, before anything else is read."""
    if not chart_dir.is_dir():
        raise ToolError("--chart %s: no such folder" % chart_dir)
    missing = [f for f in REQUIRED_FILES if not (chart_dir / f).is_file()]
    if "Chart.yaml" in missing:
        raise ToolError("--chart %s is not a Helm chart (no Chart.yaml)" % chart_dir)
    try:
        meta = read_chart_yaml(chart_dir)
    except yaml.YAMLError as err:
        raise ToolError("--chart %s: Chart.yaml is not YAML: %s" % (chart_dir, err))
    if meta.get("name") != "longhorn":
        raise ToolError("--chart %s is not the Longhorn chart: Chart.yaml names %r, not 'longhorn'"
                        % (chart_dir, meta.get("name")))
    if missing:
        raise ToolError("--chart %s is not a Longhorn chart: it lacks %s"
                        % (chart_dir, ", ".join(missing)))
    for field in ("version", "appVersion", "kubeVersion"):
        if not isinstance(meta.get(field), str):
            raise ToolError("--chart %s: Chart.yaml has no %s string" % (chart_dir, field))
    return meta


def chart_facts(chart_dir, meta, values):
    leaves = []
    walk_leaves(values, [], leaves)
    keys = []
    for segs, default in leaves:
        entry = {"path": value_key(segs), "default": default, "type": yaml_type(default)}
        if entry["path"] != ".".join(segs):
            entry["segments"] = segs
        keys.append(entry)
    keys.sort(key=lambda e: e["path"])
    paths = [e["path"] for e in keys]
    if len(set(paths)) != len(paths):
        raise ToolError("%s/values.yaml: two leaves spell the same path" % chart_dir)
    refs = {}
    for f in sorted((chart_dir / "templates").rglob("*")):
        if f.is_file():
            rel = f.relative_to(chart_dir).as_posix()
            for m in VALUES_CHAIN.finditer(f.read_text(encoding="utf-8", errors="replace")):
                refs.setdefault(m.group(1)[1:], set()).add(rel)
    declared = set()
    for segs, _ in leaves:
        for i in range(1, len(segs) + 1):
            declared.add(value_key(segs[:i]))
    return {
        "version": meta["version"],
        "appVersion": meta["appVersion"],
        "kubeVersion": meta["kubeVersion"],
        "source": "github.com/longhorn/longhorn tag v%s, folder chart/" % meta["version"],
        "values_keys_count": len(keys),
        "values_keys": keys,
        "templates_reference": sorted(refs),
        "templates_reference_undeclared": [{"path": p, "files": sorted(fs)}
                                           for p, fs in sorted(refs.items()) if p not in declared],
    }


def dump_chart(chart):
    """chart.json's bytes: key order as built, indent 1."""
    return (json.dumps(chart, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def read_questions(text, where):
    """Every `variable` of questions.yaml (subquestions included): type, min, max, default,
    options, label, group; a field the question lacks is null. `default` is the scalar's text
    as written (Rancher reads defaults as strings), null for a YAML null. The one known bad line
    of 1.5.0-1.5.3 (QUESTIONS_REPAIR) is repaired before parsing; descriptions are not kept, so
    the repair changes no value."""
    try:
        typed = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        if QUESTIONS_REPAIR[0] not in text:
            raise ToolError("%s is not YAML" % where)
        text = text.replace(QUESTIONS_REPAIR[0], QUESTIONS_REPAIR[1])
        typed = yaml.load(text, Loader=SAFE_LOADER)
    raw = yaml.load(text, Loader=yaml.BaseLoader)  # every scalar as its text
    if not isinstance(typed, dict) or not isinstance(typed.get("questions"), list):
        raise ToolError("%s has no `questions` list" % where)
    out = {}

    def walk(typed_list, raw_list):
        for q, rq in zip(typed_list, raw_list, strict=True):
            var = q["variable"]
            if var in out:
                raise ToolError("%s: duplicate question variable %s" % (where, var))
            entry = {f: q.get(f) for f in QUESTION_FIELDS}
            entry["default"] = None if q.get("default") is None else rq["default"]
            out[var] = entry
            if q.get("subquestions"):
                walk(q["subquestions"], rq["subquestions"])

    walk(typed["questions"], raw["questions"])
    return out


CRD_HEADER = ("# The CustomResourceDefinitions of Longhorn chart %s, as `helm template` (Helm %s) "
              "renders them from the chart at tag v%s (labels dropped).\n")


def crds_text(rendered, version, helm_version):
    """Every CustomResourceDefinition of a default render, labels dropped, as one YAML text
    (whose sha256 schemas/longhorn/README.md records)."""
    docs = [d for d in yaml.load_all(rendered, Loader=SAFE_LOADER)
            if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"]
    for d in docs:
        (d.get("metadata") or {}).pop("labels", None)
    body = yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)
    return CRD_HEADER % (version, helm_version.lstrip("v"), version) + body, docs
