#!/usr/bin/env python3
"""Benchmark the release binary: wall time and peak memory (max RSS), and instruction counts.

Cases: every profile in profiles/ (`lhc check`, a first `lhc build` into an empty folder and a
no-change rebuild; `lhc plan` of the Hetzner profile), and a generated cluster of 200 pools of
10 nodes (two disks each, tags, four classes; its `lhc plan` too). Each case runs `--runs` times;
the report gives the median and the best wall time and the largest max RSS. With valgrind installed, each command also runs once under
callgrind, whose instruction count does not depend on how busy the machine is.

Usage: tools/bench.py [--runs N] [--no-build] [--no-callgrind] [--breakdown] [--bin PATH]
                      [--only-fleet] [--fleet-size N] [--fleet-dir DIR]
`--only-fleet` runs only the fleet case (issue 24): 1,000 cluster files (`--fleet-size`) extending
three shared layers, one `lhc build DIR` against 1,000 separate builds (at most 0.25 of their
time), and a no-change `build --check DIR` (under half of the first build); its files go under
`--fleet-dir` (say /dev/shm, to leave the disk out), by default the system's temporary folder.
`--breakdown` also prints where the instructions of each profile's `check` and first `build` go,
by pipeline stage (callgrind's inclusive counts); `--bin` benchmarks another binary (with
`--no-build`), such as a profile without LTO while working.
Bounds (issue 23): `lhc check` of each profile at most 10 million instructions, `lhc build` at
most 20 million, and a first `lhc build` at most 0.15 of the time `kubectl kustomize` takes to
read its output (reported per profile when kubectl is installed); `lhc build` of the generated
cluster at most 25 ms (issue 9).
`--only-status` runs only `lhc status --from DIR` and `lhc plan --from DIR` on a generated dump
of a 100-node cluster with 1,000 volumes and 3,000 replicas (bound, issue 26: under 0.5 s and
200 MB each).
"""
import argparse
import shutil
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "lhc")


def generated(pools=200, nodes=10):
    out = [
        '[cluster]\nname = "bench-large"\nprovider = "hcloud"\nlocation = "fsn1"\n',
        '[longhorn]\nversion = "1.9.2"\n\n[longhorn.settings]\nreplicaAutoBalance = "best-effort"\n',
    ]
    for p in range(pools):
        names = ", ".join(f'"pool{p}-node{n}"' for n in range(nodes))
        out.append(
            f'[[pool]]\nname = "pool{p}"\nserver_type = "ccx33"\nnodes = [{names}]\n'
            f'node_tags = ["storage", "zone{p % 3}"]\nlabels = {{ "example.com/pool" = "pool{p}" }}\n'
            f'[[pool.disk]]\nname = "nvme"\ntype = "local"\npath = "/var/lib/longhorn"\ntags = ["nvme"]\n'
            f'[[pool.disk]]\nname = "vol"\ntype = "hcloud-volume"\nsize = "1Ti"\npath = "/mnt/vol"\n'
            f'tags = ["ssd"]\nreserved = "10%"\n'
        )
    for name, tags, replicas in [("fast", "nvme", 3), ("fast-2", "nvme", 2), ("bulk", "ssd", 3), ("bulk-2", "ssd", 2)]:
        out.append(f'[[storage_class]]\nname = "{name}"\nreplicas = {replicas}\ndisk_tags = ["{tags}"]\n')
    return "\n".join(out)


STATUS_NODES, STATUS_VOLUMES, STATUS_REPLICAS = 100, 1000, 3


