//! Scalars into values by the rules of the program that reads the text in the end ([`Reader`]):
//! the YAML 1.2 core schema for lhc's own files; go-yaml v2 (YAML 1.1: `yes` and `on` are
//! booleans, `0200` is octal, `_` separates digits) and the JSON that sigs.k8s.io/yaml makes of
//! it for Helm and kubectl; go-yaml v3 for kustomize. Each rule here is pinned by a reading of the
//! real tool in `tests/fixtures/yaml11/`.

use super::Value;

/// Who reads a YAML text in the end: lhc reads it by that program's rules, and says where they
/// differ from YAML 1.2's or from each other's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reader {
    /// YAML 1.2 and its core schema: lhc's own output (every string quoted, so that every
    /// reader agrees) and the tests.
    Core,
    /// Helm 4 reading a values file (`-f`, Argo CD's `helm.values`, the text of a Flux
    /// `valuesFrom` ConfigMap): go-yaml v2 through sigs.k8s.io/yaml, so YAML 1.1 scalars, keys
    /// turned into strings, nothing JSON cannot hold; then every number is a 64-bit float.
    Helm,
    /// kubectl reading a manifest (`apply -f`, `create -f`): the same go-yaml v2 and
    /// sigs.k8s.io/yaml, integers kept exact.
    Kubectl,
    /// kustomize reading a manifest (`kubectl kustomize`, Flux's kustomize-controller):
    /// go-yaml v3, whose only booleans are `true` and `false`, which writes timestamps as RFC
    /// 3339 text, and which refuses keys written twice and keys that are not strings.
    Kustomize,
}

impl Reader {
    /// The reader's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Reader::Core => "YAML 1.2",
            Reader::Helm => "Helm",
            Reader::Kubectl => "kubectl",
            Reader::Kustomize => "kustomize",
        }
    }

    /// Whether go-yaml reads for it (everything but [`Reader::Core`]).
    pub(super) fn is_go(self) -> bool {
        self != Reader::Core
    }

    /// Whether go-yaml v2 does (Helm, kubectl): YAML 1.1 booleans, merges in written order.
    pub(super) fn is_v2(self) -> bool {
        matches!(self, Reader::Helm | Reader::Kubectl)
    }
}

// --- YAML 1.2, core schema ---------------------------------------------------------------------

pub(super) fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

pub(super) fn bool_of(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// The core schema's integers: decimal with an optional sign, `0o` octal, `0x` hexadecimal.
/// One too large for i64 is a float.
pub(super) fn int_of(s: &str) -> Option<Value> {
    let radix = |digits: &str, radix: u32| -> Option<Value> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        Some(match i64::from_str_radix(digits, radix) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(
                digits
                    .chars()
                    .filter_map(|c| c.to_digit(radix))
                    .fold(0.0, |acc, d| acc * f64::from(radix) + f64::from(d)),
            ),
        })
    };
    if let Some(hex) = s.strip_prefix("0x") {
        return radix(hex, 16);
    }
    if let Some(octal) = s.strip_prefix("0o") {
        return radix(octal, 8);
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match s.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Float(s.parse().unwrap_or(f64::NAN)),
    })
}

