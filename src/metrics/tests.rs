//! Unit tables for each metric function (their edge cases) and proptest invariants
//! that hold for any ranking. Expected values are worked out by hand from the
//! definitions (docs/contract.md §5) and trec_eval's, not copied from the code.

use proptest::prelude::*;
use rstest::rstest;

use super::*;
use crate::model::{Hit, Judgement};

const EPS: f64 = 1e-12;

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < EPS
}

/// log2(3): the discount at rank 2.
fn l3() -> f64 {
    3f64.log2()
}

/// A gold query as `load::gold` leaves it: judged docs that matter to a metric
/// (relevant, or with a positive nDCG gain) sorted by doc id, and the relevant count.
fn query(judged: &[(&str, i64)], min_grade: i64) -> GoldQuery {
    let judged: Vec<Judgement> = judged
        .iter()
        .map(|(doc, grade)| Judgement {
            doc: (*doc).into(),
            grade: *grade,
        })
        .collect();
    GoldQuery::new("Q".into(), judged, min_grade)
}

/// What `load::run` keeps of a ranking (docs in rank order).
fn observe(q: &GoldQuery, ranking: &[&str]) -> Observed {
    let hits = ranking
        .iter()
        .enumerate()
        .filter_map(|(i, doc)| {
            q.find(doc.as_bytes()).map(|j| Hit {
                rank: i as u32 + 1,
                judged: j as u32,
            })
        })
        .collect();
    Observed {
        len: ranking.len() as u32,
        hits,
        list_hash: 0,
        ..Default::default()
    }
}

#[rstest]
#[case::none_returned(None, 10, 0.0)]
#[case::first_at_rank_1(Some(1), 1, 1.0)]
#[case::exactly_at_k(Some(3), 3, 1.0 / 3.0)]
#[case::at_k_plus_1(Some(4), 3, 0.0)]
#[case::k_larger_than_ranking(Some(2), 100, 0.5)]
#[case::seed_q21(Some(2), 3, 0.5)]
fn reciprocal_rank_table(#[case] first: Option<u32>, #[case] k: u32, #[case] expected: f64) {
    assert!(close(reciprocal_rank(first, k), expected));
}

#[rstest]
#[case::none_in_top_k(0, 2, 0.0)]
#[case::seed_q17_half(1, 2, 0.5)]
#[case::all(2, 2, 1.0)]
#[case::three_of_four(3, 4, 0.75)]
#[case::no_answer_query(0, 0, 0.0)]
fn recall_table(#[case] in_k: u32, #[case] num_rel: u32, #[case] expected: f64) {
    assert!(close(recall(in_k, num_rel), expected));
}

#[rstest]
#[case::none(0, 0.0)]
#[case::one(1, 1.0)]
#[case::several(5, 1.0)]
fn hit_table(#[case] in_k: u32, #[case] expected: f64) {
    assert!(close(hit(in_k), expected));
}

#[rstest]
#[case::none(0, 3, 0.0)]
#[case::one_of_three(1, 3, 1.0 / 3.0)]
#[case::all(3, 3, 1.0)]
// fewer than k returned: still divided by k, as trec_eval's P.k
#[case::k_larger_than_ranking(2, 10, 0.2)]
fn precision_table(#[case] in_k: u32, #[case] k: u32, #[case] expected: f64) {
    assert!(close(precision(in_k, k), expected));
}

#[rstest]
// trec_eval 10: rank 1 is undiscounted, rank r divides by log2(r + 1)
#[case::rank_1(1, 1.0)]
#[case::rank_2(2, 3f64.log2())]
#[case::rank_3(3, 2.0)]
#[case::rank_7(7, 3.0)]
fn discount_table(#[case] rank: u32, #[case] expected: f64) {
    assert!(close(discount(rank), expected));
}

