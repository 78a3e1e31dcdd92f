//! Emitting: rendered trees in; the output folder brought up to date, all or nothing.
//!
//! [`prepare`] compares each cluster's tree with what is on disk and with
//! `.lhc-manifest.json` (what lhc wrote last time, see [`manifest`]): files to add, change and
//! remove, and conflicts: files edited by hand since lhc wrote them, or files lhc never wrote
//! standing where it wants to write. [`commit`] is the build transaction: it refuses conflicts,
//! parses every YAML file about to be written, then writes every file through a temporary file
//! and a rename; if any step fails, every step done so far is undone.

pub mod manifest;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::lower::Facts;
use crate::names::sha256_hex;
use crate::render::Tree;
pub use manifest::{MANIFEST, Manifest};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Added,
    Changed,
    Removed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Changed => "changed",
            ChangeKind::Removed => "removed",
        }
    }
}

/// One file that differs between disk and the new tree.
#[derive(Debug, Clone)]
pub struct Change {
    /// Path relative to the output folder (`prod-fsn1/nodes.sh`).
    pub path: String,
    pub kind: ChangeKind,
    /// What is on disk now (`None` when absent or unreadable).
    pub old: Option<String>,
    /// What lhc would write (`None` for removals).
    pub new: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// lhc wrote the file, and it was edited since.
    EditedByHand,
    /// A file lhc did not write stands where lhc wants to write.
    NotWrittenByLhc,
    /// Something other than a readable file stands there (a directory, a file lhc may not
    /// read); `--force` does not override this.
    NotAFile,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub path: String,
    pub kind: ConflictKind,
    /// Whether lhc wants to remove the file (rather than write it).
    pub removal: bool,
}

/// What building one cluster would do to the output folder.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    /// The output folder that holds the cluster's folder.
    pub out: PathBuf,
    pub cluster: String,
    pub changes: Vec<Change>,
    pub conflicts: Vec<Conflict>,
    /// The new manifest text, and whether it differs from the one on disk.
    manifest: Option<(String, bool)>,
    /// The manifest of the previous build, as found on disk.
    pub previous: Manifest,
}

impl Changes {
    pub fn is_clean(&self) -> bool {
        self.changes.is_empty()
    }
}

/// The manifest a previous build left in `path` (an empty one when there is none or it does
/// not parse).
pub fn read_manifest(path: &Path) -> Manifest {
    fs::read_to_string(path).map(|t| manifest::parse(&t)).unwrap_or_default()
}

enum OnDisk {
    Absent,
    Text(String),
    NotAFile,
}

fn on_disk(path: &Path) -> OnDisk {
    match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => OnDisk::Text(t),
            Err(e) => OnDisk::Text(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => OnDisk::Absent,
        Err(_) => OnDisk::NotAFile,
    }
}

