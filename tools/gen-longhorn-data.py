#!/usr/bin/env python3
"""Derive lhc's Longhorn release data and test fixtures from the chart reference data.

Reads the reference data in REF (default /work/shared/ref/longhorn, described in its
releases/README.md) and writes, relative to the worktree root:

  data/longhorn/releases/<version>.json      one file per chart release 1.5.0 ... 1.12.1
  data/longhorn/releases/index.json          the releases in order + sha256 of every input read
  tests/fixtures/longhorn/releases/<version>/chart.json, render.json, manager.json (every
                                            release), values.yaml (newest patch of each minor line)
  tests/fixtures/longhorn/releases/SOURCE.md

It also validates the hand-written data/longhorn/moves.toml against the release data.

Usage (from the worktree root):
  python3 tools/gen-longhorn-data.py [--ref REF]           write the files
  python3 tools/gen-longhorn-data.py [--ref REF] --check   regenerate in memory and compare byte
                                                           for byte with the committed files
                                                           (exit 1 on any difference)

Needs python3 >= 3.11 (tomllib) and PyYAML (`pip install pyyaml` if `import yaml` fails).
Output is deterministic: sorted keys, UTF-8, LF, trailing newline, no timestamps; indent=1, but
releases/<version>.json one entry per line (RELEASE_LAYOUT).

Where every field of releases/<version>.json comes from (paths relative to REF):

  release, app_version      releases/<v>/chart.json `version`, `appVersion`
  kubernetes_min            chart.json `kubeVersion` (">=1.25.0-0" -> "1.25")
  minor                     `release` without its patch number
  values                    chart.json `values_keys`: path -> {type, default, unread (only when
                            no template reads the path, a map above it or a key below it),
                            segments (only
                            when chart.json has them)}; checked leaf by leaf against a walk of
                            releases/<v>/values.yaml
  template_only             chart.json `templates_reference_undeclared[].path`, sorted
  questions                 (in data/longhorn/questions/<v>.json, beside `release`)
                            releases/<v>/questions.yaml, every `variable` (subquestions
                            included): type, min, max, default, options, label, group; a field
                            the question lacks is null. `default` is the scalar's text as
                            written in questions.yaml (`3`, `true`, `4.10` stay "3", "true",
                            "4.10"; Rancher reads defaults as strings), null for a YAML null.
                            questions.yaml of 1.5.0-1.5.3 is not valid YAML (the description of
                            defaultSettings.offlineReplicaRebuilding opens with `""This`); the
                            one exact bad line is repaired before parsing (QUESTIONS_REPAIR).
                            Descriptions are not copied, so the repair changes no output value.
  settings.<key>            one per key of releases/<v>/settings-render.json `keys`, joined to
                            settings-all-releases.json `keys.<key>.versions.<v>`:
    name                    settings-render `configmap_key` (null when the key's own value
                            never reaches the ConfigMap: 1.11.0 nodeDiskHealthMonitoring)
    manager                 settings-all-releases `setting` when `known_to_manager`, else null
    type                    settings-all-releases `type`; "unknown" when not known to manager
    render                  settings-render `classification`
    render_note             settings-render `classification_detail`, only for `other`, gated
                            keys and keys whose render adds or removes other lines
    gated_by                settings-render `gated_by` (its one element), when non-empty
    default                 settings-all-releases `manager_default`, absent when null
    chart_default           settings-render `values_default`, absent when null
    choices, min, max       settings-all-releases `choices`, `range.min`, `range.max`, absent
                            when null/empty
    engines                 when `data_engine_specific`: sorted keys of the JSON `manager_default`
    category                settings-all-releases `category`, absent when null
    requires_detached       settings-all-releases `releases.<v>.requires_detached_volumes_detail`
                            entries whose `setting` is `manager`, in file order, without
                            `setting` (a LIST: v1/v2-data-engine and 1.5.x storage-network have
                            two entries, one per mechanism); absent when none
    in_values_yaml          settings-render `in_values_yaml`
  backup_store.<key>        releases/<v>/backupstore-render.json (1.8.0+): name = configmap_key,
                            render = classification; absent before 1.8.0
  recurring_job             releases/<v>/crds.yaml, CRD recurringjobs.longhorn.io, version
                            v1beta2: tasks = spec.task enum (sorted); concurrency_default =
                            spec.concurrency `default` (null: the CRD has none); defaults = every
                            `default` keyword in the v1beta2 schema by path (empty in every
                            release); spec_fields = spec property names (sorted)
  changes                   releases/summary.json `changes` entry of this release, all its keys;
                            null for 1.5.0 (no previous release)

Cross-checks (the script exits 1 and lists every failure): the release list agrees across
summary.json, settings-all-releases.json and the releases/ folders; every defaultSettings key is
in both settings-render.json and settings-all-releases.json, and their configmap key, render
classification and values default agree; chart.json agrees with values.yaml, with the
defaultSettings keys of settings-render.json and with summary.json's counts; summary.json
`changes` agrees with the differences recomputed from the release data; moves.toml agrees with
the release data and covers every removal summary.json lists.
"""