/// The core schema's floats: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `.inf`,
/// `.nan` (and their capitalised forms).
pub(super) fn float_of(s: &str) -> Option<Value> {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(Value::Float(if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(Value::Float(f64::NAN));
    }
    if !decimal_float(s) {
        return None;
    }
    s.parse().ok().map(Value::Float)
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`: the float syntax of YAML 1.2's core
/// schema, and go-yaml's `yamlStyleFloat`.
fn decimal_float(s: &str) -> bool {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        None => !whole.is_empty() && digits(whole),
        Some(f) => digits(whole) && digits(f) && !(whole.is_empty() && f.is_empty()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

pub(super) fn core(text: String) -> Value {
    core_non_string(&text).unwrap_or(Value::String(text))
}

/// What a plain untagged scalar is when the core schema makes it a null, a boolean or a number;
/// `None` when it is a string. The first byte picks the one test that can succeed: most plain
/// scalars (and nearly every key) are strings, and are told so at once.
pub(crate) fn core_non_string(text: &str) -> Option<Value> {
    match text.bytes().next() {
        None => Some(Value::Null),
        Some(b'~' | b'n' | b'N') => is_null(text).then_some(Value::Null),
        Some(b't' | b'T' | b'f' | b'F') => bool_of(text).map(Value::Bool),
        Some(b'0'..=b'9' | b'+' | b'-' | b'.') => int_of(text).or_else(|| float_of(text)),
        Some(_) => None,
    }
}

// --- go-yaml -----------------------------------------------------------------------------------

/// What go-yaml's `resolve` makes of a scalar, before sigs.k8s.io/yaml turns it into JSON.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Go {
    Null,
    Bool(bool),
    Int(i64),
    /// Above i64 (go-yaml tries `ParseUint` after `ParseInt`).
    Uint(u64),
    Float(f64),
    /// A string: the scalar's own text.
    Str,
    /// go-yaml v3's timestamps, as RFC 3339 text (v2 keeps the text).
    Timestamp(String),
}

/// go-yaml's `resolve` of a plain untagged scalar: v2's YAML 1.1 table (`y`, `yes`, `on` ...
/// are booleans) or v3's (only `true` and `false`); integers by Go's `strconv.ParseInt(s, 0,
/// 64)` with every `_` removed (so `0200` is octal, `0x1F`, `0o17`, `0b101` and `-0x1F` are
/// integers); floats by the YAML 1.1 syntax, one that overflows staying a string.
pub(super) fn go_plain(v2: bool, s: &str) -> Go {
    let hint = match s.bytes().next() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => return Go::Str,
    };
    if let Some(known) = go_table(v2, s) {
        return known;
    }
    match hint {
        b'.' => {
            // Go's `ParseFloat` of the text as written: `_` only between digits.
            if s.contains('_') && !underscores_between_digits(s) {
                return Go::Str;
            }
            let plain = s.replace('_', "");
            finite(&plain).map_or(Go::Str, Go::Float)
        }
        b'D' | b'S' => {
            if !v2 && let Some(t) = timestamp(s) {
                return Go::Timestamp(t);
            }
            let plain = if s.contains('_') { s.replace('_', "") } else { s.to_string() };
            if let Ok(i) = go_parse_int(&plain) {
                return Go::Int(i);
            }
            if let Ok(u) = go_parse_uint(&plain) {
                return Go::Uint(u);
            }
            finite(&plain).map_or(Go::Str, Go::Float)
        }
        _ => Go::Str,
    }
}

/// The scalars go-yaml looks up by their whole text.
fn go_table(v2: bool, s: &str) -> Option<Go> {
    Some(match s {
        "" | "~" | "null" | "Null" | "NULL" => Go::Null,
        "true" | "True" | "TRUE" => Go::Bool(true),
        "false" | "False" | "FALSE" => Go::Bool(false),
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" if v2 => Go::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" if v2 => Go::Bool(false),
        ".nan" | ".NaN" | ".NAN" => Go::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Go::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Go::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// A decimal float in the YAML 1.1 syntax that Go's `ParseFloat` reads without overflowing.
fn finite(s: &str) -> Option<f64> {
    if !decimal_float(s) {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Go's `underscoreOK` for a number without a base prefix: each `_` between two digits.
fn underscores_between_digits(s: &str) -> bool {
    let mut saw = b'^';
    for b in s.bytes() {
        match b {
            b'0'..=b'9' => saw = b'0',
            b'_' if saw != b'0' => return false,
            b'_' => saw = b'_',
            _ if saw == b'_' => return false,
            _ => saw = b'!',
        }
    }
    saw != b'_'
}

#[derive(Debug, PartialEq)]
enum Fail {
    Syntax,
    Range,
}

/// Go's `strconv.ParseUint(s, 0, 64)`: `0x`, `0o`, `0b` and a bare leading `0` pick the base.
fn go_parse_uint(s: &str) -> Result<u64, Fail> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err(Fail::Syntax);
    }
    let (base, digits) = match b {
        [b'0', p, _, ..] if p | 0x20 == b'b' => (2, &b[2..]),
        [b'0', p, _, ..] if p | 0x20 == b'o' => (8, &b[2..]),
        [b'0', p, _, ..] if p | 0x20 == b'x' => (16, &b[2..]),
        [b'0', ..] => (8, &b[1..]),
        _ => (10, b),
    };
    let mut n: u64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            _ if (c | 0x20).is_ascii_lowercase() => (c | 0x20) - b'a' + 10,
            _ => return Err(Fail::Syntax),
        };
        if u64::from(d) >= base {
            return Err(Fail::Syntax);
        }
        n = n.checked_mul(base).and_then(|n| n.checked_add(u64::from(d))).ok_or(Fail::Range)?;
    }
    Ok(n)
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then [`go_parse_uint`].
fn go_parse_int(s: &str) -> Result<i64, Fail> {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let n = go_parse_uint(unsigned)?;
    match (negative, i64::try_from(n)) {
        (false, Ok(i)) => Ok(i),
        (true, Ok(i)) => Ok(-i),
        (true, Err(_)) if n == 1 << 63 => Ok(i64::MIN),
        _ => Err(Fail::Range),
    }
}

/// go-yaml's `resolve` of a scalar with a core tag (`!!int "12"`, `!!bool yes`), whatever its
/// style; `None` when the text does not fit the tag (go-yaml refuses the file). Other tags
/// (`!Ref`, `!`) leave the text a string.
pub(super) fn go_tagged(v2: bool, tag: &str, s: &str) -> Option<Go> {
    let resolved = go_plain(v2, s);
    Some(match (tag, resolved) {
        ("!!str", _) => Go::Str,
        ("!!binary", _) => return None,
        ("!!null", Go::Null) => Go::Null,
        ("!!bool", b @ Go::Bool(_)) => b,
        ("!!int", n @ (Go::Int(_) | Go::Uint(_))) => n,
        ("!!float", f @ Go::Float(_)) => f,
        ("!!float", Go::Int(i)) => Go::Float(i as f64),
        ("!!float", Go::Uint(u)) => Go::Float(u as f64),
        ("!!timestamp", t @ Go::Timestamp(_)) => t,
        ("!!timestamp", Go::Str) if v2 && timestamp(s).is_some() => Go::Str,
        ("!!null" | "!!bool" | "!!int" | "!!float" | "!!timestamp", _) => return None,
        _ => Go::Str,
    })
}

/// go-yaml's `!!binary`: the base64 text decoded (line breaks skipped), as a string.
pub(super) fn binary(s: &str) -> Option<String> {
    let sextet = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let chars: Vec<u8> = s.bytes().filter(|c| !matches!(c, b'\r' | b'\n')).collect();
    if !chars.len().is_multiple_of(4) {
        return None;
    }
    let groups = chars.len() / 4;
    let mut out = Vec::with_capacity(groups * 3);
    for (i, group) in chars.chunks(4).enumerate() {
        let pad = group.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && i + 1 < groups) {
            return None;
        }
        let mut n: u32 = 0;
        for &c in &group[..4 - pad] {
            n = n << 6 | sextet(c)?;
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// go-yaml v3's timestamps (`time.Parse` with `2006-1-2T15:4:5.999999999Z07:00`, the same with
/// `t`, `2006-1-2 15:4:5.999999999`, `2006-1-2`), as Go writes a `time.Time` in JSON (RFC 3339,
/// `Z` for UTC and a zero offset).
pub(super) fn timestamp(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let mut at = 5;
    // One or two digits, as Go reads `1`, `2`, `15`, `4` and `5` in a layout.
    let number = |at: &mut usize| -> Option<u32> {
        let start = *at;
        while *at < b.len() && *at - start < 2 && b[*at].is_ascii_digit() {
            *at += 1;
        }
        s.get(start..*at).filter(|d| !d.is_empty())?.parse().ok()
    };
    let year: u32 = s[..4].parse().ok()?;
    let month = number(&mut at)?;
    if b.get(at) != Some(&b'-') {
        return None;
    }
    at += 1;
    let day = number(&mut at)?;
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day < 1 || day > days[month as usize - 1] {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let Some(&separator) = b.get(at) else {
        return Some(format!("{date}T00:00:00Z"));
    };
    if !matches!(separator, b'T' | b't' | b' ') {
        return None;
    }
    at += 1;
    let hour = number(&mut at)?;
    let colon = |at: &mut usize| (b.get(*at) == Some(&b':')).then(|| *at += 1);
    colon(&mut at)?;
    let minute = number(&mut at)?;
    colon(&mut at)?;
    let second = number(&mut at)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut nanos = String::new();
    if matches!(b.get(at), Some(b'.' | b',')) && b.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at += 1;
        let start = at;
        while at < b.len() && b[at].is_ascii_digit() {
            at += 1;
        }
        nanos = s[start..at.min(start + 9)].trim_end_matches('0').to_string();
    }
    let zone = match (separator, &b[at..]) {
        (b' ', []) => "Z".to_string(),
        (b'T' | b't', [b'Z']) => "Z".to_string(),
        (b'T' | b't', [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2])
            if [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
        {
            let (h, m) = (
                u32::from(h1 - b'0') * 10 + u32::from(h2 - b'0'),
                u32::from(m1 - b'0') * 10 + u32::from(m2 - b'0'),
            );
            if h > 24 || m > 60 {
                return None;
            }
            if h == 0 && m == 0 {
                "Z".to_string()
            } else {
                format!("{}{h:02}:{m:02}", char::from(*sign))
            }
        }
        _ => return None,
    };
    let fraction = if nanos.is_empty() { String::new() } else { format!(".{nanos}") };
    Some(format!("{date}T{hour:02}:{minute:02}:{second:02}{fraction}{zone}"))
}

/// A float key as sigs.k8s.io/yaml writes it: Go's `strconv.FormatFloat(f, 'g', -1, 32)`, and
/// `.inf`, `-.inf`, `.nan`.
pub(super) fn go_float_key(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    // The shortest digits that read back as the same 32-bit float, and the decimal exponent.
    let single = f as f32;
    if single.is_infinite() {
        return if single > 0.0 { ".inf".into() } else { "-.inf".into() };
    }
    let sci = format!("{:e}", single.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = if single == 0.0 { String::new() } else { digits };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if single.is_sign_negative() { "-" } else { "" };
    if digits.is_empty() {
        return format!("{sign}0");
    }
    let nd = digits.len() as i32;
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let e_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}e{e_sign}{:02}", exponent.abs());
    }
    // Decimal point `dp` digits in.
    let dp = exponent + 1;
    let text = if dp <= 0 {
        format!("0.{}{digits}", "0".repeat((-dp) as usize))
    } else if dp >= nd {
        format!("{digits}{}", "0".repeat((dp - nd) as usize))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    format!("{sign}{text}")
}

/// A number as its reader hands it on: through JSON, where a float with no fraction is an
/// integer (`1.0`, `1e3`) to kubectl and kustomize, and every number a 64-bit float to Helm
/// (`9007199254740993` is `9007199254740992` there).
pub(super) fn number(reader: Reader, go: &Go) -> Value {
    let f = match *go {
        Go::Int(i) if reader != Reader::Helm => return Value::Int(i),
        Go::Int(i) => i as f64,
        Go::Uint(u) => u as f64,
        Go::Float(f) => f,
        _ => return Value::Null,
    };
    // The float's integer, when it is one that i64 holds.
    if f.is_finite()
        && f.fract() == 0.0
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
    {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_resolve_by_the_core_schema() {
        let cases: &[(&str, Value)] = &[
            ("~", Value::Null),
            ("", Value::Null),
            ("NULL", Value::Null),
            ("True", Value::Bool(true)),
            ("FALSE", Value::Bool(false)),
            ("yes", Value::String("yes".into())),
            ("0", Value::Int(0)),
            ("-12", Value::Int(-12)),
            ("+12", Value::Int(12)),
            ("012", Value::Int(12)),
            ("0o17", Value::Int(15)),
            ("0x1F", Value::Int(31)),
            ("0x", Value::String("0x".into())),
            ("1_000", Value::String("1_000".into())),
            ("9223372036854775808", Value::Float(9_223_372_036_854_775_808.0)),
            ("1e3", Value::Float(1000.0)),
            ("1.", Value::Float(1.0)),
            (".5", Value::Float(0.5)),
            ("-.5E-1", Value::Float(-0.05)),
            (".", Value::String(".".into())),
            ("1e", Value::String("1e".into())),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("inf", Value::String("inf".into())),
            ("nan", Value::String("nan".into())),
            ("1.2.3", Value::String("1.2.3".into())),
            ("0x1G", Value::String("0x1G".into())),
        ];
        for (text, want) in cases {
            assert_eq!(&core((*text).into()), want, "{text:?}");
        }
        assert!(matches!(core(".NaN".into()), Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn the_first_byte_shortcut_changes_no_resolution() {
        // Every string of up to three characters from an alphabet with every kind of start.
        let alphabet = ["", "0", "1", "9", "x", "e", "E", ".", "+", "-", "~", "n", "N", "t", "T"];
        let alphabet = [&alphabet[..], &["f", "F", "o", "i", "a", "_", "é", " "]].concat();
        let mut texts = vec![
            "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", ".inf",
            "-.Inf", "+.INF", ".nan", ".NaN", "0x1F", "0o17", "nan", "inf", "name", "type", "~x",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        for a in &alphabet {
            for b in &alphabet {
                for c in &alphabet {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        for text in &texts {
            let slow = if is_null(text) {
                Some(Value::Null)
            } else if let Some(b) = bool_of(text) {
                Some(Value::Bool(b))
            } else {
                int_of(text).or_else(|| float_of(text))
            };
            let fast = core_non_string(text);
            let same = match (&slow, &fast) {
                (Some(Value::Float(a)), Some(Value::Float(b))) => a.to_bits() == b.to_bits(),
                _ => slow == fast,
            };
            assert!(same, "{text:?}: {slow:?} {fast:?}");
        }
    }

    #[test]
    fn go_yaml_v2_reads_yaml_1_1_scalars() {
        let cases: &[(&str, Go)] = &[
            ("yes", Go::Bool(true)),
            ("Y", Go::Bool(true)),
            ("oN", Go::Str),
            ("n", Go::Bool(false)),
            ("0200", Go::Int(128)),
            ("0_200", Go::Int(128)),
            ("09", Go::Float(9.0)),
            ("00", Go::Int(0)),
            ("0200.5", Go::Float(200.5)),
            ("0o777", Go::Int(511)),
            ("0O777", Go::Int(511)),
            ("0X1F", Go::Int(31)),
            ("-0x1F", Go::Int(-31)),
            ("+0x1F", Go::Int(31)),
            ("-0b11", Go::Int(-3)),
            ("0x", Go::Str),
            ("0b", Go::Str),
            ("0xFFFFFFFFFFFFFFFF", Go::Uint(u64::MAX)),
            ("0x10000000000000000", Go::Str),
            ("1_000", Go::Int(1000)),
            ("1_", Go::Int(1)),
            ("_1", Go::Str),
            ("1_0e1_0", Go::Float(1e11)),
            (".5_0", Go::Float(0.5)),
            ("._5", Go::Str),
            ("1e400", Go::Str),
            ("1e-400", Go::Float(0.0)),
            ("-9223372036854775808", Go::Int(i64::MIN)),
            ("9223372036854775808", Go::Uint(1 << 63)),
            ("1:20", Go::Str),
            ("2024-01-15", Go::Str),
            ("", Go::Null),
            ("~", Go::Null),
            ("nULL", Go::Str),
        ];
        for (text, want) in cases {
            assert_eq!(&go_plain(true, text), want, "{text:?}");
        }
        assert_eq!(go_plain(false, "yes"), Go::Str, "go-yaml v3 has only true and false");
        assert_eq!(go_plain(false, "0200"), Go::Int(128), "and reads 1.1 octal still");
    }

    #[test]
    fn go_yaml_v3_writes_timestamps_as_rfc_3339() {
        for (text, want) in [
            ("2024-01-15", Some("2024-01-15T00:00:00Z")),
            ("2024-1-5", Some("2024-01-05T00:00:00Z")),
            ("2024-02-30", None),
            ("2024-02-29", Some("2024-02-29T00:00:00Z")),
            ("2001-12-14t21:59:43.10-05:00", Some("2001-12-14T21:59:43.1-05:00")),
            ("2001-12-14 21:59:43.10", Some("2001-12-14T21:59:43.1Z")),
            ("2001-12-14T21:59:43+00:00", Some("2001-12-14T21:59:43Z")),
            ("2001-12-14T21:59:43.123456789123-02:30", Some("2001-12-14T21:59:43.123456789-02:30")),
            ("2001-12-14T21:59:43", None),
            ("2001-12-14 21:59:43.10 -5", None),
            ("12024-01-15", None),
            ("2024-01-15x", None),
        ] {
            assert_eq!(timestamp(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn float_keys_are_written_as_go_writes_a_float32() {
        for (f, want) in [
            (1.0, "1"),
            (0.1, "0.1"),
            (std::f64::consts::PI, "3.1415927"),
            (1e6, "1e+06"),
            (123_456.0, "123456"),
            (1_234_567.0, "1.234567e+06"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (f64::INFINITY, ".inf"),
            (f64::NEG_INFINITY, "-.inf"),
            (f64::NAN, ".nan"),
        ] {
            assert_eq!(go_float_key(f), want, "{f}");
        }
    }

    #[test]
    fn binary_is_base64() {
        assert_eq!(binary("aGVsbG8=").as_deref(), Some("hello"));
        assert_eq!(binary("aGVs\nbG8h").as_deref(), Some("hello!"));
        assert_eq!(binary("aGk=").as_deref(), Some("hi"));
        assert_eq!(binary("aGVsbG8"), None);
        assert_eq!(binary("a=GV"), None);
    }
}
