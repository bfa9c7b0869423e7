//! trec_eval parity: every per-query value ragdiff prints equals trec_eval's to 4
//! decimals (docs/contract.md §5), on trec_eval's own test inputs and on two Vaswani runs
//! with ties, constant-score queries and missing queries.
//!
//! The inputs live outside the repository, in the folder named by
//! `RAGDIFF_REFERENCE_DIR` (in CI `../shared/reference`; a relative path is taken from
//! the crate's root). When it is unset each test says so on stderr and passes.
//!
//! trec_eval's `all` line averages over every qrels query, those with no relevant doc
//! included (scored 0); ragdiff lists those as no-answer queries and leaves them out
//! of its means. So the means are compared as sums: trec mean * n_trec == ragdiff
//! mean * n_ragdiff, with the no-answer ids asserted explicitly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::{EvalJson, Row, eval_json, fixture, reference_dir};

/// trec_eval prints 4 decimals: a value within half a unit of the last one matches.
pub const TOLERANCE: f64 = 0.5e-4 + 1e-9;

const KS: [u32; 5] = [1, 3, 5, 10, 100];

/// measure -> query -> value, from trec_eval's `measure<TAB>query<TAB>value` lines
/// (the measure padded with spaces).
pub type Expected = BTreeMap<String, BTreeMap<String, f64>>;

pub fn read_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Expected::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let [measure, query, value] = fields[..] else {
            panic!(
                "{}:{}: not `measure\\tquery\\tvalue`",
                path.display(),
                i + 1
            );
        };
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("{}:{}: value {value}", path.display(), i + 1));
        out.entry(measure.to_string())
            .or_default()
            .insert(query.to_string(), value);
    }
    assert!(!out.is_empty(), "{} is empty", path.display());
    out
}

/// One qrels + run with trec_eval's outputs for it.
struct Pair {
    name: String,
    /// ragdiff runs from here, so its messages show short names.
    dir: PathBuf,
    qrels: String,
    run: String,
    /// recall, success, ndcg_cut, P and num_rel per query.
    expected: PathBuf,
    /// `recip_rank` with `-M K`, by K.
    recip_rank_at: Vec<(u32, PathBuf)>,
    /// `map` and `recip_rank` (the whole list).
    map: PathBuf,
    /// Judged queries with no relevant doc.
    no_answer: Vec<&'static str>,
}

/// Reads one metric from a per-query row.
type Getter = fn(&Row) -> f64;

/// The ragdiff value of `measure` for `row`, with the K it is computed at (None: the
/// run's depth, i.e. the whole list).
fn ragdiff_value(measure: &str) -> Option<(Option<u32>, Getter)> {
    let (name, k) = match measure.rsplit_once('_') {
        Some((name, k)) if k.chars().all(|c| c.is_ascii_digit()) => {
            (name, Some(k.parse::<u32>().expect("a number")))
        }
        _ => (measure, None),
    };
    let get: Getter = match name {
        "recall" => |r| r.recall,
        "success" => |r| r.hit,
        "ndcg_cut" => |r| r.ndcg,
        "P" => |r| r.precision,
        "map" => |r| r.ap,
        "recip_rank" => |r| r.rr,
        _ => return None,
    };
    Some((k, get))
}

fn mean_of(json: &EvalJson, get: Getter) -> f64 {
    if json.per_query.is_empty() {
        return 0.0;
    }
    json.per_query.iter().map(get).sum::<f64>() / json.per_query.len() as f64
}

/// Compare one trec_eval measure (every query and `all`) with ragdiff's output at the
/// matching k; returns how many values were compared.
fn compare(
    pair: &Pair,
    measure: &str,
    values: &BTreeMap<String, f64>,
    json: &EvalJson,
    get: Getter,
) -> usize {
    let what = format!("{} {measure} (ragdiff k = {})", pair.name, json.k);
    let rows: BTreeMap<&str, &Row> = json.per_query.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut n_trec = 0usize;
    for (query, &expected) in values {
        if query == "all" {
            continue;
        }
        n_trec += 1;
        match rows.get(query.as_str()) {
            Some(row) => {
                let actual = get(row);
                assert!(
                    (actual - expected).abs() <= TOLERANCE,
                    "{what}, query {query}: ragdiff {actual}, trec_eval {expected}"
                );
            }
            None => {
                assert!(
                    json.no_answer.contains(query),
                    "{what}: query {query} is neither scored nor a no-answer query"
                );
                assert_eq!(
                    expected, 0.0,
                    "{what}: trec_eval scores no-answer query {query}"
                );
            }
        }
    }
    assert_eq!(
        n_trec,
        json.per_query.len() + json.no_answer.len(),
        "{what}: trec_eval and ragdiff see different queries"
    );
    let all = *values
        .get("all")
        .unwrap_or_else(|| panic!("{what}: no `all` line"));
    let n_ragdiff = json.per_query.len() as f64;
    let trec_sum = all * n_trec as f64;
    let ragdiff_sum = mean_of(json, get) * n_ragdiff;
    assert!(
        (trec_sum - ragdiff_sum).abs() <= TOLERANCE * n_trec as f64,
        "{what}: trec_eval mean {all} over {n_trec} queries, ragdiff mean {} over {n_ragdiff}",
        mean_of(json, get)
    );
    n_trec
}

