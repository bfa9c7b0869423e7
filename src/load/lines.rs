//! Line-oriented reading for TREC files: in memory (qrels) or streamed in large
//! chunks (runs), with line numbers, CRLF, a leading BOM and UTF-8 checks in one
//! place; the one white-space field splitter and the rank parser, both tuned for a
//! run's every line (checked against the standard library in `fast_path_tests`).

use std::io::Read;

use crate::validate::{Diagnostics, Location, ProblemKind};

const BOM: &[u8] = b"\xEF\xBB\xBF";
const CHUNK: usize = 1 << 20;

/// The end of the field starting at `from`: the first ASCII white space byte at or
/// after it, or the end. Eight bytes at a time: for every line of a run this is
/// most of the work.
pub fn field_end(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let len = bytes.len();
    let mut i = from;
    while i < len {
        if i + 8 <= len {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[i..i + 8]);
            let x = u64::from_le_bytes(word);
            // High bit set in each byte below 0x21 (exact for the lowest one, which
            // is all that is used; bytes >= 0x80 never match).
            let low = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
            if low == 0 {
                i += 8;
                continue;
            }
            i += (low.trailing_zeros() / 8) as usize;
        } else if bytes[i] > b' ' {
            i += 1;
            continue;
        }
        if bytes[i].is_ascii_whitespace() {
            return i;
        }
        i += 1; // another control character: part of the field (and refused later)
    }
    len
}

/// Split `line` on ASCII white space into `out`; returns how many fields there are
/// in all (only the first `out.len()` are stored).
pub fn split_fields<'t>(line: &'t str, out: &mut [&'t str]) -> usize {
    let bytes = line.as_bytes();
    let len = bytes.len();
    let mut n = 0;
    let mut i = 0;
    loop {
        while i < len && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == len {
            return n;
        }
        let end = field_end(bytes, i);
        if n < out.len() {
            // Splitting at ASCII bytes keeps UTF-8 boundaries.
            out[n] = &line[i..end];
        }
        n += 1;
        i = end;
    }
}

/// The rank column: a whole number (optionally signed), as `i64::from_str` reads
/// it but without its generality, since this runs for every line.
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
    diag: &mut Diagnostics,
) -> Option<&'a str> {
    if line_no == 1 && raw.starts_with(BOM) {
        raw = &raw[BOM.len()..];
    }
    if let [rest @ .., b'\r'] = raw {
        raw = rest;
    }
    match std::str::from_utf8(raw) {
        Ok(text) => Some(text),
        Err(_) => {
            diag.problem(Location::line(display, line_no), ProblemKind::NotUtf8);
            None
        }
    }
}

/// Call `f` for every line of an in-memory file (numbered from 1, without its line
/// end); lines that are not UTF-8 are reported and skipped.
pub fn for_each_line(
    bytes: &[u8],
    display: &str,
    diag: &mut Diagnostics,
    mut f: impl FnMut(u64, &str, &mut Diagnostics),
) {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if body.is_empty() {
        return;
    }
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        if let Some(text) = as_text(raw, line_no, display, diag) {
            f(line_no, text, diag);
        }
    }
}

/// Stream the lines of `reader` in large chunks, calling `f` for each; `progress` is
/// told how many bytes were consumed after every chunk. Stops early when `f` returns
/// false. Returns the read error, if any. UTF-8 is checked a chunk at a time, and
/// line by line only in a chunk that fails, to name the line.
pub fn stream_lines<R: Read>(
    mut reader: R,
    display: &str,
    diag: &mut Diagnostics,
    progress: &dyn Fn(u64),
    mut f: impl FnMut(u64, &str, &mut Diagnostics) -> bool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let mut filled = 0usize;
    let mut line_no = 0u64;
    loop {
        if filled == buf.len() {
            // A line longer than the buffer: grow it.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
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
                            return Ok(());
                        }
                    }
                }
                Err(_) => {
                    for raw in block.split(|&b| b == b'\n') {
                        line_no += 1;
                        if let Some(text) = as_text(raw, line_no, display, diag)
                            && !f(line_no, text, diag)
                        {
                            return Ok(());
                        }
                    }
                }
            }
        }
        progress(end as u64);
        if eof {
            return Ok(());
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
    }
}
