//! The integration-test harness: a throwaway directory with files in it, the real `lhc` binary
//! run there, and helpers to read what it wrote and check it with real tools and schemas.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A shipped profile as one self-contained cluster file, so that a test may put it anywhere and
/// change its release freely: the profile's own text (its comments and order kept), without
/// `extends`, with the keys it inherits from the company layer added to their tables, and
/// without the layer's `[policy]`. Checked against lhc's own merge of the chain.
pub fn profile(name: &str) -> String {
    let path = repo().join("profiles").join(format!("{name}.toml"));
    let text = read(&path);
    let Some(layered) = lhc::layers::resolve(
        &lhc::source::Source::new(&path, text.clone()),
        &lhc::layers::Cache::new(),
    )
    .unwrap() else {
        return text;
    };
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    doc.remove("extends");
    for layer in &layered.files[..layered.files.len() - 1] {
        let mut base: toml_edit::DocumentMut = layer.source.text.parse().unwrap();
        base.remove("policy");
        fill_missing(doc.as_table_mut(), base.as_table());
    }
    let value = |text: &str| toml_edit::de::from_str::<serde_json::Value>(text).unwrap();
    let mut merged = value(&layered.merged.text);
    let table = merged.as_object_mut().unwrap();
    table.remove("extends");
    table.remove("policy");
    let own = value(&doc.to_string());
    assert_eq!(own, merged, "profile({name}) must be what lhc's merge of the chain is");
    let body = doc.to_string();
    let body = body
        .split_once('\n')
        .filter(|(first, _)| first.starts_with("#:schema "))
        .map_or(body.as_str(), |(_, rest)| rest);
    format!("#:schema ../schemas/cluster.schema.json\n{body}")
}

/// Adds to `into` every key of `from` it lacks, table by table (the layers' merge for tables
/// and plain values; the company layer has no named entries).
fn fill_missing(into: &mut toml_edit::Table, from: &toml_edit::Table) {
    for (key, item) in from.iter() {
        match (into.get_mut(key), item) {
            (None, _) => {
                into.insert(key, item.clone());
            }
            (Some(toml_edit::Item::Table(mine)), toml_edit::Item::Table(theirs)) => {
                fill_missing(mine, theirs)
            }
            (Some(_), _) => {}
        }
    }
}

/// Whether golden files should be rewritten instead of compared (`LHC_BLESS=1`).
pub fn bless() -> bool {
    std::env::var_os("LHC_BLESS").is_some_and(|v| v == "1")
}

/// One run of `lhc` in its own directory.
pub struct Test {
    dir: tempfile::TempDir,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<String>,
}

#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Test {
    pub fn new() -> Test {
        Test { dir: tempfile::tempdir().unwrap(), args: vec![], env: vec![], stdin: None }
    }

    pub fn file(self, path: &str, contents: &str) -> Test {
        let p = self.dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, contents).unwrap();
        self
    }

    /// Writes a file into the test directory after the test was built.
    pub fn file_write(&self, path: &str, contents: &str) {
        let p = self.dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, contents).unwrap();
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Test {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    pub fn stdin(mut self, text: &str) -> Test {
        self.stdin = Some(text.to_string());
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Test {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn run(&self) -> Output {
        self.run_args(&self.args)
    }

    pub fn run_args<S: AsRef<str>>(&self, args: &[S]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lhc"));
        cmd.args(args.iter().map(AsRef::as_ref))
            .current_dir(self.dir.path())
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            if let Some(s) = &self.stdin {
                stdin.write_all(s.as_bytes()).unwrap();
            }
        }
        let out = child.wait_with_output().unwrap();
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Every file under `dir` (relative to the test directory).
    pub fn tree(&self, dir: &str) -> BTreeMap<String, String> {
        read_tree(&self.dir.path().join(dir))
    }

    /// The files under `dir` equal the golden folder `tests/<golden>` (rewritten under
    /// `LHC_BLESS=1`).
    #[track_caller]
    pub fn tree_golden(&self, dir: &str, golden: &str) -> &Test {
        assert_tree(&repo().join("tests").join(golden), &self.tree(dir));
        self
    }
}

impl Output {
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Output {
        assert_eq!(
            self.code, expected,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// stdout is exactly `expected`.
    #[track_caller]
    pub fn stdout(&self, expected: &str) -> &Output {
        assert!(self.stdout == expected, "stdout differs:\n{}", diff(expected, &self.stdout));
        self
    }

    /// stderr is exactly `expected`.
    #[track_caller]
    pub fn stderr(&self, expected: &str) -> &Output {
        assert!(self.stderr == expected, "stderr differs:\n{}", diff(expected, &self.stderr));
        self
    }

    /// stdout equals the golden file `tests/<path>` (rewritten under `LHC_BLESS=1`).
    #[track_caller]
    pub fn stdout_golden(&self, path: &str) -> &Output {
        assert_golden(&repo().join("tests").join(path), &self.stdout);
        self
    }

    /// stderr equals the golden file `tests/<path>` (rewritten under `LHC_BLESS=1`).
    #[track_caller]
    pub fn stderr_golden(&self, path: &str) -> &Output {
        assert_golden(&repo().join("tests").join(path), &self.stderr);
        self
    }
}

/// Every file under a directory, keyed by relative path with `/` separators.
pub fn read_tree(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, read(&path));
            }
        }
    }
    out
}