import argparse
import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("gen-longhorn-data.py needs PyYAML: pip install pyyaml")

DEFAULT_REF = "/work/shared/ref/longhorn"
ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = "data/longhorn/releases"
QUESTIONS_DIR = "data/longhorn/questions"
FIXTURE_DIR = "tests/fixtures/longhorn/releases"
MOVES = "data/longhorn/moves.toml"
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# questions.yaml of 1.5.0-1.5.3: a description that starts with `""` (invalid YAML).
QUESTIONS_REPAIR = (
    'description: ""This setting allows users to enable the offline replica rebuilding',
    'description: "This setting allows users to enable the offline replica rebuilding',
)
RECURRING_JOB_CRD = "recurringjobs.longhorn.io"
RECURRING_JOB_VERSION = "v1beta2"
INPUT_KINDS = ("string", "bool", "int", "list")
QUESTION_FIELDS = ("type", "min", "max", "default", "options", "label", "group")


class Failures:
    """Collects cross-check failures so that one run reports all of them."""

    def __init__(self):
        self.items = []

    def check(self, ok, message):
        if not ok:
            self.items.append(message)
        return ok

    def exit_if_any(self):
        if self.items:
            print("gen-longhorn-data: %d cross-check failure(s):" % len(self.items),
                  file=sys.stderr)
            for item in self.items:
                print("  - " + item, file=sys.stderr)
            sys.exit(1)


class Inputs:
    """Reads files under REF and remembers the sha256 of each one read."""

    def __init__(self, ref):
        self.ref = Path(ref)
        self.sha = {}

    def bytes(self, rel):
        data = (self.ref / rel).read_bytes()
        self.sha[rel] = hashlib.sha256(data).hexdigest()
        return data

    def text(self, rel):
        return self.bytes(rel).decode("utf-8")

    def json(self, rel):
        return json.loads(self.text(rel))

    def yaml(self, rel):
        return yaml.load(self.text(rel), Loader=SAFE_LOADER)


def vkey(version):
    return tuple(int(x) for x in version.split("."))


def minor_of(version):
    return ".".join(version.split(".")[:2])


def dump_json(obj):
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


RELEASE_SECTIONS = ("settings", "values")
RELEASE_LAYOUT = ("one entry per line: a top-level key and its whole value, or, inside `settings` "
                  "and `values`, one key and its entry, in key order, so that lhc parses only the "
                  "entries a command reads")


