"""The one writer of lhc's Longhorn data: from the facts of every release (upstream.Facts) and
the hand-curated files, every file tools/longhorn-release owns, as bytes, plus the cross-check
failures and the checklist of what a person must still do.

Where every field of data/longhorn/releases/<version>.json comes from (chart.json, render.json:
tests/fixtures/longhorn/releases/<v>/; upstream: data/longhorn/upstream/<v>.json):

  release, app_version      chart.json `version`, `appVersion`
  kubernetes_min            chart.json `kubeVersion` (">=1.25.0-0" -> "1.25")
  minor                     `release` without its patch number
  values                    chart.json `values_keys`: path -> {type, default, unread (only when
                            no template reads the path, a map above it or a key below it),
                            segments (only when chart.json has them)}
  template_only             chart.json `templates_reference_undeclared[].path`, sorted
  questions                 (in data/longhorn/questions/<v>.json) questions.yaml, see chart.py
  settings.<key>            one per defaultSettings key of render.json, joined by its ConfigMap
                            key to the setting longhorn-manager defines (upstream `settings`):
    name                    render.json `configmap_key` (null when the key's own value never
                            reaches the ConfigMap: 1.11.0 nodeDiskHealthMonitoring)
    manager                 the setting, when the manager defines one of that name, else null
    type                    the setting's `type`; "unknown" when the manager has no such setting
    render                  render.json `classification`
    render_note             render.classify_entry's detail, only for `other`, gated keys and
                            keys whose render adds or removes other lines
    gated_by                render.json `gated_by` (its one element), when non-empty
    default                 the setting's `default`, absent when null
    chart_default           values.yaml's default of the key, absent when null
    choices, min, max       the setting's `choices`, `range.min`, `range.max`, absent when none
    engines                 the setting's `engines` (data-engine-specific settings)
    category                the setting's `category`, absent when null
    requires_detached       the entries of tools/longhorn-detached.curated.toml that hold at
                            the release for this setting, in file order, without `setting`
    in_values_yaml          whether values.yaml declares the key
  backup_store.<key>        render.json `defaultBackupStore` (1.8.0+): name = configmap_key,
                            render = classification
  recurring_job             upstream `recurringjob_crd`, version v1beta2: tasks = spec.task enum
                            (sorted); concurrency_default = spec.concurrency `default` (null:
                            none); defaults = every `default` keyword by path; spec_fields
  changes                   the differences from the previous release (compute_changes); null
                            for the oldest release
"""

import difflib
import json
import re
import tomllib

from . import render as render_mod
from . import schemas
from .chart import dump_chart
from .common import dump_entries, dump_json, line, minor_of, sha256, vkey

DATA_DIR = "data/longhorn/releases"
QUESTIONS_DIR = "data/longhorn/questions"
UPSTREAM_DIR = "data/longhorn/upstream"
FIXTURE_DIR = "tests/fixtures/longhorn/releases"
VALIDATION = "data/longhorn/validation.json"
DETACHED_FIXTURE = "tests/fixtures/longhorn/settings-upgrade.json"
MOVES = "data/longhorn/moves.toml"
DETACHED_CURATED = "tools/longhorn-detached.curated.toml"
VALIDATION_CURATED = "tools/longhorn-validation.curated.toml"
MANAGED_DIRS = (DATA_DIR, QUESTIONS_DIR, UPSTREAM_DIR, FIXTURE_DIR, schemas.OUT_DIR)
MANAGED_FILES = (VALIDATION, DETACHED_FIXTURE)
INPUT_KINDS = ("string", "bool", "int", "list")
DETACHED_FIELDS = ("setting", "list", "function", "via", "checked_in", "effect", "condition")
DETACHED_META = ("since", "until", "except", "source")
UPGRADE_FIXTURE_FIELDS = ("setting", "function", "effect", "condition", "via")