/// Compares a cluster's rendered tree with the output folder `out`.
/// With `force`, hand edits and foreign files are overwritten or removed instead of reported.
pub fn prepare(out: &Path, cluster: &str, tree: &Tree, facts: &Facts, force: bool) -> Changes {
    let dir = out.join(cluster);
    let previous = read_manifest(&dir.join(MANIFEST));
    let old_manifest = previous.files.clone();
    let prefix = format!("{cluster}/");
    let mut changes = Changes {
        out: out.to_path_buf(),
        cluster: cluster.to_string(),
        previous,
        ..Changes::default()
    };
    let text = manifest::text(tree, cluster, facts);
    let current = fs::read_to_string(dir.join(MANIFEST)).ok();
    changes.manifest = Some((text.clone(), current.as_deref() != Some(text.as_str())));

    for (path, text) in tree {
        let Some(rel) = path.strip_prefix(&prefix) else { continue };
        if rel == MANIFEST {
            continue;
        }
        match on_disk(&dir.join(rel)) {
            OnDisk::Absent => changes.changes.push(Change {
                path: path.clone(),
                kind: ChangeKind::Added,
                old: None,
                new: Some(text.clone()),
            }),
            OnDisk::Text(current) if current == *text => {}
            OnDisk::Text(current) => {
                let hash = sha256_hex(current.as_bytes());
                let conflict = match old_manifest.get(rel) {
                    Some(recorded) if *recorded == hash => None,
                    Some(_) => Some(ConflictKind::EditedByHand),
                    None => Some(ConflictKind::NotWrittenByLhc),
                };
                if let (Some(kind), false) = (conflict, force) {
                    changes.conflicts.push(Conflict { path: path.clone(), kind, removal: false });
                }
                changes.changes.push(Change {
                    path: path.clone(),
                    kind: ChangeKind::Changed,
                    old: Some(current),
                    new: Some(text.clone()),
                });
            }
            OnDisk::NotAFile => {
                changes.conflicts.push(Conflict {
                    path: path.clone(),
                    kind: ConflictKind::NotAFile,
                    removal: false,
                });
                changes.changes.push(Change {
                    path: path.clone(),
                    kind: ChangeKind::Changed,
                    old: None,
                    new: Some(text.clone()),
                });
            }
        }
    }

    for (rel, recorded) in &old_manifest {
        let path = format!("{prefix}{rel}");
        if tree.contains_key(&path) || rel == MANIFEST || !safe_relative(rel) {
            continue;
        }
        match on_disk(&dir.join(rel)) {
            OnDisk::Absent => {}
            OnDisk::Text(current) => {
                if sha256_hex(current.as_bytes()) != *recorded && !force {
                    changes.conflicts.push(Conflict {
                        path: path.clone(),
                        kind: ConflictKind::EditedByHand,
                        removal: true,
                    });
                }
                changes.changes.push(Change {
                    path,
                    kind: ChangeKind::Removed,
                    old: Some(current),
                    new: None,
                });
            }
            OnDisk::NotAFile => {
                changes.conflicts.push(Conflict {
                    path: path.clone(),
                    kind: ConflictKind::NotAFile,
                    removal: true,
                });
            }
        }
    }
    changes.changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes
}

/// What [`prepare`] would find for a cluster whose inputs are those of the build on disk, known
/// without its tree: `facts` (with [`Facts::inputs`] set) are the facts the manifest recorded,
/// and every file the manifest lists still has its recorded sha256. `None` when any of that is
/// not so (or there are no inputs to compare): the caller renders the tree and [`prepare`]s it.
///
/// Rendering is deterministic, and the inputs name this lhc's build, so the same inputs render
/// the tree the manifest recorded; files on disk that match it leave nothing to change.
pub fn unchanged(out: &Path, cluster: &str, facts: &Facts) -> Option<Changes> {
    facts.inputs.as_ref()?;
    as_recorded(out, cluster, |recorded| recorded == facts)
}

/// [`unchanged`] known before the cluster is even checked: the manifest recorded the build's
/// `inputs` (the sha256 of [`Facts::inputs`]) and no diagnostic ([`Facts::diagnostics`]), and
/// every file it lists still has its recorded sha256. A check would find what that build found,
/// nothing to report; the plan would be the one recorded.
pub fn current(out: &Path, cluster: &str, inputs: &str) -> Option<Changes> {
    as_recorded(out, cluster, |recorded| {
        recorded.inputs.as_deref() == Some(inputs) && recorded.diagnostics == Some(0)
    })
}

/// The changes of a cluster folder whose manifest's facts pass `accept` and whose every listed
/// file is as recorded: none.
fn as_recorded(out: &Path, cluster: &str, accept: impl Fn(&Facts) -> bool) -> Option<Changes> {
    let dir = out.join(cluster);
    let previous = read_manifest(&dir.join(MANIFEST));
    if !previous.facts.as_ref().is_some_and(accept) {
        return None;
    }
    for (rel, recorded) in &previous.files {
        if !safe_relative(rel) || rel == MANIFEST {
            return None;
        }
        let bytes = fs::read(dir.join(rel)).ok()?;
        if sha256_hex(&bytes) != *recorded {
            return None;
        }
    }
    Some(Changes {
        out: out.to_path_buf(),
        cluster: cluster.to_string(),
        previous,
        ..Changes::default()
    })
}

/// A manifest entry lhc may act on: relative, no `..`, no absolute parts.
fn safe_relative(rel: &str) -> bool {
    !rel.is_empty()
        && Path::new(rel).components().all(|c| matches!(c, std::path::Component::Normal(_)))
}

#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {path}: {source}")]
pub struct EmitError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: io::Error,
}

