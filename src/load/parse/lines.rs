//! Line-oriented reading for TREC files: in memory (qrels) or streamed in large
//! chunks (runs), with line numbers, CRLF, a leading BOM and UTF-8 checks in one
//! place; the one white-space field splitter and the rank parser, both tuned for a
//! run's every line (checked against the standard library in `fast_path_tests`).

use std::borrow::Cow;
use std::io::Read;

use crate::validate::{Diagnostics, Location, ProblemKind};

const BOM: &[u8] = b"\xEF\xBB\xBF";
const CHUNK: usize = 1 << 20;

/// Split `line` on ASCII white space into `out`; returns how many fields there are
/// in all (only the first `out.len()` are stored). The whole line is scanned eight
/// bytes at a time for bytes below `!` (exact per byte: no borrow crosses bytes), and
/// only those are looked at: on a run line, the five separators.
#[inline]
pub fn split_fields<'t>(line: &'t str, out: &mut [&'t str]) -> usize {
    let bytes = line.as_bytes();
    let len = bytes.len();
    let (mut n, mut start) = (0usize, 0usize);
    let mut at = 0;
    while at < len {
        let x = match bytes.get(at..at + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().expect("eight bytes")),
            // The tail of a line of eight bytes or more: its last eight bytes, shifted
            // so the bytes already scanned drop out and `!` (not below `!`) fills in.
            None if len >= 8 => {
                let last = u64::from_le_bytes(bytes[len - 8..].try_into().expect("eight bytes"));
                let seen = 8 * (8 - (len - at)) as u32;
                (last >> seen) | (0x2121_2121_2121_2121u64 << (64 - seen))
            }
            None => {
                // A short line, padded with bytes that are not below `!`.
                let mut word = [b'!'; 8];
                for (w, &b) in word.iter_mut().zip(&bytes[at..]) {
                    *w = b;
                }
                u64::from_le_bytes(word)
            }
        };
        let mut low = crate::swar::below_bang(x);
        while low != 0 {
            let p = at + (low.trailing_zeros() / 8) as usize;
            low &= low - 1;
            // Another control character is part of the field (and refused later).
            if bytes[p].is_ascii_whitespace() {
                if p > start {
                    if n < out.len() {
                        // Splitting at ASCII bytes keeps UTF-8 boundaries.
                        out[n] = &line[start..p];
                    }
                    n += 1;
                }
                start = p + 1;
            }
        }
        at += 8;
    }
    if len > start {
        if n < out.len() {
            out[n] = &line[start..];
        }
        n += 1;
    }
    n
}

/// The rank column: a whole number (optionally signed), as `i64::from_str` reads
/// it but without its generality, since this runs for every line (so always inlined).
#[inline(always)]
pub fn parse_rank(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        bytes => (false, bytes),
    };
    if digits.is_empty() || digits.len() > 18 {
        return text.parse().ok();
    }
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(d - b'0');
    }
    Some(if negative { -value } else { value })
}

fn as_text<'a>(
    mut raw: &'a [u8],
    line_no: u64,
    display: &str,
    needed: &[usize],
    lossy: &mut u64,
    diag: &mut Diagnostics,
) -> Option<Cow<'a, str>> {
    if line_no == 1 && raw.starts_with(BOM) {
        raw = &raw[BOM.len()..];
    }
    if let [rest @ .., b'\r'] = raw {
        raw = rest;
    }
    match std::str::from_utf8(raw) {
        Ok(text) => Some(Cow::Borrowed(text)),
        // Bad bytes only in fields nobody reads (a tag, `Q0`, a `#` comment): read
        // the line, count it for a warning.
        Err(_) if only_ignored_fields_bad(raw, needed) => {
            *lossy += 1;
            Some(String::from_utf8_lossy(raw))
        }
        Err(_) => {
            diag.problem(Location::line(display, line_no), ProblemKind::NotUtf8);
            None
        }
    }
}

/// `needed` for a format whose every byte is read (JSONL): no field is ignored, and
/// `#` starts no comment.
pub const EVERY_FIELD: &[usize] = &[usize::MAX];

