//! The shapes of names the input uses (DNS labels, node names, tags, label keys, quantities), as
//! regular expressions for the JSON Schema and as plain checks for the semantic rules. One table,
//! so a pattern and its plain-language explanation never drift apart.

/// A named string shape: the pattern the schema uses and what a user is told when a value does
/// not match it.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The name lhc's schema validator knows the shape by (a custom `format`).
    pub name: &'static str,
    pub pattern: &'static str,
    /// Exactly what `pattern` matches (the length limit aside), without a regular expression:
    /// validation then compiles no regex. A test holds the two to each other.
    pub matches: fn(&str) -> bool,
    pub max_len: Option<u64>,
    pub expected: &'static str,
    /// Where lhc is stricter than Longhorn on purpose: what Longhorn accepts and why lhc does
    /// not (the help of the diagnostic).
    pub stricter: Option<&'static str>,
}

pub const DNS_LABEL: Shape = Shape {
    name: "dns-label",
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    matches: dns_label_shape,
    max_len: Some(63),
    expected: "a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
    stricter: None,
};

pub const DNS_SUBDOMAIN: Shape = Shape {
    name: "dns-subdomain",
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    matches: dns_subdomain_shape,
    max_len: Some(253),
    expected: "a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters)",
    stricter: None,
};

/// Longhorn validates disk and node tags as Kubernetes qualified names (`ssd`,
/// `example.com/ssd`): longhorn-manager `util.ValidateTags` (`validation.IsQualifiedName`). The
/// pattern is [`LABEL_KEY`]'s language written with non-capturing groups, so the schema tells the
/// two shapes apart.
pub const TAG: Shape = Shape {
    name: "tag",
    pattern: "^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    matches: qualified_name_shape,
    max_len: Some(317),
    expected: "a Longhorn tag, a Kubernetes qualified name (an optional DNS subdomain prefix and '/', then letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
    stricter: None,
};

pub const DISK_NAME: Shape = Shape {
    name: "disk-name",
    pattern: "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    matches: name_shape,
    max_len: Some(63),
    expected: "a disk name (letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
    stricter: Some(
        "Longhorn takes any string as a disk name (a key of the node's `spec.disks`); lhc keeps to letters, digits, '-', '_' and '.' so that `kubectl patch` paths, UI links and logs name the disk unambiguously",
    ),
};

pub const LABEL_KEY: Shape = Shape {
    name: "label-key",
    pattern: "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    matches: label_key_shape,
    max_len: Some(317),
    expected: "a Kubernetes label key (an optional DNS subdomain prefix and '/', then a name of letters, digits, '-', '_' and '.' of at most 63 characters)",
    stricter: None,
};

pub const LABEL_VALUE: Shape = Shape {
    name: "label-value",
    pattern: "^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$",
    matches: label_value_shape,
    max_len: Some(63),
    expected: "a Kubernetes label value (empty, or letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
    stricter: None,
};

pub const QUANTITY: Shape = Shape {
    name: "quantity",
    pattern: "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$",
    matches: quantity_shape,
    max_len: None,
    expected: "a Kubernetes quantity such as \"500Gi\", \"1Ti\" or \"100G\"",
    stricter: None,
};

pub const RESERVED: Shape = Shape {
    name: "reserved",
    pattern: "^([0-9]+(\\.[0-9]+)?%|[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$",
    matches: reserved_shape,
    max_len: None,
    expected: "a percentage such as \"25%\" or a quantity such as \"50Gi\"",
    stricter: None,
};

pub const ABSOLUTE_PATH: Shape = Shape {
    name: "absolute-path",
    pattern: "^/",
    matches: absolute_path_shape,
    max_len: Some(4096),
    expected: "an absolute path (starting with '/')",
    stricter: None,
};

pub const KUBERNETES_VERSION: Shape = Shape {
    name: "kubernetes-version",
    pattern: "^1\\.[0-9]+$",
    matches: kubernetes_version_shape,
    max_len: None,
    expected: "a Kubernetes minor version such as \"1.31\"",
    stricter: None,
};

pub const CHART_VERSION: Shape = Shape {
    name: "chart-version",
    pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+$",
    matches: chart_version_shape,
    max_len: None,
    expected: "a chart version such as \"1.9.2\"",
    stricter: None,
};