/// `ragdiff eval QRELS RUN --format json --k K EXTRA…` from `dir`, exit 0.
pub fn eval_at(dir: &Path, [qrels, run]: [&str; 2], k: u32, extra: &[&str]) -> EvalJson {
    let k_text = k.to_string();
    let mut args = vec!["eval", qrels, run, "--format", "json", "--k", &k_text];
    args.extend_from_slice(extra);
    let json = eval_json(dir, &args);
    assert_eq!(json.k, k);
    json
}

/// Run ragdiff on the pair at every K and at the depth, and compare every value.
fn check(pair: &Pair) {
    let eval = |k: u32| eval_at(&pair.dir, [&pair.qrels, &pair.run], k, &[]);
    let mut by_k: BTreeMap<Option<u32>, EvalJson> = BTreeMap::new();
    for k in KS {
        by_k.insert(Some(k), eval(k));
    }
    // the whole list: k = the depth, which for a bare run is the longest list
    let depth = by_k[&Some(100)].run.depth;
    by_k.insert(None, eval(depth));

    // the no-answer queries: exactly the judged queries with num_rel 0
    let expected = read_expected(&pair.expected);
    let no_rel: BTreeSet<&str> = expected["num_rel"]
        .iter()
        .filter(|(q, n)| *q != "all" && **n == 0.0)
        .map(|(q, _)| q.as_str())
        .collect();
    assert_eq!(
        no_rel,
        pair.no_answer.iter().copied().collect(),
        "{}: queries with num_rel 0",
        pair.name
    );
    for json in by_k.values() {
        assert_eq!(json.no_answer, pair.no_answer, "{}: no_answer", pair.name);
    }

    let mut compared = 0;
    let mut measures = BTreeSet::new();
    for (measure, values) in &expected {
        let Some((k, get)) = ragdiff_value(measure) else {
            assert!(
                ["num_rel", "num_ret", "map", "recip_rank"].contains(&measure.as_str()),
                "{}: unexpected measure {measure}",
                pair.name
            );
            continue;
        };
        if measure == "map" || measure == "recip_rank" {
            continue; // checked from the map file below
        }
        compared += compare(pair, measure, values, &by_k[&k], get);
        measures.insert(measure.clone());
    }
    let want: BTreeSet<String> = [
        "recall_1",
        "recall_3",
        "recall_5",
        "recall_10",
        "recall_100",
        "success_1",
        "success_3",
        "success_5",
        "success_10",
        "ndcg_cut_3",
        "ndcg_cut_5",
        "ndcg_cut_10",
        "P_3",
        "P_10",
    ]
    .map(String::from)
    .into();
    assert_eq!(measures, want, "{}: measures compared", pair.name);

    // RR@K: trec_eval -M K -m recip_rank
    assert_eq!(
        pair.recip_rank_at
            .iter()
            .map(|(k, _)| *k)
            .collect::<Vec<_>>(),
        [1, 3, 5, 10]
    );
    for (k, path) in &pair.recip_rank_at {
        let expected = read_expected(path);
        compared += compare(
            pair,
            &format!("recip_rank -M {k}"),
            &expected["recip_rank"],
            &by_k[&Some(*k)],
            |r| r.rr,
        );
    }

    // AP over the whole list at every k, and RR over the whole list (k = depth)
    let map = read_expected(&pair.map);
    for json in by_k.values() {
        compared += compare(pair, "map", &map["map"], json, |r| r.ap);
    }
    compared += compare(pair, "recip_rank", &map["recip_rank"], &by_k[&None], |r| {
        r.rr
    });
    assert!(compared > 0);
}