class Failures:
    """Collects cross-check failures so that one run reports all of them."""

    def __init__(self):
        self.items = []

    def check(self, ok, message):
        if not ok:
            self.items.append(message)
        return ok


def kube_min(kube_version, fails, v):
    m = re.fullmatch(r">=(\d+)\.(\d+)\.\d+(?:-0)?", kube_version)
    if not m:
        fails.check(False, "%s: unexpected kubeVersion %r" % (v, kube_version))
        return None
    return "%s.%s" % m.groups()


RELEASE_SECTIONS = ("settings", "values")
RELEASE_LAYOUT = ("one entry per line: a top-level key and its whole value, or, inside `settings` "
                  "and `values`, one key and its entry, in key order, so that lhc parses only the "
                  "entries a command reads")


def dump_release(rel):
    return dump_entries(rel, RELEASE_SECTIONS, RELEASE_LAYOUT)


# --- chart ---------------------------------------------------------------------------------

def entry_segments(entry):
    return tuple(entry["segments"]) if "segments" in entry else tuple(entry["path"].split("."))


def is_read(refs, path):
    """Whether the release's templates read a values path: the path itself, a map above it, or a
    key below it (chart.json `templates_reference`)."""
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


def top_level(chart):
    return {entry_segments(e)[0] for e in chart["values_keys"]}


# --- recurring job CRD ---------------------------------------------------------------------

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


def recurring_job(crd, fails, v):
    versions = [x for x in crd["spec"]["versions"] if x["name"] == schemas.VERSION]
    if not fails.check(len(versions) == 1 and versions[0].get("served"),
                       "%s: %s %s is not served" % (v, schemas.CRD_NAME, schemas.VERSION)):
        return None
    schema = versions[0]["schema"]["openAPIV3Schema"]
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

def has_side_lines(r):
    return any(r.get(kind, {}).get(extra)
               for kind in INPUT_KINDS
               for extra in ("also_added_lines", "also_removed_lines", "other_objects_changed"))


def detached_for(curated, v):
    """The curated entries that hold at release v, in file order."""
    out = []
    for e in curated:
        if vkey(v) < vkey(e["since"]) or ("until" in e and vkey(v) > vkey(e["until"])):
            continue
        if v in e.get("except", []):
            continue
        out.append(e)
    return out


def build_settings(fails, v, chart, section, up, detached):
    leaves = {e["path"]: e for e in chart["values_keys"]}
    refs = set(chart["templates_reference"])
    manager = up["settings"]
    keys = section["keys"]
    chart_ds = {p.split(".", 1)[1] for p in set(leaves) | refs
                if p.startswith("defaultSettings.") and "." not in p.split(".", 1)[1]}
    for k in sorted(chart_ds - set(keys)):
        fails.check(False, "%s: defaultSettings.%s is in values.yaml or the templates but not in "
                           "render.json" % (v, k))
    settings = {}
    for k in sorted(keys):
        r = keys[k]
        where = "%s defaultSettings.%s" % (v, k)
        leaf = leaves.get("defaultSettings." + k)
        cmkey = r["configmap_key"]
        e = manager.get(cmkey) if cmkey is not None else None
        known = e is not None
        fails.check(not known or e["type"] in ("bool", "int", "float", "string"),
                    "%s: manager type %r" % (where, e and e["type"]))
        s = {
            "name": cmkey,
            "manager": cmkey if known else None,
            "type": e["type"] if known else "unknown",
            "render": r["classification"],
            "in_values_yaml": leaf is not None,
        }
        gated = r.get("gated_by") or []
        fails.check(len(gated) <= 1, "%s: gated by several keys %r" % (where, gated))
        if gated:
            s["gated_by"] = gated[0]
        cls, detail = render_mod.classify_entry(r)
        fails.check(cls == r["classification"], "%s: render.json says %s, its lines say %s"
                    % (where, r["classification"], cls))
        if r["classification"] == "other" or gated or has_side_lines(r):
            fails.check(bool(detail), "%s: no render note" % where)
            s["render_note"] = detail
        if known and e["default"] is not None:
            s["default"] = e["default"]
        if leaf is not None and leaf["default"] is not None:
            s["chart_default"] = leaf["default"]
        if known and e["choices"]:
            s["choices"] = [str(c) for c in e["choices"]]
        rng = (e["range"] or {}) if known else {}
        for bound in ("min", "max"):
            if rng.get(bound) is not None:
                s[bound] = rng[bound]
        if known and e["data_engine_specific"]:
            s["engines"] = e["engines"]
        if known and e["category"] is not None:
            s["category"] = e["category"]
        if s["manager"]:
            entries = [{f: d[f] for f in DETACHED_FIELDS if f in d and f != "setting"}
                       for d in detached if d["setting"] == s["manager"]]
            if entries:
                s["requires_detached"] = entries
        settings[k] = s
    return settings


