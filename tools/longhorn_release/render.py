"""How each `defaultSettings.*` and `defaultBackupStore.*` key of a chart renders, observed with
a real Helm (`helm template longhorn CHART -n longhorn-system -f VALUES`) on the unmodified
chart. Nothing is inferred from reading templates.

Method (the one the reference data of 1.5.0-1.12.1 was made with):

1. A render with no values is the baseline. The ConfigMaps' data values are compared line by
   line; every other object as a whole.
2. Each key is rendered alone with the string input `a: b #c`. The added line that contains
   the input is the key's own line; the text before its first `:` is the key's ConfigMap key.
   Any other added or removed line (other than the key's own default line) is recorded.
3. Keys whose alone render changed only their own line are rendered together for `true`, `7`
   and `["x","y"]`; a batch that fails is split in halves until each failing key is alone. A
   batch whose result cannot be attributed key by key is rendered key by key. Every other key
   is rendered alone for every input.
4. A key whose own line did not appear is rendered again together with each key that added
   stray lines (set to `lhgateprobe`): a key that makes its line appear gates it, and the key is
   then rendered with its (first) gate for every input.

A failed render keeps the first line of helm's stderr.
"""

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .common import ToolError, load_yaml

INPUTS = (("string", "a: b #c"), ("bool", True), ("int", 7), ("list", ["x", "y"]))
TEST_INPUTS = dict(INPUTS)
GATE_VALUE = "lhgateprobe"
RELEASE_NAME = "longhorn"
NAMESPACE = "longhorn-system"
SECTIONS = (
    # section, its template, the ConfigMap it fills
    ("defaultSettings", "templates/default-setting.yaml"),
    ("defaultBackupStore", "templates/default-resource.yaml"),
)


class Helm:
    """A Helm binary; its values files and its cache, config and data homes are kept in
    `workdir` (removed by close())."""

    def __init__(self, path, workdir, jobs=2):
        self.path, self.jobs = path, max(1, jobs)
        try:
            out = subprocess.run([path, "version", "--short"], capture_output=True, text=True,
                                 timeout=60)
        except OSError as err:
            raise ToolError("helm %s: %s" % (path, err))
        if out.returncode != 0:
            raise ToolError("helm %s does not run: %s" % (path, out.stderr.strip()))
        self.version = out.stdout.strip().split("+")[0]
        self.renders = 0
        self.tmp = Path(workdir)
        self.ids = itertools.count()

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def template(self, chart, values):
        """(ok, stdout, first line of stderr) of one render."""
        cmd = [self.path, "template", RELEASE_NAME, str(chart), "-n", NAMESPACE]
        n = next(self.ids)  # renders may run in parallel (Prober.prefetch)
        self.renders += 1
        f = None
        if values is not None:
            f = self.tmp / ("values-%d.json" % n)
            f.write_text(json.dumps(values), encoding="utf-8")
            cmd += ["-f", str(f)]
        env = dict(os.environ, HELM_CACHE_HOME=str(self.tmp / "cache"),
                   HELM_CONFIG_HOME=str(self.tmp / "config"), HELM_DATA_HOME=str(self.tmp / "data"))
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if f is not None:
            f.unlink()
        if out.returncode == 0:
            return True, out.stdout, None
        lines = [x for x in out.stderr.splitlines() if x.strip()]
        lines = [x for x in lines if x.strip() != "Use --debug flag to render out invalid YAML"]
        return False, None, lines[0] if lines else "helm failed (exit %d)" % out.returncode


def split_manifest(text):
    """The documents of a render: list of (source template, text)."""
    docs = []
    cur, source = [], None
    for line in text.split("\n"):
        if line == "---":
            if cur:
                docs.append((source, "\n".join(cur)))
            cur, source = [], None
            continue
        if line.startswith("# Source: ") and source is None:
            source = line[len("# Source: "):]
        cur.append(line)
    if any(x.strip() for x in cur):
        docs.append((source, "\n".join(cur)))
    return docs


