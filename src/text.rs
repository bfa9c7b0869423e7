//! Leaf text helpers shared by every layer (nothing here knows a report format;
//! Markdown's own escaping lives in `report::markdown`):
//! - showing input text safely: every value that comes from an input (manifest
//!   strings, paths, ids, header names, filter keys and values, reasons) goes through
//!   [`shown`] before it is formatted into a message or a report, and every line
//!   written to stdout or stderr passes [`neutralize_commands`] (through
//!   [`LineGuard`]), so a hostile input can neither start a new line nor a GitHub
//!   workflow command. The workflow commands ragdiff writes itself bypass the guard
//!   and escape their data per GitHub's rules ([`escape_data`], [`escape_property`]);
//! - plurals, "… and N more", naming at most ten ids.

use std::borrow::Cow;
use std::io::Write;

/// Unicode format characters (general category Cf) and the line and paragraph
/// separators: invisible, or able to make text read other than it is (bidi
/// controls), or to break a line in some viewers.
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{00ad}'
        | '\u{0600}'..='\u{0605}'
        | '\u{061c}'
        | '\u{06dd}'
        | '\u{070f}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08e2}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0001}'
        | '\u{e0020}'..='\u{e007f}')
}

/// Whether `c` is shown escaped: a control character (category Cc) or one of
/// [`is_format`].
fn needs_escape(c: char) -> bool {
    c.is_control() || is_format(c)
}

/// A number as a message shows it: its plain decimals, or scientific notation when
/// those would run long (`1e-300`, not 300 zeros).
pub fn shown_number(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() > 20 {
        format!("{v:e}")
    } else {
        plain
    }
}

/// Input text as every message and report shows it: unchanged when it holds no
/// control or format character; otherwise each of them is written as an escape
/// (`\n`, `\r`, `\t`, `\u{202e}`, …) and each backslash as `\\`, so the text stays
/// on one line, reads as it is, and the escapes cannot be confused with the text.
/// Applying it twice changes nothing more than applying it once.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if needs_escape(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`shown`], as an owned `String` (for `map` over ids).
pub fn shown_string(text: &str) -> String {
    shown(text).into_owned()
}

/// White space GitHub's runner skips before looking for `::` (.NET's
/// `TrimStart`), with the zero-width characters some runtimes also trim.
fn skipped(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{200b}' | '\u{feff}' | '\u{180e}')
}

/// What a line's start means to GitHub's runner.
#[derive(Debug, PartialEq, Eq)]
enum Start {
    /// Not decided yet: only white space and at most one `:` so far.
    Open,
    /// The line cannot start a `::` command.
    Safe,
    /// The line starts (after white space) with `::`, at this byte offset.
    Command(usize),
}

fn classify(line: &str) -> Start {
    let rest = line.trim_start_matches(skipped);
    let at = line.len() - rest.len();
    if rest.starts_with("::") {
        Start::Command(at)
    } else if rest.is_empty() || rest == ":" {
        Start::Open
    } else {
        Start::Safe
    }
}

/// One line (without its line break) with workflow commands neutralised: a leading
/// `::` (after white space) becomes `:\u{3a}`, and every `##[` (GitHub's runner still
/// reads the old `##[command]` form anywhere in a line) becomes `#\u0023[`, an
/// escape JSON reads back as `#` (in ragdiff's JSON `##[` can only occur inside a
/// string, and a line never starts with `::`, so JSON on stdout stays valid and means
/// the same). Lines without either come back unchanged.
fn neutralize_line(line: &str) -> Cow<'_, str> {
    let lead = match classify(line) {
        Start::Command(at) => Some(at),
        _ => None,
    };
    if lead.is_none() && !line.contains("##[") {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 16);
    let mut rest = line;
    if let Some(at) = lead {
        out.push_str(&line[..at + 1]);
        out.push_str("\\u{3a}");
        rest = &line[at + 2..];
    }
    out.push_str(&rest.replace("##[", "#\\u0023["));
    Cow::Owned(out)
}

