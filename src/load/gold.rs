//! Gold data: CSV (`id,question,expected_doc_ids`) or TREC qrels (`qid iter docid
//! grade`). The question column is never read beyond its header.

use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

use crate::load::csvio::{self, Header};
use crate::load::lines;
use crate::model::{DataFormat, GoldMeta, GoldQuery, GoldSet, Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

/// The sha256 of a gold data file, as `freeze` records it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Read and parse the gold data named by `meta`, checking it against the recorded
/// sha256. `extra_ok` lists columns that are expected beside the gold's own (the
/// one-file layout's run columns).
pub fn load(meta: GoldMeta, extra_ok: &[&str], diag: &mut Diagnostics) -> Option<GoldSet> {
    let display = meta.data.display().to_string();
    let bytes = crate::load::fs::read_file(&meta.data, "gold data", &display, diag)?;
    if let Some(recorded) = &meta.sha256 {
        let actual = sha256_hex(&bytes);
        if &actual != recorded {
            let manifest = meta
                .manifest
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| display.clone());
            diag.problem(
                Location::file(manifest),
                ProblemKind::GoldChanged {
                    recorded: recorded.clone(),
                    actual,
                },
            );
            return None;
        }
    }
    parse(meta, &bytes, extra_ok, diag)
}

/// Parse gold data already in memory (the fuzz targets and tests use this).
pub fn parse(
    meta: GoldMeta,
    bytes: &[u8],
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Option<GoldSet> {
    let display = meta.data.display().to_string();
    let before = diag.problems.len();
    if let Some(kind) = crate::load::json::mismatch(&bytes[..bytes.len().min(1 << 16)], meta.format)
    {
        diag.problem(Location::file(&display), kind);
        return None;
    }
    let raw = match meta.format {
        DataFormat::Csv => parse_csv(bytes, &display, extra_ok, diag),
        DataFormat::Trec => parse_qrels(bytes, &display, diag),
        DataFormat::Json => formats::parse_json(bytes, &display, diag),
        DataFormat::Jsonl => formats::parse_jsonl(bytes, &display, diag),
    };
    if diag.problems.len() > before {
        return None;
    }
    let queries = raw
        .into_iter()
        .map(|(id, judged)| GoldQuery::new(id, judged, meta.min_grade))
        .collect();
    let mut gold = GoldSet::new(meta, queries);
    // docs/contract.md §6.6: a CSV gold's `tags` column.
    if gold.meta.format == DataFormat::Csv
        && !crate::load::tags::from_csv_column(&mut gold, bytes, &display, diag)
    {
        return None;
    }
    Some(gold)
}

mod formats;

type RawQuery = (Id, Vec<Judgement>);
/// A query's judgements with the line of each, to report duplicates.
type LinedQuery = (Id, Vec<(Judgement, u64)>);

/// The relevant docs of one CSV row (grade 1), each once: a doc listed twice is a
/// problem at `at`. A set, not a scan of the list so far: one row of 100,000 ids is
/// linear.
fn relevant(docs: &[&str], id: &str, at: Location, diag: &mut Diagnostics) -> Vec<Judgement> {
    let mut judged: Vec<Judgement> = Vec::with_capacity(docs.len());
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(docs.len());
    for &doc in docs {
        if !seen.insert(doc) {
            diag.problem(
                at.clone(),
                ProblemKind::DuplicateDocInGold {
                    query: id.to_string(),
                    doc: doc.to_string(),
                },
            );
            continue;
        }
        judged.push(Judgement {
            doc: doc.into(),
            grade: 1,
        });
    }
    judged
}

fn parse_csv(
    bytes: &[u8],
    display: &str,
    extra_ok: &[&str],
    diag: &mut Diagnostics,
) -> Vec<RawQuery> {
    let mut out = Vec::new();
    let Some(mut reader) = csvio::open(bytes, display, diag) else {
        return out;
    };
    let required = "`id` and `expected_doc_ids`";
    let mut known = vec!["id", "question", "expected_doc_ids", NON_RELEVANT, "tags"];
    known.extend_from_slice(extra_ok);
    let Some(header) = Header::read(
        &mut reader,
        display,
        &known,
        &["id", "expected_doc_ids"],
        diag,
    ) else {
        return out;
    };
    let (Some(id_col), Some(exp_col)) = (
        header.require("id", required, display, diag),
        header.require("expected_doc_ids", required, display, diag),
    ) else {
        return out;
    };
    let non_rel_col = header.position(NON_RELEVANT);
    let mut first_line: FxHashMap<Id, u64> = FxHashMap::default();
    let mut rows = 0u64;
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
        &[id_col, exp_col],
        diag,
        |record, line, diag| {
            rows += 1;
            let Some(id) = csvio::cell_id(record, id_col, "query", "", line, display, diag) else {
                return;
            };
            if let Some(&first) = first_line.get(id.as_str()) {
                diag.problem(
                    Location::line(display, line),
                    ProblemKind::DuplicateQuery { query: id, first },
                );
                return;
            }
            first_line.insert(Id::from(id.as_str()), line);
            let Some(docs) = csvio::id_list(record, exp_col, &id, line, display, diag) else {
                return;
            };
            let mut judged = relevant(&docs, &id, Location::line(display, line), diag);
            if let Some(col) = non_rel_col {
                let at = Location::line(display, line);
                non_relevant(record, col, &id, at, &mut judged, diag);
            }
            out.push((Id::from(id), judged));
        },
    );
    if rows == 0 && !diag.has_problems() {
        diag.problem(Location::file(display), ProblemKind::HeaderOnly);
    }
    out
}