/// Whether every field at an index in `needed` (split on ASCII white space, which
/// never occurs inside a multi-byte character) is UTF-8, or the line is a `#`
/// comment.
fn only_ignored_fields_bad(raw: &[u8], needed: &[usize]) -> bool {
    if needed == EVERY_FIELD {
        return false;
    }
    let mut fields = raw
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .enumerate()
        .peekable();
    if fields.peek().is_some_and(|(_, f)| f.starts_with(b"#")) {
        return true;
    }
    fields.all(|(i, f)| !needed.contains(&i) || std::str::from_utf8(f).is_ok())
}

/// Warn once per file about lines read despite bytes that are not UTF-8 in fields
/// ragdiff ignores.
fn warn_lossy(lossy: u64, display: &str, diag: &mut Diagnostics) {
    if lossy > 0 {
        diag.warn(format!(
            "{display}: {lossy} line{} bytes that are not UTF-8 in fields ragdiff ignores (a tag, the Q0/iter column or a # comment); the lines are read, but save the file as UTF-8",
            if lossy == 1 { " has" } else { "s have" }
        ));
    }
}

/// Call `f` for every line of an in-memory file (numbered from 1, without its line
/// end); lines that are not UTF-8 in a field at an index in `needed` are reported
/// and skipped. Stops once the file has as many problems as are kept.
pub fn for_each_line(
    bytes: &[u8],
    display: &str,
    needed: &[usize],
    diag: &mut Diagnostics,
    mut f: impl FnMut(u64, &str, &mut Diagnostics),
) {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if body.is_empty() {
        return;
    }
    let mut lossy = 0;
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        if diag.stop_if_full(display, line_no) {
            break;
        }
        if let Some(text) = as_text(raw, line_no, display, needed, &mut lossy, diag) {
            f(line_no, &text, diag);
        }
    }
    warn_lossy(lossy, display, diag);
}

/// Stream the lines of `reader` in large chunks, calling `f` for each; `progress` is
/// told how many bytes were consumed after every chunk. Stops early when `f` returns
/// false. Returns the read error, if any. UTF-8 is checked a chunk at a time, and
/// line by line only in a chunk that fails, to name the line.
pub fn stream_lines<R: Read>(
    mut reader: R,
    display: &str,
    needed: &[usize],
    diag: &mut Diagnostics,
    progress: &dyn Fn(u64),
    mut f: impl FnMut(u64, &str, &mut Diagnostics) -> bool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let mut filled = 0usize;
    let mut line_no = 0u64;
    let mut lossy = 0;
    let result = 'outer: loop {
        if filled == buf.len() {
            // A line longer than the buffer: grow it.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break 'outer Err(e),
        };
        let eof = n == 0;
        filled += n;
        // The complete lines read so far; at the end, whatever is left.
        let end = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(p) => p + 1,
                None => continue,
            }
        };
        let block = &buf[..end];
        let block = block.strip_suffix(b"\n").unwrap_or(block);
        if end > 0 {
            match std::str::from_utf8(block) {
                Ok(text) => {
                    let mut from = 0;
                    let ends =
                        memchr::memchr_iter(b'\n', block).chain(std::iter::once(block.len()));
                    for to in ends {
                        // Cutting at '\n' bytes keeps UTF-8 boundaries.
                        let raw = &text[from..to];
                        from = to + 1;
                        line_no += 1;
                        let mut line = raw.strip_suffix('\r').unwrap_or(raw);
                        if line_no == 1 {
                            line = line.strip_prefix('\u{feff}').unwrap_or(line);
                        }
                        if !f(line_no, line, diag) {
                            break 'outer Ok(());
                        }
                    }
                }
                Err(_) => {
                    for raw in block.split(|&b| b == b'\n') {
                        line_no += 1;
                        if let Some(text) = as_text(raw, line_no, display, needed, &mut lossy, diag)
                            && !f(line_no, &text, diag)
                        {
                            break 'outer Ok(());
                        }
                    }
                }
            }
        }
        progress(end as u64);
        if eof {
            break Ok(());
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
    };
    warn_lossy(lossy, display, diag);
    result
}

/// The longest line (or CSV row) ragdiff reads; a longer one is an input problem,
/// which also stops a file without line ends (a sparse file, a binary) early.
pub const LINE_CAP: usize = 1 << 20;