def line(value):
    """One value as one line of JSON, keys sorted (the loader relies on it)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert "\n" not in text
    return text


def dump_release(rel):
    """A release's tables, one entry per line (see RELEASE_LAYOUT; src/knowledge/longhorn.rs
    indexes the lines and parses an entry when it is first read)."""
    out = ["{"]
    keys = sorted(dict(rel, layout=None))
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        if key in RELEASE_SECTIONS:
            out.append("%s: {" % json.dumps(key))
            names = sorted(rel[key])
            for j, name in enumerate(names):
                assert '": ' not in name and "\n" not in name, name
                sep = "," if j + 1 < len(names) else ""
                out.append("  %s: %s%s" % (json.dumps(name, ensure_ascii=False), line(rel[key][name]), sep))
            out.append("}" + comma)
        else:
            value = RELEASE_LAYOUT if key == "layout" else rel[key]
            out.append("%s: %s%s" % (json.dumps(key), line(value), comma))
    out.append("}")
    text = "\n".join(out) + "\n"
    assert json.loads(text) == dict(rel, layout=RELEASE_LAYOUT)
    return text.encode("utf-8")


def value_key(segments):
    """A values path as lhc's loader spells it from the segments: dotted, a segment that holds
    `.`, `[`, `]`, `"` or `\\` (or is empty) bracketed and JSON-quoted."""
    out = ""
    for s in segments:
        if s and not any(c in s for c in '.[]"\\'):
            out += ("." if out else "") + s
        else:
            out += "[%s]" % json.dumps(s, ensure_ascii=False)
    return out


# --- values.yaml ---------------------------------------------------------------------------

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


def walk_leaves(node, segments, out):
    """Leaves as chart.json defines them: scalars, nulls, lists and empty maps."""
    if isinstance(node, dict) and node:
        for key, value in node.items():
            walk_leaves(value, segments + [str(key)], out)
    else:
        out[tuple(segments)] = node


def entry_segments(entry):
    return tuple(entry["segments"]) if "segments" in entry else tuple(entry["path"].split("."))


def check_values(fails, v, chart, values_yaml):
    leaves = {}
    walk_leaves(values_yaml, [], leaves)
    by_segments = {}
    for entry in chart["values_keys"]:
        segs = entry_segments(entry)
        fails.check(segs not in by_segments, "%s chart.json: duplicate values key %s" % (v, entry["path"]))
        fails.check(entry["path"] == value_key(segs),
                    "%s chart.json: values key %s is not spelled %s, as lhc looks it up"
                    % (v, entry["path"], value_key(segs)))
        by_segments[segs] = entry
    fails.check(chart["values_keys_count"] == len(chart["values_keys"]),
                "%s chart.json: values_keys_count %s != %d entries"
                % (v, chart["values_keys_count"], len(chart["values_keys"])))
    for segs in sorted(set(leaves) | set(by_segments)):
        if not fails.check(segs in leaves and segs in by_segments,
                           "%s: values leaf %s only in %s" % (
                               v, ".".join(segs), "values.yaml" if segs in leaves else "chart.json")):
            continue
        entry, value = by_segments[segs], leaves[segs]
        fails.check(entry["type"] == yaml_type(value) and entry["default"] == value,
                    "%s: values leaf %s: chart.json %s %r, values.yaml %s %r" % (
                        v, entry["path"], entry["type"], entry["default"], yaml_type(value), value))


def is_read(chart, path):
    """Whether the release's templates read a values path: the path itself, a map above it, or a
    key below it (chart.json `templates_reference`)."""
    refs = chart.setdefault("_refs", set(chart["templates_reference"]))
    if path in refs or any(r.startswith(path + ".") for r in refs):
        return True
    parts = path.split(".")
    return any(".".join(parts[:n]) in refs for n in range(1, len(parts)))


def declared_paths(chart):
    """Every values path values.yaml declares: the leaves and the maps above them."""
    paths = set()
    for entry in chart["values_keys"]:
        paths.add(entry["path"])
        if "segments" not in entry:
            parts = entry["path"].split(".")
            for i in range(1, len(parts)):
                paths.add(".".join(parts[:i]))
        else:
            segs = entry["segments"]
            for i in range(1, len(segs)):
                if all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s) for s in segs[:i]):
                    paths.add(".".join(segs[:i]))
    return paths


# --- questions.yaml ------------------------------------------------------------------------

def load_questions(inputs, v):
    rel = "releases/%s/questions.yaml" % v
    text = inputs.text(rel)
    try:
        typed = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        if QUESTIONS_REPAIR[0] not in text:
            raise
        text = text.replace(QUESTIONS_REPAIR[0], QUESTIONS_REPAIR[1])
        typed = yaml.load(text, Loader=SAFE_LOADER)
    raw = yaml.load(text, Loader=yaml.BaseLoader)  # every scalar as its text
    out = {}

    def walk(typed_list, raw_list):
        for q, rq in zip(typed_list, raw_list, strict=True):
            var = q["variable"]
            if var in out:
                raise SystemExit("%s: duplicate question variable %s" % (rel, var))
            entry = {f: q.get(f) for f in QUESTION_FIELDS}
            entry["default"] = None if q.get("default") is None else rq["default"]
            out[var] = entry
            if q.get("subquestions"):
                walk(q["subquestions"], rq["subquestions"])

    walk(typed["questions"], raw["questions"])
    return out


# --- crds.yaml -----------------------------------------------------------------------------

def recurring_job_crd(inputs, v):
    docs = yaml.load_all(inputs.text("releases/%s/crds.yaml" % v), Loader=SAFE_LOADER)
    found = [d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"
             and d.get("metadata", {}).get("name") == RECURRING_JOB_CRD]
    if len(found) != 1:
        raise SystemExit("%s crds.yaml: %d %s CRDs" % (v, len(found), RECURRING_JOB_CRD))
    versions = [x for x in found[0]["spec"]["versions"] if x["name"] == RECURRING_JOB_VERSION]
    if len(versions) != 1 or not versions[0].get("served"):
        raise SystemExit("%s crds.yaml: %s %s is not served" % (v, RECURRING_JOB_CRD, RECURRING_JOB_VERSION))
    return versions[0]["schema"]["openAPIV3Schema"]


def schema_defaults(node, path, out):
    if isinstance(node, dict):
        if "default" in node:
            out[path or "."] = node["default"]
        for key, sub in node.items():
            if key == "properties":
                for name, prop in sub.items():
                    schema_defaults(prop, "%s.%s" % (path, name) if path else name, out)
            elif key in ("items", "additionalProperties"):
                schema_defaults(sub, path + ("[]" if key == "items" else "{}"), out)


def recurring_job(schema):
    spec = schema["properties"]["spec"]["properties"]
    defaults = {}
    schema_defaults(schema, "", defaults)
    return {
        "tasks": sorted(spec["task"]["enum"]),
        "concurrency_default": spec.get("concurrency", {}).get("default"),
        "defaults": defaults,
        "spec_fields": sorted(spec),
    }


# --- settings ------------------------------------------------------------------------------

def has_side_lines(render_key):
    return any(render_key.get(kind, {}).get(extra)
               for kind in INPUT_KINDS
               for extra in ("also_added_lines", "also_removed_lines", "other_objects_changed"))


def build_settings(fails, v, render, all_rel, chart):
    rel_info = all_rel["releases"][v]
    chart_keys = {k for k, e in all_rel["keys"].items() if v in e["versions"]}
    render_keys = set(render["keys"])
    for k in sorted(render_keys - chart_keys):
        fails.check(False, "%s: defaultSettings.%s is in settings-render.json but not in "
                           "settings-all-releases.json keys" % (v, k))
    for k in sorted(chart_keys - render_keys):
        fails.check(False, "%s: defaultSettings.%s is in settings-all-releases.json but not in "
                           "settings-render.json" % (v, k))
    leaves = {e["path"]: e for e in chart["values_keys"]}
    refs = set(chart["templates_reference"])
    chart_ds = {p.split(".", 1)[1] for p in set(leaves) | refs if p.startswith("defaultSettings.")}
    for k in sorted(chart_ds - render_keys):
        fails.check(False, "%s: defaultSettings.%s is in values.yaml or the templates but not in "
                           "settings-render.json" % (v, k))
    unknown = set(rel_info["chart_keys_unknown_to_manager"])
    settings = {}
    for k in sorted(render_keys & chart_keys):
        r = render["keys"][k]
        e = all_rel["keys"][k]["versions"][v]
        where = "%s defaultSettings.%s" % (v, k)
        fails.check(e["setting"] == r["configmap_key"],
                    "%s: settings-all-releases setting %r != settings-render configmap_key %r"
                    % (where, e["setting"], r["configmap_key"]))
        fails.check(e.get("helm_classification") == r["classification"],
                    "%s: helm_classification %r != classification %r"
                    % (where, e.get("helm_classification"), r["classification"]))
        fails.check(e["chart_value"] == r["values_default"],
                    "%s: chart_value %r != values_default %r" % (where, e["chart_value"], r["values_default"]))
        leaf = leaves.get("defaultSettings." + k)
        fails.check(r["in_values_yaml"] == (leaf is not None),
                    "%s: in_values_yaml %r but values.yaml %s it"
                    % (where, r["in_values_yaml"], "declares" if leaf else "lacks"))
        if leaf is not None:
            fails.check(leaf["default"] == r["values_default"],
                        "%s: values.yaml default %r != values_default %r"
                        % (where, leaf["default"], r["values_default"]))
        fails.check(r["in_default_setting_template"] == ("defaultSettings." + k in refs),
                    "%s: in_default_setting_template %r disagrees with chart.json templates_reference"
                    % (where, r["in_default_setting_template"]))
        known = e["known_to_manager"] is True
        fails.check((k in unknown) == (e["known_to_manager"] is False),
                    "%s: known_to_manager %r but chart_keys_unknown_to_manager %s it"
                    % (where, e["known_to_manager"], "lists" if k in unknown else "omits"))
        fails.check(not known or e["type"] in ("bool", "int", "float", "string"),
                    "%s: manager type %r" % (where, e["type"]))

        s = {
            "name": r["configmap_key"],
            "manager": e["setting"] if known else None,
            "type": e["type"] if known else "unknown",
            "render": r["classification"],
            "in_values_yaml": r["in_values_yaml"],
        }
        gated = r.get("gated_by") or []
        fails.check(len(gated) <= 1, "%s: gated by several keys %r" % (where, gated))
        if gated:
            s["gated_by"] = gated[0]
        if r["classification"] == "other" or gated or has_side_lines(r):
            fails.check(bool(r.get("classification_detail")), "%s: no classification_detail" % where)
            s["render_note"] = r.get("classification_detail")
        if e["manager_default"] is not None:
            fails.check(isinstance(e["manager_default"], str), "%s: manager_default not a string" % where)
            s["default"] = e["manager_default"]
        if r["values_default"] is not None:
            s["chart_default"] = r["values_default"]
        if e["choices"]:
            s["choices"] = [str(c) for c in e["choices"]]
        rng = e["range"] or {}
        for bound in ("min", "max"):
            if rng.get(bound) is not None:
                s[bound] = rng[bound]
        if e["data_engine_specific"]:
            try:
                engines = json.loads(e["manager_default"])
            except (TypeError, ValueError):
                engines = None
            if fails.check(isinstance(engines, dict),
                           "%s: data-engine-specific but default %r is not a JSON object"
                           % (where, e["manager_default"])):
                s["engines"] = sorted(engines)
        if e["category"] is not None:
            s["category"] = e["category"]
        if s["manager"]:
            detached = [{f: x for f, x in d.items() if f != "setting"}
                        for d in rel_info["requires_detached_volumes_detail"]
                        if d["setting"] == s["manager"]]
            if detached:
                s["requires_detached"] = detached
        settings[k] = s

    # Every setting named in requires_detached_volumes must be reachable (or manager-only).
    mapped = {s["manager"] for s in settings.values() if s["manager"]}
    manager_only = {name for name, m in all_rel["manager_only"].items() if v in m["versions"]}
    for name in rel_info["requires_detached_volumes"]:
        fails.check(name in mapped or name in manager_only,
                    "%s: requires_detached_volumes names %s, which is neither a chart key's setting "
                    "nor manager-only" % (v, name))
    fails.check(rel_info["chart_keys"] == len(settings),
                "%s: settings-all-releases chart_keys %s != %d keys" % (v, rel_info["chart_keys"], len(settings)))
    fails.check(sorted(manager_only) == sorted(rel_info["manager_settings_without_chart_key"]),
                "%s: manager_only %s != manager_settings_without_chart_key %s"
                % (v, sorted(manager_only), sorted(rel_info["manager_settings_without_chart_key"])))
    return settings


def build_backup_store(fails, v, bs, chart):
    leaves = {e["path"] for e in chart["values_keys"] if e["path"].startswith("defaultBackupStore.")}
    refs = {p for p in chart["templates_reference"] if p.startswith("defaultBackupStore.")}
    keys = {"defaultBackupStore." + k for k in bs["keys"]}
    fails.check(keys == leaves | refs, "%s: backupstore-render keys %s != values.yaml/template keys %s"
                % (v, sorted(keys), sorted(leaves | refs)))
    out = {}
    for k, r in sorted(bs["keys"].items()):
        fails.check(r["in_values_yaml"] == ("defaultBackupStore." + k in leaves),
                    "%s defaultBackupStore.%s: in_values_yaml disagrees with values.yaml" % (v, k))
        entry = {"name": r["configmap_key"], "render": r["classification"]}
        if r["classification"] == "other" or r.get("gated_by") or has_side_lines(r):
            entry["render_note"] = r.get("classification_detail")
        out[k] = entry
    return out


# --- summary.json cross-check --------------------------------------------------------------

def top_level(chart):
    return {entry_segments(e)[0] for e in chart["values_keys"]}


def check_summary_row(fails, v, row, rel):
    settings, chart = rel["settings"], rel["_chart"]
    counts = {c: sum(1 for s in settings.values() if s["render"] == c)
              for c in ("quoted", "bare", "string-required", "other")}
    expect = {
        "appVersion": chart["appVersion"],
        "kubeVersion": chart["kubeVersion"],
        "defaultSettings_keys": len(settings),
        "defaultSettings_in_values": sum(1 for s in settings.values() if s["in_values_yaml"]),
        "values_leaf_keys": len(chart["values_keys"]),
        "top_level_keys": len(top_level(chart)),
        "quoted": counts["quoted"],
        "bare": counts["bare"],
        "string_required": counts["string-required"],
        "other": counts["other"],
    }
    for field, value in expect.items():
        fails.check(row.get(field) == value, "%s summary.json releases.%s = %r, data gives %r"
                    % (v, field, row.get(field), value))
    has_bs = "backup_store" in rel
    fails.check((row.get("backupstore") is not None) == has_bs,
                "%s summary.json backupstore %r but backupstore-render.json %s"
                % (v, row.get("backupstore"), "exists" if has_bs else "is absent"))


def check_summary_change(fails, change, prev, cur):
    """Recompute the key differences summary.json lists and compare."""
    v = cur["release"]

    def diff(name, old, new):
        fails.check(sorted(change.get(name + "_added", [])) == sorted(new - old),
                    "%s summary.json %s_added %s, data gives %s"
                    % (v, name, change.get(name + "_added"), sorted(new - old)))
        fails.check(sorted(change.get(name + "_removed", [])) == sorted(old - new),
                    "%s summary.json %s_removed %s, data gives %s"
                    % (v, name, change.get(name + "_removed"), sorted(old - new)))

    diff("defaultSettings", set(prev["settings"]), set(cur["settings"]))
    diff("defaultSettings_values_yaml",
         {k for k, s in prev["settings"].items() if s["in_values_yaml"]},
         {k for k, s in cur["settings"].items() if s["in_values_yaml"]})
    diff("defaultBackupStore", set(prev.get("backup_store", {})), set(cur.get("backup_store", {})))
    diff("top_level", top_level(prev["_chart"]), top_level(cur["_chart"]))
    outside = lambda rel: {p for p in rel["values"] if not p.startswith("defaultSettings.")}
    diff("values_leaves", outside(prev), outside(cur))
    diff("undeclared_refs", set(prev["template_only"]), set(cur["template_only"]))
    key_changes = [{"key": k, "from": prev["settings"][k]["name"], "to": cur["settings"][k]["name"]}
                   for k in sorted(set(prev["settings"]) & set(cur["settings"]))
                   if prev["settings"][k]["name"] != cur["settings"][k]["name"]]
    fails.check(sorted(change["configmap_key_changes"], key=lambda c: c["key"]) == key_changes,
                "%s summary.json configmap_key_changes %s, data gives %s"
                % (v, change["configmap_key_changes"], key_changes))
    styles = {}
    for k in sorted(set(prev["settings"]) & set(cur["settings"])):
        a, b = prev["settings"][k]["render"], cur["settings"][k]["render"]
        if a != b:
            styles.setdefault("%s -> %s" % (a, b), []).append(k)
    fails.check({s: sorted(ks) for s, ks in change["render_style_changes"].items()} == styles,
                "%s summary.json render_style_changes %s, data gives %s"
                % (v, change["render_style_changes"], styles))


# --- moves.toml ----------------------------------------------------------------------------

def present_paths(rel):
    paths = set(rel["_declared"]) | {"defaultSettings." + k for k in rel["settings"]}
    paths |= {"defaultBackupStore." + k for k in rel.get("backup_store", {})}
    return paths


def check_moves(fails, moves_text, releases, summary_changes):
    order = [r["release"] for r in releases]
    by_version = {r["release"]: r for r in releases}
    present = {r["release"]: present_paths(r) for r in releases}
    try:
        moves = tomllib.loads(moves_text).get("move", [])
    except tomllib.TOMLDecodeError as err:
        fails.check(False, "%s: %s" % (MOVES, err))
        return
    seen = set()
    for i, m in enumerate(moves):
        where = "%s move #%d (%s, since %s)" % (MOVES, i + 1, m.get("from"), m.get("since"))
        extra = set(m) - {"from", "to", "since", "last", "to_engine", "values", "note", "source"}
        fails.check(not extra, "%s: unknown fields %s" % (where, sorted(extra)))
        if not fails.check(all(isinstance(m.get(f), str) and (m.get(f) or f == "to")
                               for f in ("from", "to", "since", "note", "source")),
                           "%s: from, to, since, note and source must be strings (only `to` may be empty)"
                           % where):
            continue
        fails.check((m["from"], m["since"]) not in seen, "%s: duplicate entry" % where)
        seen.add((m["from"], m["since"]))
        if vkey(m["since"]) < vkey(order[0]):
            # Gone before the oldest release of the data: in none of them.
            for v in order:
                fails.check(m["from"] not in present[v], "%s: `from` is in release %s" % (where, v))
            fails.check(not m["to"] or any(m["to"] in present[v] for v in order),
                        "%s: `to` %s is in no release" % (where, m["to"]))
            continue
        if not fails.check(m["since"] in by_version and m["since"] != order[0],
                           "%s: since is not a release after %s" % (where, order[0])):
            continue
        si = order.index(m["since"])
        last = m.get("last", order[si - 1])
        if not fails.check(last in by_version and order.index(last) < si,
                           "%s: last %r is not a release before since" % (where, last)):
            continue
        li = order.index(last)
        fails.check(m["from"] in present[last], "%s: `from` is not in release %s" % (where, last))
        for v in order[li + 1:si + 1]:
            fails.check(m["from"] not in present[v], "%s: `from` is still in release %s" % (where, v))
        if m["to"]:
            fails.check(m["to"] in present[m["since"]], "%s: `to` %s is not in release %s"
                        % (where, m["to"], m["since"]))
        if "to_engine" in m:
            key = m["to"].removeprefix("defaultSettings.")
            s = by_version[m["since"]]["settings"].get(key, {})
            fails.check(m["to_engine"] in s.get("engines", []),
                        "%s: %s in %s has no %r engine entry" % (where, m["to"], m["since"], m["to_engine"]))
    # Every removal summary.json records must be explained.
    for change in summary_changes:
        v = change["release"]
        removed = ["defaultSettings." + k for k in change["defaultSettings_removed"]]
        removed += ["defaultBackupStore." + k for k in change["defaultBackupStore_removed"]]
        removed += change["values_leaves_removed"] + change["top_level_removed"]
        for path in removed:
            parts = path.split(".")
            covered = any((".".join(parts[:n]), v) in seen for n in range(1, len(parts) + 1))
            fails.check(covered, "%s: no move entry for %s or a map above it (removed in %s, "
                                 "summary.json)" % (MOVES, path, v))


# --- fixtures ------------------------------------------------------------------------------

def render_fixture_section(doc):
    keys = {}
    for k, r in sorted(doc["keys"].items()):
        out = {f: r[f] for f in ("configmap_key", "classification")}
        for f in ("default_render", "gated_by", "line_when_gate_set"):
            if f in r:
                out[f] = r[f]
        for kind in INPUT_KINDS:
            x = r[kind]
            res = {f: x[f] for f in ("input", "helm_ok", "line", "error") if f in x}
            for f in ("also_added_lines", "also_removed_lines"):
                if x.get(f):
                    res[f] = x[f]
            if "with_gate_set" in x:
                res["with_gate_set"] = {f: x["with_gate_set"][f]
                                        for f in ("gate_key", "gate_value", "helm_ok", "line", "error")
                                        if f in x["with_gate_set"]}
            out[kind] = res
        keys[k] = out
    return {"test_inputs": doc["test_inputs"], "rendered_in": doc["rendered_in"], "keys": keys}


def manager_fixture(v, all_rel):
    """The manager's definition of the setting each defaultSettings key reaches at release v."""
    keys = {}
    for k, entry in sorted(all_rel["keys"].items()):
        x = entry["versions"].get(v)
        if x is None or not x["known_to_manager"]:
            continue
        out = {f: x[f] for f in ("setting", "type", "data_engine_specific", "manager_default")}
        for f in ("range", "choices"):
            if x.get(f):
                out[f] = x[f]
        keys[k] = out
    return {"release": v, "keys": keys}