pub const FLUX_VARIABLE: Shape = Shape {
    name: "flux-variable",
    pattern: "^[_A-Za-z][_A-Za-z0-9]*$",
    matches: flux_variable_shape,
    max_len: None,
    expected: "a Flux variable name (letters, digits and `_`, not starting with a digit)",
    stricter: None,
};

pub const BACKUP_TARGET: Shape = Shape {
    name: "backup-target",
    pattern: "^(s3|nfs|cifs|azblob)://.+",
    matches: backup_target_shape,
    max_len: None,
    expected: "a Longhorn backup target URL (s3://, nfs://, cifs:// or azblob://)",
    stricter: None,
};

pub const DURATION: Shape = Shape {
    name: "duration",
    pattern: "^([0-9]+(ms|s|m|h|d|w|y))+$",
    matches: duration_shape,
    max_len: None,
    expected: "a Prometheus duration such as \"30s\", \"1m\" or \"1h30m\"",
    stricter: None,
};

/// A disk's `path`: an absolute path, or a PCI address (`0000:00:1e.0`, Longhorn's `IsBDF`
/// form) that only block disks may name (and that lhc then refuses with its reason).
pub const DISK_PATH: Shape = Shape {
    name: "disk-path",
    pattern: "^(/|[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]$)",
    matches: disk_path_shape,
    max_len: Some(4096),
    expected: "an absolute path (starting with '/'), or for a block disk a PCI address such as \"0000:00:1e.0\"",
    stricter: None,
};

/// A Kubernetes taint as `kubectl taint` and k3s write it: `key[=value]:Effect`.
pub const TAINT: Shape = Shape {
    name: "taint",
    pattern: "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?(=([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?)?:(NoSchedule|PreferNoSchedule|NoExecute)$",
    matches: taint_shape,
    max_len: Some(400),
    expected: "a Kubernetes taint `key=value:Effect` or `key:Effect` (the key a label key, the value a label value, Effect one of NoSchedule, PreferNoSchedule, NoExecute)",
    stricter: None,
};

/// A Talos version: `1.9`, `v1.9` or `v1.9.3`.
pub const TALOS_VERSION: Shape = Shape {
    name: "talos-version",
    pattern: "^v?1\\.[0-9]+(\\.[0-9]+)?$",
    matches: talos_version_shape,
    max_len: None,
    expected: "a Talos version such as \"1.9\" or \"v1.9.3\"",
    stricter: None,
};

/// All shapes, so a schema `pattern` error can be explained in words.
pub const SHAPES: &[Shape] = &[
    DNS_LABEL,
    DNS_SUBDOMAIN,
    TAG,
    DISK_NAME,
    LABEL_KEY,
    LABEL_VALUE,
    QUANTITY,
    RESERVED,
    ABSOLUTE_PATH,
    KUBERNETES_VERSION,
    CHART_VERSION,
    BACKUP_TARGET,
    FLUX_VARIABLE,
    DURATION,
    DISK_PATH,
    TAINT,
    TALOS_VERSION,
];

/// The shape a schema validator format names.
pub fn shape_named(name: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.name == name)
}

/// Explains a schema pattern in words.
/// The sha256 of some bytes, in lower-case hex: for names that must stay short and distinct,
/// and for the hashes of the manifest.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write;
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

pub fn explain_pattern(pattern: &str) -> Option<&'static str> {
    SHAPES.iter().find(|s| s.pattern == pattern).map(|s| s.expected)
}

fn all_bytes(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(ok)
}

fn lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn dns_label_shape(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && lower_alnum(b[0])
        && lower_alnum(b[b.len() - 1])
        && all_bytes(s, |c| lower_alnum(c) || c == b'-')
}

