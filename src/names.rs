//! The shapes of names the input uses (DNS labels, node names, tags, label keys, quantities), as
//! regular expressions for the JSON Schema and as plain checks for the semantic rules. One table,
//! so a pattern and its plain-language explanation never drift apart.

/// A named string shape: the pattern the schema uses and what a user is told when a value does
/// not match it.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub pattern: &'static str,
    pub max_len: Option<u64>,
    pub expected: &'static str,
}

pub const DNS_LABEL: Shape = Shape {
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    max_len: Some(63),
    expected: "a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
};

pub const DNS_SUBDOMAIN: Shape = Shape {
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    max_len: Some(253),
    expected: "a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters)",
};

/// Longhorn validates disk and node tags as Kubernetes qualified names without a prefix.
pub const TAG: Shape = Shape {
    pattern: "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    max_len: Some(63),
    expected: "a Longhorn tag (letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
};

pub const DISK_NAME: Shape = Shape {
    pattern: "^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    max_len: Some(63),
    expected: "a disk name (letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
};

pub const LABEL_KEY: Shape = Shape {
    pattern: "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
    max_len: Some(317),
    expected: "a Kubernetes label key (an optional DNS subdomain prefix and '/', then a name of letters, digits, '-', '_' and '.' of at most 63 characters)",
};

pub const LABEL_VALUE: Shape = Shape {
    pattern: "^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$",
    max_len: Some(63),
    expected: "a Kubernetes label value (empty, or letters, digits, '-', '_' and '.', starting and ending with a letter or digit, at most 63 characters)",
};

pub const QUANTITY: Shape = Shape {
    pattern: "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$",
    max_len: None,
    expected: "a Kubernetes quantity such as \"500Gi\", \"1Ti\" or \"100G\"",
};

pub const RESERVED: Shape = Shape {
    pattern: "^([0-9]+(\\.[0-9]+)?%|[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$",
    max_len: None,
    expected: "a percentage such as \"25%\" or a quantity such as \"50Gi\"",
};

pub const ABSOLUTE_PATH: Shape =
    Shape { pattern: "^/", max_len: Some(4096), expected: "an absolute path (starting with '/')" };

pub const KUBERNETES_VERSION: Shape = Shape {
    pattern: "^1\\.[0-9]+$",
    max_len: None,
    expected: "a Kubernetes minor version such as \"1.31\"",
};

pub const CHART_VERSION: Shape = Shape {
    pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+$",
    max_len: None,
    expected: "a chart version such as \"1.9.2\"",
};

pub const BACKUP_TARGET: Shape = Shape {
    pattern: "^(s3|nfs|cifs|azblob)://.+",
    max_len: None,
    expected: "a Longhorn backup target URL (s3://, nfs://, cifs:// or azblob://)",
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
];

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

pub fn is_tag(s: &str) -> bool {
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
        let checks: [Check; 4] = [
            (DNS_LABEL, is_dns_label),
            (DNS_SUBDOMAIN, is_dns_subdomain),
            (TAG, is_tag),
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
        for s in samples {
            assert_eq!(key.is_match(s), is_label_key(s), "{s:?}");
        }
    }
}
