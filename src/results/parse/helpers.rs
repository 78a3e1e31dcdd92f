//! What the parsers share: the input cut into clean lines (each with its span in the input),
//! the diagnostics they report, and the numbers and units the tools print, turned into lhc's
//! units (KiB/s, microseconds).

use crate::diagnostic::{Diagnostic, Message};
use crate::results::{Format, Origin, Run};
use crate::source::Span;

/// One line of the input: ANSI escapes, control characters and the `\r` of CRLF removed; after
/// [`undecorate`], also the markup of a paste (comment signs, quotes, bullets, emphasis).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    /// 1-based, in the original text.
    pub no: usize,
    /// The line's bytes in the original text, without its line break.
    pub span: Span,
    pub text: String,
    /// The line was a `#` comment, a markdown heading or a bold-only line: it may name the
    /// output below it.
    pub heading: bool,
}

impl Line {
    pub fn trimmed(&self) -> &str {
        self.text.trim()
    }
}

/// Cuts `text` into lines, numbered from 1, each cleaned for parsing.
pub(super) fn lines(text: &str) -> Vec<Line> {
    let (mut start, text) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, text),
    };
    // A final newline ends the last line; it does not start another.
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut out = vec![];
    for (i, raw) in body.split('\n').enumerate() {
        let visible = raw.strip_suffix('\r').unwrap_or(raw);
        out.push(Line {
            no: i + 1,
            span: start..start + visible.len(),
            text: clean(raw),
            heading: false,
        });
        start += raw.len() + 1;
    }
    out
}

/// Removes the markup a paste wraps a log in, which no tool prints: `>` quotes, `#` comment
/// signs and heading marks, list bullets (`-`, `*`, `+`, `1.`), `**` emphasis and backticks
/// (code spans), and code fences (```` ```json ````, which become blank). A `#` line or a line
/// that is all bold is marked as a heading. kubestr's status (`- OK`, `-  **OK**`) is not a
/// bullet.
pub(super) fn undecorate(line: &mut Line) {
    let original = line.text.as_str();
    let mut t = original;
    let mut heading = false;
    let mut changed = false;
    loop {
        let lead = t.trim_start();
        if let Some(rest) = lead.strip_prefix('>') {
            t = rest.strip_prefix(' ').unwrap_or(rest);
        } else if lead.starts_with('#') {
            let rest = lead.trim_start_matches('#');
            t = rest.strip_prefix(' ').unwrap_or(rest);
            heading = true;
        } else {
            break;
        }
        changed = true;
    }
    let lead = t.trim_start();
    if lead.starts_with("```") || lead.starts_with("~~~") {
        line.text = String::new();
        line.heading = false;
        return;
    }
    let bullet = ["- ", "* ", "+ "].iter().find_map(|b| lead.strip_prefix(b)).or_else(|| {
        let digits = lead.bytes().take_while(u8::is_ascii_digit).count();
        let rest = lead.get(digits..)?;
        (digits > 0 && digits < 4).then(|| rest.strip_prefix(". ").or(rest.strip_prefix(") ")))?
    });
    if let Some(rest) = bullet {
        // The status, also in emphasis (`-  **OK**`, kubestr's bold green `OK` pasted as
        // markdown), stays the status.
        let plain = rest.replace("**", "").replace('`', "");
        if !matches!(plain.trim(), "OK" | "Error") && !plain.trim().is_empty() {
            t = rest;
            changed = true;
        }
    }
    let bold = {
        let b = t.trim();
        b.len() > 4 && b.starts_with("**") && b.ends_with("**")
    };
    if t.contains("**") || t.contains('`') {
        let plain = t.replace("**", "").replace('`', "");
        line.text = plain;
    } else if changed {
        line.text = t.to_string();
    }
    line.heading = heading || bold;
}

/// Removes ANSI escape sequences (colours, cursor moves, OSC titles) and control characters
/// other than tab.
pub(super) fn clean(raw: &str) -> String {
    if !raw.contains(|c: char| c.is_control() && c != '\t') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                // Other escapes: intermediates in ' '..'/', then one final character.
                Some(' '..='/') => {
                    while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
                    chars.next();
                }
                _ => {}
            },
            '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Where diagnostics and runs say they come from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub file: &'a str,
    /// The whole input, which spans point into.
    pub text: &'a str,
}

