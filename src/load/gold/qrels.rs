//! TREC qrels (`qid iter docid grade`).

use rustc_hash::FxHashMap;

use super::{LinedQuery, RawQuery};
use crate::load::lines;
use crate::model::{Id, Judgement};
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

pub(super) fn parse_qrels(bytes: &[u8], display: &str, diag: &mut Diagnostics) -> Vec<RawQuery> {
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
pub(super) fn finish_qrels(
    order: Vec<LinedQuery>,
    display: &str,
    diag: &mut Diagnostics,
) -> Vec<RawQuery> {
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
