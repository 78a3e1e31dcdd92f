//! `[benchmark]`: the names it refers to.

use super::duplicates;
use crate::diagnostic::{Diagnostic, Message, did_you_mean};
use crate::model::ClusterFile;

pub(super) fn check(file: &ClusterFile, out: &mut Vec<Diagnostic>) {
    let Some(bench) = &file.benchmark else { return };
    if let Some(tools) = &bench.tools {
        duplicates("benchmark tool", tools.iter().map(|t| (t.as_str(), &t.span)), out);
    }
    if let Some(classes) = &bench.classes {
        duplicates("benchmark class", classes.iter().map(|c| (c.as_str(), &c.span)), out);
    }
    if let Some(pool) = &bench.pool {
        if !file.pools.iter().any(|p| p.name.as_str() == pool.as_str()) {
            let mut d = Diagnostic::error(
                Message::UnknownPool { name: pool.to_string() },
                pool.span.clone(),
            );
            d.help = Some(match did_you_mean(pool, file.pools.iter().map(|p| p.name.as_str())) {
                Some(m) => format!("did you mean `{m}`?"),
                None if file.pools.is_empty() => {
                    "declare the pool with `[[pool]]`, or remove `pool`".into()
                }
                None => format!(
                    "pools in this file: {}",
                    file.pools.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            });
            out.push(d);
        }
    }
}