/// What lhc reads, for the help of a diagnostic.
pub(super) const READS: &str = "lhc reads kbench's and dbench's summaries, `kubestr fio` output \
    (text or `-o json`), fio's JSON and the logs of lhc's benchmark Jobs, also inside \
    `kubectl logs` output and pasted with comments or markdown";

impl Ctx<'_> {
    /// The span of line `i`, without its indentation (the input's last line past the end).
    pub fn at(&self, lines: &[Line], i: usize) -> Span {
        match lines.get(i).or(lines.last()) {
            Some(l) => self.trim(l.span.clone()),
            None => 0..0,
        }
    }

    fn trim(&self, span: Span) -> Span {
        let Some(raw) = self.text.get(span.clone()) else { return span };
        let start = span.start + (raw.len() - raw.trim_start().len());
        let end = (span.start + raw.trim_end().len()).max(start);
        start..end
    }

    /// `span` narrowed to the first backticked part of `message` found in it.
    fn narrow(&self, span: Span, message: &str) -> Span {
        let Some(raw) = self.text.get(span.clone()) else { return span };
        message
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|quoted| !quoted.trim().is_empty())
            .find_map(|quoted| {
                let quoted = quoted.trim();
                raw.find(quoted).map(|p| span.start + p..span.start + p + quoted.len())
            })
            .unwrap_or(span)
    }

    /// A line lhc recognised but cannot read; the caret goes under the value it names.
    pub fn unreadable(&self, span: Span, problem: impl Into<String>) -> Diagnostic {
        let problem = problem.into();
        let span = self.narrow(span, &problem);
        Diagnostic::error(Message::UnreadableBenchmarkLog { problem }, span).with_help(
            "this is not what the tool prints here; if the output was edited, restore the \
             tool's line",
        )
    }

    /// `output` (starting at `start`) stops at `span` before `before`.
    pub fn truncated(
        &self,
        span: Span,
        output: impl Into<String>,
        before: impl Into<String>,
        start: Option<Span>,
    ) -> Diagnostic {
        let output = output.into();
        let mut d = Diagnostic::error(
            Message::TruncatedBenchmarkResult { output: output.clone(), before: before.into() },
            span.clone(),
        )
        .with_help(
            "the output was cut short: give lhc the whole log (`kubectl logs --tail=-1`) or the \
             whole paste",
        );
        if let Some(start) = start.filter(|s| s.start < span.start) {
            d = d.with_label(start, format!("{output} starts here"));
        }
        d
    }

    /// An empty run of `format` starting at `line`.
    pub fn run(&self, format: Format, line: usize) -> Run {
        Run {
            format,
            class: None,
            values: Default::default(),
            cpu_idle: Default::default(),
            baseline: None,
            origin: Origin { file: self.file.to_string(), line },
            fio_version: None,
            notes: vec![],
        }
    }
}

/// What one format's parser read, starting at its anchor line.
#[derive(Debug, Default)]
pub(super) struct Block {
    pub runs: Vec<Run>,
    pub diagnostics: Vec<Diagnostic>,
    /// The index of the first line the parser did not take.
    pub next: usize,
}

impl Block {
    pub fn run(run: Run, next: usize) -> Block {
        Block { runs: vec![run], diagnostics: vec![], next }
    }

    pub fn error(error: Diagnostic, next: usize) -> Block {
        Block { runs: vec![], diagnostics: vec![error], next }
    }
}

/// The line number to blame when a block stops at index `i`: that line, or the input's last.
pub(super) fn line_at(lines: &[Line], i: usize) -> usize {
    lines.get(i).or(lines.last()).map_or(1, |l| l.no)
}

/// A plain decimal number: `123`, `12.5`, `.5`; no sign, exponent, `inf` or `nan`.
pub(super) fn decimal(s: &str) -> Option<f64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if int.len() + frac.len() == 0 || !digits(int) || !digits(frac) {
        return None;
    }
    s.parse().ok()
}