#[rstest]
#[case::nothing_found(vec![], vec![1.0], 3, 0.0)]
#[case::perfect(vec![(1, 1.0)], vec![1.0], 3, 1.0)]
#[case::second_rank(vec![(2, 1.0)], vec![1.0], 3, 1.0 / l3())]
#[case::exactly_at_k(vec![(3, 1.0)], vec![1.0], 3, 0.5)]
#[case::at_k_plus_1(vec![(4, 1.0)], vec![1.0], 3, 0.0)]
#[case::k_larger_than_ranking(vec![(2, 1.0)], vec![1.0], 100, 1.0 / l3())]
// graded: the ideal puts grade 3 first
#[case::graded_swapped(vec![(1, 1.0), (2, 3.0)], vec![1.0, 3.0], 2, (1.0 + 3.0 / l3()) / (3.0 + 1.0 / l3()))]
// the ideal is cut at k too
#[case::ideal_cut_at_k(vec![(1, 1.0)], vec![1.0, 1.0, 1.0], 1, 1.0)]
#[case::ideal_longer_than_k(vec![(1, 1.0)], vec![1.0, 1.0], 2, 1.0 / (1.0 + 1.0 / l3()))]
// tied gains: which of two equal grades comes first does not matter
#[case::tied_gains(vec![(1, 2.0), (2, 2.0)], vec![2.0, 2.0], 2, 1.0)]
#[case::tied_gains_gap(vec![(1, 2.0), (3, 2.0)], vec![2.0, 2.0], 3, (2.0 + 1.0) / (2.0 + 2.0 / l3()))]
// no positive gain at all: 0, not NaN
#[case::no_positive_gain(vec![(1, 0.0)], vec![0.0], 3, 0.0)]
#[case::empty_ideal(vec![], vec![], 3, 0.0)]
// a negative grade has no gain and is not in the ideal
#[case::negative_grade(vec![(1, -1.0), (2, 1.0)], vec![-1.0, 1.0], 2, 1.0 / l3())]
fn ndcg_table(
    #[case] found: Vec<(u32, f64)>,
    #[case] mut ideal: Vec<f64>,
    #[case] k: u32,
    #[case] expected: f64,
) {
    let actual = ndcg(found, &mut ideal, k);
    assert!(
        close(actual, expected),
        "ndcg {actual}, expected {expected}"
    );
}

#[rstest]
#[case::none_returned(vec![], 2, 0.0)]
#[case::first(vec![1], 1, 1.0)]
#[case::second(vec![2], 1, 0.5)]
#[case::two_of_two(vec![1, 3], 2, (1.0 + 2.0 / 3.0) / 2.0)]
// a relevant doc that was not returned counts as precision 0
#[case::one_missing(vec![1], 2, 0.5)]
#[case::demo_q25(vec![1, 4], 2, 0.75)]
#[case::no_answer_query(vec![], 0, 0.0)]
fn average_precision_table(#[case] ranks: Vec<u32>, #[case] num_rel: u32, #[case] expected: f64) {
    assert!(close(average_precision(&ranks, num_rel), expected));
}

/// Expected scores: first relevant rank, rr, recall, hit, precision, ndcg, ap.
type Expect = (Option<u32>, f64, f64, f64, f64, f64, f64);

#[rstest]
#[case::no_relevant_returned(&[("D1", 1)], 1, Some(&["D5", "D6"][..]), 3,
    (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))]
#[case::relevant_exactly_at_k(&[("D1", 1)], 1, Some(&["D5", "D6", "D1"][..]), 3,
    (Some(3), 1.0 / 3.0, 1.0, 1.0, 1.0 / 3.0, 0.5, 1.0 / 3.0))]
// below k: nothing at k, but the first relevant rank and AP see the whole list
#[case::relevant_at_k_plus_1(&[("D1", 1)], 1, Some(&["D5", "D6", "D7", "D1"][..]), 3,
    (Some(4), 0.0, 0.0, 0.0, 0.0, 0.0, 0.25))]
#[case::k_larger_than_ranking(&[("D1", 1)], 1, Some(&["D1"][..]), 10,
    (Some(1), 1.0, 1.0, 1.0, 0.1, 1.0, 1.0))]
#[case::empty_ranking(&[("D1", 1)], 1, Some(&[][..]), 3,
    (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))]
// a query the run does not list counts as an empty ranking (trec_eval -c)
#[case::query_not_in_run(&[("D1", 1)], 1, None, 3,
    (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))]
