//! JSON inputs (`docs/contract.md §2.8`): the dict of dicts that ranx, BEIR and
//! pytrec_eval write — a run `{"q1": {"d1": 12.5}}`, qrels `{"q1": {"d1": 1}}` —
//! read as a stream: a serde visitor walks the outer map one query at a time, so a
//! run never sits in memory whole. Also the check that a file's content matches its
//! declared format, for every format.

use std::cell::Cell;
use std::fmt;
use std::io::Read;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::model::DataFormat;
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

/// A JSON value where a number belongs: an integer, another number, or something
/// else (a string, an object …), which is a problem for the caller to name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
    NotNumber,
}

impl Num {
    /// The value as a score: any finite number.
    pub fn score(self) -> Option<f64> {
        match self {
            Self::Int(i) => Some(i as f64),
            Self::Float(f) => Some(f),
            Self::NotNumber => None,
        }
    }

    /// The value as a grade: a whole number only.
    pub fn grade(self) -> Option<i64> {
        match self {
            Self::Int(i) => Some(i),
            _ => None,
        }
    }
}

struct NumVisitor;

impl<'de> Visitor<'de> for NumVisitor {
    type Value = Num;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Num, E> {
        Ok(Num::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Num, E> {
        Ok(i64::try_from(v).map_or(Num::Float(v as f64), Num::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Num, E> {
        Ok(Num::Float(v))
    }
    fn visit_str<E>(self, _: &str) -> Result<Num, E> {
        Ok(Num::NotNumber)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Num, E> {
        Ok(Num::NotNumber)
    }
    fn visit_unit<E>(self) -> Result<Num, E> {
        Ok(Num::NotNumber)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Num, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Num::NotNumber)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Num, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Num::NotNumber)
    }
}

impl<'de> de::Deserialize<'de> for Num {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        d.deserialize_any(NumVisitor)
    }
}

/// A JSON object's entries in file order, duplicates kept (a map type would keep
/// only the last of a duplicated key, hiding the problem).
#[derive(Debug, Default)]
pub struct Pairs(pub Vec<(String, Num)>);

impl<'de> de::Deserialize<'de> for Pairs {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Pairs, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of doc ids to grades")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Num>()? {
                    out.push((k, v));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// `s` as one JSON-pointer token (RFC 6901: `~` as `~0`, `/` as `~1`), control
/// characters shown escaped.
pub fn pointer_token(s: &str) -> String {
    crate::text::safe_id(&s.replace('~', "~0").replace('/', "~1"))
}

/// The JSON pointer of doc `doc` in query `qid` of a dict of dicts (`/Q-1/D-4`).
pub fn dict_pointer(qid: &str, doc: &str) -> String {
    format!("/{}/{}", pointer_token(qid), pointer_token(doc))
}

/// The message of a serde_json error without its position (the location carries
/// the line) and without any input text it quotes (messages show ids only).
pub fn reason(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let mut s = match full.rfind(" at line ") {
        Some(p) => full[..p].to_string(),
        None => full,
    };
    for kind in ["string", "map", "sequence"] {
        let lead = format!("invalid type: {kind} ");
        if s.starts_with(&lead)
            && let Some(p) = s.rfind(", expected")
        {
            s = format!("invalid type: a {kind}{}", &s[p..]);
        }
    }
    s
}

/// A reader that counts the lines it has handed out (serde_json reads a byte at a
/// time, so the count is the line of the token being parsed), skips a leading BOM
/// and tells `progress` how many bytes were read.
pub struct LineReader<'p, R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    started: bool,
    line: Rc<Cell<u64>>,
    progress: &'p dyn Fn(u64),
}

impl<'p, R: Read> LineReader<'p, R> {
    pub fn new(inner: R, progress: &'p dyn Fn(u64)) -> Self {
        Self {
            inner,
            buf: vec![0; 1 << 20],
            pos: 0,
            len: 0,
            started: false,
            line: Rc::new(Cell::new(1)),
            progress,
        }
    }

    /// The line counter, shared with whoever needs the current line.
    pub fn line(&self) -> Rc<Cell<u64>> {
        self.line.clone()
    }

    fn refill(&mut self) -> std::io::Result<()> {
        self.pos = 0;
        self.len = loop {
            match self.inner.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        (self.progress)(self.len as u64);
        if !self.started {
            self.started = true;
            if self.buf[..self.len].starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for LineReader<'_, R> {
    #[inline]
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.len {
            self.refill()?;
            if self.len == 0 {
                return Ok(0);
            }
        }
        let n = out.len().min(self.len - self.pos);
        let chunk = &self.buf[self.pos..self.pos + n];
        if n == 1 {
            out[0] = chunk[0];
            if chunk[0] == b'\n' {
                self.line.set(self.line.get() + 1);
            }
        } else {
            out[..n].copy_from_slice(chunk);
            let lines = memchr::memchr_iter(b'\n', chunk).count() as u64;
            self.line.set(self.line.get() + lines);
        }
        self.pos += n;
        Ok(n)
    }
}

/// What a dict of dicts is fed to: each outer key (a query), each inner entry (a
/// doc and its number), and the end of each query. Ids are already checked.
pub trait DictSink {
    fn start(&mut self, qid: &str, line: u64, diag: &mut Diagnostics);
    fn entry(&mut self, qid: &str, doc: &str, value: Num, line: u64, diag: &mut Diagnostics);
    fn end(&mut self, diag: &mut Diagnostics);
}

struct Cx<'s> {
    sink: &'s mut dyn DictSink,
    diag: &'s mut Diagnostics,
    display: &'s str,
    line: Rc<Cell<u64>>,
    qid: String,
    doc: String,
    /// Whether the current query's id is valid (else its entries are skipped).
    qid_ok: bool,
    any: bool,
}

impl Cx<'_> {
    fn shape(&mut self, pointer: String, expected: &'static str) {
        let line = self.line.get();
        self.diag.problem(
            Location::line(self.display, line),
            ProblemKind::JsonShape { pointer, expected },
        );
    }

    fn valid_id(&mut self, what: &'static str, id: &str) -> bool {
        match id_problem(id) {
            None => true,
            Some(reason) => {
                let line = self.line.get();
                let pointer = match what {
                    "doc" => dict_pointer(&self.qid, id),
                    _ => format!("/{}", pointer_token(id)),
                };
                self.diag.problem(
                    Location::line(self.display, line).pointer(pointer),
                    ProblemKind::InvalidId {
                        what,
                        context: String::new(),
                        reason,
                    },
                );
                false
            }
        }
    }
}

/// Copies a string key into a reused buffer, trimmed.
struct KeyInto<'b>(&'b mut String);

impl<'de> DeserializeSeed<'de> for KeyInto<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyInto<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.clear();
        self.0.push_str(v.trim());
        Ok(())
    }
}

