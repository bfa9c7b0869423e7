//! Gold data: CSV (`id,question,expected_doc_ids`) or TREC qrels (`qid iter docid
//! grade`). The question column is never read beyond its header.

use rustc_hash::FxHashMap;
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
    Some(GoldSet::new(meta, queries))
}

mod formats;

type RawQuery = (Id, Vec<Judgement>);
/// A query's judgements with the line of each, to report duplicates.
type LinedQuery = (Id, Vec<(Judgement, u64)>);

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
    let mut known = vec!["id", "question", "expected_doc_ids"];
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
    let mut first_line: FxHashMap<Id, u64> = FxHashMap::default();
    let mut rows = 0u64;
    csvio::for_each_row(
        &mut reader,
        display,
        header.width,
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
            let mut judged: Vec<Judgement> = Vec::with_capacity(docs.len());
            for doc in docs {
                if judged.iter().any(|j| &*j.doc == doc) {
                    diag.problem(
                        Location::line(display, line),
                        ProblemKind::DuplicateDocInGold {
                            query: id.clone(),
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
            out.push((Id::from(id), judged));
        },
    );
    if rows == 0 && !diag.has_problems() {
        diag.problem(Location::file(display), ProblemKind::HeaderOnly);
    }
    out
}

fn parse_qrels(bytes: &[u8], display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
    let mut order: Vec<LinedQuery> = Vec::new();
    let mut index: FxHashMap<Id, usize> = FxHashMap::default();
    let mut last: Option<usize> = None;
    let mut any = false;
    lines::for_each_line(bytes, display, diag, |line_no, text, diag| {
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
