//! What the unjudged docs of a list could change (docs/contract.md §5.3): each metric
//! with the top k's unjudged docs counted as relevant (an upper bound for RR@k, Hit@k,
//! P@k and Recall@k; a value, not a bound, for nDCG@k and AP), and each metric on the
//! judged docs only (Sakai's condensed list, trec_eval `-J`).

use super::{
    Scores, Values, average_precision, evaluate, hit, ndcg, precision, recall, reciprocal_rank,
};
use crate::model::{GoldQuery, Hit, Observed};

/// One list's values with the unjudged docs of its top k counted as relevant at the
/// lowest relevant grade (`min_grade`), each added to the relevant docs of the query:
/// upper bounds for RR, Recall, Hit and P (no labelling of those docs gives more);
/// for nDCG and AP values, not bounds (a relevant doc added to the query also raises
/// nDCG's ideal and AP's divisor, so a label can give more or less).
pub type Upper = Values;

/// The ranks (from 1, ascending) of the unjudged docs in the top k of `o`: the
/// ranks up to min(len, k) that hold no judged doc.
pub fn unjudged_ranks(o: &Observed, k: u32) -> Vec<u32> {
    let top = o.len.min(k);
    let mut judged = o.hits.iter().map(|h| h.rank).take_while(|&r| r <= top);
    let mut next_judged = judged.next();
    let mut out = Vec::new();
    for rank in 1..=top {
        if next_judged == Some(rank) {
            next_judged = judged.next();
        } else {
            out.push(rank);
        }
    }
    out
}

/// The values of `o` at `k` with the unjudged docs of its top k counted as relevant at
/// grade `min_grade`; `None` when its top k holds no unjudged doc (every value would
/// be the list's own). A missing list has none.
pub fn upper(q: &GoldQuery, o: Option<&Observed>, k: u32, min_grade: i64) -> Option<Upper> {
    let o = o?;
    let unjudged = unjudged_ranks(o, k);
    if unjudged.is_empty() {
        return None;
    }
    let added = unjudged.len() as u32;
    let relevant = |h: &Hit| q.judged[h.judged as usize].grade >= min_grade;
    let mut relevant_ranks: Vec<u32> = o
        .hits
        .iter()
        .filter(|h| relevant(h))
        .map(|h| h.rank)
        .collect();
    relevant_ranks.extend(&unjudged);
    relevant_ranks.sort_unstable();
    let in_k = relevant_ranks.iter().filter(|&&r| r <= k).count() as u32;
    let num_rel = q.num_rel + added;
    let grade = min_grade as f64;
    let found = o
        .hits
        .iter()
        .map(|h| (h.rank, q.judged[h.judged as usize].grade as f64))
        .chain(unjudged.iter().map(|&r| (r, grade)));
    let mut ideal: Vec<f64> = q.judged.iter().map(|j| j.grade as f64).collect();
    ideal.extend(std::iter::repeat_n(grade, added as usize));
    Some(Upper {
        rr: reciprocal_rank(relevant_ranks.first().copied(), k),
        recall: recall(in_k, num_rel),
        hit: hit(in_k),
        precision: precision(in_k, k),
        ndcg: ndcg(found, &mut ideal, k),
        ap: average_precision(&relevant_ranks, num_rel),
    })
}

/// Every metric of `q` at `k` on the judged docs of `o` only: the unjudged docs are
/// removed first, the rest keep their order and are ranked 1, 2, … (a condensed
/// list), then cut at k. The first relevant rank is the condensed list's.
pub fn judged_only(q: &GoldQuery, o: Option<&Observed>, k: u32, min_grade: i64) -> Scores {
    evaluate(q, o.map(condensed).as_ref(), k, min_grade)
}