const OUTER: &str = "an object mapping each query id to an object of doc ids";
const INNER: &str = "an object mapping doc ids to numbers";

/// The whole document: an object of queries.
struct Top<'c, 's>(&'c mut Cx<'s>);

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(OUTER)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let cx = self.0;
        while map.next_key_seed(KeyInto(&mut cx.qid))?.is_some() {
            cx.any = true;
            let qid = std::mem::take(&mut cx.qid);
            cx.qid_ok = cx.valid_id("query", &qid);
            if cx.qid_ok {
                cx.sink.start(&qid, cx.line.get(), cx.diag);
            }
            cx.qid = qid;
            map.next_value_seed(Query(cx))?;
            if cx.qid_ok {
                cx.sink.end(cx.diag);
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.shape("/ (the whole file)".into(), OUTER);
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.0.shape("/ (the whole file)".into(), OUTER);
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.shape("/ (the whole file)".into(), OUTER);
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_f64(0.0)
    }
}

/// One query's value: an object of docs.
struct Query<'c, 's>(&'c mut Cx<'s>);

impl<'de> DeserializeSeed<'de> for Query<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Query<'_, '_> {
    fn not_an_object(self) {
        let pointer = format!("/{}", pointer_token(&self.0.qid));
        self.0.shape(pointer, INNER);
    }
}

impl<'de> Visitor<'de> for Query<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(INNER)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let cx = self.0;
        while map.next_key_seed(KeyInto(&mut cx.doc))?.is_some() {
            let line = cx.line.get();
            let value: Num = map.next_value()?;
            if !cx.qid_ok {
                continue;
            }
            let doc = std::mem::take(&mut cx.doc);
            if cx.valid_id("doc", &doc) {
                cx.sink.entry(&cx.qid, &doc, value, line, cx.diag);
            }
            cx.doc = doc;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_an_object();
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_object();
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.visit_f64(0.0)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_f64(0.0)
    }
}

/// Walk a dict of dicts from `input`, feeding `sink`. Returns whether the file held
/// any query; syntax errors are problems at their line (reading stops there), and
/// trailing content after the object is reported as JSONL when it looks like it.
pub fn walk_dict<R: Read>(
    input: R,
    display: &str,
    what: &'static str,
    sink: &mut dyn DictSink,
    diag: &mut Diagnostics,
    progress: &dyn Fn(u64),
) -> bool {
    let reader = LineReader::new(input, progress);
    let line = reader.line();
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut cx = Cx {
        sink,
        diag,
        display,
        line,
        qid: String::new(),
        doc: String::new(),
        qid_ok: false,
        any: false,
    };
    let result = Top(&mut cx).deserialize(&mut de).and_then(|()| de.end());
    let any = cx.any;
    if let Err(e) = result {
        json_error(&e, display, what, diag);
    }
    any
}