/// Text for stdout or stderr with workflow commands neutralised in every line
/// (lines end at `\n` or a bare `\r`, as GitHub's runner splits them); see
/// [`neutralize_line`].
pub fn neutralize_commands(text: &str) -> Cow<'_, str> {
    let risky = |l: &str| classify(l) != Start::Safe || l.contains("##[");
    if !text.split(['\n', '\r']).any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(end) = rest.find(['\n', '\r']) {
        out.push_str(&neutralize_line(&rest[..end]));
        out.push_str(&rest[end..end + 1]);
        rest = &rest[end + 1..];
    }
    out.push_str(&neutralize_line(rest));
    Cow::Owned(out)
}

/// A writer that neutralises workflow commands line by line ([`neutralize_line`])
/// while streaming: a line's start is held back only until it is decided, and a line
/// holding `##[` is held whole. What is left when it is dropped is written then (call
/// [`LineGuard::finish`] to see an error).
pub struct LineGuard<W: Write> {
    inner: W,
    /// The current line's bytes not yet written.
    held: Vec<u8>,
    /// Whether the current line's start is decided (and a leading `::` already
    /// neutralised in `held`): then only `##[` still matters.
    decided: bool,
}

impl<W: Write> LineGuard<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            held: Vec::new(),
            decided: false,
        }
    }

    /// Write what is held (the last line, without its line break) and flush.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.write_held()?;
        self.inner.flush()
    }

    /// Write the held rest of a line that has ended.
    fn write_held(&mut self) -> std::io::Result<()> {
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            match std::str::from_utf8(&held) {
                Ok(text) if self.decided => self
                    .inner
                    .write_all(text.replace("##[", "#\\u0023[").as_bytes())?,
                Ok(text) => self.inner.write_all(neutralize_line(text).as_bytes())?,
                Err(_) => self.inner.write_all(&held)?,
            }
        }
        self.decided = false;
        Ok(())
    }

    /// Decide the line's start once enough of it is held; false while it is open.
    fn decide(&mut self) -> bool {
        let text = match std::str::from_utf8(&self.held) {
            Ok(t) => t,
            // A character cut by the write: decide on what came before it.
            Err(e) if e.error_len().is_none() => {
                std::str::from_utf8(&self.held[..e.valid_up_to()]).unwrap_or("")
            }
            Err(_) => "x", // not UTF-8: not a command GitHub would read
        };
        match classify(text) {
            Start::Open => return false,
            Start::Command(at) => {
                self.held.splice(at + 1..at + 2, b"\\u{3a}".iter().copied());
            }
            Start::Safe => {}
        }
        self.decided = true;
        true
    }

    /// Write the held bytes of a decided line unless they hold `##[` (then the line
    /// is held to its end); keep a trailing `#` or `##`, which the next write could
    /// complete.
    fn release(&mut self) -> std::io::Result<()> {
        if memchr::memmem::find(&self.held, b"##[").is_some() {
            return Ok(());
        }
        let keep = self
            .held
            .iter()
            .rev()
            .take(2)
            .take_while(|&&b| b == b'#')
            .count();
        let cut = self.held.len() - keep;
        self.inner.write_all(&self.held[..cut])?;
        self.held.drain(..cut);
        Ok(())
    }
}

/// Where, in one buffer given to [`LineGuard`], the next line [`neutralize_line`] might
/// change could be: at the next `::` (a command starts with it), `##[` or byte that
/// is not UTF-8 (such a line is written as it is, but the slow way). Each is searched
/// from a line start only once the last answer lies behind it, so a write scans its
/// bytes about once, however many such lines it holds.
#[derive(Default)]
struct Ahead {
    colons: Option<usize>,
    hashes: Option<usize>,
    invalid: Option<usize>,
}