class Render:
    """One render: the ConfigMaps' data lines and every other object's text."""

    def __init__(self, text):
        self.lines = {}    # (configmap, data key) -> list of lines
        self.where = {}    # (configmap, data key) -> rendered_in
        self.objects = {}  # (source, kind, name, n) -> text
        seen = Counter()
        for source, doc in split_manifest(text):
            try:
                obj = load_yaml(doc)
            except Exception as err:  # noqa: BLE001 - any YAML error of helm's own output
                raise ToolError("helm output of %s is not YAML: %s" % (source, err))
            if not isinstance(obj, dict):
                continue
            kind = obj.get("kind")
            name = (obj.get("metadata") or {}).get("name")
            if kind == "ConfigMap" and isinstance(obj.get("data"), dict):
                for dk, value in obj["data"].items():
                    key = (name, dk)
                    # Blank lines carry nothing (an empty data value is one blank line).
                    self.lines[key] = [x for x in str(value).split("\n") if x.strip()]
                    self.where[key] = {"kind": "ConfigMap", "name": name, "template": source,
                                       "data_key": dk}
                rest = dict(obj, data=None)
                text_ = json.dumps(rest, sort_keys=True)
            else:
                text_ = doc
            ident = (source, kind, name)
            seen[ident] += 1
            self.objects[ident + (seen[ident],)] = text_

    def diff(self, base):
        """(added, removed, other objects changed): added/removed are lists of
        (configmap key, line) in the order of the new/old text."""
        added, removed = [], []
        for key in sorted(set(self.lines) | set(base.lines), key=str):
            new, old = self.lines.get(key, []), base.lines.get(key, [])
            extra = Counter(new) - Counter(old)
            for line in new:
                if extra[line] > 0:
                    added.append((key, line))
                    extra[line] -= 1
            gone = Counter(old) - Counter(new)
            for line in old:
                if gone[line] > 0:
                    removed.append((key, line))
                    gone[line] -= 1
        changed = sorted("%s %s %s" % k[:3] for k in set(self.objects) | set(base.objects)
                         if self.objects.get(k) != base.objects.get(k))
        return added, removed, changed


def line_key(line):
    return line.split(":", 1)[0] if ":" in line else None


def side(key, line):
    return {"configmap": key[0], "data_key": key[1], "line": line}