/// Record a serde_json error: an I/O error as an unreadable file, trailing content as
/// JSONL (one object a line), anything else as malformed JSON at its line.
fn json_error(e: &serde_json::Error, display: &str, what: &'static str, diag: &mut Diagnostics) {
    use serde_json::error::Category;
    match e.classify() {
        Category::Io => diag.problem(
            Location::file(display),
            ProblemKind::PathUnreadable {
                what,
                path: display.to_string(),
                reason: e.to_string(),
            },
        ),
        Category::Syntax if e.to_string().starts_with("trailing characters") => diag.problem(
            Location::line(display, e.line() as u64),
            ProblemKind::FormatMismatch {
                looks: "JSONL",
                format: "jsonl",
                read_as: "json",
            },
        ),
        _ => diag.problem(
            Location::line(display, e.line() as u64),
            ProblemKind::MalformedJson { reason: reason(e) },
        ),
    }
}

/// What a file's first bytes look like, when that is not `format`: a JSON object
/// read as CSV or TREC, a JSONL file read as JSON and the other way round, or a
/// text file read as JSON. `None` when the content fits (or cannot be told).
pub fn mismatch(prefix: &[u8], format: DataFormat) -> Option<ProblemKind> {
    let text = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let text = &text[start..];
    let first_line = text.split(|&b| b == b'\n').next().unwrap_or(text);
    let json_like = text[0] == b'{' || text[0] == b'[';
    let parsed = serde_json::from_slice::<std::collections::HashMap<String, serde_json::Value>>(
        first_line.trim_ascii(),
    )
    .ok();
    // A complete object on the first line with an `id` key is a JSONL record; one
    // whose values are all objects is a dict of dicts on one line.
    let record = parsed.as_ref().is_some_and(|m| m.contains_key("id"));
    let dict = parsed
        .as_ref()
        .is_some_and(|m| !m.is_empty() && m.values().all(|v| v.is_object()));
    let looks = match format {
        DataFormat::Csv | DataFormat::Trec if json_like => {
            if record {
                DataFormat::Jsonl
            } else {
                DataFormat::Json
            }
        }
        DataFormat::Json if record && !dict => DataFormat::Jsonl,
        DataFormat::Jsonl if json_like && !record && (dict || first_line.trim_ascii() == b"{") => {
            DataFormat::Json
        }
        DataFormat::Json | DataFormat::Jsonl if !json_like => {
            if first_line.contains(&b',') {
                DataFormat::Csv
            } else {
                DataFormat::Trec
            }
        }
        _ => return None,
    };
    Some(ProblemKind::FormatMismatch {
        looks: match looks {
            DataFormat::Csv => "CSV",
            DataFormat::Trec => "TREC",
            DataFormat::Json => "JSON",
            DataFormat::Jsonl => "JSONL",
        },
        format: looks.name(),
        read_as: format.name(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_names_the_format_that_fits() {
        let dict = br#"{"1": {"A": 7.0}}"#;
        let line = b"{\"id\": \"Q-1\", \"retrieved_doc_ids\": [\"D-1\"]}\n";
        let fmt = |p: &[u8], f| mismatch(p, f).map(|k| k.to_string());
        assert!(
            fmt(dict, DataFormat::Trec)
                .unwrap()
                .contains("set format = \"json\"")
        );
        assert!(
            fmt(dict, DataFormat::Csv)
                .unwrap()
                .contains("looks like JSON:")
        );
        assert!(
            fmt(line, DataFormat::Trec)
                .unwrap()
                .contains("set format = \"jsonl\"")
        );
        assert!(
            fmt(line, DataFormat::Json)
                .unwrap()
                .contains("set format = \"jsonl\"")
        );
        assert!(
            fmt(b"{\n \"q\": {}}", DataFormat::Jsonl)
                .unwrap()
                .contains("\"json\"")
        );
        assert!(
            fmt(b"q1 Q0 d 1 2 t\n", DataFormat::Json)
                .unwrap()
                .contains("\"trec\"")
        );
        assert_eq!(fmt(dict, DataFormat::Json), None);
        assert_eq!(fmt(line, DataFormat::Jsonl), None);
        assert_eq!(fmt(b"q1 Q0 d 1 2 t\n", DataFormat::Trec), None);
    }

    #[test]
    fn reasons_quote_no_input_text() {
        let e = serde_json::from_str::<Vec<f64>>(r#"["secret"]"#).unwrap_err();
        let r = reason(&e);
        assert!(!r.contains("secret"), "{r}");
        assert!(!r.contains("line"), "{r}");
    }
}