SOURCE_MD = """\
# Longhorn chart fixtures, one folder per release

The oracle for lhc's chart-knowledge tests. These files come straight from the Longhorn chart
reference data (`shared/ref/longhorn/releases/<version>/`, see its README.md: every render fact
was observed with Helm v4.1.4 on the unmodified chart at tag `v<version>` of
github.com/longhorn/longhorn), never from lhc's own `data/`.

Per release `<version>/`:

- `chart.json`: the release's `chart.json`, byte for byte (`version`, `appVersion`,
  `kubeVersion`, `values_keys` with path/type/default/segments, `templates_reference`,
  `templates_reference_undeclared`).
- `render.json`: how each `defaultSettings.*` key (from `settings-render.json`) and, from 1.8.0,
  each `defaultBackupStore.*` key (from `backupstore-render.json`) renders: `configmap_key`,
  `classification`, `default_render`, `gated_by`/`line_when_gate_set` where present, and for each
  test input (`string`, `bool`, `int`, `list`): `input`, `helm_ok`, then `line` or `error`,
  plus `also_added_lines`/`also_removed_lines` and `with_gate_set` where present. Also
  `test_inputs` and `rendered_in` of each section.
- `manager.json`: for each `defaultSettings` key the manager defines a setting for (from
  `settings-all-releases.json`, `keys.<key>.versions.<version>`, parsed from longhorn-manager
  `types/setting.go` at the tag): `setting`, `type`, `data_engine_specific`, `manager_default`
  and, where the definition has them, `range` (`min`/`max` as strings) and `choices`.
- `values.yaml`: the chart's `values.yaml`, byte for byte, only for the newest patch release of
  each minor line (%s).

The sha256 of every input is in `data/longhorn/releases/index.json` (`inputs`).

Regenerate (from the worktree root, with the reference data at its default place):

    python3 tools/gen-longhorn-data.py            # or --ref PATH/TO/ref/longhorn
    python3 tools/gen-longhorn-data.py --check    # fails if anything here is stale
"""


