//! `compare --cutoffs` (docs/contract.md §6.7): each side at each cutoff, rows of the
//! means table, never the verdict. Fixtures: tests/fixtures/doc_maps.

use crate::common::{EVAL_CAND_JSON, assert_code, assert_invalid, compare_json, run, with};

use crate::doc_maps::{chunks, compare};

#[test]
fn compare_cutoffs_report_each_side_at_each_cutoff_and_the_means() {
    let j = compare_json(
        chunks(),
        &compare("cand.toml", &["--format", "json", "--cutoffs", "5,1,5"]),
        1,
    );
    // D-2 at document rank 2 in the baseline, rank 1 in the candidate.
    let q2 = j.row("Q-2");
    let at = |side: &crate::common::SideJson, c: &str| side.at.as_ref().expect("at")[c];
    let keys: Vec<&String> = q2.baseline.at.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["1", "5"], "each cutoff once");
    assert_eq!(
        (at(&q2.baseline, "1").rr, at(&q2.baseline, "5").rr),
        (0.0, 0.5)
    );
    assert_eq!(at(&q2.candidate, "1").rr, 1.0);
    assert_eq!(at(&q2.baseline, "5").precision, 0.2);
    // The candidate's values agree with `eval --cutoffs` on the candidate alone.
    let e = crate::common::eval_json(chunks(), &with(&EVAL_CAND_JSON, &["--cutoffs", "1,5"]));
    for row in &e.per_query {
        let mine = j.row(&row.id).candidate.at.as_ref().unwrap();
        assert_eq!(row.at.as_ref().unwrap(), mine, "{}", row.id);
    }
    // means_at: each side the mean of the rows, the delta the mean of the deltas.
    let means = j.means_at.as_ref().expect("means_at");
    let n = j.per_query.len() as f64;
    for c in ["1", "5"] {
        let b: f64 = j
            .per_query
            .iter()
            .map(|r| at(&r.baseline, c).ndcg)
            .sum::<f64>()
            / n;
        let k: f64 = j
            .per_query
            .iter()
            .map(|r| at(&r.candidate, c).ndcg)
            .sum::<f64>()
            / n;
        crate::common::assert_close(means[c].ndcg.baseline, b, "baseline nDCG");
        crate::common::assert_close(means[c].ndcg.candidate, k, "candidate nDCG");
        crate::common::assert_close(means[c].ndcg.delta, k - b, "delta nDCG");
    }
    assert_eq!(means["1"].rr.baseline, 0.8);
}

/// k, statuses, means and the gate stay at the pinned k.
#[test]
fn compare_cutoffs_never_change_the_verdict() {
    let plain = compare_json(chunks(), &compare("cand.toml", &["--format", "json"]), 1);
    let with = compare_json(
        chunks(),
        &compare("cand.toml", &["--format", "json", "--cutoffs", "1"]),
        1,
    );
    assert!(plain.means_at.is_none() && plain.per_query.iter().all(|r| r.baseline.at.is_none()));
    assert_eq!(with.k, plain.k);
    assert_eq!(with.means, plain.means);
    assert_eq!(with.gate, plain.gate);
    for (a, b) in plain.per_query.iter().zip(&with.per_query) {
        assert_eq!(
            (&a.id, a.status, a.failure_kind),
            (&b.id, b.status, b.failure_kind)
        );
    }
}

#[test]
fn compare_cutoffs_show_as_rows_of_the_means_table() {
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "1"]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("MRR@1"))
        .expect("an MRR@1 row");
    assert!(
        line.contains("0.8000") && line.contains("0.4000") && line.contains("-0.4000"),
        "{line}"
    );
}

#[test]
fn a_compare_cutoff_outside_the_depth_is_refused() {
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "3,6"]));
    assert_invalid(
        &out,
        &["--cutoffs: 6 is outside 1..=5 (the run's depth); each cutoff must lie in 1..=depth"],
    );
    let out = run(chunks(), &compare("cand.toml", &["--cutoffs", "0"]));
    assert_code(&out, 2);
}
