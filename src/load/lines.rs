//! Line-oriented reading for TREC files: in memory (qrels) or streamed in large
//! chunks (runs), with line numbers, CRLF, a leading BOM and UTF-8 checks in one place.

use std::io::Read;

use crate::validate::{Diagnostics, Location, ProblemKind};

const BOM: &[u8] = b"\xEF\xBB\xBF";
const CHUNK: usize = 1 << 20;

/// Split `text` on ASCII white space into `out`; returns how many fields were
/// stored (at most `out.len()`).
pub fn fields<'a>(text: &'a str, out: &mut [&'a str]) -> usize {
    let mut n = 0;
    for field in text.split_ascii_whitespace() {
        if n == out.len() {
            break;
        }
        out[n] = field;
        n += 1;
    }
    n
}

/// How many white-space separated fields `text` has.
pub fn count_fields(text: &str) -> usize {
    text.split_ascii_whitespace().count()
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
