//! Go's and Kubernetes' own parsers, as longhorn-manager calls them: `strconv`, `time`,
//! `net/url`, resource quantities.

/// Go `strconv.Atoi`: an optional sign and ASCII digits, within the 64-bit range.
pub fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not an integer"));
    }
    s.strip_prefix('+').unwrap_or(s).parse::<i64>().map_err(|_| format!("{s:?} is out of range"))
}

/// Go `strconv.ParseBool`.
pub fn go_parse_bool(s: &str) -> Result<bool, String> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!("{s:?} is not a boolean")),
    }
}

/// Whether Go's `json.Unmarshal` into `map[string]interface{}` succeeds: a JSON object, or
/// `null` (longhorn-manager `types.IsJSONFormat`, applied to the space-trimmed value).
pub(super) fn is_go_json_object(s: &str) -> bool {
    let s = s.trim();
    s == "null"
        || matches!(serde_json::from_str::<serde_json::Value>(s), Ok(serde_json::Value::Object(_)))
}

/// The per-engine values of a data-engine-specific setting (`{"v1":"3","v2":"3"}`): a JSON
/// object of strings whose engines are exactly `engines`.
pub(super) fn engine_values(s: &str, engines: &[String]) -> Result<Vec<(String, String)>, String> {
    let parsed: serde_json::Value =
        serde_json::from_str(s.trim()).map_err(|e| format!("not JSON: {e}"))?;
    let map = match parsed {
        serde_json::Value::Object(m) => m,
        serde_json::Value::Null => serde_json::Map::new(),
        _ => return Err("not a JSON object".into()),
    };
    let mut out = vec![];
    for (engine, v) in map {
        let v = match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => String::new(),
            other => {
                return Err(format!(
                    "the value for {engine} must be a JSON string, not {other} (write \"{other}\")"
                ));
            }
        };
        out.push((engine, v));
    }
    if out.is_empty() {
        return Err("the JSON object names no data engine".into());
    }
    if out.len() != engines.len() {
        return Err(format!(
            "mismatched data engines: the setting takes exactly {}",
            engines.join(", ")
        ));
    }
    if let Some((e, _)) = out.iter().find(|(e, _)| !engines.contains(e)) {
        return Err(format!("data engine {e} is not supported for this setting"));
    }
    Ok(out)
}

pub(super) fn int_range(
    s: &str,
    min: Option<i64>,
    max: Option<i64>,
    zero_ok: bool,
) -> Result<(), String> {
    let n = go_atoi(s)?;
    if zero_ok && n == 0 {
        return Ok(());
    }
    match (min, max) {
        (Some(lo), Some(hi)) if n < lo || n > hi => Err(format!("{n} is outside {lo}–{hi}")),
        (Some(lo), _) if n < lo => Err(format!("{n} is below the minimum {lo}")),
        (_, Some(hi)) if n > hi => Err(format!("{n} is above the maximum {hi}")),
        _ => Ok(()),
    }
}

pub(super) fn choice(s: &str, values: &[String]) -> Result<(), String> {
    if values.iter().any(|v| v == s) {
        Ok(())
    } else {
        Err(format!("{s:?} is not one of {}", list(values)))
    }
}

/// Go `time.ParseDuration`; the duration in nanoseconds.
pub fn go_duration(s: &str) -> Result<i64, String> {
    let err = || format!("invalid duration {s:?}");
    let mut rest = s;
    let mut neg = false;
    if let Some(r) = rest.strip_prefix('-') {
        neg = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(err());
    }
    const LIMIT: u128 = 1 << 63;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let b = rest.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(err());
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut whole: u128 = 0;
        for &c in &b[..int_len] {
            whole = whole * 10 + u128::from(c - b'0');
            if whole > LIMIT {
                return Err(err());
            }
        }
        rest = &rest[int_len..];
        let mut frac: f64 = 0.0;
        let mut scale: f64 = 1.0;
        if let Some(r) = rest.strip_prefix('.') {
            let frac_len = r.bytes().take_while(|c| c.is_ascii_digit()).count();
            for c in r[..frac_len].bytes() {
                if scale < 1e18 {
                    frac = frac * 10.0 + f64::from(c - b'0');
                    scale *= 10.0;
                }
            }
            rest = &r[frac_len..];
            if int_len == 0 && frac_len == 0 {
                return Err(err());
            }
        } else if int_len == 0 {
            return Err(err());
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(format!("missing unit in duration {s:?}"));
        }
        let unit: u128 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            u => return Err(format!("unknown unit {u:?} in duration {s:?}")),
        };
        rest = &rest[unit_len..];
        let mut v = whole.checked_mul(unit).filter(|v| *v <= LIMIT).ok_or_else(err)?;
        if frac > 0.0 {
            v += (frac * (unit as f64 / scale)) as u128;
            if v > LIMIT {
                return Err(err());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(err());
        }
    }
    if neg {
        return Ok(-(total as i128) as i64);
    }
    if total > LIMIT - 1 {
        return Err(err());
    }
    Ok(total as i64)
}

/// A URL as Go's `net/url.Parse` splits it. Only what the checks here need.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GoUrl {
    /// Lower-cased, as Go stores it.
    pub scheme: String,
    /// The rest of a scheme-only URL without `/` (`s3:bucket`).
    pub opaque: String,
    pub has_authority: bool,
    pub user: Option<String>,
    /// Host and port, unescaped.
    pub host: String,
    /// Unescaped.
    pub path: String,
    pub raw_query: String,
    pub fragment: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Escape {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

pub(super) fn go_should_escape_host(c: u8) -> bool {
    !(c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_'
                | b'.'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        ))
}

