//! `[benchmark]`: the names it refers to, pinned images, a test size that defeats caches, and
//! classes that can hold the benchmark volumes; the resolved benchmark for the planner.

use std::collections::BTreeMap;

use super::scheduling::Scheduling;
use super::{Target, duplicates};
use crate::capacity::{Cluster, DiskFigures, Spread, eligible};
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::knowledge::bench::{self, Tools};
use crate::model::defaults;
use crate::model::{ClusterFile, Tool};
use crate::quantity::Bytes;

/// The benchmark as the planner needs it.
#[derive(Debug, Clone)]
pub struct BenchFacts {
    pub namespace: String,
    /// Test data per run (the fio file size).
    pub size: Bytes,
    pub tools: Vec<Tool>,
    pub classes: Vec<String>,
    pub baseline: Option<String>,
    pub pool: Option<String>,
    /// The nodes the pods are pinned to (empty: anywhere).
    pub nodes: Vec<String>,
    /// The labels the pods are pinned to, for a selector pool (empty: none).
    pub node_selector: Vec<(String, String)>,
    /// The taints of the benchmark pool, which the pods tolerate.
    pub taints: Vec<crate::model::Taint>,
    pub quick: bool,
    /// The image of each tool in `tools`.
    pub images: Vec<(Tool, String)>,
}

/// Below this, page caches can hold the test file (kbench: at least 25x the bandwidth).
const SMALL: Bytes = Bytes::gib(10);