def status_case(dir):
    """A cluster file and the dump of its cluster: 100 nodes, 1,000 volumes of 3 replicas each
    (3,000 `replicas.longhorn.io`, read and left out), in sync but for a few findings."""
    names = ", ".join(f'"node-{n:03}"' for n in range(STATUS_NODES))
    toml = (
        '[cluster]\nname = "bench-status"\n\n[longhorn]\nversion = "1.12.1"\n\n'
        '[longhorn.settings]\nstorageOverProvisioningPercentage = 150\n\n'
        f'[[pool]]\nname = "storage"\nnodes = [{names}]\nnode_tags = ["storage"]\n\n'
        '[[pool.disk]]\nname = "nvme"\ntype = "local"\nsize = "2Ti"\npath = "/var/lib/longhorn"\n'
        'tags = ["nvme"]\nreserved = "100Gi"\n\n'
        '[[storage_class]]\nname = "fast"\nreplicas = 3\ndisk_tags = ["nvme"]\n'
    )
    with open(os.path.join(dir, "cluster.toml"), "w") as f:
        f.write(toml)
    dump = os.path.join(dir, "dump")
    os.makedirs(dump, exist_ok=True)
    meta = lambda name, rv: (f"    creationTimestamp: \"2026-11-02T09:14:03Z\"\n    name: {name}\n"
                             f"    namespace: longhorn-system\n    resourceVersion: \"{rv}\"\n"
                             f"    uid: 00000000-0000-4000-8000-{rv:012}\n")
    def lst(items):
        return "apiVersion: v1\nitems:\n" + "".join(items) + 'kind: List\nmetadata:\n  resourceVersion: ""\n'
    settings = {"create-default-disk-labeled-nodes": '"true"', "default-data-path": "/var/lib/longhorn",
                "disable-revision-counter": "'{\"v1\":\"true\"}'", "priority-class": "longhorn-critical",
                "storage-over-provisioning-percentage": '"150"', "current-longhorn-version": "v1.12.1",
                "replica-soft-anti-affinity": '"false"'}
    with open(os.path.join(dump, "settings.yaml"), "w") as f:
        f.write(lst(f"- apiVersion: longhorn.io/v1beta2\n  kind: Setting\n  metadata:\n{meta(k, i + 1)}"
                    f"  status:\n    applied: true\n  value: {v}\n" for i, (k, v) in enumerate(settings.items())))
    nodes = []
    for n in range(STATUS_NODES):
        name = f"node-{n:03}"
        nodes.append(
            f"- apiVersion: longhorn.io/v1beta2\n  kind: Node\n  metadata:\n{meta(name, 1000 + n)}"
            "  spec:\n    allowScheduling: true\n    disks:\n      nvme:\n        allowScheduling: true\n"
            '        diskDriver: ""\n        diskType: filesystem\n        evictionRequested: false\n'
            "        path: /var/lib/longhorn\n        storageReserved: 107374182400\n        tags:\n        - nvme\n"
            f"    evictionRequested: false\n    instanceManagerCPURequest: 0\n    name: {name}\n    tags:\n    - storage\n"
            "  status:\n    conditions:\n"
            + "".join(f'    - lastProbeTime: ""\n      lastTransitionTime: "2026-11-02T09:14:21Z"\n      message: ""\n'
                      f'      reason: ""\n      status: "True"\n      type: {c}\n' for c in ("Ready", "Schedulable"))
            + "    diskStatus:\n      nvme:\n        diskName: nvme\n        diskPath: /var/lib/longhorn\n"
            "        diskType: filesystem\n        scheduledReplica:\n"
            + "".join(f"          pvc-{v:08}-r-{n:03}: 53687091200\n" for v in range(n * 30, n * 30 + 30))
            + "        storageAvailable: 1649267441664\n        storageMaximum: 2199023255552\n"
            "        storageScheduled: 1610612736000\n"
        )
    with open(os.path.join(dump, "nodes.longhorn.io.yaml"), "w") as f:
        f.write(lst(nodes))
    volumes, replicas = [], []
    for v in range(STATUS_VOLUMES):
        name = f"pvc-{v:08}"
        volumes.append(
            f"- apiVersion: longhorn.io/v1beta2\n  kind: Volume\n  metadata:\n    labels:\n      longhornvolume: {name}\n"
            f"{meta(name, 100000 + v)}  spec:\n    accessMode: rwo\n    dataEngine: v1\n    dataLocality: disabled\n"
            "    diskSelector:\n    - nvme\n    frontend: blockdev\n    image: longhornio/longhorn-engine:v1.12.1\n"
            "    nodeSelector: []\n    numberOfReplicas: 3\n    size: \"53687091200\"\n    staleReplicaTimeout: 2880\n"
            f"  status:\n    actualSize: 21474836480\n    currentNodeID: node-{v % STATUS_NODES:03}\n"
            f"    robustness: {'degraded' if v % 250 == 0 else 'healthy'}\n    state: attached\n"
        )
        for r in range(STATUS_REPLICAS):
            replicas.append(
                f"- apiVersion: longhorn.io/v1beta2\n  kind: Replica\n  metadata:\n    labels:\n      longhornvolume: {name}\n"
                f"{meta(f'{name}-r-{r}', 200000 + v * 3 + r)}  spec:\n    dataEngine: v1\n    diskID: nvme\n"
                f"    diskPath: /var/lib/longhorn\n    nodeID: node-{(v + r * 33) % STATUS_NODES:03}\n    volumeName: {name}\n"
                f"    volumeSize: \"53687091200\"\n  status:\n    currentState: running\n"
            )
    with open(os.path.join(dump, "volumes.yaml"), "w") as f:
        f.write(lst(volumes))
    with open(os.path.join(dump, "replicas.yaml"), "w") as f:
        f.write(lst(replicas))
    return os.path.join(dir, "cluster.toml"), dump