impl Ahead {
    /// The bytes of whole lines from `at` (a line start) that pass unchanged, up to
    /// `last_break`, the end of the buffer's last whole line.
    fn unchanged(&mut self, buf: &[u8], at: usize, last_break: usize) -> usize {
        let next = |slot: &mut Option<usize>, find: &dyn Fn(&[u8]) -> Option<usize>| {
            if slot.is_none_or(|p| p < at) {
                *slot = Some(find(&buf[at..]).map_or(buf.len(), |i| at + i));
            }
            slot.unwrap_or(buf.len())
        };
        let colons = next(&mut self.colons, &|b| memchr::memmem::find(b, b"::"));
        let hashes = next(&mut self.hashes, &|b| memchr::memmem::find(b, b"##["));
        let invalid = next(&mut self.invalid, &|b| {
            std::str::from_utf8(b).err().map(|e| e.valid_up_to())
        });
        let stop = colons.min(hashes).min(invalid);
        if stop >= last_break {
            return last_break.saturating_sub(at);
        }
        // The whole lines before the one the stop is in.
        memchr::memrchr2(b'\n', b'\r', &buf[at..stop]).map_or(0, |i| i + 1)
    }
}

impl<W: Write> Write for LineGuard<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        // Whole lines nothing could change are passed on together, not one by one.
        let mut ahead = Ahead::default();
        let last_break = memchr::memrchr2(b'\n', b'\r', buf).map_or(0, |i| i + 1);
        while !rest.is_empty() {
            if self.held.is_empty() && !self.decided {
                let n = ahead.unchanged(buf, buf.len() - rest.len(), last_break);
                self.inner.write_all(&rest[..n])?;
                rest = &rest[n..];
                if rest.is_empty() {
                    break;
                }
            }
            let end = memchr::memchr2(b'\n', b'\r', rest);
            let part = &rest[..end.unwrap_or(rest.len())];
            self.held.extend_from_slice(part);
            rest = &rest[part.len()..];
            match end {
                Some(_) => {
                    self.write_held()?;
                    self.inner.write_all(&rest[..1])?;
                    rest = &rest[1..];
                }
                None => {
                    if self.decided || self.decide() {
                        self.release()?;
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // What is held stays held: written now, the next write could make it a
        // command.
        self.inner.flush()
    }
}

impl<W: Write> Drop for LineGuard<W> {
    fn drop(&mut self) {
        let _ = self.write_held();
        let _ = self.inner.flush();
    }
}

/// Write `text` to stderr with workflow commands neutralised; a closed or failing
/// stderr is ignored (messages are best effort; the exit code still says it all).
pub fn eprint(text: &str) {
    let text = match stderr_prose_width() {
        Some(width) => Cow::Owned(wrap_prose(text, width)),
        None => Cow::Borrowed(text),
    };
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(neutralize_commands(&text).as_bytes());
}

/// [`eprint`] with a line break.
pub fn eprintln(text: &str) {
    eprint(&format!("{text}\n"));
}

/// Write one workflow command ragdiff made itself (its data already escaped per
/// GitHub's rules) to stderr, bypassing the guard.
pub fn eprint_workflow_command(line: &str) {
    debug_assert!(!line.contains(['\n', '\r']));
    // Should the runner ever fail to read the command, the old form must not match.
    let line = line.replace("##[", "#\\u0023[");
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// At most this many ids are named in one sentence.
pub const NAMED: usize = 10;

/// An id (or any text from an input) made safe for a message or a terminal
/// ([`shown`], owned).
pub fn safe_id(id: &str) -> String {
    shown_string(id)
}

/// `1 query`, `2 queries`: the count and the noun that fits it.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A signed delta with 4 decimals, as every report and reason prints one.
pub fn delta(x: f64) -> String {
    // a delta that rounds to 0 (a named measure's float noise, -1e-16) reads 0.0000
    match format!("{x:+.4}") {
        z if z == "+0.0000" || z == "-0.0000" => "0.0000".to_string(),
        text => text,
    }
}

/// ` … and N more` when `total` exceeds `shown`, else nothing.
pub fn and_more(total: usize, shown: usize) -> String {
    match total.saturating_sub(shown) {
        0 => String::new(),
        more => format!(" … and {more} more"),
    }
}

/// Name up to [`NAMED`] ids (each written by `id`), then how many more.
pub fn name_ids_with(ids: &[impl AsRef<str>], id: &dyn Fn(&str) -> String) -> String {
    let mut s = ids
        .iter()
        .take(NAMED)
        .map(|x| id(x.as_ref()))
        .collect::<Vec<_>>()
        .join(", ");
    s.push_str(&and_more(ids.len(), NAMED));
    s
}

/// Name up to [`NAMED`] ids, then how many more.
pub fn name_ids(ids: &[impl AsRef<str>]) -> String {
    name_ids_with(ids, &safe_id)
}

/// Escape a workflow command's message (GitHub's rules).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command's property, such as its title.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Whether GitHub Actions reads workflow commands from this process's output.
pub fn under_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// Natural order of ids (`docs/contract.md §2.8`): each id is split into maximal runs
/// of ASCII digits and of other bytes, compared part by part — digit runs by value,
/// then the shorter run first (`Q-1` before `Q-01`), other parts by bytes — so `2`
/// comes before `10` and `Q-9` before `Q-10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (da, db) = (a[i].is_ascii_digit(), b[j].is_ascii_digit());
        let end = |s: &[u8], from: usize, digit: bool| {
            from + s[from..]
                .iter()
                .position(|c| c.is_ascii_digit() != digit)
                .unwrap_or(s.len() - from)
        };
        let (ea, eb) = (end(a, i, da), end(b, j, db));
        let (pa, pb) = (&a[i..ea], &b[j..eb]);
        let ord = if da && db {
            let (ta, tb) = (trim_zeros(pa), trim_zeros(pb));
            ta.len()
                .cmp(&tb.len())
                .then_with(|| ta.cmp(tb))
                .then_with(|| pa.len().cmp(&pb.len()))
        } else {
            pa.cmp(pb)
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (i, j) = (ea, eb);
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// A digit run without its leading zeros (its value, for comparing by length).
fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

/// Sort ids in natural order ([`natural_cmp`]).
pub fn sort_natural<T: AsRef<str>>(ids: &mut [T]) {
    ids.sort_unstable_by(|a, b| natural_cmp(a.as_ref(), b.as_ref()));
}

/// Seconds since 1970 now, or `SOURCE_DATE_EPOCH` when set (the reproducible-builds
/// convention), so outputs that show a date can be reproduced.
pub fn now_secs() -> u64 {
    let from_env = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    from_env.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    })
}

/// The civil date (year, month, day) of the days since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `secs` since 1970 as RFC 3339 in UTC, `2026-12-02T01:02:03Z`.
pub fn utc_timestamp(secs: u64) -> String {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let t = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut ids = vec![
            "10", "2", "1", "Q-10", "Q-9", "Q-01", "Q-1", "a", "11", "Q-1a", "0",
        ];
        sort_natural(&mut ids);
        assert_eq!(
            ids,
            [
                "0", "1", "2", "10", "11", "Q-1", "Q-1a", "Q-01", "Q-9", "Q-10", "a"
            ]
        );
        use std::cmp::Ordering::*;
        assert_eq!(natural_cmp("Q-1", "Q-1"), Equal);
        assert_eq!(natural_cmp("Q-1", "Q-1x"), Less);
        assert_eq!(natural_cmp("x9", "x10"), Less);
        assert_eq!(natural_cmp("007", "7"), Greater);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            Less
        );
    }

    #[test]
    fn shown_leaves_plain_text_alone() {
        assert!(matches!(shown("Q-1 é ü"), Cow::Borrowed(_)));
        assert_eq!(shown("a\\b"), "a\\b");
    }

    #[test]
    fn shown_escapes_controls_and_format_characters() {
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown("a\r\tb\\"), "a\\r\\tb\\\\");
        assert_eq!(shown("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(
            shown("\u{7}\u{85}\u{feff}\u{2028}"),
            "\\u{7}\\u{85}\\u{feff}\\u{2028}"
        );
        let once = shown("a\n::error::x\u{2066}");
        assert_eq!(shown(&once), once);
    }

    #[test]
    fn command_starts_are_neutralised() {
        assert_eq!(neutralize_commands("::error::x"), ":\\u{3a}error::x");
        assert_eq!(
            neutralize_commands("ok\n  ::add-mask::s\n"),
            "ok\n  :\\u{3a}add-mask::s\n"
        );
        assert_eq!(neutralize_commands("a\r::error::x"), "a\r:\\u{3a}error::x");
        assert_eq!(neutralize_commands("\u{a0}\t::x"), "\u{a0}\t:\\u{3a}x");
        assert_eq!(
            neutralize_commands("see ##[error]x"),
            "see #\\u0023[error]x"
        );
        assert_eq!(
            neutralize_commands("a :: b\n## ragdiff"),
            "a :: b\n## ragdiff"
        );
    }

    fn guarded(chunks: &[&str]) -> String {
        let mut out = Vec::new();
        {
            let mut g = LineGuard::new(&mut out);
            for c in chunks {
                g.write_all(c.as_bytes()).unwrap();
                g.flush().unwrap();
            }
            g.finish().unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_guard_streams_what_neutralize_commands_gives() {
        let text = "  ::error::x\nfine ##[warning]y\n:\n::\r \u{a0}::z\n#\n##\n# # [ok\nlast ::";
        let want = neutralize_commands(text).into_owned();
        // Every split into two chunks, and byte by byte.
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            assert_eq!(guarded(&[&text[..cut], &text[cut..]]), want, "cut at {cut}");
        }
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(guarded(&refs), want);
    }

    #[test]
    fn the_guard_passes_bytes_that_are_not_utf8_and_neutralises_the_lines_after_them() {
        let text: &[u8] = b"a\n\xff::x\nb ##[c\n  ::d\r\ne\xe2\x82\xac\n\xff";
        let want: &[u8] = b"a\n\xff::x\nb #\\u0023[c\n  :\\u{3a}d\r\ne\xe2\x82\xac\n\xff";
        let guard = |chunks: &mut dyn Iterator<Item = &[u8]>| {
            let mut out = Vec::new();
            let mut g = LineGuard::new(&mut out);
            for c in chunks {
                g.write_all(c).unwrap();
            }
            g.finish().unwrap();
            out
        };
        assert_eq!(guard(&mut std::iter::once(text)), want);
        assert_eq!(guard(&mut text.chunks(1)), want);
        for cut in 0..=text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(guard(&mut [a, b].into_iter()), want, "cut at {cut}");
        }
    }

    #[test]
    fn plural_and_more() {
        assert_eq!(plural(1, "query", "queries"), "1 query");
        assert_eq!(plural(0, "query", "queries"), "0 queries");
        assert_eq!(and_more(12, 10), " … and 2 more");
        assert_eq!(and_more(10, 10), "");
        assert_eq!(and_more(3, 10), "");
    }

    #[test]
    fn names_at_most_ten() {
        let ids: Vec<String> = (1..=12).map(|i| format!("Q{i}")).collect();
        let s = name_ids(&ids);
        assert!(s.starts_with("Q1, Q2"));
        assert!(s.ends_with("Q10 … and 2 more"));
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(safe_id("a\nb"), "a\\nb");
        assert_eq!(safe_id("plain"), "plain");
        assert_eq!(escape_property("a:b,c\n"), "a%3Ab%2Cc%0A");
    }
}

