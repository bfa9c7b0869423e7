//! The questions `record` asks (docs/contract.md §4.8): a CSV gold's `question`
//! column, or a queries file: TSV `id<TAB>text` (ir_datasets, MS MARCO), JSONL
//! `{"id", "text"}` (BEIR's `_id` too) or TREC topics. The text is held here and
//! handed to the retriever only: no message of this module carries it.

use std::path::Path;

use crate::model::Id;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// One question: its id and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub id: Id,
    pub text: String,
}

/// Which part of a TREC topic is the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TopicField {
    #[default]
    Title,
    Desc,
}

/// The three queries-file layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueriesFormat {
    Tsv,
    Jsonl,
    Trec,
}

impl QueriesFormat {
    /// `.tsv` and `.txt` are TSV, `.jsonl` JSONL; otherwise the content decides:
    /// `<` first is TREC topics, `{` JSONL, anything else TSV.
    pub fn of(path: &Path, bytes: &[u8]) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some("tsv" | "txt") => return Self::Tsv,
            Some("jsonl") => return Self::Jsonl,
            _ => {}
        }
        match strip_bom(bytes).iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'<') => Self::Trec,
            Some(b'{') => Self::Jsonl,
            _ => Self::Tsv,
        }
    }
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Read a queries file; every problem is recorded at its line.
pub fn read_file(path: &Path, field: TopicField, diag: &mut Diagnostics) -> Vec<Question> {
    let display = path.display().to_string();
    let Some(bytes) = crate::load::fs::read_file(path, "queries file", &display, diag) else {
        return Vec::new();
    };
    parse(
        QueriesFormat::of(path, &bytes),
        &bytes,
        &display,
        field,
        diag,
    )
}

/// Parse queries in `format`; duplicates and empty ids are problems at their line.
pub fn parse(
    format: QueriesFormat,
    bytes: &[u8],
    display: &str,
    field: TopicField,
    diag: &mut Diagnostics,
) -> Vec<Question> {
    let Ok(text) = std::str::from_utf8(strip_bom(bytes)) else {
        diag.problem(Location::file(display), ProblemKind::NotUtf8);
        return Vec::new();
    };
    let lined = match format {
        QueriesFormat::Tsv => tsv(text, display, diag),
        QueriesFormat::Jsonl => jsonl(text, display, diag),
        QueriesFormat::Trec => trec(text, field, display, diag),
    };
    let mut seen = rustc_hash::FxHashMap::default();
    let mut out = Vec::with_capacity(lined.len());
    for (line, q) in lined {
        if let Some(first) = seen.insert(q.id.clone(), line) {
            diag.problem(
                Location::line(display, line),
                ProblemKind::DuplicateQuery {
                    query: q.id.to_string(),
                    first,
                },
            );
        } else {
            out.push(q);
        }
    }
    out
}

type Lined = Vec<(u64, Question)>;

fn problem(diag: &mut Diagnostics, display: &str, line: u64, what: &'static str) {
    diag.problem(
        Location::line(display, line),
        ProblemKind::QueriesLine { expected: what },
    );
}

/// A checked id, or a problem at its line.
fn id_at(raw: &str, display: &str, line: u64, diag: &mut Diagnostics) -> Option<Id> {
    let id = raw.trim();
    if id.is_empty() || id.chars().any(char::is_control) {
        problem(
            diag,
            display,
            line,
            "a non-empty query id without control characters",
        );
        return None;
    }
    Some(Id::from(id))
}

/// `id<TAB>text`, one a line; a first line `id<TAB>…` or `query_id<TAB>…` is a header.
fn tsv(text: &str, display: &str, diag: &mut Diagnostics) -> Lined {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let Some((id, question)) = raw.split_once('\t') else {
            problem(diag, display, line, "`id<TAB>text`");
            continue;
        };
        if line == 1 && matches!(id.trim(), "id" | "query_id" | "qid") {
            continue;
        }
        if let Some(id) = id_at(id, display, line, diag) {
            out.push((
                line,
                Question {
                    id,
                    text: question.trim().to_string(),
                },
            ));
        }
    }
    out
}

/// `{"id": …, "text": …}` a line, BEIR's `_id` too; other keys ignored.
fn jsonl(text: &str, display: &str, diag: &mut Diagnostics) -> Lined {
    #[derive(serde::Deserialize)]
    struct Row {
        #[serde(alias = "_id")]
        id: serde_json::Value,
        #[serde(default)]
        text: Option<String>,
    }
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let Ok(row) = serde_json::from_str::<Row>(raw) else {
            problem(
                diag,
                display,
                line,
                "a JSON object with `id` (or `_id`) and `text`",
            );
            continue;
        };
        let id = match &row.id {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => {
                problem(diag, display, line, "`id` as a string or a number");
                continue;
            }
        };
        if let Some(id) = id_at(&id, display, line, diag) {
            let text = row.text.unwrap_or_default().trim().to_string();
            out.push((line, Question { id, text }));
        }
    }
    out
}