/// Why a [`Guard`] stopped reading, with the line it stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    #[error("line {line} is longer than 1 MiB")]
    LineTooLong { line: u64 },
    #[error("lines end in CR only")]
    CrOnly,
    #[error("unterminated quote from line {line}")]
    UnterminatedQuote { line: u64 },
    #[error("a CR not followed by LF on line {line}")]
    BareCr { line: u64 },
}

impl GuardError {
    /// The line to report and the problem.
    pub fn problem(self) -> (Option<u64>, ProblemKind) {
        match self {
            GuardError::LineTooLong { line } => (Some(line), ProblemKind::LineTooLong),
            GuardError::CrOnly => (Some(1), ProblemKind::CrOnly),
            GuardError::UnterminatedQuote { line } => (Some(line), ProblemKind::UnterminatedQuote),
            GuardError::BareCr { line } => (Some(line), ProblemKind::BareCr),
        }
    }

    /// The guard's error inside an I/O error, if it is one.
    pub fn of(e: &std::io::Error) -> Option<GuardError> {
        e.get_ref()?.downcast_ref::<GuardError>().copied()
    }
}

/// Where a CSV guard is in RFC 4180 quoting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Out,
    In,
    /// A `"` inside a quoted cell: it closes the cell, or is the first of `""`.
    Closing,
}

/// Wraps every input reader: lines (for CSV, rows: a quoted cell spans lines) of at
/// most [`LINE_CAP`] bytes, no CR-only line ends, and in CSV no quote left open at
/// the end. Bytes before a problem are handed on, so the lines before it are read;
/// the next read returns the problem as an I/O error holding a [`GuardError`].
pub struct Guard<R> {
    inner: R,
    csv: bool,
    /// The current physical line, from 1.
    line: u64,
    /// The line the current CSV row starts on.
    row_line: u64,
    /// Bytes since the last line end (CSV: since the last row end).
    run: usize,
    /// The first line end has been seen (CR-only files are found there).
    first_break_seen: bool,
    /// A CR ended the last read: the next byte decides (CR-only line ends on the first
    /// line, a bare CR inside a CSV row later).
    carry_cr: bool,
    /// The CR that starts this read was held back and is known to be followed by LF
    /// or the end of the input.
    cr_checked: bool,
    /// The last byte handed on (a quote after `,` or a line end opens a cell).
    prev: u8,
    /// Bytes handed on so far.
    offset: u64,
    quote: Quote,
    quote_line: u64,
    pending: Option<GuardError>,
}

impl<R: Read> Guard<R> {
    pub fn lines(inner: R) -> Self {
        Self::new(inner, false)
    }

    pub fn csv(inner: R) -> Self {
        Self::new(inner, true)
    }

    fn new(inner: R, csv: bool) -> Self {
        Self {
            inner,
            csv,
            line: 1,
            row_line: 1,
            run: 0,
            first_break_seen: false,
            carry_cr: false,
            cr_checked: false,
            prev: b'\n',
            offset: 0,
            quote: Quote::Out,
            quote_line: 0,
            pending: None,
        }
    }

    /// Check `buf`; returns how many of its bytes may be handed on (all, unless a
    /// problem was found: then it is pending).
    fn scan(&mut self, buf: &[u8]) -> usize {
        if !self.first_break_seen {
            match memchr::memchr2(b'\r', b'\n', buf) {
                None => {}
                Some(p) if buf[p] == b'\n' => self.first_break_seen = true,
                Some(p) if p + 1 < buf.len() => {
                    if buf[p + 1] != b'\n' {
                        self.pending = Some(GuardError::CrOnly);
                        return p;
                    }
                    self.first_break_seen = true;
                }
                Some(p) => {
                    // Decided by the next byte: hold the CR back until then.
                    let n = self.scan_lines_or_csv(&buf[..p]);
                    if n < p {
                        return n;
                    }
                    self.carry_cr = true;
                    return p;
                }
            }
        }
        self.scan_lines_or_csv(buf)
    }

    fn scan_lines_or_csv(&mut self, buf: &[u8]) -> usize {
        let n = if self.csv {
            self.scan_csv(buf)
        } else {
            self.scan_lines(buf)
        };
        if let Some(&last) = buf[..n].last() {
            self.prev = last;
        }
        self.offset += n as u64;
        n
    }

