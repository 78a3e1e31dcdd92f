//! fio's jobs to lhc's keys, for fio's JSON and for kubestr (text and JSON).
//!
//! A job's pattern comes from its `rw` (`randread`/`randwrite`: random; `read`/`write`:
//! sequential; `randrw`/`rw`/`readwrite`: mixed; fio's default is `read`), its purpose from its
//! name (`iops`, `bw` or `bandwidth`, `lat`; a name with no hint gives all three), and each
//! direction with I/O done gives IOPS, bandwidth (KiB/s) and latency (µs). A latency of 0 was not
//! measured (`gtod_reduce`). When two jobs give one key, the one whose name says that purpose
//! wins; an IOPS job's latency is kept only when no latency job gives it, with a note. Jobs of
//! one name and group (fio's `numjobs` without `group_reporting`) are added up first.

use std::collections::{BTreeMap, BTreeSet};

use crate::results::{Direction, Key, Metric, Pattern, Values};

/// One fio job, as fio's JSON or kubestr's text gives it.
#[derive(Debug, Clone, Default)]
pub(super) struct Job {
    pub name: String,
    pub group: i64,
    /// fio's `rw` (or `readwrite`) option.
    pub rw: Option<String>,
    pub iodepth: Option<String>,
    /// fio's error number; not 0: the job failed.
    pub error: i64,
    /// `None`: no I/O in that direction.
    pub read: Option<Io>,
    pub write: Option<Io>,
}

/// One direction of one job.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Io {
    pub iops: f64,
    /// KiB/s.
    pub bw: f64,
    /// Mean total latency in µs; `None` or 0: not measured.
    pub lat_us: Option<f64>,
    /// I/Os done (weights latencies when jobs are added up).
    pub ios: f64,
}

/// What a set of jobs measured.
#[derive(Debug, Default)]
pub(super) struct Measured {
    pub values: Values,
    pub notes: Vec<String>,
    /// Some job should have given a latency but measured none (`gtod_reduce`).
    pub latency_missing: bool,
    /// The one purpose all jobs share (kbench's iops, bandwidth or latency file), if any.
    pub purpose: Option<Metric>,
}

/// How well a job's purpose fits a metric: a higher rank wins.
fn rank(metric: Metric, purposes: &BTreeSet<Metric>) -> Option<u8> {
    if purposes.contains(&metric) {
        Some(2)
    } else if purposes.is_empty() {
        Some(1)
    } else if metric == Metric::Latency && purposes.contains(&Metric::Iops) {
        Some(0)
    } else {
        None
    }
}

/// What the job's name says it measures.
fn purposes(name: &str) -> BTreeSet<Metric> {
    let n = name.to_ascii_lowercase();
    let mut p = BTreeSet::new();
    if n.contains("iops") {
        p.insert(Metric::Iops);
    }
    if n.contains("bw") || n.contains("bandwidth") {
        p.insert(Metric::Bandwidth);
    }
    if n.contains("lat") {
        p.insert(Metric::Latency);
    }
    p
}

/// The pattern of fio's `rw` option (`randread:8` counts as `randread`); `None` for trims.
fn pattern(rw: Option<&str>) -> Option<Pattern> {
    let rw = rw.unwrap_or("read").split(':').next().unwrap_or("").trim().to_ascii_lowercase();
    match rw.as_str() {
        "randread" | "randwrite" => Some(Pattern::Random),
        "read" | "write" => Some(Pattern::Sequential),
        "randrw" | "rw" | "readwrite" => Some(Pattern::Mixed),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy)]
struct Pick {
    rank: u8,
    job: usize,
    value: f64,
}

/// Maps `jobs` to values, keeping the best job for each key.
pub(super) fn resolve(jobs: Vec<Job>) -> Measured {
    let mut m = Measured::default();
    let jobs = merge(jobs, &mut m.notes);
    let mut picks: BTreeMap<Key, Pick> = BTreeMap::new();
    let mut unmeasured: BTreeSet<Key> = BTreeSet::new();
    let mut all_purposes: BTreeSet<BTreeSet<Metric>> = BTreeSet::new();
    for (idx, job) in jobs.iter().enumerate() {
        if job.error != 0 {
            m.notes.push(format!(
                "job {} failed (fio error {}); its numbers are left out",
                job.name, job.error
            ));
            continue;
        }
        let Some(pattern) = pattern(job.rw.as_deref()) else {
            m.notes.push(format!(
                "job {}: rw={} is not a pattern lhc reports; left out",
                job.name,
                job.rw.as_deref().unwrap_or("")
            ));
            continue;
        };
        let purposes = purposes(&job.name);
        for (direction, io) in [(Direction::Read, job.read), (Direction::Write, job.write)] {
            let Some(io) = io else { continue };
            all_purposes.insert(purposes.clone());
            for metric in [Metric::Iops, Metric::Bandwidth, Metric::Latency] {
                let Some(rank) = rank(metric, &purposes) else { continue };
                let key = Key::new(metric, pattern, direction);
                let value = match metric {
                    Metric::Iops => io.iops,
                    Metric::Bandwidth => io.bw,
                    Metric::Latency => match io.lat_us {
                        Some(l) if l > 0.0 => l,
                        _ => {
                            unmeasured.insert(key);
                            continue;
                        }
                    },
                };
                match picks.get(&key) {
                    Some(p) if p.rank > rank => {}
                    Some(p) if p.rank == rank => {
                        let kept = jobs.get(p.job).map_or("", |j| j.name.as_str());
                        m.notes.push(format!(
                            "{key}: job {} measured it too; lhc kept job {kept}'s number",
                            job.name
                        ));
                    }
                    _ => {
                        picks.insert(key, Pick { rank, job: idx, value });
                    }
                }
            }
        }
    }
    for (key, pick) in &picks {
        if key.metric == Metric::Latency && pick.rank == 0 {
            let job = jobs.get(pick.job);
            let depth = job
                .and_then(|j| j.iodepth.as_deref())
                .map_or(String::new(), |d| format!(" at iodepth {d}"));
            m.notes.push(format!(
                "{key} was measured by the IOPS job {}{depth}, not by a latency test",
                job.map_or("", |j| j.name.as_str())
            ));
        }
    }
    m.latency_missing = unmeasured.iter().any(|k| !picks.contains_key(k));
    m.values = picks.into_iter().map(|(k, p)| (k, p.value)).collect();
    if let [one] = all_purposes.into_iter().collect::<Vec<_>>().as_slice()
        && let [metric] = one.iter().copied().collect::<Vec<_>>().as_slice()
    {
        m.purpose = Some(*metric);
    }
    m
}