def run_status(runs):
    """`lhc status --from` and `lhc plan --from` of the generated dump, `runs` times."""
    with tempfile.TemporaryDirectory() as tmp:
        toml, dump = status_case(tmp)
        size = sum(os.path.getsize(os.path.join(dump, f)) for f in os.listdir(dump))
        for name, args in [("status --from", ["status", toml, "--from", dump]),
                           ("status --from --format json", ["status", toml, "--from", dump, "--format", "json"]),
                           ("plan --from", ["plan", toml, "--from", dump])]:
            walls, rss = [], []
            for _ in range(runs):
                wall, kib = measure([BIN] + args, cwd=tmp, ok=(0, 1))
                walls.append(wall)
                rss.append(kib)
            verdict = "within" if max(walls) < 0.5 and max(rss) < 200 * 1024 else "OVER"
            line(f"100 nodes, 1,000 volumes, 3,000 replicas: {name}", walls, rss,
                 f"({runs} runs, dump {size / 1e6:.1f} MB; {verdict} 0.5 s / 200 MB)")


def measure(args, cwd, ok=(0,)):
    """Wall seconds and max RSS (KiB) of one run, measured by a wait4 on the child."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in ok:
        sys.exit(f"failed: {' '.join(args)}: {proc.stderr.read().decode()}")
    return wall, usage.ru_maxrss


def line(name, walls, rss, extra):
    print(
        f"{name:<44} median {statistics.median(walls) * 1000:7.2f} ms   best {min(walls) * 1000:7.2f} ms   "
        f"peak RSS {max(rss) / 1024:6.1f} MiB   {extra}"
    )


def instructions(args, cwd):
    """The instruction count of one run under callgrind, or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    for l in out.stderr.splitlines():
        if "refs:" in l:
            return int(l.split("refs:")[1].strip().replace(",", ""))
    return None


# The functions whose inclusive instruction counts `--breakdown` reports, in pipeline order.
STAGES = [
    ("load Longhorn release tables", "lhc::knowledge::longhorn::Entry::release"),
    ("check", "lhc::check"),
    ("plan", "lhc::lower::plan"),
    ("render", "lhc::render::Renderer::tree"),
    ("  compile templates", "minijinja::environment::Environment::get_template"),
    ("validate YAML written", "lhc::yaml::check_stream"),
    ("hash files (manifest)", "lhc::emit::manifest::text"),
    ("  sha256 (software)", "sha2::sha256::soft::unroll::compress"),
]


def breakdown(name, toml_path):
    """Inclusive instructions per pipeline stage of `check` and a first `build`, from callgrind."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for verb, extra in (("check", []), ("build", ["-o", os.path.join(tmp, "out")])):
            data = os.path.join(tmp, f"{verb}.callgrind")
            subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={data}", BIN, verb, toml_path, *extra],
                cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
            )
            report = subprocess.run(
                ["callgrind_annotate", "--inclusive=yes", "--threshold=100", data],
                capture_output=True, text=True, check=True,
            ).stdout
            total, found = None, {}
            for l in report.splitlines():
                parts = l.split()
                if not parts or not parts[0][0].isdigit():
                    continue
                n = int(parts[0].replace(",", ""))
                if "PROGRAM TOTALS" in l:
                    total = n
                for _, fn in STAGES:
                    if f":{fn} [" in l and fn not in found:
                        found[fn] = n
            cells = "   ".join(f"{label.strip()} {found[fn] / 1e6:.2f} M" for label, fn in STAGES if fn in found)
            print(f"{name} {verb}: total {total / 1e6:.2f} M   {cells}")


def counts(name, toml_path):
    """Instructions of `check`, a first `build` and a no-change `build`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        c = instructions([BIN, "check", toml_path], tmp)
        b1 = instructions([BIN, "build", toml_path, "-o", out], tmp)
        b2 = instructions([BIN, "build", toml_path, "-o", out], tmp)
        p = instructions([BIN, "plan", toml_path], tmp)
    if c is None:
        return
    m = lambda n: f"{n / 1e6:6.2f} M" if n is not None else "   n/a"
    print(f"{name:<44} instructions: check {m(c)}   first build {m(b1)}   no-change build {m(b2)}   plan {m(p)}")