// ---------------------------------------------------------------------------------
// Widths and wrapping (docs/contract.md §9.9).

/// The width of `text` in terminal columns (ANSI colour sequences take none).
pub fn display_width(text: &str) -> usize {
    textwrap::core::display_width(text)
}

/// The most columns one problem or warning line on stderr takes (docs/contract.md §11):
/// every message names the values it is about, and a value may be megabytes long.
pub const MESSAGE_COLUMNS: usize = 2_000;

/// `text` cut to [`MESSAGE_COLUMNS`] (with `…`), whatever input values it quotes.
pub fn bounded(text: &str) -> String {
    if text.len() <= MESSAGE_COLUMNS {
        return text.to_string();
    }
    cut_to(text, MESSAGE_COLUMNS)
}

/// `text` cut to at most `width` columns by its middle (`start…end`), for a path
/// whose end (the file name, a line) matters as much as its start.
pub fn cut_middle(text: &str, width: usize) -> String {
    if display_width(text) <= width {
        return text.to_string();
    }
    let half = width.saturating_sub(1) / 2;
    let head = cut_to(text, half + 1);
    let head = head.trim_end_matches('…');
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = display_width(c.encode_utf8(&mut [0; 4]));
        if used + w > half {
            break;
        }
        used += w;
        tail.push(c);
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

/// `text` cut to at most `width` columns, ending in "…" when it was cut.
pub fn cut_to(text: &str, width: usize) -> String {
    if display_width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = display_width(c.encode_utf8(&mut [0; 4]));
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// One line wrapped at spaces to `width` columns, its continuation lines indented by
/// `indent`; a word is never broken, and one wider than the room it has is cut with
/// "…" (an id longer than the width).
pub fn wrap_words(line: &str, width: usize, indent: usize) -> String {
    if display_width(line) <= width {
        return line.to_string();
    }
    let lead = line.len() - line.trim_start_matches(' ').len();
    let indent = indent.min(width / 2);
    let room = width.saturating_sub(lead.max(indent)).max(1);
    let words: Vec<String> = line[lead..].split(' ').map(|w| cut_to(w, room)).collect();
    let first = " ".repeat(lead);
    let rest = " ".repeat(indent);
    let options = textwrap::Options::new(width)
        .initial_indent(&first)
        .subsequent_indent(&rest)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(&words.join(" "), options).join("\n")
}

/// Every line of `text` longer than `width` wrapped at word boundaries, continuation
/// lines indented under the line's text: after a padded label (`newly failed      …`)
/// when it has one, else two columns in.
pub fn wrap_prose(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&wrap_words(line, width, hanging_indent(line)));
    }
    out
}