/// One step done, and how to undo it.
enum Done {
    CreatedDir(PathBuf),
    /// A file put in place; `backup` holds what was there before.
    Placed {
        target: PathBuf,
        backup: Option<PathBuf>,
    },
    /// A file moved aside for removal.
    Removed {
        target: PathBuf,
        backup: PathBuf,
    },
}

/// Why a build wrote nothing.
#[derive(Debug)]
pub enum Failure {
    /// Files edited by hand, foreign files, or something other than a file in the way, each
    /// with the output folder it is in.
    Conflicts(Vec<(PathBuf, Conflict)>),
    /// A file lhc rendered does not parse: a bug in lhc, caught before writing.
    InvalidYaml { path: String, reason: String },
    /// Writing failed part way; every step done was undone.
    Io(EmitError),
}

/// The build transaction: refuses conflicts, checks that every YAML file about to be written
/// parses, then applies every change to its output folder, all or nothing.
pub fn commit(all: &[Changes]) -> Result<(), Failure> {
    let conflicts: Vec<(PathBuf, Conflict)> =
        all.iter().flat_map(|c| c.conflicts.iter().map(|x| (c.out.clone(), x.clone()))).collect();
    if !conflicts.is_empty() {
        return Err(Failure::Conflicts(conflicts));
    }
    // Each cluster's files on a thread of their own; the first invalid file in order is reported.
    let invalid = crate::parallel::map(all, |c| {
        c.changes.iter().find_map(|change| match (&change.new, change.path.ends_with(".yaml")) {
            (Some(text), true) => crate::yaml::check_stream(text)
                .err()
                .map(|reason| Failure::InvalidYaml { path: change.path.clone(), reason }),
            _ => None,
        })
    });
    if let Some(failure) = invalid.into_iter().flatten().next() {
        return Err(failure);
    }
    apply(all).map_err(Failure::Io)
}

/// Applies prepared changes, each to its output folder, all or nothing.
pub fn apply(all: &[Changes]) -> Result<(), EmitError> {
    apply_with(all, &|_| Ok(()))
}

/// [`apply`], with a hook run before each step that changes a file in place; an error from the
/// hook fails the step (the tests inject failures through it).
fn apply_with(all: &[Changes], hook: &Hook<'_>) -> Result<(), EmitError> {
    let mut done: Vec<Done> = vec![];
    let trash = Trash::default();
    let result = apply_steps(all, &trash, &mut done, hook);
    if result.is_err() {
        for step in done.into_iter().rev() {
            match step {
                Done::CreatedDir(dir) => {
                    let _ = fs::remove_dir(dir);
                }
                Done::Placed { target, backup: Some(b) } => {
                    let _ = fs::rename(b, &target);
                }
                Done::Placed { target, backup: None } => {
                    let _ = fs::remove_file(&target);
                }
                Done::Removed { target, backup } => {
                    let _ = fs::rename(backup, target);
                }
            }
        }
    }
    let dirs = trash.dirs.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    for dir in dirs.keys() {
        let _ = fs::remove_dir_all(trash_dir(dir));
    }
    result
}

/// What [`apply_with`] runs before each step that changes a file in place.
type Hook<'a> = dyn Fn(&Path) -> io::Result<()> + Sync + 'a;

/// Where replaced and removed files wait until the end: one folder in each output folder (a
/// rename never crosses filesystems), made when first needed; shared by the threads that place
/// the clusters' files.
#[derive(Default)]
struct Trash {
    /// Output folder → files put in its trash so far.
    dirs: std::sync::Mutex<std::collections::BTreeMap<PathBuf, usize>>,
}

fn trash_dir(out: &Path) -> PathBuf {
    out.join(format!(".lhc-trash-{}", std::process::id()))
}

impl Trash {
    /// A fresh path in the trash of `out`.
    fn path(&self, out: &Path, done: &mut Vec<Done>) -> Result<PathBuf, EmitError> {
        let mut dirs = self.dirs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = trash_dir(out);
        let n = match dirs.get_mut(out) {
            Some(n) => n,
            None => {
                create_dirs(&dir, done)?;
                dirs.entry(out.to_path_buf()).or_default()
            }
        };
        *n += 1;
        Ok(dir.join(n.to_string()))
    }
}

fn err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> EmitError + 'a {
    move |source| EmitError { action, path: path.to_path_buf(), source }
}

