"""The facts of one release: read from upstream (a chart folder and a longhorn-manager checkout
at the same tag, with Helm), or loaded back from the files the tool keeps in the repository.

Kept per release (all written by the tool, all inputs of writer.build):

  tests/fixtures/longhorn/releases/<v>/chart.json    chart facts (chart.py)
  tests/fixtures/longhorn/releases/<v>/render.json   render facts (render.py)
  tests/fixtures/longhorn/releases/<v>/values.yaml   values.yaml, newest patch of a minor only
  data/longhorn/questions/<v>.json                   questions.yaml (chart.py)
  data/longhorn/upstream/<v>.json                    the rest: longhorn-manager's settings and
                                                     danger-zone lists (manager.py), the
                                                     RecurringJob CRD, digests of what was read
"""

import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

from . import chart as chart_mod
from . import manager as manager_mod
from . import render as render_mod
from . import schemas
from .common import (SAFE_LOADER, ToolError, dump_entries, files_digest, load_yaml, sha256,
                     vkey)

UPSTREAM_SECTIONS = ("settings",)
UPSTREAM_ABOUT = ("What tools/longhorn-release read upstream at the release tag and keeps to "
                  "regenerate data/longhorn without the sources (the rest is in "
                  "tests/fixtures/longhorn/releases/<v>/chart.json and render.json and "
                  "data/longhorn/questions/<v>.json). sources: sha256 of the files read (each "
                  "file's sha256 and path relative to the folder, one `<sha256>  <path>` line "
                  "each, sorted by path, hashed again: `find . -type f -printf '%P\\n' | "
                  "LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum` in the folder when "
                  "`files` is every file).")
MANAGER_GIT_PATHS = ("version", "types", "meta", "k8s/pkg/apis/longhorn/v1beta2",
                     manager_mod.CONTROLLER)


class Facts:
    def __init__(self, version, chart, render, questions, upstream, values_yaml):
        self.version = version
        self.chart = chart
        self.render = render
        self.questions = questions
        self.upstream = upstream
        self.values_yaml = values_yaml

    def upstream_bytes(self):
        return dump_entries(self.upstream, UPSTREAM_SECTIONS)


def all_files(folder):
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out[p.relative_to(folder).as_posix()] = p.read_bytes()
    return out


def extract(version, chart_dir, manager_dir, helm, deploy=None, log=print):
    """Read one release from upstream. Every check that can refuse the input runs before Helm
    does."""
    chart_dir, manager_dir = Path(chart_dir), Path(manager_dir)
    meta = chart_mod.check_is_longhorn(chart_dir)
    if meta["version"] != version or meta["appVersion"] != "v" + version:
        raise ToolError("--chart %s is chart %s (appVersion %s), not release %s"
                        % (chart_dir, meta["version"], meta["appVersion"], version))
    if not manager_dir.is_dir():
        raise ToolError("--manager %s: no such folder" % manager_dir)
    mgr_version = manager_mod.read_version(manager_dir)
    if mgr_version != "v" + version:
        raise ToolError("--manager %s is longhorn-manager %s, but --chart is chart %s: give both "
                        "at tag v%s" % (manager_dir, mgr_version, version, version))
    values_bytes = (chart_dir / "values.yaml").read_bytes()
    try:
        values = load_yaml(values_bytes.decode("utf-8"))
    except Exception as err:  # noqa: BLE001 - YAML or UTF-8 errors alike
        raise ToolError("--chart %s: values.yaml does not load: %s" % (chart_dir, err))
    if not isinstance(values, dict) or not isinstance(values.get("defaultSettings"), dict):
        raise ToolError("--chart %s is not a Longhorn chart: values.yaml has no defaultSettings map"
                        % chart_dir)
    chart = chart_mod.chart_facts(chart_dir, meta, values)
    questions = chart_mod.read_questions((chart_dir / "questions.yaml").read_text(encoding="utf-8"),
                                         "%s/questions.yaml" % chart_dir)
    settings, module = manager_mod.read_settings(manager_dir)
    lists, controller = manager_mod.danger_lists(manager_dir, module)
    manager_files = dict(module.read)
    manager_files[manager_mod.CONTROLLER] = controller
    manager_files["version"] = (manager_dir / "version").read_bytes()

    log("helm %s: rendering chart %s" % (helm.version, version))
    ok, rendered, err = helm.template(chart_dir, None)
    if not ok:
        raise ToolError("helm cannot render chart %s with its defaults: %s" % (version, err))
    crds, docs = chart_mod.crds_text(rendered, version, helm.version)
    rj = [d for d in docs if (d.get("metadata") or {}).get("name") == schemas.CRD_NAME]
    if len(rj) != 1:
        raise ToolError("chart %s renders %d %s CRDs, not one" % (version, len(rj), schemas.CRD_NAME))
    render = {"release": version}
    render.update(render_mod.probe_chart(helm, chart_dir, values, rendered, log=log))
    if "defaultSettings" not in render:
        raise ToolError("chart %s: no defaultSettings key renders" % version)

    chart_files = all_files(chart_dir)
    up = {
        "release": version,
        "about": UPSTREAM_ABOUT,
        "sources": {
            "chart": {"tag": "v" + version, "read": "every file of the chart folder",
                      "files": len(chart_files), "sha256": files_digest(chart_files)},
            "manager": {"tag": mgr_version,
                        "read": "version, %s, the .go files of %s (not _test.go, not "
                                "zz_generated*)" % (manager_mod.CONTROLLER,
                                                    ", ".join(d + "/" for d in manager_mod.PACKAGES)),
                        "files": len(manager_files), "sha256": files_digest(manager_files)},
        },
        "helm": helm.version,
        "values_yaml_sha256": sha256(values_bytes),
        "crds_sha256": sha256(crds.encode("utf-8")),
        "recurringjob_crd": rj[0],
        "settings": settings,
        "danger_lists": lists,
    }
    if deploy is not None:
        up["deploy_recurringjob"] = deploy_check(Path(deploy), rj[0])
    return Facts(version, chart, render, questions, up, values_bytes)


