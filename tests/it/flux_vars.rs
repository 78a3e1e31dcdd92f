//! Flux's post-build variables in cluster files (issue 22): written through for Flux where the
//! field reaches only what Flux applies, checked with the values lhc is given (a Secret's never
//! shown), substituted by `lhc render`, kept as written by `lhc import`.

use crate::common::{Test, read, validate_k8s, yaml_docs};

const FLUX: &str = r#"[cluster]
name = "edge"

[longhorn]
version = "1.12.1"

[longhorn.ui.ingress]
host = "longhorn.${SECRET_DOMAIN}"
tls_secret = "longhorn-${SECRET_DOMAIN//./-}-tls"

[longhorn.backup]
target = "nfs://${NFS_SERVER}:/backups"

[gitops]
mode = "flux"

[[storage_class]]
name = "restored"
parameters = { fromBackup = "${RESTORE_FROM:=}" }

[[recurring_job]]
name = "snap"
task = "snapshot"
cron = "@hourly"
retain = 24
labels = { owner = "${TEAM:=platform}", note = "$${TEAM} is the owner" }
"#;

#[test]
fn flux_gets_the_variables_as_written_and_every_file_says_which_it_needs() {
    let t = Test::new().file("c.toml", FLUX);
    let out = t.run_args(&["build", "c.toml", "--color", "never"]);
    out.code(0);
    assert!(out.stderr.contains("note[variables-unchecked]"), "{}", out.stderr);
    let flux = read(t.path().join("out/edge/gitops/flux.yaml"));
    let docs = yaml_docs(&flux);
    let release = docs.iter().find(|d| d["kind"] == "HelmRelease").unwrap();
    assert_eq!(release["spec"]["values"]["ingress"]["host"], "longhorn.${SECRET_DOMAIN}");
    assert_eq!(
        release["spec"]["values"]["ingress"]["tlsSecret"],
        "longhorn-${SECRET_DOMAIN//./-}-tls"
    );
    assert_eq!(
        release["spec"]["values"]["defaultBackupStore"]["backupTarget"],
        "\"nfs://${NFS_SERVER}:/backups\""
    );
    // The HelmRelease lets Flux substitute; the other objects with no variable do not.
    assert!(release["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"].is_null());
    assert!(
        flux.contains("# Flux substitutes ${NFS_SERVER}, ${SECRET_DOMAIN} in this file"),
        "{flux}"
    );
    for d in &docs {
        validate_k8s(d, "1.37").unwrap_or_else(|e| panic!("{}: {e:?}", d["kind"]));
    }
    let classes = read(t.path().join("out/edge/storageclasses.yaml"));
    assert!(classes.contains("fromBackup: \"${RESTORE_FROM:=}\""), "{classes}");
    assert!(classes.contains("# Flux substitutes ${RESTORE_FROM} in this file"), "{classes}");
    let jobs = yaml_docs(&read(t.path().join("out/edge/recurringjobs.yaml")));
    assert_eq!(jobs[0]["spec"]["labels"]["owner"], "${TEAM:=platform}");
    // Flux's escape stays for Flux to read as one `$`.
    assert_eq!(jobs[0]["spec"]["labels"]["note"], "$${TEAM} is the owner");
    // The manifest records the variables as written, so the next diff compares like with like.
    t.run_args(&["diff", "c.toml"]).code(0);
}

#[test]
fn values_check_each_field_at_the_line_of_its_variable() {
    let t = Test::new()
        .file("c.toml", FLUX)
        .file("vars.env", "SECRET_DOMAIN=Bad_Domain\n")
        .file("ok.env", "SECRET_DOMAIN=example.com\nNFS_SERVER=nas.lan\n");
    let out = t.run_args(&["check", "c.toml", "--vars", "vars.env", "--color", "never"]);
    out.code(1);
    assert!(out.stderr.contains("error[invalid-format]: `host`"), "{}", out.stderr);
    assert!(out.stderr.contains("--> c.toml:8:8"), "{}", out.stderr);
    // --var wins over --vars; with every value given nothing waits.
    let ok = t.run_args(&["check", "c.toml", "--vars", "vars.env", "--vars", "ok.env"]);
    ok.code(0);
    assert!(!ok.stderr.contains("variables-unchecked"), "{}", ok.stderr);
    let flag = t.run_args(&["check", "c.toml", "--vars", "ok.env", "--var", "NFS_SERVER=ftp bad"]);
    flag.code(1);
    // The file's own [variables] count, under the command line.
    let with_table = FLUX.to_string()
        + "\n[variables]\nSECRET_DOMAIN = \"example.com\"\nNFS_SERVER = \"nas.lan\"\n";
    let t = Test::new().file("c.toml", &with_table);
    let out = t.run_args(&["check", "c.toml"]);
    out.code(0);
    assert!(!out.stderr.contains("variables-unchecked"), "{}", out.stderr);
}