pub(super) fn check(
    file: &ClusterFile,
    target: &Target,
    tools_data: &Tools,
    known: Option<&Cluster>,
    out: &mut Vec<Diagnostic>,
) -> Option<BenchFacts> {
    let bench = file.benchmark.as_ref()?;
    let tools: Vec<Tool> = match &bench.tools {
        Some(t) => {
            duplicates("benchmark tool", t.iter().map(|t| (t.as_str(), &t.span)), out);
            let mut v: Vec<Tool> = t.iter().map(|t| t.value).collect();
            v.dedup();
            v
        }
        None => defaults::BENCH_TOOLS.to_vec(),
    };
    if let Some(classes) = &bench.classes {
        duplicates("benchmark class", classes.iter().map(|c| (c.as_str(), &c.span)), out);
    }

    let (mut nodes, mut node_selector, mut taints) = (vec![], vec![], vec![]);
    if let Some(pool) = &bench.pool {
        match file.pools.iter().find(|p| p.name.as_str() == pool.as_str()) {
            Some(p) => {
                nodes = p.node_names().iter().map(|n| n.to_string()).collect();
                node_selector = p
                    .selector_labels()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                taints = p.taints.iter().map(|t| t.value.clone()).collect();
            }
            None => {
                let mut d = Diagnostic::error(
                    Message::UnknownPool { name: pool.to_string() },
                    pool.span.clone(),
                );
                d.help =
                    Some(match did_you_mean(pool, file.pools.iter().map(|p| p.name.as_str())) {
                        Some(m) => format!("did you mean `{m}`?"),
                        None if file.pools.is_empty() => {
                            "declare the pool with `[[pool]]`, or remove `pool`".into()
                        }
                        None => format!(
                            "pools in this file: {}",
                            file.pools
                                .iter()
                                .map(|p| p.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                out.push(d);
            }
        }
    }

    let quick = bench.quick();
    let default_size = Bytes::parse(defaults::BENCH_SIZE).unwrap_or(Bytes::gib(25));
    let size = match &bench.size {
        None => default_size,
        Some(s) => match Bytes::parse(s) {
            Ok(b) if b.0 > 0 => {
                if b < SMALL && !quick {
                    out.push(
                        Diagnostic::warning(Message::SmallBenchmarkSize { size: format!("\"{}\"", s.value) }, s.span.clone())
                            .with_help("use at least 10Gi (kbench: 25 times the volume's bandwidth), or set `quick = true` for a smoke test"),
                    );
                }
                b
            }
            Ok(_) | Err(_) => {
                out.push(Diagnostic::error(
                    Message::InvalidFormat {
                        key: "size".into(),
                        value: format!("\"{}\"", s.value),
                        expected: "a size above zero, in whole bytes".into(),
                    },
                    s.span.clone(),
                ));
                default_size
            }
        },
    };

    let mut images = vec![];
    for tool in &tools {
        let given = bench.images.as_ref().and_then(|i| i.get(*tool));
        if let Some(image) = given
            && let Some(why) = bench::unpinned(image)
        {
            out.push(
                    Diagnostic::error(Message::UnpinnedImage { image: image.value.clone(), why }, image.span.clone())
                        .with_help("pin a tag (`registry/kbench:v0.1.0`) or a digest (`registry/kbench@sha256:...`), so every run measures the same tool"),
                );
        }
        images.push((
            *tool,
            given.map_or_else(|| tools_data.info(*tool).image.clone(), |i| i.value.clone()),
        ));
    }

    let baseline = bench.baseline.as_ref().map(|b| b.to_string());
    if let Some(b) = &bench.baseline
        && !tools.contains(&Tool::Kbench)
    {
        out.push(
            Diagnostic::warning(Message::BaselineWithoutKbench, b.span.clone())
                .with_help("add \"kbench\" to `tools`, or remove `baseline`"),
        );
    }

    let chart_class = target.release.is_some();
    let classes: Vec<String> = match &bench.classes {
        Some(c) => c.iter().map(|c| c.to_string()).collect(),
        None => chart_class
            .then(|| "longhorn".to_string())
            .into_iter()
            .chain(file.storage_classes.iter().map(|c| c.name.to_string()))
            .collect(),
    };
    if classes.is_empty() {
        out.push(
            Diagnostic::error(Message::NoBenchmarkClasses, bench.span.clone())
                .with_help("name the classes to measure: `classes = [\"premium-rwo\"]`"),
        );
    }

    // The largest volume any of the tools needs.
    let volume = tools.iter().map(|t| tools_data.volume_size(*t, size)).max().unwrap_or(size);
    check_classes(
        file,
        target,
        known,
        bench.pool.as_ref().map(|p| p.as_str()),
        &classes,
        volume,
        out,
        bench,
    );

    Some(BenchFacts {
        namespace: bench.namespace().to_string(),
        size,
        tools,
        classes,
        baseline,
        pool: bench.pool.as_ref().map(|p| p.to_string()),
        nodes,
        node_selector,
        taints,
        quick,
        images,
    })
}

/// How many failure domains (nodes, or zones when zone anti-affinity is hard) have a disk
/// eligible for `class` with room for a replica of `volume` bytes on an empty cluster: the
/// eligibility and disk figures of the capacity module, which `lhc plan` prints.
fn domains_with_room(cluster: &Cluster, class: &str, volume: Bytes) -> usize {
    let Some(class) = cluster.classes.iter().find(|c| c.name == class) else { return 0 };
    let settings = &cluster.settings;
    let mut best: BTreeMap<&str, u64> = BTreeMap::new();
    for node in &cluster.nodes {
        let domain = match Spread::of(settings) {
            Spread::Node => node.name.as_str(),
            Spread::Zone => node.zone.as_deref().unwrap_or(""),
        };
        for disk in node.disks.iter().filter(|d| eligible(node, d, class, settings)) {
            let room = DiskFigures::new(disk.size, disk.reserved, settings).room();
            let b = best.entry(domain).or_default();
            *b = (*b).max(room);
        }
    }
    best.values().filter(|&&room| room >= volume.0).count()
}

/// Longhorn classes of this file that cannot hold the benchmark volume `replicas` times, or
/// have no replica in the pool the pods run on. Capacity is judged only when lhc knows every
/// disk (`known`).
#[allow(clippy::too_many_arguments)]
fn check_classes(
    file: &ClusterFile,
    target: &Target,
    known: Option<&Cluster>,
    pool: Option<&str>,
    classes: &[String],
    volume: Bytes,
    out: &mut Vec<Diagnostic>,
    bench: &crate::model::Spanned<crate::model::Benchmark>,
) {
    let Some(release) = target.release else { return };
    let scheduling = Scheduling::new(file, release);
    let none: Vec<String> = vec![];
    for class in classes {
        let (replicas, disk_tags, node_tags) = if class == "longhorn" {
            let dc = file.longhorn.as_ref().and_then(|l| l.default_class.as_ref());
            let tags = |t: &[crate::model::Spanned<crate::model::Tag>]| -> Vec<String> {
                t.iter().map(|t| t.to_string()).collect()
            };
            (
                dc.map_or(defaults::REPLICAS, |d| d.replicas()),
                dc.map_or_else(|| none.clone(), |d| tags(&d.disk_tags)),
                dc.map_or_else(|| none.clone(), |d| tags(&d.node_tags)),
            )
        } else if let Some(c) = file.storage_classes.iter().find(|c| c.name.as_str() == class) {
            (
                c.replicas(),
                c.disk_tags.iter().map(|t| t.to_string()).collect(),
                c.node_tags.iter().map(|t| t.to_string()).collect(),
            )
        } else {
            continue; // a class that exists in the cluster already: lhc knows nothing of it
        };
        let span = bench
            .classes
            .as_ref()
            .and_then(|cs| cs.iter().find(|c| c.as_str() == class).map(|c| c.span.clone()))
            .unwrap_or_else(|| bench.span.clone());
        if let Some(cluster) = known {
            let room = domains_with_room(cluster, class, volume);
            if room < replicas as usize {
                out.push(
                    Diagnostic::warning(
                        Message::BenchmarkCapacity {
                            class: class.clone(),
                            volume: volume.to_string(),
                            replicas,
                            room,
                            zones: Spread::of(&cluster.settings) == Spread::Zone,
                        },
                        span.clone(),
                    )
                    .with_help({
                        let scaled = scheduling.autoscaled(&disk_tags, &node_tags, crate::capacity::Engine::V1);
                        let counted = if scaled.is_empty() {
                            String::new()
                        } else {
                            format!("; lhc counts {}", scaled.join(" and "))
                        };
                        format!("lower the benchmark's `size`, or give the class's disks more room (reserved space and storageOverProvisioningPercentage count){counted}")
                    }),
                );
            }
        }
        if let Some(pool) = pool {
            let Some(p) = file.pools.iter().find(|p| p.name.as_str() == pool) else { continue };
            let here = scheduling.pool_matches(p, &node_tags)
                && p.disks.iter().any(|d| scheduling.disk_matches(d, &disk_tags));
            if !here && scheduling.exhaustive {
                out.push(
                    Diagnostic::warning(
                        Message::BenchmarkPoolNoReplica { pool: pool.to_string(), class: class.clone() },
                        span,
                    )
                    .with_help("the benchmark then measures every read and write over the network; pin it to a pool that holds the class's replicas to measure local access"),
                );
            }
        }
    }
}