#[case::seed_q17(&[("D-1", 1), ("D-2", 1)], 1, Some(&["D-2", "D-5", "D-6"][..]), 3,
    (Some(1), 1.0, 0.5, 1.0, 1.0 / 3.0, 1.0 / (1.0 + 1.0 / l3()), 0.5))]
#[case::seed_q18(&[("D-7", 1)], 1, Some(&["D-7", "D-8"][..]), 3,
    (Some(1), 1.0, 1.0, 1.0, 1.0 / 3.0, 1.0, 1.0))]
#[case::seed_q21(&[("D-9", 1)], 1, Some(&["D-4", "D-9", "D-1"][..]), 3,
    (Some(2), 0.5, 1.0, 1.0, 1.0 / 3.0, 1.0 / l3(), 0.5))]
#[case::seed_q23(&[("D-8", 1)], 1, Some(&["D-6", "D-7"][..]), 3,
    (None, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))]
// D1 has grade 1 < min_grade 2: not relevant, but its gain counts for nDCG
#[case::grade_below_min_grade(&[("D1", 1), ("D2", 3)], 2, Some(&["D1", "D2"][..]), 2,
    (Some(2), 0.5, 1.0, 1.0, 0.5, (1.0 + 3.0 / l3()) / (3.0 + 1.0 / l3()), 0.5))]
// only the low grade is returned: every metric but nDCG is 0
#[case::only_low_grade_returned(&[("D1", 1), ("D2", 3)], 2, Some(&["D1", "D9"][..]), 2,
    (None, 0.0, 0.0, 0.0, 0.0, 1.0 / (3.0 + 1.0 / l3()), 0.0))]
// a negative grade is neither relevant nor a gain
#[case::negative_grade(&[("D1", -1), ("D2", 1)], 1, Some(&["D1", "D2"][..]), 2,
    (Some(2), 0.5, 1.0, 1.0, 0.5, 1.0 / l3(), 0.5))]
// min_grade 0 makes grade 0 relevant, with gain 0
#[case::min_grade_zero(&[("D1", 0), ("D2", 1)], 0, Some(&["D1", "D2"][..]), 2,
    (Some(1), 1.0, 1.0, 1.0, 1.0, 1.0 / l3(), 1.0))]
// two relevant docs with the same grade, one of them below k
#[case::tied_grades(&[("D1", 2), ("D2", 2)], 1, Some(&["D2", "D9", "D1"][..]), 2,
    (Some(1), 1.0, 0.5, 1.0, 0.5, 2.0 / (2.0 + 2.0 / l3()), (1.0 + 2.0 / 3.0) / 2.0))]
#[case::graded_qrels(&[("D1", 4), ("D2", 1), ("D3", 2)], 1, Some(&["D3", "D9", "D1", "D2"][..]), 3,
    (Some(1), 1.0, 2.0 / 3.0, 1.0, 2.0 / 3.0,
     (2.0 + 4.0 / 2.0) / (4.0 + 2.0 / l3() + 1.0 / 2.0),
     (1.0 + 2.0 / 3.0 + 3.0 / 4.0) / 3.0))]
fn evaluate_table(
    #[case] judged: &[(&str, i64)],
    #[case] min_grade: i64,
    #[case] ranking: Option<&[&str]>,
    #[case] k: u32,
    #[case] expected: Expect,
) {
    let q = query(judged, min_grade);
    let observed = ranking.map(|r| observe(&q, r));
    let s = evaluate(&q, observed.as_ref(), k, min_grade);
    let (first, rr, rec, h, p, n, ap) = expected;
    assert_eq!(s.first_relevant_rank, first, "first relevant rank");
    for (name, actual, want) in [
        ("rr", s.rr, rr),
        ("recall", s.recall, rec),
        ("hit", s.hit, h),
        ("precision", s.precision, p),
        ("ndcg", s.ndcg, n),
        ("ap", s.ap, ap),
    ] {
        assert!(close(actual, want), "{name}: {actual}, expected {want}");
    }
}

