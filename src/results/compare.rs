//! Comparing runs: runs in; per tool a table with one row per run, named after its class (or
//! where it was read), the change against a baseline in percent, and the verdicts that tell a
//! real result from a cache or an unsafe write path (kbench's README rules).
//!
//! The baseline rule, for the change column and the verdicts alike: kbench's comparison
//! compares its second volume with its first; every other row of a tool is compared with the
//! `--baseline` row of that tool: the row whose name is exactly the one given (`local (run 2)`
//! picks one run), else the **last** run of that class in input order (inputs in the order
//! given, runs in file order). Only that row is marked as the baseline; other runs of its
//! class are compared with it too.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Direction, Key, Metric, Origin, Pattern, Run, Values};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::source::Source;

/// Changes within this share of the baseline are noise, not a verdict.
pub const NOISE: f64 = 0.05;
/// kbench: below this much CPU idleness during the latency test, the test is CPU-starved.
pub const CPU_STARVED: f64 = 40.0;

/// The name the spans of [`Report::diagnostics`] give their source: the command's arguments.
pub const ARGUMENTS: &str = "command line";

#[derive(Debug, Clone)]
pub struct Report {
    pub sections: Vec<Section>,
    pub verdicts: Vec<Verdict>,
    /// What is wrong with the comparison itself (a `--baseline` no row has), with spans into
    /// [`Report::arguments`].
    pub diagnostics: Vec<Diagnostic>,
    baseline: Option<String>,
}

impl Report {
    /// The arguments the report was built with, as the source its diagnostics point into:
    /// `report::human(&report.diagnostics, &report.arguments(), color)`.
    pub fn arguments(&self) -> Source {
        let text = self.baseline.as_ref().map_or(String::new(), |b| format!("--baseline {b}\n"));
        Source::new(ARGUMENTS, text)
    }
}

/// The runs of one tool.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub tool: &'static str,
    /// The (metric, pattern) pairs any row has, in display order; a cell shows read / write.
    pub columns: Vec<(Metric, Pattern)>,
    pub rows: Vec<Row>,
    /// The index of the row `--baseline` chose, if it chose one in this section.
    pub baseline: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The row's name, unique in its section: the class, else the file's stem, with `(run <n>)`
    /// (or `(<file> run <n>)`) added when several rows have one name.
    pub class: String,
    /// The name before it was made unique.
    pub name: String,
    /// Whether this row is a baseline the others are compared with.
    pub baseline: bool,
    pub values: Values,
    pub cpu_idle: BTreeMap<Metric, f64>,
    /// The change against the baseline, in percent of the baseline.
    pub change: Option<Change>,
    pub origin: Origin,
    /// The run's number in its file, from 1.
    pub run: usize,
    pub notes: Vec<String>,
    /// The index of the row this one is compared with.
    #[serde(skip)]
    against: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The baseline row's name.
    pub baseline: String,
    pub percent: BTreeMap<Key, f64>,
}

/// What kbench's sanity rules say about a row: a warning (`cache`, `not-crash-consistent`,
/// `cpu-starved`), with the tool and class it is about.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub tool: &'static str,
    pub class: String,
    pub diagnostic: Diagnostic,
}

impl Verdict {
    fn new(tool: &'static str, class: &str, message: Message, help: String) -> Verdict {
        Verdict {
            tool,
            class: class.to_string(),
            diagnostic: Diagnostic::warning(message, None).with_help(help),
        }
    }

    pub fn code(&self) -> &'static str {
        self.diagnostic.code()
    }
}

/// `{"kind": <code>, "tool", "class", "message", "help"}`.
impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut v = s.serialize_struct("Verdict", 5)?;
        v.serialize_field("kind", self.code())?;
        v.serialize_field("tool", self.tool)?;
        v.serialize_field("class", &self.class)?;
        v.serialize_field("message", &self.diagnostic.message.to_string())?;
        v.serialize_field("help", &self.diagnostic.help)?;
        v.end()
    }
}