    fn too_long(&mut self, at: usize) -> usize {
        let line = if self.csv { self.row_line } else { self.line };
        self.pending = Some(GuardError::LineTooLong { line });
        at
    }

    fn scan_lines(&mut self, buf: &[u8]) -> usize {
        // A line inside a read no longer than the cap is within it: only the lines
        // that cross reads can be too long, so the first and last line ends do.
        if buf.len() <= LINE_CAP
            && let Some(first) = memchr::memchr(b'\n', buf)
        {
            if self.run + first > LINE_CAP {
                return self.too_long(LINE_CAP - self.run);
            }
            let last = memchr::memrchr(b'\n', buf).unwrap_or(first);
            self.line += memchr::memchr_iter(b'\n', buf).count() as u64;
            self.run = buf.len() - last - 1;
            return buf.len();
        }
        let mut from = 0;
        for p in memchr::memchr_iter(b'\n', buf) {
            if self.run + (p - from) > LINE_CAP {
                return self.too_long(from + LINE_CAP - self.run);
            }
            self.run = 0;
            self.line += 1;
            from = p + 1;
        }
        if self.run + (buf.len() - from) > LINE_CAP {
            return self.too_long(from + LINE_CAP - self.run);
        }
        self.run += buf.len() - from;
        buf.len()
    }

    fn scan_csv(&mut self, buf: &[u8]) -> usize {
        let mut i = 0;
        let mut row_from = 0; // where `run` was last brought up to date
        while i < buf.len() {
            match self.quote {
                Quote::Out | Quote::In => {
                    let Some(off) = memchr::memchr3(b'"', b'\n', b'\r', &buf[i..]) else {
                        break;
                    };
                    let p = i + off;
                    if buf[p] == b'\r' {
                        // A bare CR is a row break to CSV readers but not to git or
                        // GitHub's views: a row hidden in a line (docs/contract.md §12).
                        if p == 0 && self.cr_checked {
                        } else if p + 1 == buf.len() {
                            // Decided by the next read: hold the CR back until then.
                            self.carry_cr = true;
                            self.run += p - row_from;
                            return p;
                        } else if buf[p + 1] != b'\n' {
                            self.pending = Some(GuardError::BareCr { line: self.line });
                            return p;
                        }
                        i = p + 1;
                        continue;
                    }
                    if buf[p] == b'\n' {
                        if self.run + (p - row_from) > LINE_CAP {
                            return self.too_long(row_from + LINE_CAP - self.run);
                        }
                        self.line += 1;
                        if self.quote == Quote::Out {
                            self.run = 0;
                            self.row_line = self.line;
                        } else {
                            self.run += p + 1 - row_from;
                        }
                        row_from = p + 1;
                    } else if self.quote == Quote::In {
                        self.quote = Quote::Closing;
                    } else {
                        let before = if p > 0 { buf[p - 1] } else { self.prev };
                        let after_bom = self.offset + p as u64 == 3 && self.line == 1;
                        if matches!(before, b',' | b'\n' | b'\r')
                            || self.offset + p as u64 == 0
                            || after_bom
                        {
                            self.quote = Quote::In;
                            self.quote_line = self.line;
                        }
                    }
                    i = p + 1;
                }
                Quote::Closing => {
                    self.quote = if buf[i] == b'"' {
                        i += 1;
                        Quote::In
                    } else {
                        Quote::Out
                    };
                }
            }
        }
        if self.run + (buf.len() - row_from) > LINE_CAP {
            return self.too_long(row_from + LINE_CAP - self.run);
        }
        self.run += buf.len() - row_from;
        buf.len()
    }
}

