//! `lhc versions [--format text|json]`: the supported Longhorn charts, Kubernetes versions and pinned
//! benchmark images.

use super::{FAILED, OK, Outcome, Ui};
use crate::diagnostic::{Diagnostic, Message};
use crate::knowledge::kubernetes;
use crate::model::Tool;

pub fn run(ui: &Ui, json: bool) -> Outcome {
    let k = match crate::knowledge::load() {
        Ok(k) => k,
        Err(e) => {
            return Outcome::fail(
                ui,
                Diagnostic::error(Message::Internal(e.to_string()), None),
                FAILED,
            );
        }
    };
    let charts: Vec<&str> = k.longhorn.releases().iter().map(|c| c.version.as_str()).collect();
    let newest_chart = k.longhorn.newest().version.as_str();
    let k8s: Vec<String> = kubernetes::supported().map(|m| m.to_string()).collect();
    let bench = match k.bench() {
        Ok(b) => b,
        Err(e) => {
            return Outcome::fail(
                ui,
                Diagnostic::error(Message::Internal(e.to_string()), None),
                FAILED,
            );
        }
    };
    let images: Vec<(&str, &str)> = [Tool::Kbench, Tool::Dbench, Tool::Fio]
        .into_iter()
        .map(|t| (t.as_str(), bench.info(t).image.as_str()))
        .collect();
    let mut out = Outcome { code: OK, ..Outcome::default() };
    if json {
        let v = serde_json::json!({
            "longhorn": { "charts": charts, "default": newest_chart },
            "kubernetes": { "versions": k8s, "default": kubernetes::NEWEST.to_string() },
            "benchmark_images": images.iter().copied().collect::<std::collections::BTreeMap<_, _>>(),
        });
        out.print(&format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()));
    } else {
        let mut text = format!("Longhorn charts (default {newest_chart}):\n");
        for minor in k.longhorn.lines() {
            let line: Vec<&str> =
                k.longhorn.line(minor).iter().map(|e| e.version.as_str()).collect();
            text.push_str(&format!("  {:<6} {}\n", minor.to_string(), line.join(", ")));
        }
        out.print(&text);
        out.print(&format!(
            "Kubernetes:      {} to {} (default {})\n",
            kubernetes::OLDEST,
            kubernetes::NEWEST,
            kubernetes::NEWEST
        ));
        let list: Vec<String> = images.iter().map(|(t, i)| format!("{t} {i}")).collect();
        out.print(&format!("Benchmark images: {}\n", list.join(", ")));
    }
    out
}