/// `o` without its unjudged docs: the judged ones in their order, ranked 1, 2, ….
pub fn condensed(o: &Observed) -> Observed {
    Observed {
        len: o.hits.len() as u32,
        hits: o
            .hits
            .iter()
            .enumerate()
            .map(|(i, h)| Hit {
                rank: i as u32 + 1,
                judged: h.judged,
            })
            .collect(),
        ..Observed::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Judgement;

    const EPS: f64 = 1e-12;

    /// Judged docs R-1, R-2 (grade 1) and N-1 (grade 0); `U-*` are unjudged.
    fn query() -> GoldQuery {
        let judged = [("R-1", 1), ("R-2", 1), ("N-1", 0)]
            .map(|(doc, grade)| Judgement {
                doc: doc.into(),
                grade,
            })
            .to_vec();
        GoldQuery::new("Q".into(), judged, 1)
    }

    fn observe(q: &GoldQuery, ranking: &[&str]) -> Observed {
        let hits = ranking
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                q.find(d.as_bytes()).map(|j| Hit {
                    rank: i as u32 + 1,
                    judged: j as u32,
                })
            })
            .collect();
        Observed {
            len: ranking.len() as u32,
            hits,
            ..Observed::default()
        }
    }

    #[test]
    fn unjudged_ranks_are_the_top_ks_ranks_without_a_judged_doc() {
        let q = query();
        let o = observe(&q, &["U-1", "N-1", "U-2", "R-1", "U-3"]);
        assert_eq!(unjudged_ranks(&o, 4), [1, 3]);
        assert_eq!(unjudged_ranks(&o, 10), [1, 3, 5]);
        assert!(unjudged_ranks(&observe(&q, &["N-1", "R-1"]), 5).is_empty());
    }

    #[test]
    fn upper_counts_the_unjudged_docs_as_relevant() {
        // N-1 U-1 R-1 | U-2 at k = 3: one unjudged doc in the top 3, at rank 2.
        let q = query();
        let o = observe(&q, &["N-1", "U-1", "R-1", "U-2"]);
        let u = upper(&q, Some(&o), 3, 1).expect("an unjudged doc in the top 3");
        assert!((u.rr - 0.5).abs() < EPS, "{u:?}");
        assert!((u.hit - 1.0).abs() < EPS);
        assert!((u.precision - 2.0 / 3.0).abs() < EPS);
        // (1 relevant + 1 unjudged) / (2 relevant + 1 unjudged)
        assert!((u.recall - 2.0 / 3.0).abs() < EPS);
        // DCG 1/log2(3) + 1/log2(4); ideal over three gains of 1 in the top 3
        let dcg = 1.0 / 3f64.log2() + 0.5;
        let idcg = 1.0 + 1.0 / 3f64.log2() + 0.5;
        assert!((u.ndcg - dcg / idcg).abs() < EPS);
        // relevant at ranks 2 and 3 out of 3: (1/2 + 2/3) / 3
        assert!((u.ap - (0.5 + 2.0 / 3.0) / 3.0).abs() < EPS);
        // today's values are below: RR 1/3, P 1/3, Recall 1/2
        let s = evaluate(&q, Some(&o), 3, 1);
        assert!(s.rr < u.rr && s.precision < u.precision && s.recall < u.recall);
    }

    #[test]
    fn a_fully_judged_or_missing_top_k_has_no_upper() {
        let q = query();
        let o = observe(&q, &["N-1", "R-1", "U-1"]);
        assert_eq!(upper(&q, Some(&o), 2, 1), None);
        assert_eq!(upper(&q, None, 2, 1), None);
        assert_eq!(upper(&q, Some(&Observed::default()), 2, 1), None);
        // beyond k an unjudged doc changes nothing
        assert!(upper(&q, Some(&o), 3, 1).is_some());
    }

    #[test]
    fn upper_rr_is_zero_only_when_the_top_k_is_judged_and_not_relevant() {
        let q = query();
        let judged_out = observe(&q, &["N-1", "R-1"]);
        assert_eq!(upper(&q, Some(&judged_out), 1, 1), None);
        assert_eq!(evaluate(&q, Some(&judged_out), 1, 1).rr, 0.0);
        let hole = observe(&q, &["U-1", "R-1"]);
        assert_eq!(upper(&q, Some(&hole), 1, 1).map(|u| u.rr), Some(1.0));
    }

    #[test]
    fn judged_only_removes_the_unjudged_docs_before_the_cut() {
        // U-1 U-2 N-1 R-1 U-3 R-2 condenses to N-1 R-1 R-2.
        let q = query();
        let o = observe(&q, &["U-1", "U-2", "N-1", "R-1", "U-3", "R-2"]);
        let s = judged_only(&q, Some(&o), 2, 1);
        assert_eq!(s.first_relevant_rank, Some(2));
        assert!((s.rr - 0.5).abs() < EPS);
        assert!((s.precision - 0.5).abs() < EPS);
        assert!((s.recall - 0.5).abs() < EPS);
        assert!((s.ap - (0.5 + 2.0 / 3.0) / 2.0).abs() < EPS);
        // the full list at k = 2 finds nothing
        assert_eq!(evaluate(&q, Some(&o), 2, 1).rr, 0.0);
        // a list with no unjudged doc scores the same either way
        let judged = observe(&q, &["N-1", "R-1", "R-2"]);
        assert_eq!(
            judged_only(&q, Some(&judged), 2, 1),
            evaluate(&q, Some(&judged), 2, 1)
        );
        assert_eq!(judged_only(&q, None, 2, 1), evaluate(&q, None, 2, 1));
    }
}