/// The display order of a section's columns.
const COLUMNS: [(Metric, Pattern); 9] = [
    (Metric::Iops, Pattern::Random),
    (Metric::Iops, Pattern::Sequential),
    (Metric::Iops, Pattern::Mixed),
    (Metric::Bandwidth, Pattern::Random),
    (Metric::Bandwidth, Pattern::Sequential),
    (Metric::Bandwidth, Pattern::Mixed),
    (Metric::Latency, Pattern::Random),
    (Metric::Latency, Pattern::Sequential),
    (Metric::Latency, Pattern::Mixed),
];

fn row(
    name: String,
    values: &Values,
    cpu_idle: &BTreeMap<Metric, f64>,
    run: &Run,
    n: usize,
) -> Row {
    Row {
        class: name.clone(),
        name,
        baseline: false,
        values: values.clone(),
        cpu_idle: cpu_idle.clone(),
        change: None,
        origin: run.origin.clone(),
        run: n,
        notes: vec![],
        against: None,
    }
}

/// Builds the report. `baseline` names the row every other row of a tool is compared with
/// (see the module's rule); kbench's comparison runs bring their own.
pub fn build(runs: &[Run], baseline: Option<&str>) -> Report {
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_tool: BTreeMap<&'static str, Vec<Row>> = BTreeMap::new();
    for run in runs {
        let n = per_file.entry(run.origin.file.as_str()).or_insert(0);
        *n += 1;
        let name = run.class.clone().unwrap_or_else(|| file_stem(&run.origin.file));
        let rows = by_tool.entry(run.format.tool()).or_default();
        // The comparison's first volume; several comparisons with the same one share its row.
        let against = run.baseline.as_ref().map(|b| {
            let same = |r: &Row| r.baseline && r.name == b.class && r.values == b.values;
            match rows.iter().position(same) {
                Some(at) => at,
                None => {
                    let mut base = row(b.class.clone(), &b.values, &b.cpu_idle, run, *n);
                    base.baseline = true;
                    rows.push(base);
                    rows.len() - 1
                }
            }
        });
        let mut r = row(name, &run.values, &run.cpu_idle, run, *n);
        r.notes.clone_from(&run.notes);
        r.against = against;
        rows.push(r);
    }

    let mut sections = vec![];
    let mut verdicts = vec![];
    for (tool, mut rows) in by_tool {
        name_rows(&mut rows);
        let chosen = baseline.and_then(|b| choose(&rows, b));
        if let Some(b) = chosen {
            for (i, r) in rows.iter_mut().enumerate() {
                if i == b {
                    r.baseline = true;
                } else if r.against.is_none() {
                    r.against = Some(b);
                }
            }
        }
        for i in 0..rows.len() {
            let Some(base) = rows[i].against.and_then(|a| rows.get(a)) else { continue };
            let c = change(&rows[i].values, &base.values, &base.class);
            rows[i].change = Some(c);
        }
        for r in &rows {
            verdicts.extend(judge(tool, r, r.against.and_then(|a| rows.get(a))));
        }
        let present: BTreeSet<(Metric, Pattern)> =
            rows.iter().flat_map(|r| r.values.keys().map(|k| (k.metric, k.pattern))).collect();
        let columns = COLUMNS.iter().copied().filter(|c| present.contains(c)).collect();
        sections.push(Section { tool, columns, rows, baseline: chosen });
    }
    let mut diagnostics = vec![];
    if let Some(b) = baseline
        && sections.iter().all(|s| s.baseline.is_none())
    {
        diagnostics.push(unknown_baseline(b, &sections));
    }
    Report { sections, verdicts, diagnostics, baseline: baseline.map(str::to_string) }
}

/// The name of a run that names no class: its file's stem (`/home/me/logs/run2.txt` is
/// `run2`), `stdin` for `-`. Several such runs of one file, or of files with one stem, are told
/// apart by [`name_rows`].
fn file_stem(file: &str) -> String {
    if file == "-" {
        return "stdin".into();
    }
    let path = std::path::Path::new(file);
    match path.file_stem().or(path.file_name()) {
        Some(stem) => stem.to_string_lossy().into_owned(),
        None => file.to_string(),
    }
}