impl<R: Read> Read for Guard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let invalid = |e: GuardError| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
        loop {
            if let Some(e) = self.pending {
                return Err(invalid(e));
            }
            if buf.is_empty() {
                return Ok(0);
            }
            let start = usize::from(self.carry_cr);
            if self.carry_cr {
                buf[0] = b'\r';
            }
            let n = self.inner.read(&mut buf[start..])?;
            if self.carry_cr {
                self.carry_cr = false;
                if n > 0 && buf[1] != b'\n' {
                    self.pending = Some(if self.first_break_seen {
                        GuardError::BareCr { line: self.line }
                    } else {
                        GuardError::CrOnly
                    });
                    continue;
                }
                // A CR then LF (or the end): the first line end is CRLF.
                self.first_break_seen = true;
                self.cr_checked = true;
            }
            let n = start + n;
            if n == 0 {
                if self.csv && self.quote == Quote::In {
                    self.pending = Some(GuardError::UnterminatedQuote {
                        line: self.quote_line,
                    });
                    continue;
                }
                return Ok(0);
            }
            let ok = self.scan(&buf[..n]);
            self.cr_checked = false;
            // Nothing to hand on: the problem now, or (a lone CR held back) read on.
            if ok > 0 {
                return Ok(ok);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands on at most `step` bytes per read: every chunk boundary is met.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Read `bytes` through a guard, `step` bytes at a time: what was handed on, and
    /// the guard's error.
    fn guard(bytes: &[u8], csv: bool, step: usize) -> (Vec<u8>, Option<GuardError>) {
        let inner = Trickle { bytes, step };
        let mut g = if csv {
            Guard::csv(inner)
        } else {
            Guard::lines(inner)
        };
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            match g.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, GuardError::of(&e)),
            }
        }
    }

    /// A bare CR inside a CSV row, found at every read boundary; CRLF passes.
    #[test]
    fn a_bare_cr_in_csv_is_found_across_reads() {
        for step in 1..9 {
            let (_, err) = guard(b"a,b\r\nc,\"x\"\rd\r\n", true, step);
            assert_eq!(err, Some(GuardError::BareCr { line: 2 }), "step {step}");
            let (out, err) = guard(b"a,b\r\nc,d\r\ne,f\r", true, step);
            assert_eq!(err, None, "step {step}");
            assert_eq!(out, b"a,b\r\nc,d\r\ne,f\r", "step {step}");
        }
    }

    #[test]
    fn guard_passes_good_files_unchanged_at_every_chunk_size() {
        let cases: [(&[u8], bool); 5] = [
            (b"a b\r\nc d\r\n", false),
            (b"a b\nc d", false),
            (b"one line ending in CR\r", false),
            (b"id,q\r\n1,\"multi\nline \"\"quoted\"\"\"\n2,x\n", true),
            (b"\xEF\xBB\xBF\"id\",q\n1,a\"b\n", true),
        ];
        for (bytes, csv) in cases {
            for step in 1..=bytes.len() {
                assert_eq!(guard(bytes, csv, step), (bytes.to_vec(), None), "{step}");
            }
        }
    }

    #[test]
    fn guard_finds_cr_only_and_unterminated_quotes_at_every_chunk_size() {
        for step in 1..=12 {
            let (out, e) = guard(b"a b\rc d\r", false, step);
            assert_eq!(e, Some(GuardError::CrOnly), "{step}");
            assert_eq!(out, b"a b", "{step}");
            let (_, e) = guard(b"id,q\n1,x\n2,\"open\n3,y\n", true, step);
            assert_eq!(e, Some(GuardError::UnterminatedQuote { line: 3 }), "{step}");
            // a quote inside an unquoted cell is text, not an opening
            assert_eq!(guard(b"id,q\n1,a\"b\n", true, step).1, None, "{step}");
        }
    }

    #[test]
    fn guard_caps_lines_and_quoted_rows() {
        let mut long = b"ok\n".to_vec();
        long.extend(std::iter::repeat_n(b'x', LINE_CAP + 1));
        for step in [1 << 16, LINE_CAP, LINE_CAP * 2] {
            let (out, e) = guard(&long, false, step);
            assert_eq!(e, Some(GuardError::LineTooLong { line: 2 }), "{step}");
            assert_eq!(out.len(), 3 + LINE_CAP, "{step}");
        }
        // exactly the cap is fine
        assert_eq!(guard(&long[..3 + LINE_CAP], false, 1 << 16).1, None);
        // a quoted cell of short lines still counts as one row
        let mut row = b"id,q\n1,\"".to_vec();
        row.extend("short line\n".repeat(LINE_CAP / 10).bytes());
        assert_eq!(
            guard(&row, true, 1 << 16).1,
            Some(GuardError::LineTooLong { line: 2 })
        );
    }
}