/// Go `url.unescape`: checks every `%XX` and, in hosts, the characters allowed there.
pub(super) fn go_unescape(s: &str, mode: Escape) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    let end = (i + 3).min(b.len());
                    return Err(format!(
                        "invalid URL escape {:?}",
                        String::from_utf8_lossy(&b[i..end])
                    ));
                }
                let hi = hex_digit(b[i + 1]);
                let v = (hi << 4) | hex_digit(b[i + 2]);
                if mode == Escape::Host && hi < 8 && &b[i..i + 3] != b"%25" {
                    return Err(format!("invalid URL escape {:?}", &s[i..i + 3]));
                }
                if mode == Escape::Zone
                    && &b[i..i + 3] != b"%25"
                    && v != b' '
                    && v < 0x80
                    && go_should_escape_host(v)
                {
                    return Err(format!("invalid URL escape {:?}", &s[i..i + 3]));
                }
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Escape::QueryComponent { b' ' } else { b'+' });
                i += 1;
            }
            c => {
                if matches!(mode, Escape::Host | Escape::Zone)
                    && c < 0x80
                    && go_should_escape_host(c)
                {
                    return Err(format!("invalid character {:?} in host name", c as char));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

pub(super) fn hex_digit(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

pub(super) fn go_valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.strip_prefix(':').is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

pub(super) fn go_parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else { return Err("missing ']' in host".into()) };
        let colon_port = &host[i + 1..];
        if !go_valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
        if let Some(zone) = host[..i].find("%25") {
            let h1 = go_unescape(&host[..zone], Escape::Host)?;
            let h2 = go_unescape(&host[zone..i], Escape::Zone)?;
            let h3 = go_unescape(&host[i..], Escape::Host)?;
            return Ok(h1 + &h2 + &h3);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !go_valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
    }
    go_unescape(host, Escape::Host)
}

pub(super) fn go_valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// Go `net/url.Parse` (not via an HTTP request): the same errors, the same split.
pub fn go_url_parse(raw: &str) -> Result<GoUrl, String> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    if u.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("invalid control character in URL".into());
    }
    let mut url = GoUrl::default();
    if u == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    // getScheme
    let mut rest = u;
    for (i, c) in u.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                url.scheme = u[..i].to_ascii_lowercase();
                rest = &u[i + 1..];
                break;
            }
            _ => break,
        }
    }
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            url.fragment = go_unescape(frag, Escape::Fragment)?;
            return Ok(url);
        }
        if rest.split('/').next().is_some_and(|seg| seg.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        url.has_authority = true;
        let (userinfo, host) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        url.host = go_parse_host(host)?;
        if let Some(userinfo) = userinfo {
            if !go_valid_userinfo(userinfo) {
                return Err("invalid userinfo".into());
            }
            let mut decoded = String::new();
            for (n, part) in userinfo.splitn(2, ':').enumerate() {
                if n > 0 {
                    decoded.push(':');
                }
                decoded.push_str(&go_unescape(part, Escape::UserPassword)?);
            }
            url.user = Some(decoded);
        }
        rest = path;
    }
    url.path = go_unescape(rest, Escape::Path)?;
    url.fragment = go_unescape(frag, Escape::Fragment)?;
    Ok(url)
}

/// Go `url.Values.Get` on `url.ParseQuery(raw)`, whose errors `URL.Query` ignores: pairs with a
/// `;` or a bad escape are dropped.
pub fn go_query_get(raw_query: &str, key: &str) -> Option<String> {
    for pair in raw_query.split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Ok(k), Ok(v)) =
            (go_unescape(k, Escape::QueryComponent), go_unescape(v, Escape::QueryComponent))
        else {
            continue;
        };
        if k == key {
            return Some(v);
        }
    }
    None
}

/// A Kubernetes quantity (`resource.ParseQuantity`), as a number. Formats such as `1.`, `+`
/// and `.` parse (as Kubernetes parses them).
pub fn k8s_quantity(s: &str) -> Result<f64, String> {
    let err = || format!("{s:?} is not a Kubernetes quantity");
    if s.is_empty() {
        return Err(err());
    }
    let b = s.as_bytes();
    let mut pos = 0;
    let mut negative = false;
    if b[0] == b'-' || b[0] == b'+' {
        negative = b[0] == b'-';
        pos = 1;
    }
    let int_start = pos;
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let int_part = &s[int_start..pos];
    let mut frac_part = "";
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        let f = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        frac_part = &s[f..pos];
    }
    let suffix = &s[pos..];
    // The suffix: letters from "eEinumkKMGTP", an optional sign, digits; nothing after.
    let letters = suffix.bytes().take_while(|c| b"eEinumkKMGTP".contains(c)).count();
    let mut after = &suffix[letters..];
    if let Some(a) = after.strip_prefix(['-', '+']) {
        after = a;
    }
    if !after.bytes().all(|c| c.is_ascii_digit()) {
        return Err(err());
    }
    let number: f64 = format!("{}.{}", if int_part.is_empty() { "0" } else { int_part }, frac_part)
        .trim_end_matches('.')
        .parse()
        .map_err(|_| err())?;
    let factor: f64 = match suffix {
        "" => 1.0,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        _ => {
            let exp = suffix.strip_prefix(['e', 'E']).ok_or_else(err)?;
            let e: i32 = exp.parse().map_err(|_| err())?;
            10f64.powi(e)
        }
    };
    let v = number * factor;
    Ok(if negative { -v } else { v })
}

pub(super) fn list(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    quoted.join(" or ")
}