def build_backup_store(fails, v, section):
    out = {}
    for k, r in sorted(section["keys"].items()):
        entry = {"name": r["configmap_key"], "render": r["classification"]}
        cls, detail = render_mod.classify_entry(r)
        fails.check(cls == r["classification"], "%s defaultBackupStore.%s: classification" % (v, k))
        if r["classification"] == "other" or r.get("gated_by") or has_side_lines(r):
            entry["render_note"] = detail
        out[k] = entry
    return out


# --- changes between releases --------------------------------------------------------------

def compute_changes(prev, cur):
    """What changed from release `prev` to `cur` (both as built by build_release)."""
    out = {"release": cur["release"], "previous": prev["release"]}

    def diff(name, old, new):
        out[name + "_added"] = sorted(new - old)
        out[name + "_removed"] = sorted(old - new)

    diff("defaultSettings", set(prev["settings"]), set(cur["settings"]))
    diff("defaultSettings_values_yaml",
         {k for k, s in prev["settings"].items() if s["in_values_yaml"]},
         {k for k, s in cur["settings"].items() if s["in_values_yaml"]})
    diff("defaultBackupStore", set(prev.get("backup_store", {})), set(cur.get("backup_store", {})))
    diff("top_level", top_level(prev["_chart"]), top_level(cur["_chart"]))

    def outside(rel):
        return {p for p in rel["values"] if not p.startswith("defaultSettings.")}

    diff("values_leaves", outside(prev), outside(cur))
    diff("undeclared_refs", set(prev["template_only"]), set(cur["template_only"]))
    common = sorted(set(prev["settings"]) & set(cur["settings"]))
    out["configmap_key_changes"] = [
        {"key": k, "from": prev["settings"][k]["name"], "to": cur["settings"][k]["name"]}
        for k in common if prev["settings"][k]["name"] != cur["settings"][k]["name"]]
    styles = {}
    for k in common:
        a, b = prev["settings"][k]["render"], cur["settings"][k]["render"]
        if a != b:
            styles.setdefault("%s -> %s" % (a, b), []).append(k)
    out["render_style_changes"] = styles
    out["values_defaults_changed"] = [
        {"path": p, "from": prev["values"][p]["default"], "to": cur["values"][p]["default"]}
        for p in sorted(set(prev["values"]) & set(cur["values"]))
        if not p.startswith("image.")
        and line(prev["values"][p]["default"]) != line(cur["values"][p]["default"])]
    return out


# --- moves.toml ----------------------------------------------------------------------------

def present_paths(rel):
    paths = set(rel["_declared"]) | {"defaultSettings." + k for k in rel["settings"]}
    paths |= {"defaultBackupStore." + k for k in rel.get("backup_store", {})}
    return paths


