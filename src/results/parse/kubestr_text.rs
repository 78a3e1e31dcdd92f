//! `kubestr fio`'s text output: the progress lines (`PVC created …`, `Running FIO test
//! (<test>) on StorageClass (<class>) …`), then `FIO test results:`, `FIO version - fio-…`,
//! one block per job (`JobName:`, `blocksize=… rw=…`, `read:`/`write:`,
//! `IOPS=<float> BW(KiB/s)=<int>`), `Disk stats`, and the status `-  OK` (on its own line or at
//! the end of the last disk line, with or without its colour) or `-  Error` after kubestr's
//! message, which becomes an error. Hand-edited layouts (indented `Disk stats`, `- OK`) pass.
//!
//! The jobs map like fio's (`read_iops` → random read IOPS, `read_bw` → random read bandwidth,
//! `rand_readwrite` → mixed IOPS and bandwidth); kubestr prints no latency.

use super::anchor;
use super::fio_jobs::{self, Io, Job};
use super::helpers::{Block, Ctx, Line, decimal, line_at};
use crate::diagnostic::{Diagnostic, Message};
use crate::results::{Direction, Format};

/// Whether `t` is one of the lines kubestr prints per job.
pub(super) fn looks_like_job(t: &str) -> bool {
    t.starts_with("JobName:")
        || t.starts_with("FIO version - ")
        || (t.starts_with("IOPS=") && t.contains("BW(KiB/s)="))
}

/// The class in kubestr's `Running FIO test (…) on StorageClass (<class>) …` line.
pub(super) fn progress_class(t: &str) -> Option<String> {
    let (_, rest) = t.split_once("on StorageClass (")?;
    let (class, _) = rest.split_once(')')?;
    (!class.is_empty()).then(|| class.to_string())
}

/// Reads the output whose `FIO test results:` line is `at`; `progress`: the index of kubestr's
/// first progress line and the class it named.
pub(super) fn parse(
    cx: Ctx,
    lines: &[Line],
    at: usize,
    progress: Option<(usize, Option<String>)>,
) -> Block {
    let (head, class) = progress.unwrap_or((at, None));
    let start = Some(cx.at(lines, head));
    let mut run = cx.run(Format::KubestrText, line_at(lines, head));
    run.class = class;
    let mut jobs: Vec<Job> = vec![];
    let mut direction: Option<Direction> = None;
    // Text before `FIO version`: kubestr's error message.
    let mut message: Vec<(usize, String)> = vec![];
    let mut i = at + 1;
    loop {
        let Some(line) = lines.get(i).filter(|l| anchor(l).is_none()) else {
            let before = "before its status (`-  OK`)";
            let d = cx.truncated(cx.at(lines, i), "the kubestr output", before, start);
            return Block::error(d, i);
        };
        let t = line.trimmed();
        i += 1;
        if let Some((rest, ok)) = status(t) {
            if ok {
                break;
            }
            if !rest.is_empty() {
                message.push((i - 1, rest.to_string()));
            }
            let first = message.first().map_or(i - 1, |(at, _)| *at);
            let text: Vec<&str> = message.iter().map(|(_, m)| m.as_str()).collect();
            return Block::error(failed(cx.at(lines, first), text.join(" ")), i);
        }
        if let Some(v) = t.strip_prefix("FIO version - ") {
            run.fio_version = Some(v.trim().to_string());
        } else if let Some(name) = t.strip_prefix("JobName:") {
            jobs.push(Job { name: name.trim().to_string(), ..Job::default() });
            direction = None;
        } else if t.starts_with("blocksize=") {
            if let Some(job) = jobs.last_mut() {
                for (k, v) in t.split_whitespace().filter_map(|w| w.split_once('=')) {
                    match k {
                        "rw" => job.rw = Some(v.to_string()),
                        "iodepth" => job.iodepth = Some(v.to_string()),
                        _ => {}
                    }
                }
            }
        } else if t == "read:" {
            direction = Some(Direction::Read);
        } else if t == "write:" {
            direction = Some(Direction::Write);
        } else if t.starts_with("IOPS=") {
            let io = match io(t) {
                Ok(io) => io,
                Err(m) => return Block::error(cx.unreadable(cx.at(lines, i - 1), m), i),
            };
            match (jobs.last_mut(), direction) {
                (Some(job), Some(Direction::Read)) => job.read = Some(io),
                (Some(job), Some(Direction::Write)) => job.write = Some(io),
                _ => {
                    let m = "an `IOPS=` line outside a job's `read:` or `write:` block";
                    return Block::error(cx.unreadable(cx.at(lines, i - 1), m), i);
                }
            }
        } else if run.fio_version.is_none() && jobs.is_empty() && !t.is_empty() {
            message.push((i - 1, t.to_string()));
        }
    }

    if jobs.is_empty() {
        let m = "kubestr's output has no jobs";
        return Block::error(cx.unreadable(cx.at(lines, at), m), i);
    }
    let measured = fio_jobs::resolve(jobs);
    run.values = measured.values;
    run.notes.extend(measured.notes);
    run.notes
        .push("latency not measured: kubestr prints none (its fio jobs set gtod_reduce=1)".into());
    if run.values.is_empty() {
        let m = "kubestr's output has no numbers";
        return Block::error(cx.unreadable(cx.at(lines, at), m), i);
    }
    Block::run(run, i)
}