/// Compares a tree with a golden directory, or rewrites the directory under `LHC_BLESS=1`.
#[track_caller]
pub fn assert_tree(golden: &Path, actual: &BTreeMap<String, String>) {
    if bless() {
        let _ = std::fs::remove_dir_all(golden);
        for (rel, text) in actual {
            let p = golden.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        return;
    }
    let expected = read_tree(golden);
    let mut problems = vec![];
    for (rel, text) in actual {
        match expected.get(rel) {
            None => problems.push(format!("unexpected file {rel}")),
            Some(e) if e != text => problems.push(format!("{rel} differs:\n{}", diff(e, text))),
            Some(_) => {}
        }
    }
    for rel in expected.keys().filter(|k| !actual.contains_key(*k)) {
        problems.push(format!("missing file {rel}"));
    }
    assert!(
        problems.is_empty(),
        "{} does not match (rerun with LHC_BLESS=1 to accept):\n{}",
        golden.display(),
        problems.join("\n")
    );
}

/// Compares text with a golden file, or rewrites it under `LHC_BLESS=1`.
#[track_caller]
pub fn assert_golden(golden: &Path, actual: &str) {
    if bless() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(golden, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(golden).unwrap_or_default();
    assert!(
        expected == actual,
        "{} does not match (rerun with LHC_BLESS=1 to accept):\n{}",
        golden.display(),
        diff(&expected, actual)
    );
}

pub fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .header("expected", "actual")
        .to_string()
}

/// Parses a YAML stream into JSON values.
pub fn yaml_docs(text: &str) -> Vec<serde_json::Value> {
    lhc::yaml::parse_stream(text).unwrap_or_else(|e| panic!("invalid YAML ({e}):\n{text}"))
}

/// Validates a document against its vendored, strict schema: the Kubernetes API schema of a
/// Kubernetes minor version (`schemas/kubernetes/v1.NN/<kind>.json`) for core kinds, the schemas
/// derived from Flux's, Argo CD's and Kyverno's CRDs (`schemas/flux/`, `schemas/argocd/`,
/// `schemas/kyverno/`) for theirs. Longhorn's objects need the Longhorn release: [`validate_for`].
pub fn validate_k8s(doc: &serde_json::Value, kubernetes: &str) -> Result<(), Vec<String>> {
    validate_for(doc, kubernetes, None)
}

/// [`validate_k8s`], and Longhorn's objects (`longhorn.io/`) against the CRD schema of the minor
/// line of `longhorn` (`schemas/longhorn/v1.NN/recurringjob.json`, `schemas/longhorn-crds/v1.NN/<kind>.json`
/// for the others), which they need.
pub fn validate_for(
    doc: &serde_json::Value,
    kubernetes: &str,
    longhorn: Option<&str>,
) -> Result<(), Vec<String>> {
    static CACHE: OnceLock<Mutex<BTreeMap<String, &'static jsonschema::Validator>>> =
        OnceLock::new();
    let kind = doc["kind"].as_str().ok_or_else(|| vec!["document has no kind".to_string()])?;
    let api = doc["apiVersion"].as_str().unwrap_or_default();
    let dir = if api.contains("fluxcd.io/") {
        repo().join("schemas/flux")
    } else if api.starts_with("argoproj.io/") {
        repo().join("schemas/argocd")
    } else if api.starts_with("kyverno.io/") {
        repo().join("schemas/kyverno")
    } else if api.starts_with("longhorn.io/") {
        let Some(version) = longhorn else {
            return Err(vec![format!(
                "{kind} is a Longhorn object: validate it with validate_for and the Longhorn release"
            )]);
        };
        let minor: Vec<&str> = version.split('.').take(2).collect();
        // The RecurringJob's schemas are tools/longhorn-release's; the others `lhc status`'s.
        let folder =
            if kind == "RecurringJob" { "schemas/longhorn" } else { "schemas/longhorn-crds" };
        repo().join(folder).join(format!("v{}", minor.join(".")))
    } else {
        repo().join("schemas/kubernetes").join(format!("v{kubernetes}"))
    };
    let file = dir.join(format!("{}.json", kind.to_ascii_lowercase()));
    let key = file.display().to_string();
    let validator = {
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
        *cache.entry(key).or_insert_with(|| {
            let schema: serde_json::Value = serde_json::from_str(&read(&file)).unwrap();
            Box::leak(Box::new(jsonschema::validator_for(&schema).unwrap()))
        })
    };
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
        .collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Whether a command is installed.
pub fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Validates a JSON value against a vendored schema file (relative to the repository).
pub fn validate_json(value: &serde_json::Value, schema: &str) -> Result<(), Vec<String>> {
    let schema: serde_json::Value = serde_json::from_str(&read(repo().join(schema))).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
        .collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// A small deterministic generator (xorshift), so that failures of the generated and mutated
/// inputs reproduce.
pub struct Rng(pub u64);

/// The rounds and the generator of a randomised test: `rounds` from `seed`, the same on every
/// run. A longer campaign is run by hand, for example
/// `LHC_FUZZ_SCALE=50 LHC_FUZZ_SEED=3 cargo test --test it -- fuzz`: the scale multiplies every
/// test's rounds, and the seed is mixed into each test's own, so the tests still draw
/// different sequences.
pub fn campaign(rounds: usize, seed: u64) -> (usize, Rng) {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let scale = var("LHC_FUZZ_SCALE").unwrap_or(1).max(1) as usize;
    let seed = seed ^ var("LHC_FUZZ_SEED").unwrap_or(0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // xorshift stays at zero from zero.
    (rounds * scale, Rng(seed.max(1)))
}
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// `kubectl kustomize --enable-helm` of a kustomize-helm folder (`gitops/` of a build), offline:
/// a copy of the folder with a stand-in `longhorn` chart under `charts/`, which kustomize uses
/// instead of pulling the chart (it checks no version then). The stand-in renders a
/// CustomResourceDefinition, a DaemonSet and a ConfigMap `lhc-values` holding `.Values` as JSON
/// and the release's name and namespace, so a test sees what the real chart would be given.
/// Helm is `.cache/bin/helm` (Helm 4) behind a shim for kustomize 5.5 (kubectl 1.32), which asks
/// `helm version -c --short` for Helm 3 and stops otherwise; every other call is Helm 4's.
pub fn kustomize_helm(dir: &Path) -> Vec<serde_json::Value> {
    let helm = repo().join(".cache/bin/helm");
    assert!(helm.is_file(), "Helm is required at .cache/bin/helm (bash tools/setup-helm.sh)");
    let t = Test::new();
    for (path, text) in read_tree(dir) {
        t.file_write(&path, &text);
    }
    let kustomization = yaml_docs(&read(dir.join("kustomization.yaml"))).remove(0);
    let version = kustomization["helmCharts"][0]["version"].as_str().unwrap_or("0.0.0").to_string();
    // kustomize 5.5 looks in `charts/<name>-<version>/<name>`, earlier releases in `charts/<name>`.
    for chart in [format!("charts/longhorn-{version}/longhorn"), "charts/longhorn".to_string()] {
        t.file_write(
            &format!("{chart}/Chart.yaml"),
            &format!("apiVersion: v2\nname: longhorn\nversion: {version}\n"),
        );
        t.file_write(&format!("{chart}/values.yaml"), "{}\n");
        t.file_write(
        &format!("{chart}/templates/all.yaml"),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: volumes.longhorn.io\nspec:\n  group: longhorn.io\n  names: {kind: Volume, plural: volumes}\n  scope: Namespaced\n  versions:\n    - name: v1beta2\n      served: true\n      storage: true\n      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: longhorn-manager\n  namespace: {{ .Release.Namespace }}\nspec:\n  selector: {matchLabels: {app: longhorn-manager}}\n  template:\n    metadata: {labels: {app: longhorn-manager}}\n    spec:\n      containers: [{name: longhorn-manager, image: longhornio/longhorn-manager}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lhc-values\n  namespace: {{ .Release.Namespace }}\ndata:\n  release: {{ .Release.Name | quote }}\n  values: {{ toJson .Values | quote }}\n",
    );
    }
    let shim = t.path().join("helm-shim");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\nif [ \"$1\" = version ] && [ \"$2\" = -c ]; then echo v3.17.0; exit 0; fi\nexec {} \"$@\"\n",
            helm.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = Command::new("kubectl")
        .args(["kustomize", "--enable-helm", "--helm-command"])
        .arg(&shim)
        .arg(t.path())
        .output()
        .expect("kubectl is required");
    assert!(
        out.status.success(),
        "kubectl kustomize --enable-helm {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    yaml_docs(&String::from_utf8_lossy(&out.stdout))
}