def run_case(name, toml_path, runs):
    """A first build into an empty folder, then a build with nothing to change, `runs` times."""
    first, again, rss = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            out = os.path.join(tmp, f"out{i}")
            wall, kib = measure([BIN, "build", toml_path, "-o", out], cwd=tmp)
            first.append(wall)
            rss.append(kib)
            wall, kib = measure([BIN, "build", toml_path, "-o", out], cwd=tmp)
            again.append(wall)
            rss.append(kib)
        files = sum(len(f) for _, _, f in os.walk(os.path.join(tmp, "out0")))
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(tmp, "out0")) for f in fs)
    line(f"{name}, first build", first, rss, f"({files} files, {size / 1024:.0f} KiB, {runs} runs)")
    line(f"{name}, no change", again, rss, f"({runs} runs)")


def kustomize_ratio(name, toml_path, runs):
    """A first `lhc build` against `kubectl kustomize` of the folder it wrote (bound: 0.15)."""
    if shutil.which("kubectl") is None:
        return
    builds, reads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            out = os.path.join(tmp, f"out{i}")
            builds.append(measure([BIN, "build", toml_path, "-o", out], cwd=tmp)[0])
        cluster = os.listdir(os.path.join(tmp, "out0"))[0]
        folder = os.path.join(tmp, "out0", cluster)
        if not os.path.exists(os.path.join(folder, "kustomization.yaml")):
            return
        for _ in range(runs):
            reads.append(measure(["kubectl", "kustomize", folder], cwd=tmp)[0])
    b, k = statistics.median(builds), statistics.median(reads)
    verdict = "within" if b <= 0.15 * k else "OVER"
    print(f"{name:<44} first build {b * 1000:.2f} ms, kubectl kustomize of it {k * 1000:.2f} ms: "
          f"{b / k:.3f}x ({verdict} the 0.15x bound)")


def run_plan(name, toml_path, runs):
    """`lhc plan` (the table, and the JSON with the chart), `runs` times."""
    table, json, rss = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            wall, kib = measure([BIN, "plan", toml_path], cwd=tmp)
            table.append(wall)
            rss.append(kib)
            wall, kib = measure([BIN, "plan", toml_path, "--format", "json", "--chart", "c.svg"], cwd=tmp)
            json.append(wall)
            rss.append(kib)
    line(f"{name}, plan", table, rss, f"({runs} runs)")
    line(f"{name}, plan --format json --chart", json, rss, f"({runs} runs)")


FLEET_LAYERS = {
    "company.toml": '''[longhorn]
version = "1.12.1"

[longhorn.default_class]
default = true
replicas = 3

[longhorn.settings]
storageOverProvisioningPercentage = 150

[[recurring_job]]
name = "nightly-backup"
task = "backup"
cron = "0 2 * * *"
retain = 14
groups = ["default"]

[[storage_class]]
name = "fast"
replicas = 3
disk_tags = ["nvme"]

[[storage_class]]
name = "fast-2"
replicas = 2
disk_tags = ["nvme"]
''',
    "hcloud.toml": '''[cluster]
provider = "hcloud"
kubernetes = "1.37"

[[pool]]
name = "storage"
server_type = "ccx23"
node_tags = ["storage"]

[[pool.disk]]
name = "nvme"
type = "local"
path = "/var/lib/longhorn"
tags = ["nvme"]
reserved = "25%"
''',
    "backup.toml": '''[longhorn.backup]
credential_secret = "longhorn-backup"

[gitops]
mode = "flux"
''',
}


def fleet_files(root, n):
    """`n` cluster files under root/clusters/ extending the three layers of root/layers/."""
    os.makedirs(os.path.join(root, "layers"))
    os.makedirs(os.path.join(root, "clusters"))
    for name, text in FLEET_LAYERS.items():
        with open(os.path.join(root, "layers", name), "w") as f:
            f.write(text)
    locations = ["fsn1", "nbg1", "hel1"]
    paths = []
    for i in range(n):
        name = f"edge-{i:04d}"
        loc = locations[i % 3]
        nodes = ", ".join(f'"{name}-{k}"' for k in range(1, 4))
        path = os.path.join(root, "clusters", f"{name}.toml")
        with open(path, "w") as f:
            f.write(
                'extends = ["../layers/company.toml", "../layers/hcloud.toml", "../layers/backup.toml"]\n\n'
                f'[cluster]\nname = "{name}"\nlocation = "{loc}"\n\n'
                f'[longhorn.backup]\ntarget = "s3://{name}@{loc}/"\n\n'
                f'[[pool]]\nname = "storage"\nnodes = [{nodes}]\n'
            )
        paths.append(path)
    return paths


