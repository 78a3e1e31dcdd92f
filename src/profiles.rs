//! The shipped profiles (`profiles/*.toml`), embedded so an installed binary can start a new
//! cluster file with `lhc init`: each a cluster file over the company layer it extends.

/// A starting point for a cluster file.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    pub text: &'static str,
    /// The layers its `extends` names, written beside the new file.
    pub layers: &'static [Layer],
}

/// A shipped layer: its file name beside the profile, and its text.
#[derive(Debug, Clone, Copy)]
pub struct Layer {
    pub file: &'static str,
    pub text: &'static str,
}

/// The company-style base every shipped profile extends.
pub const COMPANY: Layer =
    Layer { file: "company.toml", text: include_str!("../profiles/company.toml") };

pub const PROFILES: &[Profile] = &[
    Profile {
        name: "hcloud-longhorn",
        summary: "Longhorn on Hetzner Cloud: local NVMe tagged `nvme`, a Cloud Volume tagged `ssd`, four classes",
        text: include_str!("../profiles/hcloud-longhorn.toml"),
        layers: &[COMPANY],
    },
    Profile {
        name: "generic-bare-metal",
        summary: "Longhorn on bare metal: several NVMe devices per storage node, a compute pool",
        text: include_str!("../profiles/generic-bare-metal.toml"),
        layers: &[COMPANY],
    },
    Profile {
        name: "managed-bench",
        summary: "No Longhorn: benchmark a managed provider's classes (premium-rwo, gp2, managed-premium)",
        text: include_str!("../profiles/managed-bench.toml"),
        layers: &[COMPANY],
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

    /// The schema its file validates against on its own: a file that extends layers is a
    /// partial cluster file until they are merged, so it takes the layer schema.
    pub fn schema_file(&self) -> &'static str {
        if self.layers.is_empty() { "cluster.schema.json" } else { "layer.schema.json" }
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
    Ok(with_schema_line(&doc.to_string(), schema_path))
}

/// `text` with its leading `#:schema` line (added where it has none) pointing at `schema_path`.
pub fn with_schema_line(text: &str, schema_path: &str) -> String {
    let body = text
        .strip_prefix("#:schema ")
        .map_or(text, |rest| rest.split_once('\n').map_or("", |(_, after)| after));
    format!("#:schema {schema_path}\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instantiate_renames_and_keeps_comments() {
        let p = find(DEFAULT).unwrap();
        let text = instantiate(p, Some("staging"), p.schema_file()).unwrap();
        assert!(text.starts_with("#:schema layer.schema.json\n"));
        assert!(text.contains("extends = \"company.toml\""));
        assert!(text.contains("name = \"staging\"           # DNS-1123 label"));
        assert!(text.contains("[[storage_class]]"));
        assert_eq!(text.lines().count(), p.text.lines().count());
        assert_eq!(p.cluster_name().as_deref(), Some("prod-fsn1"));
    }

    #[test]
    fn every_profile_embeds_the_layers_its_extends_names() {
        for p in PROFILES {
            let doc: toml_edit::DocumentMut = p.text.parse().unwrap();
            let extends: Vec<&str> = match doc.get("extends") {
                None => Vec::new(),
                Some(item) => match item.as_array() {
                    Some(list) => list.iter().filter_map(|v| v.as_str()).collect(),
                    None => item.as_str().into_iter().collect(),
                },
            };
            let files: Vec<&str> = p.layers.iter().map(|l| l.file).collect();
            assert_eq!(extends, files, "{}", p.name);
        }
    }
}