def check_moves(fails, todo, moves_text, releases, changes):
    """Every entry of moves.toml must agree with the release data (a failure); every removal
    between consecutive releases must have an entry (a checklist item: only a person can write
    the note)."""
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
    for change in changes:
        v = change["release"]
        removed = ["defaultSettings." + k for k in change["defaultSettings_removed"]]
        removed += ["defaultBackupStore." + k for k in change["defaultBackupStore_removed"]]
        removed += change["values_leaves_removed"] + change["top_level_removed"]
        for path in removed:
            parts = path.split(".")
            if not any((".".join(parts[:n]), v) in seen for n in range(1, len(parts) + 1)):
                todo.append(v, "%s: add a [[move]] for %s (gone in %s, in %s): where it went, "
                               "or `to = \"\"`, with a note and a source"
                            % (MOVES, path, v, change["previous"]))


# --- curated requires-detached entries -----------------------------------------------------

def load_detached(text, fails):
    try:
        entries = tomllib.loads(text).get("entry", [])
    except tomllib.TOMLDecodeError as err:
        fails.check(False, "%s: %s" % (DETACHED_CURATED, err))
        return []
    for i, e in enumerate(entries):
        where = "%s entry #%d (%s)" % (DETACHED_CURATED, i + 1, e.get("setting"))
        unknown = set(e) - set(DETACHED_FIELDS) - set(DETACHED_META)
        fails.check(not unknown, "%s: unknown fields %s" % (where, sorted(unknown)))
        for f in ("setting", "function", "effect", "condition", "since", "source"):
            fails.check(isinstance(e.get(f), str) and e.get(f), "%s: `%s` must be a string" % (where, f))
    return entries


def check_detached(fails, todo, v, detached, up, focus):
    """The curated entries with a `list` must be exactly the danger lists read from the source,
    in order. For the release being added, a difference is a checklist item (the data then
    follows the curated file); for the others a failure."""
    got = {}
    for e in detached:
        if "list" in e:
            got.setdefault(e["list"], []).append(e["setting"])
    want = up["danger_lists"]
    problems = []
    for name in sorted(set(got) | set(want)):
        a, b = got.get(name, []), want.get(name, [])
        if a != b:
            problems.append("%s: %s lists %s in the source, %s has %s"
                            % (v, name, b, DETACHED_CURATED, a))
    for p in problems:
        if v == focus:
            todo.append(v, p + " (fix the curated entries: since/until/except)")
        else:
            fails.check(False, p)
    if v == focus:
        other = [e for e in detached if "list" not in e]
        for e in other:
            todo.append(v, "%s: still true at %s? %s by %s (%s); cannot be read from the "
                           "danger-zone lists, so it is carried over (set `until` if not)"
                        % (DETACHED_CURATED, v, e["setting"], e["function"], e["condition"]))


# --- fixtures ------------------------------------------------------------------------------

def manager_fixture(v, section, up):
    """The manager's definition of the setting each defaultSettings key reaches at release v."""
    keys = {}
    for k, r in sorted(section["keys"].items()):
        x = up["settings"].get(r["configmap_key"]) if r["configmap_key"] is not None else None
        if x is None:
            continue
        out = {"setting": r["configmap_key"], "type": x["type"],
               "data_engine_specific": x["data_engine_specific"], "manager_default": x["default"]}
        if x["range"]:
            out["range"] = x["range"]
        if x["choices"]:
            out["choices"] = x["choices"]
        keys[k] = out
    return {"release": v, "keys": keys}