#[test]
fn a_secrets_value_is_never_printed() {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\ndata:\n  NFS_SERVER: aHVudGVyMiBob3N0\n";
    let t = Test::new().file("c.toml", FLUX).file("s.yaml", secret);
    for format in ["human", "json"] {
        let out = t.run_args(&["check", "c.toml", "--vars", "s.yaml", "--message-format", format]);
        out.code(1);
        assert!(
            !out.stderr.contains("hunter2") && !out.stdout.contains("hunter2"),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("${NFS_SERVER}"), "{}", out.stderr);
    }
    // render takes it (its stream is never committed); build never writes it into a file.
    let t = Test::new()
        .file("c.toml", &FLUX.replace("mode = \"flux\"", "mode = \"argocd\""))
        .file("s.yaml", &secret.replace("aHVudGVyMiBob3N0", "bmFzLmxhbg=="));
    let build =
        t.run_args(&["build", "c.toml", "--vars", "s.yaml", "--var", "SECRET_DOMAIN=example.com"]);
    build.code(1);
    assert!(build.stderr.contains("error[variable-needs-value]"), "{}", build.stderr);
    assert!(build.stderr.contains("comes from a Secret"), "{}", build.stderr);
    assert!(!build.stderr.contains("nas.lan"), "{}", build.stderr);
    assert!(!t.path().join("out").exists(), "nothing written");
    let render = t.run_args(&[
        "render",
        "c.toml",
        "--chart",
        "--vars",
        "s.yaml",
        "--var",
        "SECRET_DOMAIN=example.com",
    ]);
    render.code(0);
    assert!(render.stdout.contains("nfs://nas.lan:/backups"), "{}", render.stdout);
}

#[test]
fn render_substitutes_every_variable_and_fails_on_one_it_lacks() {
    let t = Test::new().file("c.toml", FLUX);
    let out = t.run_args(&["render", "c.toml", "--chart", "--color", "never"]);
    out.code(1);
    assert!(out.stdout.is_empty(), "an empty stream would make Argo CD delete everything");
    assert!(out.stderr.contains("error[variable-needs-value]: `longhorn.ui.ingress.host` needs the value of `${SECRET_DOMAIN}`"), "{}", out.stderr);
    let out = t.run_args(&[
        "render",
        "c.toml",
        "--chart",
        "--var",
        "SECRET_DOMAIN=example.com",
        "--var",
        "NFS_SERVER=nas.lan",
    ]);
    out.code(0);
    assert!(out.stdout.contains("longhorn-example-com-tls"), "{}", out.stdout);
    assert!(out.stdout.contains("owner: \"platform\""), "{}", out.stdout);
    // Flux's escape, read as Flux reads it: the text `${TEAM}`, which nothing may substitute.
    let docs = yaml_docs(&out.stdout);
    let job = docs.iter().find(|d| d["kind"] == "RecurringJob").unwrap();
    assert_eq!(job["spec"]["labels"]["note"], "${TEAM} is the owner");
    assert_eq!(
        job["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/substitute"],
        "disabled"
    );
}

#[test]
fn a_field_lhc_computes_with_needs_a_value() {
    let file = "[cluster]\nname = \"c\"\n\n[longhorn]\nversion = \"1.12.1\"\n\n[gitops]\nmode = \"flux\"\n\n[[pool]]\nname = \"p\"\nnodes = [\"n1\", \"n2\", \"n3\"]\n\n[[pool.disk]]\nname = \"d\"\ntype = \"device\"\nsize = \"${DISK_SIZE}\"\npath = \"/mnt/d\"\n";
    let t = Test::new().file("c.toml", file);
    let out = t.run_args(&["build", "c.toml"]);
    out.code(1);
    assert!(
        out.stderr.contains("error[variable-needs-value]: `pool.0.disk.0.size`"),
        "{}",
        out.stderr
    );
    let out = t.run_args(&["build", "c.toml", "--var", "DISK_SIZE=500Gi"]);
    out.code(0);
    assert!(read(t.path().join("out/c/nodes.sh")).contains("500Gi"));
}