def deploy_check(path, crd):
    """The RecurringJob CRD of deploy/longhorn.yaml (the manifest install) against the chart's."""
    if not path.is_file():
        raise ToolError("--deploy %s: no such file" % path)
    data = path.read_bytes()
    import yaml
    found = [d for d in yaml.load_all(data.decode("utf-8"), Loader=SAFE_LOADER)
             if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"
             and (d.get("metadata") or {}).get("name") == schemas.CRD_NAME]
    if len(found) != 1:
        raise ToolError("--deploy %s has %d %s CRDs, not one" % (path, len(found), schemas.CRD_NAME))
    return {"sha256": sha256(data), "same_spec": found[0]["spec"] == crd["spec"]}


def load_stored(root, version):
    """The facts of a release the repository already has."""
    from .writer import FIXTURE_DIR, QUESTIONS_DIR, UPSTREAM_DIR
    fx = root / FIXTURE_DIR / version
    try:
        chart = json.loads((fx / "chart.json").read_text(encoding="utf-8"))
        render = json.loads((fx / "render.json").read_text(encoding="utf-8"))
        questions = json.loads((root / QUESTIONS_DIR / ("%s.json" % version)).read_text(encoding="utf-8"))
        up = json.loads((root / UPSTREAM_DIR / ("%s.json" % version)).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ToolError("release %s: the stored facts do not load: %s" % (version, err))
    values = fx / "values.yaml"
    return Facts(version, chart, render, questions["questions"], up,
                 values.read_bytes() if values.is_file() else None)


def stored_versions(root):
    """The releases the repository knows: those of data/longhorn/releases/index.json."""
    from .writer import DATA_DIR
    index = root / DATA_DIR / "index.json"
    if not index.is_file():
        return []
    try:
        releases = [r["release"] for r in json.loads(index.read_text(encoding="utf-8"))["releases"]]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ToolError("%s does not load: %s" % (index, err))
    return sorted(releases, key=vkey)


# --- git mirrors (regenerate-all) ----------------------------------------------------------

def git_archive(git_dir, tag, paths, dest):
    """`git archive TAG PATHS` of a bare repository, unpacked into dest."""
    cmd = ["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag] + list(paths)
    out = subprocess.run(cmd, capture_output=True)
    if out.returncode != 0:
        raise ToolError("git archive %s %s in %s: %s" % (tag, " ".join(paths), git_dir,
                                                         out.stderr.decode("utf-8", "replace").strip()))
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(dest, filter="data")


def git_show(git_dir, spec):
    out = subprocess.run(["git", "--git-dir", str(git_dir), "show", spec], capture_output=True)
    if out.returncode != 0:
        return None
    return out.stdout


def checkout_release(longhorn_git, manager_git, version, scratch):
    """The chart folder, the manager files and deploy/longhorn.yaml of tag v<version>, unpacked
    under scratch: (chart dir, manager dir, deploy file or None)."""
    tag = "v" + version
    base = scratch / version
    if base.exists():
        shutil.rmtree(base)
    git_archive(longhorn_git, tag, ["chart"], base / "longhorn")
    git_archive(manager_git, tag, MANAGER_GIT_PATHS, base / "manager")
    deploy = git_show(longhorn_git, "%s:deploy/longhorn.yaml" % tag)
    path = None
    if deploy is not None:
        path = base / "deploy-longhorn.yaml"
        path.write_bytes(deploy)
    return base / "longhorn" / "chart", base / "manager", path