/// Where a wrapped line's continuation starts: after the first run of two or more
/// spaces within the first 24 columns, else two columns in from the line's start.
fn hanging_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start_matches(' ').len();
    let head: String = line.chars().take(24).collect();
    if let Some(at) = head.get(lead..).and_then(|h| h.find("  ")) {
        let after = head[lead + at..].trim_start_matches(' ');
        if !after.is_empty() {
            return display_width(&head[..head.len() - after.len()]);
        }
    }
    lead + 2
}

/// The width to fit: `COLUMNS` when it is a positive number, else the terminal's
/// width when the stream is a terminal; `None` (never narrowed) otherwise.
pub fn fit_width(is_terminal: bool) -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return (c > 0).then_some(c);
    }
    if !is_terminal {
        return None;
    }
    // A terminal that reports 0 columns (a pty nobody sized: `script` or `docker -t`
    // under CI) has no width: narrowing to it would leave only `…` (§9.9).
    comfy_table::Table::new()
        .width()
        .map(usize::from)
        .filter(|&w| w > 0)
}

/// The width prose on stdout wraps at: only on a terminal.
pub fn stdout_prose_width() -> Option<usize> {
    use std::io::IsTerminal;
    let tty = std::io::stdout().is_terminal();
    if tty { fit_width(tty) } else { None }
}