class Prober:
    def __init__(self, helm, chart, section, keys, base, log):
        self.helm, self.chart, self.section, self.keys, self.log = helm, chart, section, keys, log
        self.base = base
        self.cache = {}

    def render(self, values):
        key = json.dumps(values, sort_keys=True)
        if key not in self.cache:
            ok, out, err = self.helm.template(self.chart, {self.section: values})
            self.cache[key] = (ok, Render(out) if ok else None, err)
        return self.cache[key]

    def prefetch(self, many):
        """Render, `helm.jobs` at a time, what the next step will ask for (the results do not
        depend on the order)."""
        todo = {}
        for values in many:
            key = json.dumps(values, sort_keys=True)
            if key not in self.cache:
                todo[key] = values
        if self.helm.jobs == 1 or len(todo) < 2:
            return
        with ThreadPoolExecutor(self.helm.jobs) as pool:
            for key, got in zip(todo, pool.map(
                    lambda v: self.helm.template(self.chart, {self.section: v}), todo.values())):
                ok, out, err = got
                self.cache[key] = (ok, Render(out) if ok else None, err)

    def observe(self, k, value, cmkey, where, with_values=None, base=None):
        """One input for key k rendered alone (or with `with_values` also set, compared with
        `base`): (the record of the fixture: helm_ok, line or error, side lines; where the
        key's line is; whether anything but the key's own line changed).

        With the ConfigMap key unknown (the string input), the key's line is the added line
        that holds the input; with it known, the line of the render with that key, which may be
        unchanged (the input is the default)."""
        values = dict(with_values or {}, **{k: value})
        ok, r, err = self.render(values)
        rec = {"input": value, "helm_ok": ok}
        if not ok:
            rec["error"] = err
            return rec, None, False
        added, removed, changed = r.diff(base or self.base)
        own, own_where = None, None
        if cmkey is None:
            for where_key, line in added:
                if isinstance(value, str) and value in line:
                    own, own_where = (where_key, line), r.where[where_key]
                    cmkey = line_key(line)
                    break
        elif where is not None:
            wk = (where["name"], where["data_key"])
            for line in r.lines.get(wk, []):
                if line_key(line) == cmkey:
                    own, own_where = (wk, line), where
                    break
        rec["line"] = own[1] if own is not None else None
        rest = [side(w, l) for w, l in added if (w, l) != own and
                not (cmkey is not None and line_key(l) == cmkey and own is not None)]
        gone = [side(w, l) for w, l in removed if cmkey is None or line_key(l) != cmkey]
        if rest:
            rec["also_added_lines"] = rest
        if gone:
            rec["also_removed_lines"] = gone
        if changed:
            rec["other_objects_changed"] = changed
        return rec, own_where, bool(rest or gone or changed)

    def batch(self, keys, kind, value, cmkeys, where, out):
        """Render keys together; split a failing batch. Fills out[k][kind]."""
        if len(keys) == 1:
            k = keys[0]
            out[k][kind], _, _ = self.observe(k, value, cmkeys[k], where[k])
            return
        ok, r, err = self.render({k: value for k in keys})
        if not ok:
            half = len(keys) // 2
            self.batch(keys[:half], kind, value, cmkeys, where, out)
            self.batch(keys[half:], kind, value, cmkeys, where, out)
            return
        added, removed, changed = r.diff(self.base)
        mine = {cmkeys[k] for k in keys}
        lines = {}
        for k in keys:
            wk = (where[k]["name"], where[k]["data_key"])
            found = [l for l in r.lines.get(wk, []) if line_key(l) == cmkeys[k]]
            if len(found) == 1:
                lines[k] = found[0]
        clean = (not changed and len(mine) == len(keys) and len(lines) == len(keys)
                 and all(line_key(l) in mine for _, l in added + removed))
        if not clean:  # not attributable key by key: render each alone
            for k in keys:
                out[k][kind], _, _ = self.observe(k, value, cmkeys[k], where[k])
            return
        for k in keys:
            out[k][kind] = {"input": value, "helm_ok": True, "line": lines[k]}

    def probe(self):
        result = {k: {} for k in self.keys}
        cmkeys, where, dirty, stray = {}, {}, set(), []
        self.log("  %s: %d keys" % (self.section, len(self.keys)))
        self.prefetch({k: "a: b #c"} for k in self.keys)
        for k in self.keys:
            rec, w, sides = self.observe(k, "a: b #c", None, None)
            result[k]["string"] = rec
            cmkeys[k] = line_key(rec["line"]) if rec.get("line") else None
            where[k] = w
            if sides or not rec["helm_ok"] or rec["line"] is None:
                dirty.add(k)
            if rec.get("also_added_lines"):
                stray.append(k)
        clean = [k for k in self.keys if k not in dirty]
        self.prefetch([{k: value for k in clean} for _, value in INPUTS[1:] if clean]
                      + [{k: value} for k in self.keys if k in dirty for _, value in INPUTS[1:]])
        for kind, value in INPUTS[1:]:
            if clean:
                self.batch(clean, kind, value, cmkeys, where, result)
            for k in self.keys:
                if k in dirty:
                    result[k][kind], _, _ = self.observe(k, value, cmkeys[k], where[k])
        gates = {}
        silent = [k for k in self.keys
                  if result[k]["string"]["helm_ok"] and result[k]["string"]["line"] is None]
        self.prefetch({k: "a: b #c", g: GATE_VALUE} for k in silent for g in stray if g != k)
        for k in self.keys:
            if k in silent:
                gates[k] = []
                for g in stray:
                    if g == k:
                        continue
                    rec, w, _ = self.observe(k, "a: b #c", None, None, {g: GATE_VALUE})
                    if rec.get("line") is not None and GATE_VALUE not in rec["line"]:
                        gates[k].append(g)
        self.prefetch([{g[0]: GATE_VALUE} for g in gates.values() if g]
                      + [{k: value, g[0]: GATE_VALUE} for k, g in gates.items() if g
                         for _, value in INPUTS])
        for k, gs in gates.items():
            if not gs:
                continue
            g = gs[0]
            _, gate_render, _ = self.render({g: GATE_VALUE})
            for kind, value in INPUTS:
                rec, w, _ = self.observe(k, value, cmkeys[k], where[k], {g: GATE_VALUE},
                                         gate_render)
                ws = {"gate_key": g, "gate_value": GATE_VALUE, "helm_ok": rec["helm_ok"]}
                if rec["helm_ok"]:
                    ws["line"] = rec["line"]
                else:
                    ws["error"] = rec["error"]
                if kind == "string" and rec.get("line"):
                    cmkeys[k] = line_key(rec["line"])
                    where[k] = w
                    result[k]["line_when_gate_set"] = rec["line"]
                result[k][kind]["with_gate_set"] = ws
        return result, cmkeys, where, gates

    def default_lines(self, cmkey, where):
        return [l for l in self.base.lines.get((where["name"], where["data_key"]), [])
                if line_key(l) == cmkey] or None


# --- classification ------------------------------------------------------------------------