/// A number with thousands commas as kbench prints them (`1,449,533`), or without (`98368`).
/// Misplaced commas (`48,6`: a number cut short) are refused.
pub(super) fn grouped(s: &str) -> Option<f64> {
    let (int, frac) = s.split_once('.').map_or((s, None), |(i, f)| (i, Some(f)));
    let mut groups = int.split(',');
    let first = groups.next()?;
    let well_grouped = (1..=3).contains(&first.len()) && groups.all(|g| g.len() == 3);
    if int.contains(',') && !well_grouped {
        return None;
    }
    let plain: String = int.chars().filter(|&c| c != ',').collect();
    match frac {
        Some(f) => decimal(&format!("{plain}.{f}")),
        None => decimal(&plain),
    }
}

/// fio's scaled counts: `75.7k`, `9127`, `1.2M` (k = 10³, M = 10⁶, G = 10⁹).
pub(super) fn scaled(s: &str) -> Option<f64> {
    let (num, exp) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 3),
        b'M' => (&s[..s.len() - 1], 6),
        b'G' => (&s[..s.len() - 1], 9),
        _ => (s, 0),
    };
    decimal(num)?;
    // Through the decimal exponent, so `75.7k` is exactly 75700.
    format!("{num}e{exp}").parse().ok()
}

/// A bandwidth as fio prints it (`523MiB/s`, `1264B/s`, `25.2MiB/s`, fio 2.x `KB/s`), in KiB/s.
/// `KB/s`, `MB/s`, `GB/s` are powers of 1024, as in fio 2.x; only `kB/s` is decimal.
pub(super) fn bandwidth_kib(s: &str) -> Option<f64> {
    let split = s.find(|c: char| !c.is_ascii_digit() && c != '.')?;
    let (num, unit) = s.split_at(split);
    let n = decimal(num)?;
    let kib = match unit {
        "B/s" => n / 1024.0,
        "KiB/s" | "KB/s" => n,
        "kB/s" => scaled(&format!("{num}k"))? / 1024.0,
        "MiB/s" | "MB/s" => n * 1024.0,
        "GiB/s" | "GB/s" => n * 1024.0 * 1024.0,
        "TiB/s" | "TB/s" => n * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(kib)
}

/// A time unit as fio and kbench write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimeUnit {
    Nanos,
    Micros,
    Millis,
    Seconds,
}

impl TimeUnit {
    /// `nsec`, `ns`, `usec`, `us`, `µs`, `msec`, `ms`, `sec`, `s`.
    pub fn parse(s: &str) -> Option<TimeUnit> {
        match s {
            "nsec" | "ns" => Some(TimeUnit::Nanos),
            "usec" | "us" | "µs" => Some(TimeUnit::Micros),
            "msec" | "ms" => Some(TimeUnit::Millis),
            "sec" | "s" => Some(TimeUnit::Seconds),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Nanos => "nsec",
            TimeUnit::Micros => "usec",
            TimeUnit::Millis => "msec",
            TimeUnit::Seconds => "sec",
        }
    }

    /// `value` of this unit in microseconds.
    pub fn to_micros(self, value: f64) -> f64 {
        match self {
            TimeUnit::Nanos => value / 1000.0,
            TimeUnit::Micros => value,
            TimeUnit::Millis => value * 1000.0,
            TimeUnit::Seconds => value * 1_000_000.0,
        }
    }
}

/// Splits `R / W` (either side may be empty) at its `/` token.
pub(super) fn split_pair(value: &str) -> Option<(String, String)> {
    let tokens: Vec<&str> = value.split_whitespace().collect();
    let slash = tokens.iter().position(|&t| t == "/")?;
    Some((tokens[..slash].join(" "), tokens[slash + 1..].join(" ")))
}