# --- main ----------------------------------------------------------------------------------

def kube_min(kube_version):
    m = re.fullmatch(r">=(\d+)\.(\d+)\.\d+(?:-0)?", kube_version)
    if not m:
        raise SystemExit("unexpected kubeVersion %r" % kube_version)
    return "%s.%s" % m.groups()


def generate(ref):
    inputs = Inputs(ref)
    fails = Failures()
    summary = inputs.json("releases/summary.json")
    all_rel = inputs.json("settings-all-releases.json")
    order = [row["release"] for row in summary["releases"]]
    folders = sorted((p.name for p in (Path(ref) / "releases").iterdir() if p.is_dir()), key=vkey)
    fails.check(order == sorted(order, key=vkey), "summary.json releases are not in version order")
    fails.check(order == folders, "summary.json releases %s != release folders %s" % (order, folders))
    fails.check(order == all_rel["versions"], "summary.json releases != settings-all-releases versions")
    fails.exit_if_any()

    newest_of_minor = {}
    for v in order:
        newest_of_minor[minor_of(v)] = v
    files = {}
    releases = []
    for v in order:
        base = "releases/%s/" % v
        chart_bytes = inputs.bytes(base + "chart.json")
        chart = json.loads(chart_bytes)
        values_bytes = inputs.bytes(base + "values.yaml")
        check_values(fails, v, chart, yaml.load(values_bytes.decode("utf-8"), Loader=SAFE_LOADER))
        render = inputs.json(base + "settings-render.json")
        fails.check(chart["version"] == v and chart["appVersion"] == "v" + v and render["release"] == v,
                    "%s: chart.json version/appVersion or settings-render release disagree" % v)
        declared = declared_paths(chart)
        undeclared = sorted(x["path"] for x in chart["templates_reference_undeclared"])
        for p in undeclared:
            fails.check(p not in declared and p in chart["templates_reference"],
                        "%s: template-only path %s is declared or not referenced" % (v, p))
        rel = {
            "release": v,
            "app_version": chart["appVersion"],
            "kubernetes_min": kube_min(chart["kubeVersion"]),
            "minor": minor_of(v),
            "values": {e["path"]: dict({"type": e["type"], "default": e["default"]},
                                       **({"segments": e["segments"]} if "segments" in e else {}),
                                       **({} if is_read(chart, e["path"]) else {"unread": True}))
                       for e in chart["values_keys"]},
            "template_only": undeclared,
            "questions": load_questions(inputs, v),
            "settings": build_settings(fails, v, render, all_rel, chart),
        }
        fixture_render = {"release": v, "defaultSettings": render_fixture_section(render)}
        if (Path(ref) / base / "backupstore-render.json").exists():
            bs = inputs.json(base + "backupstore-render.json")
            rel["backup_store"] = build_backup_store(fails, v, bs, chart)
            fixture_render["defaultBackupStore"] = render_fixture_section(bs)
        rel["recurring_job"] = recurring_job(recurring_job_crd(inputs, v))
        rel["_chart"], rel["_declared"] = chart, declared
        releases.append(rel)

        fx = "%s/%s/" % (FIXTURE_DIR, v)
        files[fx + "chart.json"] = chart_bytes
        files[fx + "render.json"] = dump_json(fixture_render)
        files[fx + "manager.json"] = dump_json(manager_fixture(v, all_rel))
        if newest_of_minor[minor_of(v)] == v:
            files[fx + "values.yaml"] = values_bytes

    changes = {c["release"]: c for c in summary["changes"]}
    fails.check(sorted(changes, key=vkey) == order[1:], "summary.json changes do not cover releases 2..n")
    for i, rel in enumerate(releases):
        check_summary_row(fails, rel["release"], summary["releases"][i], rel)
        change = changes.get(rel["release"])
        if i > 0 and change is not None:
            fails.check(change["previous"] == releases[i - 1]["release"],
                        "%s summary.json previous %s" % (rel["release"], change["previous"]))
            check_summary_change(fails, change, releases[i - 1], rel)
        rel["changes"] = change

    moves_path = ROOT / MOVES
    if fails.check(moves_path.exists(), "%s is missing" % MOVES):
        check_moves(fails, moves_path.read_text(encoding="utf-8"), releases, summary["changes"])
    fails.exit_if_any()

    index = []
    for rel in releases:
        del rel["_chart"], rel["_declared"]
        # questions.yaml is read only when a values key's default says nothing of its type: its
        # own file, so that a build does not parse it.
        questions = rel.pop("questions")
        files["%s/%s.json" % (QUESTIONS_DIR, rel["release"])] = dump_json(
            {"release": rel["release"], "questions": questions})
        files["%s/%s.json" % (DATA_DIR, rel["release"])] = dump_release(rel)
        index.append({k: rel[k] for k in ("release", "minor", "app_version", "kubernetes_min")})
    files[DATA_DIR + "/index.json"] = dump_json({
        "source": "Generated by tools/gen-longhorn-data.py from the Longhorn chart reference data "
                  "(shared/ref/longhorn: chart.json, values.yaml, questions.yaml, crds.yaml, "
                  "settings-render.json and backupstore-render.json of every release, observed "
                  "with Helm v4.1.4 at tags v1.5.0-v1.12.1 of github.com/longhorn/longhorn; "
                  "releases/summary.json; settings-all-releases.json, parsed from "
                  "longhorn/longhorn-manager types/setting.go at the same tags). "
                  "inputs: sha256 of every file read, by path relative to shared/ref/longhorn.",
        "inputs": dict(sorted(inputs.sha.items())),
        "releases": index,
    })
    files[FIXTURE_DIR + "/SOURCE.md"] = (SOURCE_MD % ", ".join(
        newest_of_minor[m] for m in sorted(newest_of_minor, key=vkey))).encode("utf-8")
    return files


def managed_files(root):
    """Files this script owns: everything under the two output folders."""
    out = set()
    for d in (DATA_DIR, QUESTIONS_DIR, FIXTURE_DIR):
        base = root / d
        if base.exists():
            out |= {p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file()}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default=DEFAULT_REF, help="the Longhorn reference data folder")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    args = ap.parse_args()
    files = generate(args.ref)
    existing = managed_files(ROOT)
    if args.check:
        stale = sorted(p for p, data in files.items()
                       if not (ROOT / p).exists() or (ROOT / p).read_bytes() != data)
        extra = sorted(existing - set(files))
        for p in stale:
            print("differs: " + p)
        for p in extra:
            print("not generated: " + p)
        if stale or extra:
            return 1
        print("up to date: %d files" % len(files))
        return 0
    for p in sorted(existing - set(files)):
        (ROOT / p).unlink()
        print("removed " + p)
    for p, data in sorted(files.items()):
        target = ROOT / p
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
    total = sum(len(d) for d in files.values())
    print("wrote %d files, %d bytes" % (len(files), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