/// Makes the rows' names unique: rows sharing a name get their run's number in its file, and
/// the file too when they come from several.
fn name_rows(rows: &mut [Row]) {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups.entry(r.name.clone()).or_default().push(i);
    }
    for members in groups.values().filter(|m| m.len() > 1) {
        let files: BTreeSet<&str> = members.iter().map(|&i| rows[i].origin.file.as_str()).collect();
        let one_file = files.len() == 1;
        for &i in members {
            let r = &mut rows[i];
            r.class = if one_file {
                format!("{} (run {})", r.name, r.run)
            } else {
                format!("{} ({} run {})", r.name, r.origin.file, r.run)
            };
        }
    }
    // A comparison of a volume with itself gives two rows of one run: number the second.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows.iter_mut() {
        let n = seen.entry(r.class.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            r.class = format!("{} #{n}", r.class);
        }
    }
}

/// The row `--baseline name` picks: the one so named exactly, else the last of that class.
fn choose(rows: &[Row], name: &str) -> Option<usize> {
    rows.iter().position(|r| r.class == name).or_else(|| rows.iter().rposition(|r| r.name == name))
}

fn unknown_baseline(name: &str, sections: &[Section]) -> Diagnostic {
    let start = "--baseline ".len();
    let span = start..start + name.len();
    let mut names: Vec<&str> = vec![];
    for r in sections.iter().flat_map(|s| &s.rows) {
        for n in [r.name.as_str(), r.class.as_str()] {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let help = match did_you_mean(name, names.iter().copied()) {
        Some(close) => format!("did you mean `{close}`?"),
        None if names.is_empty() => "no input gave a run".to_string(),
        None => {
            let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("the rows are {}", list.join(", "))
        }
    };
    Diagnostic::error(Message::UnknownBaseline { class: name.to_string() }, span)
        .with_help(help)
        .with_note("the report is shown without a baseline")
}

fn change(values: &Values, base: &Values, baseline: &str) -> Change {
    let percent = values
        .iter()
        .filter_map(|(k, v)| {
            let b = *base.get(k)?;
            (b != 0.0).then(|| (*k, (v - b) * 100.0 / b))
        })
        .collect();
    Change { baseline: baseline.to_string(), percent }
}

fn judge(tool: &'static str, row: &Row, base: Option<&Row>) -> Vec<Verdict> {
    let mut out = vec![];
    if let Some(idle) = row.cpu_idle.get(&Metric::Latency).filter(|i| **i < CPU_STARVED) {
        out.push(Verdict::new(
            tool,
            &row.class,
            Message::CpuStarved { class: row.class.clone(), idle: format!("{idle:.0}"), tool },
            format!("below {CPU_STARVED:.0}% the test measures a CPU-starved node, not the storage; use more or faster CPUs for the benchmark nodes"),
        ));
    }
    let Some(base) = base else { return out };
    let better = |k: &Key| -> Option<f64> {
        let (v, b) = (*row.values.get(k)?, *base.values.get(k)?);
        if b == 0.0 {
            return None;
        }
        let gain = if k.metric.higher_is_better() { (v - b) / b } else { (b - v) / b };
        (gain > NOISE).then_some(gain * 100.0)
    };
    let cached: Vec<String> = row
        .values
        .keys()
        .filter(|k| k.metric == Metric::Latency && k.direction == Direction::Read)
        .filter_map(|k| better(k).map(|g| format!("{k} {g:.0}% lower")))
        .collect();
    if !cached.is_empty() {
        out.push(Verdict::new(
            tool,
            &row.class,
            Message::Cache {
                class: row.class.clone(),
                baseline: base.class.clone(),
                faster: cached.join(", "),
                tool,
            },
            "more replicas can add read IOPS and bandwidth, never lower latency: a cache is answering; increase the benchmark `size`".into(),
        ));
    }
    let unsafe_writes: Vec<String> = row
        .values
        .keys()
        .filter(|k| k.direction == Direction::Write)
        .filter_map(|k| {
            better(k).map(|g| {
                format!(
                    "{k} {g:.0}% {}",
                    if k.metric.higher_is_better() { "higher" } else { "lower" }
                )
            })
        })
        .collect();
    if !unsafe_writes.is_empty() {
        out.push(Verdict::new(
            tool,
            &row.class,
            Message::NotCrashConsistent {
                class: row.class.clone(),
                baseline: base.class.clone(),
                faster: unsafe_writes.join(", "),
                tool,
            },
            "no replicated write can beat the local disk without a persistent write cache: the volume likely acknowledges writes before they are durable (not crash-consistent)".into(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Baseline, Format};

    fn run(class: &str, values: &[(Key, f64)]) -> Run {
        Run {
            format: Format::Kbench,
            class: Some(class.into()),
            values: values.iter().copied().collect(),
            cpu_idle: BTreeMap::new(),
            baseline: None,
            origin: Origin { file: "-".into(), line: 1 },
            fio_version: None,
            notes: vec![],
        }
    }

    const RR_LAT: Key = Key::new(Metric::Latency, Pattern::Random, Direction::Read);
    const RW_IOPS: Key = Key::new(Metric::Iops, Pattern::Random, Direction::Write);
    const RR_IOPS: Key = Key::new(Metric::Iops, Pattern::Random, Direction::Read);

    #[test]
    fn baseline_changes_and_verdicts() {
        let runs = vec![
            run("local-path", &[(RR_LAT, 100.0), (RW_IOPS, 1000.0), (RR_IOPS, 1000.0)]),
            run("longhorn", &[(RR_LAT, 50.0), (RW_IOPS, 1040.0), (RR_IOPS, 3000.0)]),
        ];
        let r = build(&runs, Some("local-path"));
        let rows = &r.sections[0].rows;
        assert!(rows[0].baseline);
        let ch = rows[1].change.as_ref().unwrap();
        assert_eq!(ch.percent[&RR_IOPS], 200.0);
        assert_eq!(ch.percent[&RR_LAT], -50.0);
        assert!((ch.percent[&RW_IOPS] - 4.0).abs() < 1e-9);
        let kinds: Vec<&str> = r.verdicts.iter().map(Verdict::code).collect();
        // Write IOPS 4% above is noise; read latency 50% below is a cache.
        assert_eq!(kinds, ["cache"]);
    }

    fn origin(run: &mut Run, file: &str, line: usize) {
        run.origin = Origin { file: file.into(), line };
    }

    #[test]
    fn the_baseline_is_the_last_run_of_its_class_for_changes_and_verdicts() {
        let mut first = run("local", &[(RR_LAT, 50.0)]);
        let mut second = run("local", &[(RR_LAT, 100.0)]);
        let mut lh = run("longhorn", &[(RR_LAT, 80.0)]);
        origin(&mut first, "a.log", 1);
        origin(&mut second, "a.log", 9);
        origin(&mut lh, "b.log", 1);
        let r = build(&[first, second, lh], Some("local"));
        let s = &r.sections[0];
        let names: Vec<(&str, bool)> =
            s.rows.iter().map(|r| (r.class.as_str(), r.baseline)).collect();
        assert_eq!(names, [("local (run 1)", false), ("local (run 2)", true), ("longhorn", false)]);
        assert_eq!(s.baseline, Some(1));
        // Both the change and the verdict are against run 2 (100 µs): 80 µs is 20% lower.
        let ch = s.rows[2].change.as_ref().unwrap();
        assert_eq!((ch.baseline.as_str(), ch.percent[&RR_LAT]), ("local (run 2)", -20.0));
        assert_eq!(s.rows[0].change.as_ref().unwrap().percent[&RR_LAT], -50.0);
        let v: Vec<(&str, String)> = r
            .verdicts
            .iter()
            .map(|v| (v.class.as_str(), v.diagnostic.message.to_string()))
            .collect();
        assert_eq!(
            v,
            [
                (
                    "local (run 1)",
                    "`local (run 1)` reads faster than `local (run 2)` can: random read latency 50% lower (kbench)".to_string()
                ),
                (
                    "longhorn",
                    "`longhorn` reads faster than `local (run 2)` can: random read latency 20% lower (kbench)".to_string()
                ),
            ]
        );
        // An exact name picks one run.
        let mut runs = vec![run("local", &[(RR_LAT, 50.0)]), run("local", &[(RR_LAT, 100.0)])];
        origin(&mut runs[1], "-", 2);
        let r = build(&runs, Some("local (run 1)"));
        assert_eq!(r.sections[0].baseline, Some(0));
    }

    #[test]
    fn an_unknown_baseline_is_an_error_and_runs_are_numbered_per_file() {
        let mut a = run("x", &[(RR_IOPS, 1.0)]);
        let mut b = run("x", &[(RR_IOPS, 2.0)]);
        let mut c = run("local-path", &[(RR_IOPS, 2.0)]);
        origin(&mut a, "a.log", 3);
        origin(&mut b, "b.log", 3);
        origin(&mut c, "b.log", 30);
        let r = build(&[a, b, c], Some("local-pat"));
        let names: Vec<&str> = r.sections[0].rows.iter().map(|r| r.class.as_str()).collect();
        assert_eq!(names, ["x (a.log run 1)", "x (b.log run 1)", "local-path"]);
        assert!(r.sections[0].rows.iter().all(|r| r.change.is_none()));
        let d = &r.diagnostics[0];
        assert_eq!(d.code(), "unknown-baseline");
        assert_eq!(d.help.as_deref(), Some("did you mean `local-path`?"));
        let source = r.arguments();
        assert_eq!(source.text.get(d.span.clone().unwrap()), Some("local-pat"));
        assert!(build(&[], None).diagnostics.is_empty());
    }

    #[test]
    fn runs_that_name_no_class_are_named_after_their_file() {
        let mut runs = vec![run("x", &[(RR_IOPS, 1.0)]); 5];
        for (r, (file, line)) in runs.iter_mut().zip([
            ("/home/me/logs/run2.txt", 1),
            ("/home/me/logs/run3.txt", 1),
            ("/home/me/logs/run3.txt", 40),
            ("-", 1),
            ("old/run2.log", 1),
        ]) {
            r.class = None;
            origin(r, file, line);
        }
        let r = build(&runs, None);
        let names: Vec<&str> = r.sections[0].rows.iter().map(|r| r.class.as_str()).collect();
        assert_eq!(
            names,
            [
                "run2 (/home/me/logs/run2.txt run 1)",
                "run3 (run 1)",
                "run3 (run 2)",
                "stdin",
                "run2 (old/run2.log run 1)"
            ]
        );
    }

    #[test]
    fn kbench_comparisons_bring_their_baseline_and_cpu_starvation_is_flagged() {
        let mut cmp = run("longhorn", &[(RW_IOPS, 2000.0)]);
        cmp.format = Format::KbenchComparison;
        cmp.cpu_idle.insert(Metric::Latency, 20.0);
        cmp.baseline = Some(Baseline {
            class: "local-path".into(),
            values: [(RW_IOPS, 1000.0)].into_iter().collect(),
            cpu_idle: BTreeMap::new(),
        });
        let r = build(&[cmp], None);
        let rows = &r.sections[0].rows;
        assert_eq!(rows.len(), 2);
        assert!(r.diagnostics.is_empty());
        assert_eq!(rows[0].class, "local-path");
        assert_eq!(rows[1].change.as_ref().unwrap().percent[&RW_IOPS], 100.0);
        let kinds: Vec<&str> = r.verdicts.iter().map(Verdict::code).collect();
        assert_eq!(kinds, ["cpu-starved", "not-crash-consistent"]);
    }
}