/// A class name as a log gives it: a leading `./` dropped; empty means none.
pub(super) fn class_name(s: &str) -> Option<String> {
    let s = s.trim();
    let s = s.strip_prefix("./").unwrap_or(s);
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_cleaned() {
        let l = lines("a\r\n\u{1b}[1;32mOK\u{1b}[0m\r\n\nb");
        let texts: Vec<(usize, &str)> = l.iter().map(|l| (l.no, l.text.as_str())).collect();
        assert_eq!(texts, [(1, "a"), (2, "OK"), (3, ""), (4, "b")]);
        let spans: Vec<Span> = l.iter().map(|l| l.span.clone()).collect();
        assert_eq!(spans, [0..1, 3..16, 18..18, 19..20]);
        assert_eq!(lines("\u{feff}x\n")[0].span, 3..4);
        assert_eq!(lines("a\n").len(), 1);
        assert_eq!(lines("").len(), 1);
        assert_eq!(clean("\u{1b}]0;title\u{7}x\u{1b}(B"), "x");
    }

    fn undecorated(t: &str) -> (String, bool) {
        let mut l = Line { no: 1, span: 0..t.len(), text: t.to_string(), heading: false };
        undecorate(&mut l);
        (l.text, l.heading)
    }

    #[test]
    fn paste_markup_is_removed() {
        let plain = |t: &str| undecorated(t).0;
        assert_eq!(plain("# Random Read/Write IOPS: 1/2"), "Random Read/Write IOPS: 1/2");
        assert_eq!(plain("> > read:"), "read:");
        assert_eq!(plain("- **read**: x"), "read: x");
        assert_eq!(plain("  * `IOPS=1 BW(KiB/s)=2`"), "IOPS=1 BW(KiB/s)=2");
        assert_eq!(plain("2. Sequential Read/Write: 1/2"), "Sequential Read/Write: 1/2");
        assert_eq!(plain("```text"), "");
        assert_eq!(plain("> ```"), "");
        assert_eq!(plain("- OK"), "- OK");
        assert_eq!(plain("  -  OK"), "  -  OK");
        // kubestr's bold green status, pasted as markdown emphasis.
        assert_eq!(plain("      -  **OK**"), "      -  OK");
        assert_eq!(plain("- **Error**"), "- Error");
        assert_eq!(plain("{"), "{");
        assert_eq!(plain("#"), "");
        assert_eq!(undecorated("## longhorn"), ("longhorn".into(), true));
        assert_eq!(undecorated("**longhorn**"), ("longhorn".into(), true));
        assert_eq!(undecorated("**read**: 1"), ("read: 1".into(), false));
    }

    #[test]
    fn numbers() {
        assert_eq!(grouped("1,449,533"), Some(1_449_533.0));
        assert_eq!(grouped("98368"), Some(98368.0));
        assert_eq!(grouped("48,6"), None);
        assert_eq!(grouped("1234,567"), None);
        assert_eq!(grouped("null"), None);
        assert_eq!(scaled("75.7k"), Some(75700.0));
        assert_eq!(scaled("43.1k"), Some(43100.0));
        assert_eq!(scaled("1.2M"), Some(1_200_000.0));
        assert_eq!(scaled("9127"), Some(9127.0));
        assert_eq!(scaled("k"), None);
        assert_eq!(scaled("inf"), None);
        assert_eq!(decimal("1e5"), None);
        assert_eq!(bandwidth_kib("523MiB/s"), Some(523.0 * 1024.0));
        assert_eq!(bandwidth_kib("25.2MiB/s"), Some(25.2 * 1024.0));
        assert_eq!(bandwidth_kib("1264B/s"), Some(1264.0 / 1024.0));
        assert_eq!(bandwidth_kib("1000kB/s"), Some(1_000_000.0 / 1024.0));
        assert_eq!(bandwidth_kib("5MiB"), None);
        assert_eq!(bandwidth_kib("MiB/s"), None);
        assert_eq!(TimeUnit::Nanos.to_micros(55367.0), 55.367);
    }

    #[test]
    fn pairs() {
        assert_eq!(split_pair(" 1 / 2 "), Some(("1".into(), "2".into())));
        assert_eq!(split_pair("  / "), Some((String::new(), String::new())));
        assert_eq!(
            split_pair("546,501 KiB/sec   / 506,343 KiB/sec").map(|p| p.1),
            Some("506,343 KiB/sec".into())
        );
        assert_eq!(split_pair("1,2"), None);
    }
}