/// The width prose on stderr wraps at: only on a terminal.
pub fn stderr_prose_width() -> Option<usize> {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    if tty { fit_width(tty) } else { None }
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    #[test]
    fn prose_wraps_at_spaces_under_its_label_and_never_inside_a_word() {
        let line = format!(
            "{:<18}{}",
            "newly failed", "Q-21 (ranking; lost D-9; suspect: 1 unjudged doc entered the top 3)"
        );
        let out = wrap_prose(&line, 40);
        for l in out.lines() {
            assert!(display_width(l) <= 40, "{out}");
        }
        assert!(
            out.lines().skip(1).all(|l| l.starts_with(&" ".repeat(18))),
            "{out}"
        );
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            line.split_whitespace().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_word_wider_than_the_width_is_cut_with_an_ellipsis() {
        let out = wrap_prose(&format!("warning: {}", "x".repeat(50)), 20);
        assert!(out.lines().all(|l| display_width(l) <= 20), "{out}");
        assert!(out.ends_with("xxxxxxxxxxxxxxxxx…"), "{out}");
        assert_eq!(cut_to("abcdef", 4), "abc…");
        assert_eq!(cut_to("abc", 4), "abc");
    }

    #[test]
    fn short_lines_are_left_alone() {
        let text = "a  b\n\nc\n";
        assert_eq!(wrap_prose(text, 10), text);
    }
}