/// The optional CSV column of docs a person judged not relevant (docs/contract.md §6.3).
pub const NON_RELEVANT: &str = "non_relevant_doc_ids";

/// Add a row's `non_relevant_doc_ids` to `judged` with grade 0; a doc listed twice
/// there, or also among the expected docs, is a problem at `at`.
fn non_relevant(
    record: &csv::ByteRecord,
    col: usize,
    query: &str,
    at: Location,
    judged: &mut Vec<Judgement>,
    diag: &mut Diagnostics,
) {
    let line = at.line.unwrap_or(0);
    let Some(docs) = csvio::id_list(record, col, query, line, &at.file, diag) else {
        return;
    };
    let expected = judged.len();
    for doc in docs {
        let kind = match judged.iter().position(|j| &*j.doc == doc) {
            None => {
                judged.push(Judgement {
                    doc: doc.into(),
                    grade: 0,
                });
                continue;
            }
            Some(i) if i < expected => ProblemKind::JudgedBothWays {
                query: query.to_string(),
                doc: doc.to_string(),
            },
            Some(_) => ProblemKind::DuplicateNonRelevant {
                query: query.to_string(),
                doc: doc.to_string(),
            },
        };
        diag.problem(at.clone(), kind);
    }
}

fn parse_qrels(bytes: &[u8], display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
    let mut order: Vec<LinedQuery> = Vec::new();
    let mut index: FxHashMap<Id, usize> = FxHashMap::default();
    let mut last: Option<usize> = None;
    let mut any = false;
    // qid, docid and grade must be UTF-8; the iter column is ignored.
    lines::for_each_line(bytes, display, &[0, 2, 3], diag, |line_no, text, diag| {
        let mut f = [""; 4];
        let n = lines::split_fields(text, &mut f);
        if n == 0 {
            return;
        }
        any = true;
        if n != 4 {
            diag.problem(
                Location::line(display, line_no),
                ProblemKind::MalformedTrec {
                    kind: "qrels",
                    expected: "4 fields `qid iter docid grade`",
                    found: n,
                },
            );
            return;
        }
        let (qid, doc, grade) = (f[0], f[2], f[3]);
        for (what, id) in [("query", qid), ("doc", doc)] {
            if let Some(reason) = id_problem(id) {
                diag.problem(
                    Location::line(display, line_no),
                    ProblemKind::InvalidId {
                        what,
                        context: String::new(),
                        reason,
                    },
                );
                return;
            }
        }
        let Ok(grade) = grade.parse::<i64>() else {
            diag.problem(
                Location::line(display, line_no),
                ProblemKind::BadGrade {
                    query: qid.to_string(),
                    doc: doc.to_string(),
                },
            );
            return;
        };
        // Qrels are usually grouped by query: skip the lookup while the query repeats.
        let qi = match last {
            Some(i) if &*order[i].0 == qid => i,
            _ => *index.entry(qid.into()).or_insert_with(|| {
                order.push((qid.into(), Vec::new()));
                order.len() - 1
            }),
        };
        last = Some(qi);
        order[qi].1.push((
            Judgement {
                doc: doc.into(),
                grade,
            },
            line_no,
        ));
    });
    if !any && !diag.has_problems() {
        diag.problem(
            Location::file(display),
            ProblemKind::EmptyFile {
                expected: "qrels lines `qid iter docid grade`",
            },
        );
    }
    finish_qrels(order, display, diag)
}

/// Each query's judgements sorted by doc, a doc judged twice reported at its second
/// line.
fn finish_qrels(order: Vec<LinedQuery>, display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
    order
        .into_iter()
        .map(|(qid, mut judged)| {
            judged.sort_by(|a, b| a.0.doc.cmp(&b.0.doc).then(a.1.cmp(&b.1)));
            for w in judged.windows(2) {
                if w[0].0.doc == w[1].0.doc {
                    diag.problem(
                        Location::line(display, w[1].1),
                        ProblemKind::DuplicateDocInGold {
                            query: qid.to_string(),
                            doc: w[1].0.doc.to_string(),
                        },
                    );
                }
            }
            (qid, judged.into_iter().map(|(j, _)| j).collect())
        })
        .collect()
}
