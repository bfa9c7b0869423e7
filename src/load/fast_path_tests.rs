//! The hand-tuned fast paths of `load` checked against their plain standard-library
//! equivalents: the field splitter against `split_ascii_whitespace`, the rank parser
//! against `str::parse`, and streamed lines against `str::split` at every chunk
//! boundary a reader can produce.

use proptest::prelude::*;

use crate::load::lines::{parse_rank, split_fields, stream_lines};
use crate::validate::Diagnostics;

/// Bytes that exercise the splitter: every kind of ASCII white space, other control
/// characters (part of a field), printable ASCII and multi-byte UTF-8.
fn field_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            " ", "\t", "\r", "\x0c", "\x0b", "\x01", "\x7f", "a", "Z", "0", "9", "-", ".", "é",
            "日", "\u{85}", "\u{a0}",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

fn split_all(text: &str) -> (usize, Vec<&str>) {
    let mut out = [""; 8];
    let n = split_fields(text, &mut out);
    (n, out[..n.min(8)].to_vec())
}

proptest! {
    #[test]
    fn split_fields_matches_split_ascii_whitespace(text in field_text()) {
        let expected: Vec<&str> = text.split_ascii_whitespace().collect();
        let (n, stored) = split_all(&text);
        prop_assert_eq!(n, expected.len());
        prop_assert_eq!(&stored[..], &expected[..n.min(8)]);
    }

    #[test]
    fn parse_rank_matches_str_parse(text in "[+-]?[0-9]{0,21}|[+-]?[0-9a-z .]{0,6}") {
        prop_assert_eq!(parse_rank(&text), text.parse::<i64>().ok());
    }

    #[test]
    fn parse_rank_reads_every_i64(n in any::<i64>()) {
        prop_assert_eq!(parse_rank(&n.to_string()), Some(n));
    }
}

#[test]
fn split_fields_across_every_word_offset() {
    // Two separators at every pair of positions in 20 bytes, with bytes on either side
    // of `!` (the whole-line scan's threshold) and a control character in a field.
    for sep in [b' ', b'\t', b'\n', b'\r', 0x0c] {
        for a in 0..20 {
            for b in a..20 {
                let mut bytes: Vec<u8> = (0..20u8)
                    .map(|i| [b'!', b'x', 0x01, 0x7f][usize::from(i % 4)])
                    .collect();
                bytes[a] = sep;
                bytes[b] = sep;
                let text = std::str::from_utf8(&bytes).expect("ASCII");
                let expected: Vec<&str> = text.split_ascii_whitespace().collect();
                assert_eq!(split_all(text).1, expected, "sep {sep} at {a} and {b}");
            }
        }
    }
}

#[test]
fn parse_rank_edges() {
    for text in [
        "",
        "-",
        "+",
        "0",
        "-0",
        "+7",
        "007",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "123456789012345678",
        "1234567890123456789",
        "1.0",
        "1e3",
        " 1",
    ] {
        assert_eq!(parse_rank(text), text.parse::<i64>().ok(), "{text:?}");
    }
}

/// A reader that hands out its bytes in pieces of the given sizes, then the rest.
struct Pieces {
    data: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
}

impl std::io::Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = if self.sizes.is_empty() {
            usize::MAX
        } else {
            self.sizes.remove(0)
        };
        let n = want.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn streamed(data: &[u8], sizes: Vec<usize>) -> Vec<(u64, String)> {
    let mut diag = Diagnostics::default();
    let mut lines = Vec::new();
    let reader = Pieces {
        data: data.to_vec(),
        at: 0,
        sizes,
    };
    stream_lines(
        reader,
        "t",
        &[0, 1, 2, 3, 4],
        &mut diag,
        &|_| {},
        |n, line, _| {
            lines.push((n, line.to_string()));
            true
        },
    )
    .unwrap();
    assert!(diag.problems.is_empty(), "{:?}", diag.problems);
    lines
}

/// What `stream_lines` should yield: `\n`-separated lines, one `\r` before it
/// dropped, a final `\n` ending the last line, a BOM dropped from the first.
fn expected_lines(text: &str) -> Vec<(u64, String)> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() && text.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .enumerate()
        .map(|(i, l)| {
            let l = l.strip_suffix('\r').unwrap_or(l);
            let l = if i == 0 {
                l.strip_prefix('\u{feff}').unwrap_or(l)
            } else {
                l
            };
            (i as u64 + 1, l.to_string())
        })
        .collect()
}

#[test]
fn stream_lines_at_every_chunk_boundary() {
    let inputs = [
        "\u{feff}q1 Q0 d1 1 2.0 t\r\nq1 Q0 d2 2 1.5 t\n\nq2 Q0 é 1 1 t",
        "a\nb\n",
        "one line without an end",
        "\n\n\n",
        "日本\n語\r\n",
    ];
    for text in inputs {
        let bytes = text.as_bytes();
        let expected = expected_lines(text);
        assert_eq!(streamed(bytes, vec![]), expected, "{text:?} whole");
        // A read of 0 bytes means the end, so every piece holds at least one byte.
        for cut in 1..=bytes.len() {
            assert_eq!(
                streamed(bytes, vec![cut]),
                expected,
                "{text:?} cut at {cut}"
            );
            for second in 1..=3 {
                let got = streamed(bytes, vec![cut, second, 1]);
                assert_eq!(
                    got, expected,
                    "{text:?} cut at {cut}, then {second}, then 1"
                );
            }
        }
    }
}

proptest! {
    #[test]
    fn stream_lines_matches_split_whatever_the_pieces(
        lines in prop::collection::vec("[a-z é\r]{0,8}", 0..8),
        trailing in any::<bool>(),
        sizes in prop::collection::vec(1usize..12, 0..10),
    ) {
        let mut text = lines.join("\n");
        if trailing && !text.is_empty() {
            text.push('\n');
        }
        prop_assert_eq!(streamed(text.as_bytes(), sizes), expected_lines(&text));
    }
}