/// kubestr's report of a failed run, `message` with its whitespace collapsed.
pub(super) fn failed(span: crate::source::Span, message: String) -> Diagnostic {
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    Diagnostic::error(Message::FailedBenchmarkRun { tool: "kubestr fio", message }, span).with_help(
        "the run gave no numbers: fix what kubestr names (often the PVC's size or the node), \
         then run it again",
    )
}

/// kubestr's status at the end of `t`: `(<text before it>, true)` for `-  OK`, `false` for
/// `-  Error`.
fn status(t: &str) -> Option<(&str, bool)> {
    for (word, ok) in [("OK", true), ("Error", false)] {
        let Some(before) = t.strip_suffix(word) else { continue };
        let Some(before) = before.trim_end().strip_suffix('-') else { continue };
        if before.is_empty() || before.ends_with(char::is_whitespace) {
            return Some((before.trim(), ok));
        }
    }
    None
}

/// `IOPS=8648.512695 BW(KiB/s)=34610`
fn io(t: &str) -> Result<Io, String> {
    let mut io = Io::default();
    for (k, v) in t.split_whitespace().filter_map(|w| w.split_once('=')) {
        let n = decimal(v).ok_or_else(|| format!("cannot read `{v}` as a number"))?;
        match k {
            "IOPS" => io.iops = n,
            "BW(KiB/s)" => io.bw = n,
            _ => {}
        }
    }
    Ok(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        assert_eq!(status("-  OK"), Some(("", true)));
        assert_eq!(status("- OK"), Some(("", true)));
        assert_eq!(
            status("sda: ios=1/2 util=99.8%      -  OK"),
            Some(("sda: ios=1/2 util=99.8%", true))
        );
        assert_eq!(status("code 1  -  Error"), Some(("code 1", false)));
        assert_eq!(status("JobName: x-OK"), None);
        assert_eq!(status("OK"), None);
    }

    #[test]
    fn progress() {
        let t =
            "Running FIO test (default-fio) on StorageClass (ceph-block) with a PVC of Size (10Gi)";
        assert_eq!(progress_class(t).as_deref(), Some("ceph-block"));
        assert_eq!(
            io("IOPS=1.5 BW(KiB/s)=6"),
            Ok(Io { iops: 1.5, bw: 6.0, lat_us: None, ios: 0.0 })
        );
        assert!(io("IOPS=x").is_err());
    }
}
