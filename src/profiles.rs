//! The shipped profiles (`profiles/*.toml`), embedded so an installed binary can start a new
//! cluster file with `lhc init`.

/// A starting point for a cluster file.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    pub text: &'static str,
}

pub const PROFILES: &[Profile] = &[
    Profile {
        name: "hcloud-longhorn",
        summary: "Longhorn on Hetzner Cloud: local NVMe tagged `nvme`, a Cloud Volume tagged `ssd`, four classes",
        text: include_str!("../profiles/hcloud-longhorn.toml"),
    },
    Profile {
        name: "generic-bare-metal",
        summary: "Longhorn on bare metal: several NVMe devices per storage node, a compute pool",
        text: include_str!("../profiles/generic-bare-metal.toml"),
    },
    Profile {
        name: "managed-bench",
        summary: "No Longhorn: benchmark a managed provider's classes (premium-rwo, gp2, managed-premium)",
        text: include_str!("../profiles/managed-bench.toml"),
    },
];

pub const DEFAULT: &str = "hcloud-longhorn";

pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    /// The profile's own `[cluster] name`.
    pub fn cluster_name(&self) -> Option<String> {
        let doc: toml_edit::DocumentMut = self.text.parse().ok()?;
        doc.get("cluster")?.get("name")?.as_str().map(str::to_string)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("the profile has no `[cluster] name` to replace")]
    NoName,
    #[error("the profile is not valid TOML: {0}")]
    Toml(#[from] toml_edit::TomlError),
}

/// The profile's text for a new cluster: its `[cluster] name` replaced (comments kept), and
/// its `#:schema` line pointing at `schema_path`.
pub fn instantiate(
    profile: &Profile,
    name: Option<&str>,
    schema_path: &str,
) -> Result<String, InitError> {
    let mut doc: toml_edit::DocumentMut = profile.text.parse()?;
    if let Some(name) = name {
        let cluster =
            doc.get_mut("cluster").and_then(|c| c.as_table_like_mut()).ok_or(InitError::NoName)?;
        let item = cluster.get_mut("name").ok_or(InitError::NoName)?;
        let decor = item.as_value().map(|v| v.decor().clone());
        let mut value = toml_edit::Value::from(name);
        if let Some(decor) = decor {
            *value.decor_mut() = decor;
        }
        *item = toml_edit::Item::Value(value);
    }
    let text = doc.to_string();
    let body = text
        .strip_prefix("#:schema ")
        .map_or(text.as_str(), |rest| rest.split_once('\n').map_or("", |(_, after)| after));
    Ok(format!("#:schema {schema_path}\n{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instantiate_renames_and_keeps_comments() {
        let p = find(DEFAULT).unwrap();
        let text = instantiate(p, Some("staging"), "cluster.schema.json").unwrap();
        assert!(text.starts_with("#:schema cluster.schema.json\n"));
        assert!(text.contains("name = \"staging\"           # DNS-1123 label"));
        assert!(text.contains("[[storage_class]]"));
        assert_eq!(text.lines().count(), p.text.lines().count());
        assert_eq!(p.cluster_name().as_deref(), Some("prod-fsn1"));
    }
}