#[rstest]
#[case::not_in_run(None, 3, 1, vec![])]
#[case::empty_ranking(Some(&[][..]), 3, 1, vec![])]
// natural order, not rank order: "D2" < "D9" < "D10"
#[case::natural_order(Some(&["D9", "D10", "D2", "D3"][..]), 3, 1, vec!["D2", "D9", "D10"])]
#[case::cut_at_k(Some(&["D9", "D10", "D2", "D3"][..]), 1, 1, vec!["D9"])]
#[case::k_larger_than_ranking(Some(&["D9", "D10"][..]), 50, 1, vec!["D9", "D10"])]
// D3 has grade 1: a gain for nDCG but below min_grade 2, so not listed
#[case::below_min_grade(Some(&["D3", "D9"][..]), 2, 2, vec!["D9"])]
fn relevant_in_top_k_table(
    #[case] ranking: Option<&[&str]>,
    #[case] k: u32,
    #[case] min_grade: i64,
    #[case] expected: Vec<&str>,
) {
    let q = query(
        &[("D9", 2), ("D10", 2), ("D2", 2), ("D3", 1), ("D4", 2)],
        min_grade,
    );
    let observed = ranking.map(|r| observe(&q, r));
    assert_eq!(
        relevant_in_top_k(&q, observed.as_ref(), k, min_grade),
        expected
    );
}

#[rstest]
#[case::none(vec![], 0.0)]
#[case::one(vec![0.25], 0.25)]
#[case::several(vec![1.0, 0.0, 0.5], 0.5)]
fn mean_table(#[case] values: Vec<f64>, #[case] expected: f64) {
    assert!(close(mean(values), expected));
}

#[test]
fn labels_and_keys() {
    let keys: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
    assert_eq!(
        keys,
        ["rr", "recall", "hit", "precision", "ndcg", "ap"],
        "the JSON keys are part of the contract"
    );
    assert_eq!(Metric::Rr.label(3), "MRR@3");
    assert_eq!(Metric::Ap.label(3), "MAP");
}

/// A random gold query and ranking over the docs D0..D19: judged docs with grades
/// -1..=3 (some below any min_grade), a ranking without duplicates in random order.
fn arb_case() -> impl Strategy<Value = (Vec<(String, i64)>, Vec<String>, i64)> {
    let docs: Vec<String> = (0..20).map(|i| format!("D{i}")).collect();
    let judged = proptest::collection::btree_map(0usize..20, -1i64..=3, 0..10).prop_map({
        let docs = docs.clone();
        move |m| {
            m.into_iter()
                .map(|(i, g)| (docs[i].clone(), g))
                .collect::<Vec<_>>()
        }
    });
    let ranking = proptest::sample::subsequence(docs, 0..=20).prop_shuffle();
    (judged, ranking, 0i64..=3)
}