def style(line, cmkey, value):
    """How one rendered line shows the value: 'quoted', 'bare' or None."""
    text = {"string": "a: b #c", "bool": "true", "int": "7", "list": "[x y]"}[value]
    if line == '%s: "%s"' % (cmkey, text):
        return "quoted"
    if line == "%s: %s" % (cmkey, text):
        return "bare"
    return None


def classify(cmkey, recs):
    """(classification, detail) from the four records of a key (or of its gated render)."""
    styles = {}
    for kind, _ in INPUTS:
        r = recs[kind]
        if not r["helm_ok"]:
            styles[kind] = "fail" if "must be a string" in (r.get("error") or "") else "error"
        else:
            styles[kind] = style(r.get("line"), cmkey, kind)
    others = {styles[k] for k, _ in INPUTS[1:]}
    if styles["string"] == "quoted" and others == {"quoted"}:
        return "quoted", "strings and non-strings are both quoted"
    if styles["string"] == "bare" and others == {"bare"}:
        return "bare", None
    if styles["string"] == "quoted" and others == {"fail"}:
        return "string-required", "strings are quoted by the chart; bool/int/list make helm fail"
    return "other", "renders as: " + ", ".join("%s %s" % (k, styles[k]) for k, _ in INPUTS)


def quoted_lines(lines):
    return "; ".join("'%s'" % l for l in lines)


def section_keys(chart_dir, values, section, template):
    """The keys of a section: declared in values.yaml or read as .Values.<section>.X by its
    template."""
    declared = values.get(section) if isinstance(values, dict) else None
    keys = {str(k) for k in declared} if isinstance(declared, dict) else set()
    path = chart_dir / template
    if path.is_file():
        keys |= set(re.findall(r"\.Values\.%s\.([A-Za-z0-9_]+)" % section,
                               path.read_text(encoding="utf-8")))
    return sorted(keys)


def probe_chart(helm, chart_dir, values, baseline, log=lambda m: print(m, file=sys.stderr)):
    """The render facts of a chart, as tests/fixtures/longhorn/releases/<v>/render.json holds
    them: {section: {"test_inputs", "rendered_in", "keys"}}; per key `configmap_key`,
    `classification`, `default_render` (when the ConfigMap key is known), `gated_by` (keys whose
    own line never appeared alone), `line_when_gate_set`, and a record per input."""
    out = {}
    base = Render(baseline)
    for section, template in SECTIONS:
        keys = section_keys(chart_dir, values, section, template)
        if not keys:
            continue
        prober = Prober(helm, chart_dir, section, keys, base, log)
        result, cmkeys, where, gates = prober.probe()
        entries = {}
        rendered_in = []
        for k in keys:
            r = result[k]
            e = {"configmap_key": cmkeys[k]}
            if cmkeys[k] is not None:
                e["default_render"] = prober.default_lines(cmkeys[k], where[k])
                if where[k] not in rendered_in:
                    rendered_in.append(where[k])
            if k in gates:
                e["gated_by"] = gates[k]
            if gates.get(k):
                e["line_when_gate_set"] = r["line_when_gate_set"]
            for kind, _ in INPUTS:
                e[kind] = r[kind]
            e["classification"] = classify_entry(e)[0]
            entries[k] = e
        out[section] = {
            "test_inputs": TEST_INPUTS,
            "rendered_in": sorted(rendered_in, key=lambda w: json.dumps(w, sort_keys=True)),
            "keys": entries,
        }
    return out


def classify_entry(e):
    """(classification, detail) of one key's render facts."""
    cmkey = e["configmap_key"]
    if e.get("gated_by"):
        inner = {kind: e[kind]["with_gate_set"] for kind, _ in INPUTS}
        cls, _ = classify(cmkey, inner)
        return "other", ("set alone it renders nothing; its line appears only when %s is also "
                         "set, and then it renders in the '%s' style (string: '%s')"
                         % (e["gated_by"][0], cls, e["line_when_gate_set"]))
    if cmkey is None:
        lines = [x["line"] for x in e["string"].get("also_added_lines", [])]
        return "other", ("the value is not used; setting this key adds %s" % quoted_lines(lines)
                         if lines else "the value is not used; setting this key changes nothing")
    cls, detail = classify(cmkey, e)
    sides = [x["line"] for x in e["string"].get("also_added_lines", [])]
    if sides:
        detail = "%s; setting it also adds %s" % (detail or "the value is pasted as is",
                                                  quoted_lines(sides))
    return cls, detail