#[test]
fn bad_inputs_are_clear_errors_and_write_nothing() {
    let t = Test::new()
        .file("c.toml", FLUX)
        .file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n");
    for (args, expect) in [
        (vec!["build", "c.toml", "--vars", "pod.yaml"], "error[vars-file]: pod.yaml: holds a Pod"),
        (vec!["build", "c.toml", "--var", "1BAD=x"], "error[vars-file]: --var:"),
        (vec!["build", "c.toml", "--vars", "missing.env"], "error[cannot-read]"),
    ] {
        let out = t.run_args(&args);
        out.code(1);
        assert!(out.stderr.contains(expect), "{args:?}: {}", out.stderr);
        assert!(!t.path().join("out").exists());
    }
    let bad = FLUX.replace("${NFS_SERVER}", "${NFS_SERVER:+x}");
    let t = Test::new().file("c.toml", &bad);
    let out = t.run_args(&["build", "c.toml"]);
    out.code(1);
    assert!(out.stderr.contains("error[invalid-variable]"), "{}", out.stderr);
}

#[test]
fn import_keeps_the_variables_as_written() {
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: longhorn\n  namespace: longhorn-system\nspec:\n  interval: 30m\n  chart:\n    spec:\n      chart: longhorn\n      version: 1.12.1\n      sourceRef:\n        kind: HelmRepository\n        name: longhorn\n  values:\n    ingress:\n      enabled: true\n      host: longhorn.${SECRET_DOMAIN}\n    defaultBackupStore:\n      backupTarget: nfs://${NFS_SERVER}:/backups\n";
    let t = Test::new().file("hr.yaml", release);
    let out = t.run_args(&["import", "hr.yaml", "--name", "edge", "-o", "edge.toml"]);
    out.code(0);
    let file = read(t.path().join("edge.toml"));
    assert!(file.contains("host = \"longhorn.${SECRET_DOMAIN}\""), "{file}");
    assert!(file.contains("target = \"nfs://${NFS_SERVER}:/backups\""), "{file}");
    t.run_args(&["build", "edge.toml"]).code(0);
    let values = yaml_docs(&read(t.path().join("out/edge/gitops/flux.yaml")))
        .into_iter()
        .find(|d| d["kind"] == "HelmRelease")
        .unwrap();
    assert_eq!(values["spec"]["values"]["ingress"]["host"], "longhorn.${SECRET_DOMAIN}");
}

/// A class's variable reaches Flux only through a Kustomization with `postBuild`: without
/// `[gitops] substitute_from` it is a warning at the variable; with it, the storage
/// Kustomization lhc writes names the sources, in a schema-valid object.
#[test]
fn classes_variables_need_the_storage_kustomization_to_substitute_them() {
    let file = "[cluster]\nname = \"edge\"\n\n[longhorn]\nversion = \"1.12.1\"\n\n[gitops]\nmode = \"flux\"\n\n[[storage_class]]\nname = \"nfs\"\nparameters = { nfsOptions = \"vers=4.1,${NFS_OPTS}\" }\n";
    let t = Test::new().file("c.toml", file);
    let out = t.run_args(&["build", "c.toml", "-o", "out"]);
    out.code(0);
    assert!(
        out.stderr.contains("warning[no-substitute-from]") && out.stderr.contains("c.toml:12:29"),
        "{}",
        out.stderr
    );
    let with = file.replace("mode = \"flux\"\n", "mode = \"flux\"\nsubstitute_from = [{ kind = \"ConfigMap\", name = \"vars\" }, { kind = \"Secret\", name = \"secrets\", optional = true }]\n");
    t.file_write("c.toml", &with);
    let out = t.run_args(&["build", "c.toml", "-o", "out"]);
    out.code(0);
    assert!(!out.stderr.contains("no-substitute-from"), "{}", out.stderr);
    let flux = read(t.path().join("out/edge/gitops/flux.yaml"));
    assert!(flux.contains("ConfigMap/vars, Secret/secrets (optional)"), "{flux}");
    let storage = yaml_docs(&flux).into_iter().find(|d| d["kind"] == "Kustomization").unwrap();
    let from = &storage["spec"]["postBuild"]["substituteFrom"];
    assert_eq!(from[0]["kind"], "ConfigMap");
    assert_eq!(from[1]["optional"], true);
    assert!(read(t.path().join("out/edge/storageclasses.yaml")).contains("vers=4.1,${NFS_OPTS}"));
}