/// DNS labels joined by single dots.
fn dns_subdomain_shape(s: &str) -> bool {
    s.split('.').all(dns_label_shape)
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
fn name_shape(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && all_bytes(s, |c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A Kubernetes qualified name, lengths included: what [`is_label_key`] accepts.
fn qualified_name_shape(s: &str) -> bool {
    is_label_key(s)
}

/// `(<dns subdomain>/)?<name>`
fn label_key_shape(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => dns_subdomain_shape(prefix) && name_shape(name),
        None => name_shape(s),
    }
}

fn label_value_shape(s: &str) -> bool {
    s.is_empty() || name_shape(s)
}

/// `[0-9]+(\.[0-9]+)?`, and what follows it.
fn decimal(s: &str) -> Option<&str> {
    let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let whole = digits(s);
    if whole == 0 {
        return None;
    }
    let rest = &s[whole..];
    match rest.strip_prefix('.') {
        Some(frac) if digits(frac) > 0 => Some(&frac[digits(frac)..]),
        Some(_) => None,
        None => Some(rest),
    }
}

/// `[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?`
fn quantity_shape(s: &str) -> bool {
    decimal(s).is_some_and(|unit| {
        matches!(
            unit,
            "" | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" | "k" | "M" | "G" | "T" | "P" | "E"
        )
    })
}

fn reserved_shape(s: &str) -> bool {
    quantity_shape(s) || decimal(s).is_some_and(|rest| rest == "%")
}

fn absolute_path_shape(s: &str) -> bool {
    s.starts_with('/')
}

/// `1\.[0-9]+`
fn kubernetes_version_shape(s: &str) -> bool {
    s.strip_prefix("1.").is_some_and(|m| !m.is_empty() && all_bytes(m, |c| c.is_ascii_digit()))
}

/// `[0-9]+\.[0-9]+\.[0-9]+`
/// `[_A-Za-z][_A-Za-z0-9]*` (kustomize-controller's `^[_[:alpha:]][_[:alpha:][:digit:]]*$`).
fn flux_variable_shape(s: &str) -> bool {
    s.bytes().next().is_some_and(|c| c == b'_' || c.is_ascii_alphabetic())
        && all_bytes(s, |c| c == b'_' || c.is_ascii_alphanumeric())
}

fn chart_version_shape(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && all_bytes(p, |c| c.is_ascii_digit()))
}

/// `([0-9]+(ms|s|m|h|d|w|y))+`
fn duration_shape(s: &str) -> bool {
    let mut rest = s;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ms", "s", "m", "h", "d", "w", "y"].iter().find(|u| rest.starts_with(**u));
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

/// `(s3|nfs|cifs|azblob)://.+`: not anchored at the end, so one character that is not a line
/// break must follow the `://`.
fn backup_target_shape(s: &str) -> bool {
    ["s3://", "nfs://", "cifs://", "azblob://"].iter().any(|scheme| {
        s.strip_prefix(scheme).and_then(|rest| rest.chars().next()).is_some_and(|c| c != '\n')
    })
}

/// `[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]`, the whole string: a PCI address.
pub fn is_pci_address(s: &str) -> bool {
    let b = s.as_bytes();
    let hex = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
    b.len() == 12
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b':',
            10 => *c == b'.',
            _ => hex(c),
        })
}

fn disk_path_shape(s: &str) -> bool {
    s.starts_with('/') || is_pci_address(s)
}

/// `key[=value]:Effect`, as [`TAINT`]'s pattern reads it.
fn taint_shape(s: &str) -> bool {
    let Some((left, effect)) = s.rsplit_once(':') else { return false };
    if !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        return false;
    }
    match left.split_once('=') {
        Some((key, value)) => label_key_shape(key) && label_value_shape(value),
        None => label_key_shape(left),
    }
}

/// `v?1\.[0-9]+(\.[0-9]+)?`
fn talos_version_shape(s: &str) -> bool {
    let s = s.strip_prefix('v').unwrap_or(s);
    let Some(rest) = s.strip_prefix("1.") else { return false };
    let mut parts = rest.split('.');
    let digits = |p: &str| !p.is_empty() && all_bytes(p, |c| c.is_ascii_digit());
    parts.next().is_some_and(digits) && parts.next().is_none_or(digits) && parts.next().is_none()
}

fn label_name_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

pub fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// As Kubernetes checks it: at most 253 characters, dot-separated labels (each label's length is
/// not limited on its own).
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|part| {
            let b = part.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

/// A Longhorn disk or node tag: a Kubernetes qualified name (`ssd`, `example.com/ssd`).
pub fn is_tag(s: &str) -> bool {
    is_label_key(s)
}

/// A label name: a qualified name without a prefix, at most 63 characters (what may follow
/// `recurring-job-group.longhorn.io/`, for example).
pub fn is_label_name(s: &str) -> bool {
    label_name_ok(s)
}

/// A Kubernetes label key: `[prefix/]name`, prefix a DNS subdomain, name at most 63 characters.
pub fn is_label_key(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => is_dns_subdomain(prefix) && label_name_ok(name),
        None => label_name_ok(s),
    }
}