fn scores_at(judged: &[(String, i64)], ranking: &[String], min_grade: i64, k: u32) -> Scores {
    let judged: Vec<(&str, i64)> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
    let ranking: Vec<&str> = ranking.iter().map(String::as_str).collect();
    let q = query(&judged, min_grade);
    let obs = observe(&q, &ranking);
    evaluate(&q, Some(&obs), k, min_grade)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_metric_is_in_unit_interval((judged, ranking, min_grade) in arb_case(), k in 1u32..=25) {
        let s = scores_at(&judged, &ranking, min_grade, k);
        for m in Metric::ALL {
            let v = m.of(&s);
            prop_assert!((0.0..=1.0).contains(&v), "{} = {v}", m.key());
        }
    }

    #[test]
    fn recall_never_decreases_with_k((judged, ranking, min_grade) in arb_case()) {
        let mut last = 0.0;
        for k in 1..=ranking.len() as u32 + 2 {
            let r = scores_at(&judged, &ranking, min_grade, k).recall;
            prop_assert!(r >= last, "recall@{k} = {r} < {last}");
            last = r;
        }
    }

    #[test]
    fn hit_is_at_least_rr((judged, ranking, min_grade) in arb_case(), k in 1u32..=25) {
        let s = scores_at(&judged, &ranking, min_grade, k);
        prop_assert!(s.hit >= s.rr);
        prop_assert_eq!(s.hit > 0.0, s.rr > 0.0);
    }

    #[test]
    fn precision_times_k_is_recall_times_num_rel(
        (judged, ranking, min_grade) in arb_case(),
        k in 1u32..=25,
    ) {
        let s = scores_at(&judged, &ranking, min_grade, k);
        let num_rel = judged.iter().filter(|(_, g)| *g >= min_grade).count() as f64;
        let lhs = s.precision * f64::from(k);
        let rhs = s.recall * num_rel;
        prop_assert!((lhs - rhs).abs() < 1e-9, "P*k = {lhs}, recall*num_rel = {rhs}");
    }

    #[test]
    fn rr_follows_the_first_relevant_rank(
        (judged, ranking, min_grade) in arb_case(),
        k in 1u32..=25,
    ) {
        let s = scores_at(&judged, &ranking, min_grade, k);
        let first = ranking
            .iter()
            .position(|d| judged.iter().any(|(j, g)| j == d && *g >= min_grade))
            .map(|i| i as u32 + 1);
        prop_assert_eq!(s.first_relevant_rank, first);
        let expected = match first {
            Some(r) if r <= k => 1.0 / f64::from(r),
            _ => 0.0,
        };
        prop_assert!(close(s.rr, expected));
    }

    #[test]
    fn ap_does_not_depend_on_k((judged, ranking, min_grade) in arb_case(), k in 1u32..=25) {
        let a = scores_at(&judged, &ranking, min_grade, k).ap;
        let b = scores_at(&judged, &ranking, min_grade, 1).ap;
        prop_assert!(close(a, b));
    }
}

/// The gold query and what a reader keeps of `ranking`.
fn observed_case(
    judged: &[(String, i64)],
    ranking: &[String],
    min_grade: i64,
) -> (GoldQuery, Observed) {
    let refs: Vec<(&str, i64)> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
    let q = query(&refs, min_grade);
    let obs = observe(&q, &ranking.iter().map(String::as_str).collect::<Vec<_>>());
    (q, obs)
}

/// Scores of `ranking` when every doc of its top k the gold does not judge is judged
/// relevant at `min_grade`: what [`bounds::upper`] promises, computed by labelling.
fn labelled_at(judged: &[(String, i64)], ranking: &[String], min_grade: i64, k: u32) -> Scores {
    let mut judged = judged.to_vec();
    for doc in ranking.iter().take(k as usize) {
        if !judged.iter().any(|(d, _)| d == doc) {
            judged.push((doc.clone(), min_grade));
        }
    }
    scores_at(&judged, ranking, min_grade, k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn upper_is_the_labelled_value_and_bounds_todays(
        (judged, ranking, min_grade) in arb_case(),
        k in 1u32..=25,
    ) {
        let (q, obs) = observed_case(&judged, &ranking, min_grade);
        let today = evaluate(&q, Some(&obs), k, min_grade);
        let labelled = labelled_at(&judged, &ranking, min_grade, k);
        match bounds::upper(&q, Some(&obs), k, min_grade) {
            None => {
                prop_assert_eq!(obs.unjudged_at(k), 0);
                prop_assert_eq!(labelled, today);
            }
            Some(u) => {
                for m in Metric::ALL {
                    prop_assert!(close(u.get(m), m.of(&labelled)), "{}: {} vs {}", m.key(), u.get(m), m.of(&labelled));
                }
                for m in [Metric::Rr, Metric::Recall, Metric::Hit, Metric::Precision] {
                    prop_assert!(u.get(m) >= m.of(&today) - EPS, "{}", m.key());
                }
                prop_assert!(u.rr > 0.0, "an unjudged doc in the top k makes RR@k positive");
            }
        }
    }

    #[test]
    fn judged_only_is_the_list_without_its_unjudged_docs(
        (judged, ranking, min_grade) in arb_case(),
        k in 1u32..=25,
    ) {
        let (q, obs) = observed_case(&judged, &ranking, min_grade);
        let condensed: Vec<String> = ranking.iter().filter(|d| q.find(d.as_bytes()).is_some()).cloned().collect();
        prop_assert_eq!(bounds::judged_only(&q, Some(&obs), k, min_grade), scores_at(&judged, &condensed, min_grade, k));
    }
}