/// Adds up jobs of one name and group: IOPS and bandwidth summed, latency weighted by I/Os.
fn merge(jobs: Vec<Job>, notes: &mut Vec<String>) -> Vec<Job> {
    let mut out: Vec<(Job, usize)> = vec![];
    for job in jobs {
        match out.iter_mut().find(|(j, _)| j.name == job.name && j.group == job.group) {
            Some((j, n)) => {
                j.read = add(j.read, job.read);
                j.write = add(j.write, job.write);
                j.error = if j.error != 0 { j.error } else { job.error };
                *n += 1;
            }
            None => out.push((job, 1)),
        }
    }
    out.into_iter()
        .map(|(job, n)| {
            if n > 1 {
                notes.push(format!("job {}: its {n} processes are added up", job.name));
            }
            job
        })
        .collect()
}

fn add(a: Option<Io>, b: Option<Io>) -> Option<Io> {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => return a.or(b),
    };
    let lat_us = match (a.lat_us, b.lat_us) {
        (Some(x), Some(y)) if a.ios + b.ios > 0.0 => {
            Some((x * a.ios + y * b.ios) / (a.ios + b.ios))
        }
        (Some(x), Some(y)) => Some((x + y) / 2.0),
        _ => None,
    };
    Some(Io { iops: a.iops + b.iops, bw: a.bw + b.bw, lat_us, ios: a.ios + b.ios })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(iops: f64, bw: f64, lat: f64) -> Option<Io> {
        Some(Io { iops, bw, lat_us: Some(lat), ios: 10.0 })
    }

    fn job(name: &str, rw: &str, read: Option<Io>) -> Job {
        Job {
            name: name.into(),
            rw: Some(rw.into()),
            iodepth: Some("64".into()),
            read,
            ..Job::default()
        }
    }

    const RR: fn(Metric) -> Key = |m| Key::new(m, Pattern::Random, Direction::Read);

    #[test]
    fn purpose_decides() {
        let m = resolve(vec![
            job("read_iops", "randread", io(100.0, 400.0, 600.0)),
            job("read_bw", "randread", io(10.0, 1280.0, 6000.0)),
            job("read_lat", "randread", io(50.0, 200.0, 20.0)),
        ]);
        assert_eq!(
            m.values,
            Values::from([
                (RR(Metric::Iops), 100.0),
                (RR(Metric::Bandwidth), 1280.0),
                (RR(Metric::Latency), 20.0)
            ])
        );
        assert!(m.notes.is_empty(), "{:?}", m.notes);
        assert_eq!(m.purpose, None);
    }

    #[test]
    fn iops_latency_is_a_fallback_with_a_note() {
        let m = resolve(vec![job("read_iops", "randread", io(100.0, 400.0, 600.0))]);
        assert_eq!(m.values.get(&RR(Metric::Latency)), Some(&600.0));
        assert_eq!(m.values.get(&RR(Metric::Bandwidth)), None);
        assert_eq!(m.notes.len(), 1);
        assert!(m.notes[0].contains("iodepth 64"), "{}", m.notes[0]);
        assert_eq!(m.purpose, Some(Metric::Iops));
    }

    #[test]
    fn unmeasured_latency_and_merged_jobs() {
        let mut a = job("seq", "read", Some(Io { iops: 1.0, bw: 2.0, lat_us: None, ios: 1.0 }));
        a.group = 3;
        let m = resolve(vec![a.clone(), a]);
        let sr = |m| Key::new(m, Pattern::Sequential, Direction::Read);
        assert_eq!(m.values, Values::from([(sr(Metric::Iops), 2.0), (sr(Metric::Bandwidth), 4.0)]));
        assert!(m.latency_missing);
        assert_eq!(m.notes, ["job seq: its 2 processes are added up"]);
        assert_eq!(pattern(None), Some(Pattern::Sequential));
        assert_eq!(pattern(Some("randtrim")), None);
    }
}