pub fn is_label_value(s: &str) -> bool {
    s.is_empty() || label_name_ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_patterns_agree_with_plain_checks() {
        let samples = [
            "a",
            "prod-fsn1",
            "-a",
            "a-",
            "A",
            "a.b",
            "a..b",
            "a_b",
            "nvme",
            "fast.ssd_1",
            "a b",
            "node-role.kubernetes.io/storage",
            "a/b/c",
            "/x",
            "x/",
            "",
            "true",
            "Upper",
            "prod-storage-1.example.com",
        ];
        let long = "a".repeat(64);
        type Check = (Shape, fn(&str) -> bool);
        let checks: [Check; 3] = [
            (DNS_LABEL, is_dns_label),
            (DNS_SUBDOMAIN, is_dns_subdomain),
            (LABEL_VALUE, is_label_value),
        ];
        for (shape, plain) in checks {
            let re = regex::Regex::new(shape.pattern).unwrap();
            for s in samples.iter().copied().chain([long.as_str()]) {
                let by_schema =
                    re.is_match(s) && shape.max_len.is_none_or(|m| s.chars().count() as u64 <= m);
                assert_eq!(by_schema, plain(s), "{} on {s:?}", shape.pattern);
            }
        }
        let key = regex::Regex::new(LABEL_KEY.pattern).unwrap();
        let tag = regex::Regex::new(TAG.pattern).unwrap();
        for s in samples {
            assert_eq!(key.is_match(s), is_label_key(s), "{s:?}");
            assert_eq!(tag.is_match(s), is_tag(s), "{s:?}");
        }
        // Longhorn's tags are qualified names: a DNS prefix is fine, a name over 63 is not.
        assert!(is_tag("example.com/ssd") && is_tag("fast.ssd_1") && !is_tag("Example.com/ssd"));
        assert!(!is_tag(&"a".repeat(64)) && !is_label_name("example.com/ssd"));
    }

    /// Every shape's plain `matches` agrees with its regular expression, on the samples above
    /// and on strings built from the characters that matter.
    #[test]
    fn shapes_match_exactly_what_their_patterns_match() {
        let alphabet: Vec<char> = "aZ0-_./:%\n s3fncibzlo1Gik=N".chars().collect();
        let mut strings: Vec<String> = vec![
            "".into(),
            "1.31".into(),
            "1.9.2".into(),
            "01.2.3".into(),
            "1..2".into(),
            "25Gi".into(),
            "2.5G".into(),
            "25GB".into(),
            ".5".into(),
            "5.".into(),
            "25%".into(),
            "2.5%".into(),
            "%".into(),
            "s3://b@r/".into(),
            "s3://".into(),
            "s3://\n".into(),
            "nfs://x\ny".into(),
            "azblob://c@e/".into(),
            "/var/lib".into(),
            "var".into(),
            "example.com/ssd".into(),
            "a.b/c".into(),
            "A.b/c".into(),
            "a/".into(),
            "0000:00:1e.0".into(),
            "0000:00:1e.0x".into(),
            "0000:00:1E.0".into(),
            "/dev/nvme1n1".into(),
            "storage=true:NoSchedule".into(),
            "storage:NoExecute".into(),
            "storage=:PreferNoSchedule".into(),
            "example.com/gpu=a100:NoSchedule".into(),
            "storage=true:Sometimes".into(),
            "storage=true".into(),
            "a=b=c:NoSchedule".into(),
            "a=b:c:NoSchedule".into(),
            "v1.9".into(),
            "1.9.3".into(),
            "v1.".into(),
            "1.9.3.1".into(),
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 1..=7 {
            for _ in 0..3000 {
                let s: String = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect();
                strings.push(s);
            }
        }
        for shape in SHAPES {
            let re = regex::Regex::new(shape.pattern).unwrap();
            for s in &strings {
                assert_eq!(re.is_match(s), (shape.matches)(s), "{} on {s:?}", shape.name);
            }
        }
        assert!(shape_named("dns-label").is_some() && shape_named("nope").is_none());
    }
}