/// TREC topics: `<top>` blocks with `<num>` (a leading `Number:` stripped) and
/// `<title>` or `<desc>` (a leading `Topic:` or `Description:` stripped); the
/// closing tags are optional, as in the classic TREC files.
fn trec(text: &str, field: TopicField, display: &str, diag: &mut Diagnostics) -> Lined {
    let (tag, label) = match field {
        TopicField::Title => ("<title>", "Topic:"),
        TopicField::Desc => ("<desc>", "Description:"),
    };
    let mut out = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(start) = rest.find("<top>") {
        let block_end = rest[start..]
            .find("</top>")
            .map_or(rest.len(), |e| start + e);
        let block = &rest[start..block_end];
        let line = text[..offset + start].matches('\n').count() as u64 + 1;
        let num = element(block, "<num>").map(|n| strip_label(n, "Number:"));
        match num {
            None => problem(diag, display, line, "a `<num>` in every `<top>`"),
            Some(num) => {
                if let Some(id) = id_at(num, display, line, diag) {
                    let question = element(block, tag).map(|t| strip_label(t, label));
                    let text = question
                        .unwrap_or("")
                        .split_whitespace()
                        .collect::<Vec<_>>();
                    out.push((
                        line,
                        Question {
                            id,
                            text: text.join(" "),
                        },
                    ));
                }
            }
        }
        let next = (block_end + "</top>".len()).min(rest.len());
        offset += next;
        rest = &rest[next..];
    }
    if out.is_empty() && !diag.has_problems() {
        problem(
            diag,
            display,
            1,
            "TREC topics (`<top><num>…</num><title>…</title></top>`)",
        );
    }
    out
}

/// The text after `tag` up to the next tag.
fn element<'a>(block: &'a str, tag: &str) -> Option<&'a str> {
    let start = block.find(tag)? + tag.len();
    let end = block[start..].find('<').map_or(block.len(), |e| start + e);
    Some(block[start..end].trim())
}

fn strip_label<'a>(text: &'a str, label: &str) -> &'a str {
    text.strip_prefix(label).unwrap_or(text).trim()
}

/// A CSV gold's `question` column, by id. A gold without the column gives nothing.
pub fn from_csv_gold(path: &Path, diag: &mut Diagnostics) -> Option<Vec<Question>> {
    let display = path.display().to_string();
    let bytes = crate::load::fs::read_file(path, "gold data", &display, diag)?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(strip_bom(&bytes));
    let headers = reader.headers().ok()?.clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (id_col, q_col) = (col("id")?, col("question")?);
    let mut out = Vec::new();
    for record in reader.records().flatten() {
        if let (Some(id), Some(q)) = (record.get(id_col), record.get(q_col)) {
            out.push(Question {
                id: Id::from(id.trim()),
                text: q.trim().to_string(),
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(
        format: QueriesFormat,
        text: &str,
        field: TopicField,
    ) -> (Vec<Question>, Diagnostics) {
        let mut diag = Diagnostics::default();
        let q = parse(format, text.as_bytes(), "q", field, &mut diag);
        (q, diag)
    }

    fn pairs(q: &[Question]) -> Vec<(&str, &str)> {
        q.iter().map(|q| (q.id.as_str(), q.text.as_str())).collect()
    }

    #[test]
    fn tsv_skips_a_header_and_blank_lines() {
        let (q, diag) = parsed(
            QueriesFormat::Tsv,
            "query_id\ttext\n1\tfirst one\n\n2\tsecond\n",
            TopicField::Title,
        );
        assert!(diag.problems.is_empty());
        assert_eq!(pairs(&q), [("1", "first one"), ("2", "second")]);
        let (q, _) = parsed(QueriesFormat::Tsv, "1\tfirst\n", TopicField::Title);
        assert_eq!(pairs(&q), [("1", "first")]);
    }

    #[test]
    fn tsv_without_a_tab_is_a_problem_at_its_line() {
        let (_, diag) = parsed(QueriesFormat::Tsv, "1\tok\n2 no tab\n", TopicField::Title);
        assert_eq!(diag.problems.len(), 1);
        assert_eq!(diag.problems[0].location.line, Some(2));
    }

    #[test]
    fn jsonl_takes_beir_ids_and_numbers() {
        let text = "{\"_id\": \"q1\", \"text\": \"a b\", \"metadata\": {}}\n{\"id\": 7, \"text\": \"c\"}\n";
        let (q, diag) = parsed(QueriesFormat::Jsonl, text, TopicField::Title);
        assert!(diag.problems.is_empty());
        assert_eq!(pairs(&q), [("q1", "a b"), ("7", "c")]);
    }

    #[test]
    fn trec_topics_strip_labels_and_pick_the_field() {
        let text = "<top>\n<num> Number: 301\n<title> Topic: oil spills\n<desc> Description:\nWhat harm\ndo they do?\n</top>\n<top><num>302</num><title>\nUPPER CASE\n</title></top>";
        let (q, diag) = parsed(QueriesFormat::Trec, text, TopicField::Title);
        assert!(diag.problems.is_empty());
        assert_eq!(pairs(&q), [("301", "oil spills"), ("302", "UPPER CASE")]);
        let (q, _) = parsed(QueriesFormat::Trec, text, TopicField::Desc);
        assert_eq!(pairs(&q), [("301", "What harm do they do?"), ("302", "")]);
    }

    #[test]
    fn a_duplicate_id_names_its_first_line() {
        let (q, diag) = parsed(QueriesFormat::Tsv, "1\ta\n1\tb\n", TopicField::Title);
        assert_eq!(q.len(), 1);
        assert_eq!(
            diag.problems[0].kind,
            ProblemKind::DuplicateQuery {
                query: "1".into(),
                first: 1
            }
        );
    }

    #[test]
    fn the_format_comes_from_the_extension_then_the_content() {
        assert_eq!(
            QueriesFormat::of(Path::new("q.tsv"), b"<top>"),
            QueriesFormat::Tsv
        );
        assert_eq!(
            QueriesFormat::of(Path::new("q"), b"\n <top>"),
            QueriesFormat::Trec
        );
        assert_eq!(
            QueriesFormat::of(Path::new("q"), b"{\"id\""),
            QueriesFormat::Jsonl
        );
        assert_eq!(
            QueriesFormat::of(Path::new("q.trec"), b"1\tx"),
            QueriesFormat::Tsv
        );
    }
}