def filesystem(path):
    """The type of the filesystem that holds `path`, as /proc/mounts gives it ("?" elsewhere)."""
    path = os.path.realpath(path)
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as f:
            for entry in f:
                fields = entry.split()
                if len(fields) < 3:
                    continue
                mount = fields[1].replace("\\040", " ")
                inside = path == mount or path.startswith(mount.rstrip("/") + "/")
                if inside and len(mount) > len(best):
                    best, kind = mount, fields[2]
    except OSError:
        pass
    return kind


def run_fleet(n, runs, where=None):
    """Issue 24: `n` cluster files extending three shared layers: one `lhc build DIR` against `n`
    separate `lhc build FILE` runs (bound: 0.25x), and a no-change `build --check DIR` against the
    first build (bound: 0.5x). The files go to a temporary folder under `where` (default: the
    system's); the file system matters, since both builds create thousands of files."""
    one, first, check, rss = [], [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(dir=where) as tmp:
            kind = filesystem(tmp)
            paths = fleet_files(tmp, n)
            start = time.perf_counter()
            for p in paths:
                measure([BIN, "build", p, "-o", "separate"], cwd=tmp)
            one.append(time.perf_counter() - start)
            wall, peak = measure([BIN, "build", "clusters", "-o", "out"], cwd=tmp)
            first.append(wall)
            rss.append(peak)
            wall, peak = measure([BIN, "build", "--check", "clusters", "-o", "out"], cwd=tmp)
            check.append(wall)
            rss.append(peak)
    s, f, c = statistics.median(one), statistics.median(first), statistics.median(check)
    print(f"fleet: in a temporary folder on {kind}, median of {runs} run(s); peak RSS of the folder builds "
          f"{max(rss) / 1024:.1f} MiB")
    print(f"fleet: {n} cluster files over 3 layers, {n} separate builds {s * 1000:.0f} ms, "
          f"one build of the folder {f * 1000:.0f} ms: {f / s:.3f}x "
          f"({'within' if f <= 0.25 * s else 'OVER'} the 0.25x bound)")
    print(f"fleet: no-change build --check of the folder {c * 1000:.0f} ms: {c / f:.3f}x of the first build "
          f"({'within' if c < 0.5 * f else 'OVER'} the 0.5x bound)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--bin", help="the binary to measure (default: target/release/lhc)")
    ap.add_argument("--only-status", action="store_true", help="only the lhc status case")
    ap.add_argument("--only-fleet", action="store_true", help="only the fleet case (issue 24)")
    ap.add_argument("--fleet-size", type=int, default=1000)
    ap.add_argument("--fleet-dir", help="where the fleet case writes its files (default: the system's temporary folder)")
    a = ap.parse_args()
    global BIN
    if a.bin:
        BIN = os.path.abspath(a.bin)
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    spawn = []
    for _ in range(a.runs):
        spawn.append(measure(["/bin/true"], cwd=ROOT)[0])
    print(f"lhc build, release binary, {os.cpu_count()} CPUs; starting a process here takes "
          f"{statistics.median(spawn) * 1000:.2f} ms (median of /bin/true), included below")
    if a.only_status:
        run_status(max(3, a.runs // 3))
        return
    if a.only_fleet:
        run_fleet(a.fleet_size, max(1, min(a.runs, 3)), a.fleet_dir)
        return
    # The cluster files of profiles/, not the company layer they extend.
    profiles = sorted(p for p in os.listdir(os.path.join(ROOT, "profiles")) if p.endswith(".toml") and p != "company.toml")
    for p in profiles:
        run_case(f"profiles/{p}", os.path.join(ROOT, "profiles", p), a.runs)
    run_plan("profiles/hcloud-longhorn.toml", os.path.join(ROOT, "profiles", "hcloud-longhorn.toml"), a.runs)
    for p in profiles:
        kustomize_ratio(f"profiles/{p}", os.path.join(ROOT, "profiles", p), max(3, a.runs // 3))
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(generated())
    try:
        run_case("generated: 200 pools x 10 nodes", f.name, max(3, a.runs // 3))
        run_plan("generated: 200 pools x 10 nodes", f.name, max(3, a.runs // 3))
        run_fleet(a.fleet_size, 1, a.fleet_dir)
        if not a.no_callgrind:
            for p in profiles:
                counts(f"profiles/{p}", os.path.join(ROOT, "profiles", p))
            counts("generated: 200 pools x 10 nodes", f.name)
            if a.breakdown:
                for p in profiles:
                    breakdown(f"profiles/{p}", os.path.join(ROOT, "profiles", p))
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    main()