SOURCE_MD = """\
# Longhorn chart fixtures, one folder per release

The oracle for lhc's chart-knowledge tests: what tools/longhorn-release read and observed
upstream at tag `v<version>`, never lhc's own tables (`data/longhorn/releases/`, which the same
tool derives from these files).

Per release `<version>/`:

- `chart.json`: read from the chart folder (`chart/` of github.com/longhorn/longhorn): `version`,
  `appVersion`, `kubeVersion` of Chart.yaml, `values_keys` (every leaf of values.yaml with
  path/type/default/segments), `templates_reference` and `templates_reference_undeclared` (the
  `.Values.*` chains of the templates).
- `render.json`: how each `defaultSettings.*` key and, from 1.8.0, each `defaultBackupStore.*`
  key renders, observed with a real Helm (%s) on the unmodified chart: `configmap_key`,
  `classification`, `default_render`, `gated_by`/`line_when_gate_set` where present, and for
  each test input (`string`, `bool`, `int`, `list`): `input`, `helm_ok`, then `line` or `error`,
  plus `also_added_lines`/`also_removed_lines` and `with_gate_set` where present. Also
  `test_inputs` and `rendered_in` of each section.
- `manager.json`: for each `defaultSettings` key the manager defines a setting for (parsed from
  longhorn/longhorn-manager `types/setting.go` at the tag): `setting`, `type`,
  `data_engine_specific`, `manager_default` and, where the definition has them, `range`
  (`min`/`max` as strings) and `choices`.
- `values.yaml`: the chart's `values.yaml`, byte for byte, only for the newest patch release of
  each minor line (%s).

What was read, with digests: `data/longhorn/upstream/<version>.json` (`sources`).

Regenerate (from the worktree root; README.md, "Adding a Longhorn release"):

    tools/longhorn-release write --check      # these files against the stored facts
    tools/longhorn-release regenerate-all --longhorn-git DIR --manager-git DIR --check
"""


# --- validation.json -----------------------------------------------------------------------

def validation_catalogue(order, facts):
    """Per setting name: list of (release, facts) for every release that defines it."""
    per = {}
    for v in order:
        for name, e in facts[v].upstream["settings"].items():
            f = {"type": e["type"], "required": bool(e["required"])}
            if e["data_engine_specific"] and e.get("engines"):
                f["engines"] = e["engines"]
            per.setdefault(name, {})[v] = f
    spans = {}
    for name, by_release in per.items():
        out = []
        last = None
        for release in order:
            f = by_release.get(release)
            if f is None:
                last = None
                continue
            if last is not None and out[-1]["facts"] == f:
                out[-1]["until"] = release
            else:
                out.append({"since": release, "until": release, "facts": f})
            last = f
        spans[name] = out
    return spans


NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def build_validation(fails, order, facts, curated_raw):
    try:
        curated = tomllib.loads(curated_raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        fails.check(False, "%s: %s" % (VALIDATION_CURATED, err))
        return None
    spans = validation_catalogue(order, facts)
    newest = order[-1]
    rules = {}
    for s in curated.get("setting", []):
        rules.setdefault(s["name"], []).append(s)
    unknown = sorted(set(rules) - set(spans))
    fails.check(not unknown, "%s: rules for settings no release defines: %s" % (VALIDATION_CURATED, unknown))

    def span_object(span):
        fields = {"since": span["since"]}
        if span["until"] != newest:
            fields["until"] = span["until"]
        fields.update(span["facts"])
        return fields

    settings = {}
    for name in sorted(spans):
        extra = [x for s in rules.get(name, []) for x in s.get("extra_span", [])]
        entry = {"spans": [span_object(s) for s in spans[name]] + extra}
        entry["rule"] = [r for s in rules.get(name, []) for r in s.get("rule", [])]
        settings[name] = entry
    parameters = {}
    for p in curated.get("parameter", []):
        fails.check(p["name"] not in parameters, "%s: parameter %s listed twice" % (VALIDATION_CURATED, p["name"]))
        parameters[p["name"]] = p.get("rule", [])
    for name in list(settings) + list(parameters):
        fails.check(NAME.match(name), "%r: names must match %s (the loader reads them raw)" % (name, NAME.pattern))
    inputs = {"%s %s" % (facts[v].upstream["sources"]["manager"]["tag"], "longhorn/longhorn-manager"):
              facts[v].upstream["sources"]["manager"]["sha256"] for v in order}
    inputs[VALIDATION_CURATED] = sha256(curated_raw)
    head = {
        "about": "Generated by tools/longhorn-release; do not edit by hand. What "
                 "longhorn-manager checks in a setting value, a StorageClass parameter and the "
                 "node disk annotations beyond type, choices and range, per release, with "
                 "sources. Rule vocabulary and field meanings: the header of "
                 f"{VALIDATION_CURATED} and src/knowledge/verdicts/.",
        "layout": "one entry per line: a top-level key and its whole value, or, inside "
                  "`setting` and `parameter`, one name and its rules, so lhc parses only the "
                  "entries a cluster file needs",
        "inputs": inputs,
        "releases": order,
        "generic": curated.get("generic", []),
        "cross": curated.get("cross", []),
        "disk": curated.get("disk", []),
        "node_tags": curated.get("node_tags", []),
    }
    out = ["{"]
    for k, v in head.items():
        out.append(f"{json.dumps(k)}: {compact(v)},")
    for section, entries, last in (("setting", settings, False), ("parameter", parameters, True)):
        out.append(f"{json.dumps(section)}: {{")
        names = list(entries)
        for i, name in enumerate(names):
            comma = "," if i + 1 < len(names) else ""
            out.append(f"  {json.dumps(name)}: {compact(entries[name])}{comma}")
        out.append("}" if last else "},")
    out.append("}")
    text = "\n".join(out) + "\n"
    json.loads(text)  # the whole file is JSON too
    return text.encode("utf-8")


def compact(value):
    """One entry of validation.json as one line, keys in their source order."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert "\n" not in text
    return text


# --- main ----------------------------------------------------------------------------------

class Todo:
    """The checklist: what a person must still do, by release."""

    def __init__(self):
        self.items = []

    def append(self, v, text):
        if (v, text) not in self.items:
            self.items.append((v, text))


def build_release(fails, v, f, detached_curated, order):
    chart, up = f.chart, f.upstream
    fails.check(chart["version"] == v and chart["appVersion"] == "v" + v and f.render["release"] == v
                and up["release"] == v, "%s: chart.json, render.json or the upstream facts are of "
                                        "another release" % v)
    declared = declared_paths(chart)
    undeclared = sorted(x["path"] for x in chart["templates_reference_undeclared"])
    refs = set(chart["templates_reference"])
    for p in undeclared:
        fails.check(p not in declared and p in refs,
                    "%s: template-only path %s is declared or not referenced" % (v, p))
    detached = detached_for(detached_curated, v)
    ds = f.render.get("defaultSettings")
    fails.check(ds is not None, "%s: render.json has no defaultSettings" % v)
    rel = {
        "release": v,
        "app_version": chart["appVersion"],
        "kubernetes_min": kube_min(chart["kubeVersion"], fails, v),
        "minor": minor_of(v),
        "values": {e["path"]: dict({"type": e["type"], "default": e["default"]},
                                   **({"segments": e["segments"]} if "segments" in e else {}),
                                   **({} if is_read(refs, e["path"]) else {"unread": True}))
                   for e in chart["values_keys"]},
        "template_only": undeclared,
        "settings": build_settings(fails, v, chart, ds or {"keys": {}}, up, detached),
    }
    if "defaultBackupStore" in f.render:
        rel["backup_store"] = build_backup_store(fails, v, f.render["defaultBackupStore"])
    rel["recurring_job"] = recurring_job(up["recurringjob_crd"], fails, v)
    rel["_chart"], rel["_declared"], rel["_detached"] = chart, declared, detached
    return rel


def build(facts, curated, focus=None, adding=True):
    """All files, as {path: bytes}; (files, failures, checklist). `facts`: version -> Facts;
    `curated`: {path: bytes} of the hand-written inputs; `focus`: the release being added
    (its checklist items are collected; the others must be consistent); `adding`: False when
    the focus release is only checked (the docs already name it)."""
    fails, todo = Failures(), Todo()
    order = sorted(facts, key=vkey)
    detached_curated = load_detached(curated[DETACHED_CURATED].decode("utf-8"), fails)
    newest_of_minor = {}
    for v in order:
        newest_of_minor[minor_of(v)] = v
    files = {}
    releases = []
    for v in order:
        f = facts[v]
        rel = build_release(fails, v, f, detached_curated, order)
        check_detached(fails, todo, v, rel["_detached"], f.upstream, focus)
        releases.append(rel)
        fx = "%s/%s/" % (FIXTURE_DIR, v)
        files[fx + "chart.json"] = dump_chart(f.chart)
        files[fx + "render.json"] = dump_json(dict(f.render))
        files[fx + "manager.json"] = dump_json(manager_fixture(v, f.render["defaultSettings"], f.upstream))
        if newest_of_minor[minor_of(v)] == v:
            if f.values_yaml is None:
                fails.check(False, "%s: the newest %s release needs its values.yaml fixture; "
                                   "give its chart (add --check, or regenerate-all)" % (v, minor_of(v)))
            else:
                fails.check(sha256(f.values_yaml) == f.upstream["values_yaml_sha256"],
                            "%s: %svalues.yaml is not the chart's values.yaml" % (v, fx))
                files[fx + "values.yaml"] = f.values_yaml
        files["%s/%s.json" % (UPSTREAM_DIR, v)] = f.upstream_bytes()
        files["%s/%s.json" % (QUESTIONS_DIR, v)] = dump_json({"release": v, "questions": f.questions})
    changes = []
    for i, rel in enumerate(releases):
        rel["changes"] = compute_changes(releases[i - 1], rel) if i > 0 else None
        if rel["changes"] is not None:
            changes.append(rel["changes"])
    check_moves(fails, todo, curated[MOVES].decode("utf-8"), releases, changes)

    index = []
    for rel in releases:
        del rel["_chart"], rel["_declared"], rel["_detached"]
        files["%s/%s.json" % (DATA_DIR, rel["release"])] = dump_release(rel)
        index.append({k: rel[k] for k in ("release", "minor", "app_version", "kubernetes_min")})
    inputs = {}
    for v in order:
        src = facts[v].upstream["sources"]
        inputs["%s longhorn/longhorn chart/" % src["chart"]["tag"]] = src["chart"]["sha256"]
        inputs["%s longhorn/longhorn-manager" % src["manager"]["tag"]] = src["manager"]["sha256"]
    inputs[DETACHED_CURATED] = sha256(curated[DETACHED_CURATED])
    helms = sorted({facts[v].upstream["helm"] for v in order})
    files[DATA_DIR + "/index.json"] = dump_json({
        "source": "Generated by tools/longhorn-release from github.com/longhorn/longhorn (folder "
                  "chart/, rendered with Helm %s) and github.com/longhorn/longhorn-manager (Go "
                  "source) at tags v%s-v%s, via the facts in data/longhorn/upstream/ and "
                  "tests/fixtures/longhorn/releases/, and from %s. inputs: sha256 of the files "
                  "read, per release and source (data/longhorn/upstream/<v>.json `sources` says "
                  "how they are computed), and of the curated file."
                  % (", ".join(helms), order[0], order[-1], DETACHED_CURATED),
        "inputs": inputs,
        "releases": index,
    })
    files[FIXTURE_DIR + "/SOURCE.md"] = (SOURCE_MD % (", ".join(helms), ", ".join(
        newest_of_minor[m] for m in sorted(newest_of_minor, key=vkey)))).encode("utf-8")

    files[DETACHED_FIXTURE] = upgrade_fixture(order, facts, detached_curated, curated)
    validation = build_validation(fails, order, facts, curated[VALIDATION_CURATED])
    if validation is not None:
        files[VALIDATION] = validation
    schema_files, problems = schemas.generate(order, {v: facts[v].upstream for v in order})
    for p in problems:
        fails.check(False, p)
    files.update(schema_files)

    if focus is not None:
        checklist(todo, focus, facts, releases, order, adding)
    return files, fails.items, todo.items


def upgrade_fixture(order, facts, detached_curated, curated):
    releases = {}
    for v in order:
        f = facts[v]
        detached = [{k: d[k] for k in UPGRADE_FIXTURE_FIELDS if k in d}
                    for d in detached_for(detached_curated, v)]
        chart_keys = {}
        for key, r in f.render["defaultSettings"]["keys"].items():
            x = f.upstream["settings"].get(r["configmap_key"]) if r["configmap_key"] else None
            if x is not None:
                chart_keys[key] = {"setting": r["configmap_key"], "default": x["default"]}
        releases[v] = {"requires_detached": detached, "chart_keys": chart_keys}
    sha = {"%s longhorn/longhorn-manager" % facts[v].upstream["sources"]["manager"]["tag"]:
           facts[v].upstream["sources"]["manager"]["sha256"] for v in order}
    sha[DETACHED_CURATED] = sha256(curated[DETACHED_CURATED])
    fixture = {
        "source": "derived by tools/longhorn-release: requires_detached from %s (longhorn-manager "
                  "datastore/longhorn.go and controller/setting_controller.go at each release "
                  "tag, read by hand; the danger-zone lists checked against the source), "
                  "chart_keys from each chart's render (render.json) joined to longhorn-manager "
                  "types/setting.go at the same tag" % DETACHED_CURATED,
        "sha256": sha,
        "releases": releases,
    }
    return (json.dumps(fixture, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def checklist(todo, v, facts, releases, order, adding):
    """What a person must still do after adding release v."""
    rel = next(r for r in releases if r["release"] == v)
    i = order.index(v)
    prev = releases[i - 1] if i > 0 else None
    if prev is not None:
        new_settings = sorted({s["manager"] for s in rel["settings"].values() if s["manager"]}
                              - {s["manager"] for s in prev["settings"].values() if s["manager"]})
        mgr_new = sorted(set(facts[v].upstream["settings"]) - set(facts[prev["release"]].upstream["settings"]))
        if new_settings or mgr_new:
            todo.append(v, "%s: review the rules for the settings new in %s: %s"
                        % (VALIDATION_CURATED, v, ", ".join(sorted(set(new_settings) | set(mgr_new)))))
        if rel["changes"]["render_style_changes"]:
            todo.append(v, "render styles changed since %s: %s (check data/longhorn/quirks.toml "
                           "and how lhc writes those keys)"
                        % (prev["release"], json.dumps(rel["changes"]["render_style_changes"])))
    odd = sorted(k for k, s in rel["settings"].items()
                 if s["render"] == "other" or s.get("gated_by") or s["name"] is None)
    if odd:
        todo.append(v, "data/longhorn/quirks.toml: keys of %s that do not render plainly: %s "
                       "(render_note in data/longhorn/releases/%s.json)" % (v, ", ".join(odd), v))
    unknown = sorted(k for k, s in rel["settings"].items() if s["manager"] is None)
    if unknown:
        todo.append(v, "defaultSettings keys of %s that reach no longhorn-manager setting: %s"
                    % (v, ", ".join(unknown)))
    if adding and v == order[-1] and len(order) > 1:
        todo.append(v, "README.md, docs/ and src/ name the newest release (%s until now, e.g. "
                       "\"every release from %s to %s\"): make it %s, and the tests that pin it"
                    % (order[-2], order[0], order[-2], v))


def diff_text(a, b, name):
    return "\n".join(difflib.unified_diff(a.decode("utf-8", "replace").splitlines(),
                                          b.decode("utf-8", "replace").splitlines(),
                                          "committed/" + name, "regenerated/" + name, lineterm=""))