fn create_dirs(dir: &Path, done: &mut Vec<Done>) -> Result<(), EmitError> {
    let mut missing = vec![];
    let mut d = dir;
    while !d.as_os_str().is_empty() && d.symlink_metadata().is_err() {
        missing.push(d.to_path_buf());
        match d.parent() {
            Some(p) => d = p,
            None => break,
        }
    }
    for m in missing.into_iter().rev() {
        fs::create_dir(&m).map_err(err("create directory", &m))?;
        done.push(Done::CreatedDir(m));
    }
    Ok(())
}

/// Keeps a copy of a file about to be replaced: a hard link, or a copy across filesystems.
fn keep(target: &Path, backup: &Path) -> io::Result<()> {
    fs::hard_link(target, backup).or_else(|_| fs::copy(target, backup).map(|_| ()))
}

/// Each target with the temporary file that holds its new text.
type Staged = Vec<(PathBuf, tempfile::TempPath)>;

/// Writes every new file of one cluster to a temporary file next to its target, making the
/// folders it needs: the folders made (to undo, whatever the result), and each target with its
/// temporary file.
fn stage(changes: &Changes) -> (Vec<Done>, Result<Staged, EmitError>) {
    let mut created = vec![];
    let mut staged = vec![];
    let out = changes.out.as_path();
    let mut writes: Vec<(String, &str)> = changes
        .changes
        .iter()
        .filter_map(|c| c.new.as_deref().map(|n| (c.path.clone(), n)))
        .collect();
    if let Some((text, true)) = &changes.manifest {
        writes.push((format!("{}/{MANIFEST}", changes.cluster), text.as_str()));
    }
    let mut dirs_ready: Vec<PathBuf> = vec![];
    for (rel, text) in writes {
        let target = out.join(&rel);
        let dir = target.parent().unwrap_or(out).to_path_buf();
        if !dirs_ready.contains(&dir) {
            if let Err(e) = create_dirs(&dir, &mut created) {
                return (created, Err(e));
            }
            dirs_ready.push(dir.clone());
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".lhc-tmp-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if rel.ends_with(".sh") { 0o755 } else { 0o644 };
            builder.permissions(fs::Permissions::from_mode(mode));
        }
        let tmp = builder.tempfile_in(&dir).map_err(err("create a temporary file in", &dir));
        // No fsync: the tree is regenerated from the cluster file at will, and a rename over the
        // old file is already atomic for readers.
        let written = tmp.and_then(|mut tmp| {
            tmp.write_all(text.as_bytes()).map_err(err("write", &target))?;
            Ok(tmp.into_temp_path())
        });
        match written {
            Ok(tmp) => staged.push((target, tmp)),
            Err(e) => return (created, Err(e)),
        }
    }
    (created, Ok(staged))
}