/// The pairs of trec_eval's test inputs that have `expected.Q.R.tsv` files: Q is a
/// `qrels*` file and R a `results*` file of the folder.
fn trec_eval_pairs(reference: &Path) -> Vec<Pair> {
    let dir = reference.join("trec_eval");
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut pairs = Vec::new();
    for name in &names {
        let Some(stem) = name
            .strip_prefix("expected.")
            .and_then(|s| s.strip_suffix(".tsv"))
        else {
            continue;
        };
        if stem.contains(".recip_rank_at_") {
            continue;
        }
        let (qrels, run) = names
            .iter()
            .filter(|q| q.starts_with("qrels"))
            .find_map(|q| {
                let run = stem.strip_prefix(q.as_str())?.strip_prefix('.')?;
                names.contains(run).then(|| (q.clone(), run.to_string()))
            })
            .unwrap_or_else(|| panic!("{name}: no qrels and run file in {}", dir.display()));
        let recip_rank_at = [1, 3, 5, 10]
            .map(|k| {
                (
                    k,
                    dir.join(format!("expected.{stem}.recip_rank_at_{k}.tsv")),
                )
            })
            .to_vec();
        let no_answer = if qrels == "qrels.comment.test" {
            vec!["2024-36302"]
        } else {
            vec![]
        };
        pairs.push(Pair {
            name: stem.to_string(),
            dir: dir.clone(),
            qrels,
            run,
            expected: dir.join(name),
            recip_rank_at,
            map: fixture(&format!("trec_eval/map.{stem}.tsv")),
            no_answer,
        });
    }
    pairs
}

/// Every pair of trec_eval's own test inputs with expected outputs.
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn trec_eval_reference_pairs() {
    let reference = reference_dir();
    let pairs = trec_eval_pairs(&reference);
    let names: BTreeSet<&str> = pairs.iter().map(|p| p.name.as_str()).collect();
    for known in [
        "qrels.test.results.test",
        "qrels.rel_level.results.test",
        "qrels.comment.test.results.comment.test",
    ] {
        assert!(names.contains(known), "{known} not found among {names:?}");
    }
    for pair in &pairs {
        check(pair);
    }
}

/// results.trunc: unsorted, interleaved, junk trailing columns, and qrels query 302
/// missing from the run, which counts as an empty ranking (trec_eval -c).
#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn trec_eval_truncated_run() {
    let reference = reference_dir();
    let name = "qrels.test.results.trunc";
    let pair = Pair {
        name: name.to_string(),
        dir: reference.join("trec_eval"),
        qrels: "qrels.test".into(),
        run: "results.trunc".into(),
        expected: fixture(&format!("trec_eval/expected.{name}.tsv")),
        recip_rank_at: [1, 3, 5, 10]
            .map(|k| {
                (
                    k,
                    fixture(&format!("trec_eval/expected.{name}.recip_rank_at_{k}.tsv")),
                )
            })
            .to_vec(),
        map: fixture(&format!("trec_eval/map.{name}.tsv")),
        no_answer: vec![],
    };
    check(&pair);
    let json = eval_json(
        &pair.dir,
        &["eval", "qrels.test", "results.trunc", "--format", "json"],
    );
    let q302 = json.row("302");
    assert_eq!(q302.first_relevant_rank, None);
    assert_eq!((q302.rr, q302.recall, q302.ap), (0.0, 0.0, 0.0));
}

/// Synthetic runs over the Vaswani qrels (tests/fixtures/vaswani/README.md): ties
/// mixing relevant and non-relevant docs, all-equal scores, reversed and permuted rank
/// columns, lines out of order, qrels queries missing and an extra query 999.
fn vaswani(run: &str, missing: [&str; 2]) {
    let reference = reference_dir();
    let qrels = reference.join("vaswani/qrels");
    let stem = format!("run.{run}");
    let pair = Pair {
        name: format!("vaswani {stem}"),
        dir: fixture("vaswani"),
        qrels: qrels.display().to_string(),
        run: format!("{stem}.trec"),
        expected: fixture(&format!("vaswani/expected.{stem}.tsv")),
        recip_rank_at: [1, 3, 5, 10]
            .map(|k| {
                (
                    k,
                    fixture(&format!("vaswani/expected.{stem}.recip_rank_at_{k}.tsv")),
                )
            })
            .to_vec(),
        map: fixture(&format!("vaswani/expected.{stem}.tsv")),
        no_answer: vec![],
    };
    check(&pair);
    let json = eval_json(
        &pair.dir,
        &["eval", &pair.qrels, &pair.run, "--format", "json"],
    );
    assert_eq!(json.per_query.len(), 93);
    let warnings = json.warnings.join("\n");
    assert!(
        warnings.contains("1 run query is not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: 999"),
        "{warnings}"
    );
    assert!(
        warnings.contains("3 queries have all-equal scores"),
        "{warnings}"
    );
    // qrels queries left out of the run are empty rankings, scored 0 (trec_eval -c)
    for id in missing {
        let row = json.row(id);
        assert_eq!(row.first_relevant_rank, None, "query {id}");
        assert_eq!((row.rr, row.recall, row.ndcg, row.ap), (0.0, 0.0, 0.0, 0.0));
    }
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn vaswani_run_a() {
    vaswani("a", ["18", "73"]);
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored"]
fn vaswani_run_b() {
    vaswani("b", ["8", "12"]);
}