fn apply_steps(
    all: &[Changes],
    trash: &Trash,
    done: &mut Vec<Done>,
    hook: &Hook<'_>,
) -> Result<(), EmitError> {
    // 1. Every new file goes to a temporary file next to its target: the output folders first,
    // then each cluster's files on a thread of their own (its folder is its own).
    let mut outs: Vec<&Path> = all.iter().map(|c| c.out.as_path()).collect();
    outs.dedup();
    for out in outs {
        create_dirs(out, done)?;
    }
    let mut staged: Vec<(&Path, Staged)> = vec![];
    let mut failed = None;
    for (changes, (created, result)) in all.iter().zip(crate::parallel::map(all, stage)) {
        done.extend(created);
        match result {
            Ok(files) => staged.push((changes.out.as_path(), files)),
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    if let Some(e) = failed {
        // The temporary files go with `staged`; the folders made are undone by the caller.
        return Err(e);
    }
    // 2. New files replace old ones, each in one rename, each cluster's on a thread of its own;
    // the old ones are kept until the end.
    let placed = crate::parallel::map_into(staged, |(out, files)| {
        let mut done = vec![];
        let result = place(out, files, trash, &mut done, hook);
        (done, result)
    });
    for (placed, result) in placed {
        done.extend(placed);
        failed = failed.or(result.err());
    }
    if let Some(e) = failed {
        return Err(e);
    }
    // 3. Files lhc no longer writes go to the trash.
    for changes in all {
        for c in changes.changes.iter().filter(|c| c.kind == ChangeKind::Removed) {
            let target = changes.out.join(&c.path);
            if !target.is_file() {
                continue;
            }
            let b = trash.path(&changes.out, done)?;
            hook(&target).map_err(err("remove", &target))?;
            fs::rename(&target, &b).map_err(err("remove", &target))?;
            done.push(Done::Removed { target, backup: b });
        }
    }
    Ok(())
}

/// Puts one cluster's staged files in place, keeping in the trash of `out` each file replaced.
fn place(
    out: &Path,
    files: Staged,
    trash: &Trash,
    done: &mut Vec<Done>,
    hook: &Hook<'_>,
) -> Result<(), EmitError> {
    for (target, tmp) in files {
        let backup = if target.is_file() {
            let b = trash.path(out, done)?;
            keep(&target, &b).map_err(err("back up", &target))?;
            Some(b)
        } else {
            None
        };
        hook(&target).map_err(err("replace", &target))?;
        tmp.persist(&target).map_err(|e| EmitError {
            action: "replace",
            path: target.clone(),
            source: e.error,
        })?;
        done.push(Done::Placed { target, backup });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn tree(files: &[(&str, &str)]) -> Tree {
        files.iter().map(|(p, c)| (p.to_string(), c.to_string())).collect()
    }

    fn prepare(out: &Path, cluster: &str, tree: &Tree, force: bool) -> Changes {
        super::prepare(out, cluster, tree, &Facts::default(), force)
    }

    #[test]
    fn first_build_adds_everything_and_second_is_clean() {
        let out = tempfile::tempdir().unwrap();
        let t = tree(&[("c/a.yaml", "a\n"), ("c/b.sh", "b\n")]);
        let ch = prepare(out.path(), "c", &t, false);
        assert_eq!(ch.changes.len(), 2);
        assert!(ch.conflicts.is_empty());
        apply(&[ch]).unwrap();
        assert_eq!(fs::read_to_string(out.path().join("c/a.yaml")).unwrap(), "a\n");
        assert!(prepare(out.path(), "c", &t, false).is_clean());
        assert!(!out.path().join(format!(".lhc-trash-{}", std::process::id())).exists());
    }

    #[test]
    fn removes_only_what_lhc_wrote_and_reports_hand_edits() {
        let out = tempfile::tempdir().unwrap();
        let t1 = tree(&[("c/a.yaml", "a\n"), ("c/b.yaml", "b\n")]);
        apply(&[prepare(out.path(), "c", &t1, false)]).unwrap();
        fs::write(out.path().join("c/mine.txt"), "user file").unwrap();
        // b.yaml disappears from the tree: removed, since it is unchanged since lhc wrote it.
        let t2 = tree(&[("c/a.yaml", "a2\n")]);
        let ch = prepare(out.path(), "c", &t2, false);
        assert!(ch.conflicts.is_empty());
        apply(&[ch]).unwrap();
        assert!(!out.path().join("c/b.yaml").exists());
        assert!(out.path().join("c/mine.txt").exists());
        // A hand edit is a conflict until forced.
        fs::write(out.path().join("c/a.yaml"), "edited\n").unwrap();
        let t3 = tree(&[("c/a.yaml", "a3\n")]);
        let ch = prepare(out.path(), "c", &t3, false);
        assert_eq!(ch.conflicts.len(), 1);
        assert_eq!(ch.conflicts[0].kind, ConflictKind::EditedByHand);
        let ch = prepare(out.path(), "c", &t3, true);
        assert!(ch.conflicts.is_empty());
        apply(&[ch]).unwrap();
        assert_eq!(fs::read_to_string(out.path().join("c/a.yaml")).unwrap(), "a3\n");
    }

    fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        let mut out = std::collections::BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                if p.is_dir() {
                    out.insert(format!("{rel}/"), vec![]);
                    stack.push(p);
                } else {
                    out.insert(rel, fs::read(&p).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn a_failure_at_any_step_restores_the_previous_tree() {
        let t1 = tree(&[("c/a.yaml", "a1\n"), ("c/b.yaml", "b1\n"), ("c/old.yaml", "o\n")]);
        let t2 = tree(&[("c/a.yaml", "a2\n"), ("c/b.yaml", "b2\n"), ("c/sub/new.yaml", "n\n")]);
        // Count the steps of a successful run, then fail at each one in turn.
        let steps = {
            let out = tempfile::tempdir().unwrap();
            apply(&[prepare(out.path(), "c", &t1, false)]).unwrap();
            let n = AtomicUsize::new(0);
            apply_with(&[prepare(out.path(), "c", &t2, false)], &|_| {
                n.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .unwrap();
            n.into_inner()
        };
        assert_eq!(steps, 5, "a, b, manifest, sub/new placed; old removed");
        for fail_at in 1..=steps {
            let out = tempfile::tempdir().unwrap();
            apply(&[prepare(out.path(), "c", &t1, false)]).unwrap();
            let before = snapshot(out.path());
            let n = AtomicUsize::new(0);
            let result = apply_with(&[prepare(out.path(), "c", &t2, false)], &|_| {
                let step = n.fetch_add(1, Ordering::Relaxed) + 1;
                if step == fail_at { Err(io::Error::other("injected")) } else { Ok(()) }
            });
            assert!(result.is_err());
            assert_eq!(snapshot(out.path()), before, "failing at step {fail_at}");
        }
    }

    #[test]
    fn a_cluster_that_cannot_be_staged_leaves_every_folder_as_it_was() {
        // Clusters are staged on several threads; one fails (a file stands where its folder
        // would be) while others have made folders and temporary files.
        let out = tempfile::tempdir().unwrap();
        let first = tree(&[("c0/a.yaml", "a\n")]);
        apply(&[prepare(out.path(), "c0", &first, false)]).unwrap();
        fs::write(out.path().join("c3"), "in the way\n").unwrap();
        let before = snapshot(out.path());
        let all: Vec<Changes> = (0..8)
            .map(|i| {
                let c = format!("c{i}");
                let t =
                    tree(&[(&format!("{c}/a.yaml"), "b\n"), (&format!("{c}/sub/x.yaml"), "x\n")]);
                prepare(out.path(), &c, &t, false)
            })
            .collect();
        let e = apply(&all).unwrap_err();
        assert_eq!(e.path, out.path().join("c3"));
        assert_eq!(snapshot(out.path()), before);
    }

    #[test]
    fn a_cluster_that_cannot_be_placed_leaves_every_folder_as_it_was() {
        // Eight clusters built, then rebuilt with one file of one cluster failing to be put in
        // place while the other threads replace theirs (keeping the old ones in the trash).
        let out = tempfile::tempdir().unwrap();
        let trees = |text: &str| -> Vec<Changes> {
            (0..8)
                .map(|i| {
                    let c = format!("c{i}");
                    let t = tree(&[
                        (&format!("{c}/a.yaml"), text),
                        (&format!("{c}/sub/{text}.yaml"), text),
                    ]);
                    prepare(out.path(), &c, &t, false)
                })
                .collect()
        };
        apply(&trees("one")).unwrap();
        let before = snapshot(out.path());
        let failing = out.path().join("c5/a.yaml");
        let e = apply_with(&trees("two"), &|target| {
            if target == failing { Err(io::Error::other("injected")) } else { Ok(()) }
        })
        .unwrap_err();
        assert_eq!((e.action, e.path), ("replace", failing));
        assert_eq!(snapshot(out.path()), before);
        apply(&trees("two")).unwrap();
        assert_eq!(fs::read_to_string(out.path().join("c5/sub/two.yaml")).unwrap(), "two");
        assert!(!out.path().join("c5/sub/one.yaml").exists());
    }

    #[test]
    fn directories_and_foreign_files_are_conflicts() {
        let out = tempfile::tempdir().unwrap();
        fs::create_dir_all(out.path().join("c/a.yaml")).unwrap();
        fs::write(out.path().join("c/b.yaml"), "mine\n").unwrap();
        let t = tree(&[("c/a.yaml", "a\n"), ("c/b.yaml", "b\n")]);
        let ch = prepare(out.path(), "c", &t, false);
        let kinds: Vec<_> = ch.conflicts.iter().map(|c| (c.path.as_str(), c.kind)).collect();
        assert_eq!(
            kinds,
            [("c/a.yaml", ConflictKind::NotAFile), ("c/b.yaml", ConflictKind::NotWrittenByLhc)]
        );
        // --force overwrites a foreign file but never replaces a directory.
        let ch = prepare(out.path(), "c", &t, true);
        let kinds: Vec<_> = ch.conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ConflictKind::NotAFile]);
    }
}
