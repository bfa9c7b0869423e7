//! Property tests over generated gold sets and runs, through the public
//! library and the built binary: metric bounds and monotonic recall on parsed inputs,
//! TREC and CSV encodings of the same run (and CSV and qrels encodings of the same
//! gold) giving identical per-query results, and what `compare` exports (JSON, CSV)
//! parsing back to exactly the per-query values, with self-comparison neutral.
//! (Unit-level invariants of the metrics and of `compare` live beside the code.)

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ragdiff::load::{gold, run};
use ragdiff::metrics::{Scores, evaluate, relevant_in_top_k};
use ragdiff::model::{DataFormat, GoldMeta, GoldSet, ObservedRun, RunMeta};
use ragdiff::validate::Diagnostics;

// ---------------------------------------------------------------------------------
// Generated cases

/// One generated query: judgements (doc index -> grade) and two rankings (doc indexes
/// in rank order), plus a seed that shapes its TREC encoding.
#[derive(Debug, Clone)]
struct GenQuery {
    id: String,
    judged: BTreeMap<usize, i64>,
    baseline: Vec<usize>,
    candidate: Vec<usize>,
    seed: u64,
}

#[derive(Debug, Clone)]
struct Case {
    queries: Vec<GenQuery>,
    depth: u32,
}

/// Doc ids: `d9` and `d10` tie-break the other way round in byte order.
fn doc(n: usize) -> String {
    format!("d{n}")
}

const DOCS: usize = 14;
/// Query id prefixes: a CSV export guards the ones a spreadsheet would run.
const PREFIXES: [&str; 6] = ["", "-", "=", "+", "@", "é"];

fn ranking(depth: u32) -> impl Strategy<Value = Vec<usize>> {
    proptest::sample::subsequence((0..DOCS).collect::<Vec<_>>(), 0..=depth as usize).prop_shuffle()
}

fn case() -> impl Strategy<Value = Case> {
    (1u32..=10).prop_flat_map(|depth| {
        let query = (
            0usize..PREFIXES.len(),
            // at least one judgement, so every query is in the gold
            proptest::collection::btree_map(0..DOCS, -1i64..=3, 1..6),
            ranking(depth),
            ranking(depth),
            any::<u64>(),
        );
        // relevant: the CSV gold (and the binary qrels) keep relevant docs only
        let meeting = (any::<usize>(), 1i64..=3);
        (proptest::collection::vec(query, 1..12), meeting).prop_map(move |(qs, (pos, grade))| {
            let mut case = Case {
                depth,
                queries: qs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (p, mut judged, baseline, candidate, seed))| {
                        if judged.is_empty() {
                            // shrinking may empty the map; keep the query in the gold
                            judged.insert(0, 0);
                        }
                        GenQuery {
                            id: format!("{}q{i}", PREFIXES[p]),
                            judged,
                            baseline,
                            candidate,
                            seed,
                        }
                    })
                    .collect(),
            };
            meet_the_gold(&mut case.queries, pos, grade);
            case
        })
    })
}

/// The first query with a non-empty list of each run counts one of its docs
/// relevant (the one at `pos`, with `grade` >= 1 unless it already has a relevant
/// grade), so that a run which
/// returns docs returns one the gold judges: a run whose ids never meet the gold is
/// an input error (docs/contract.md §2.15), not a case to score. Every other query is
/// as generated, unjudged docs and lists without a judged doc included.
fn meet_the_gold(queries: &mut [GenQuery], pos: usize, grade: i64) {
    let sides: [fn(&GenQuery) -> &Vec<usize>; 2] = [|q| &q.baseline, |q| &q.candidate];
    for pick in sides {
        if let Some(q) = queries.iter_mut().find(|q| !pick(q).is_empty()) {
            let list = pick(q);
            let doc = list[pos % list.len()];
            let g = q.judged.entry(doc).or_insert(grade);
            if *g < 1 {
                *g = grade;
            }
        }
    }
}

/// SplitMix64, to shape a query's TREC lines from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

// ---------------------------------------------------------------------------------
// Encodings

fn qrels(case: &Case) -> String {
    let mut s = String::new();
    for q in &case.queries {
        for (d, g) in &q.judged {
            let _ = writeln!(s, "{} 0 {} {g}", q.id, doc(*d));
        }
    }
    s
}

/// The gold as CSV: the relevant docs (grade >= 1) of each query, grade 1 each.
fn gold_csv(case: &Case) -> String {
    let mut s = String::from("id,question,expected_doc_ids\n");
    for q in &case.queries {
        let docs: Vec<String> = q
            .judged
            .iter()
            .filter(|(_, g)| **g >= 1)
            .map(|(d, _)| doc(*d))
            .collect();
        let _ = writeln!(s, "{},\"a question, {}\",{}", q.id, q.id, docs.join(";"));
    }
    s
}

/// The same judgements with every relevant grade 1 and the rest dropped (what the
/// CSV gold says).
fn binary_qrels(case: &Case) -> String {
    let mut s = String::new();
    for q in &case.queries {
        let mut any = false;
        for (d, g) in &q.judged {
            if *g >= 1 {
                let _ = writeln!(s, "{} 0 {} 1", q.id, doc(*d));
                any = true;
            }
        }
        if !any {
            // keeps the no-answer query in the gold, with no relevant doc
            let _ = writeln!(s, "{} 0 d999 0", q.id);
        }
    }
    s
}

fn csv_run(case: &Case, pick: fn(&GenQuery) -> &Vec<usize>) -> String {
    let mut s = String::from("id,retrieved_doc_ids\n");
    // rows in reverse order: a CSV run need not follow the gold's order
    for q in case.queries.iter().rev() {
        let docs: Vec<String> = pick(q).iter().map(|d| doc(*d)).collect();
        let _ = writeln!(s, "{},{}", q.id, docs.join(";"));
    }
    s
}

/// The same rankings as a TREC run that trec_eval orders back into them: scores
/// fall along the ranking, with equal scores only where the doc-id tie-break (byte
/// order, descending) keeps the order; each query's lines are shuffled, the rank
/// column is the line's position (ignored), and empty rankings have no lines.
/// A last line names a query the gold does not have.
fn trec_run(case: &Case, pick: fn(&GenQuery) -> &Vec<usize>) -> String {
    let mut s = String::from("# generated\n");
    for q in &case.queries {
        let mut rng = Rng(q.seed);
        let list: Vec<String> = pick(q).iter().map(|d| doc(*d)).collect();
        let mut score = 100.0f64;
        let mut lines = Vec::new();
        for (i, d) in list.iter().enumerate() {
            if i > 0 {
                let tie_ok = list[i - 1].as_bytes() > d.as_bytes();
                if !(tie_ok && rng.next().is_multiple_of(2)) {
                    score -= 0.5 * (1 + rng.next() % 4) as f64;
                }
            }
            lines.push((d.clone(), score));
        }
        for i in (1..lines.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            lines.swap(i, j);
        }
        for (pos, (d, score)) in lines.iter().enumerate() {
            let _ = writeln!(s, "{} Q0 {d} {} {score} tag", q.id, pos + 1);
        }
    }
    // a run query the gold does not have: ignored (and the file is never empty)
    s.push_str("not-in-gold Q0 d1 1 1 tag\n");
    s
}

// ---------------------------------------------------------------------------------
// The library's reading path

fn gold_meta(format: DataFormat) -> GoldMeta {
    GoldMeta {
        name: "props".into(),
        version: None,
        frozen_at: None,
        sha256: None,
        frozen_version: None,
        corpus: None,
        data_display: "gold".into(),
        data: PathBuf::from("gold"),
        format,
        long: None,
        k: None,
        min_grade: 1,
        manifest: None,
        tags_file: None,
        tags_sha256: None,
        frozen_meaning: Default::default(),
    }
}

fn run_meta(format: DataFormat, depth: u32) -> RunMeta {
    RunMeta {
        index_version: None,
        team_meta: Default::default(),
        corpus: None,
        depth,
        depth_declared: true,
        filters: Default::default(),
        results_display: "run".into(),
        results: PathBuf::from("run"),
        format,
        long: None,
        manifest: None,
        more_results: Vec::new(),
        doc_map: None,
        approximate: false,
        cut: None,
        recording: Default::default(),
    }
}

#[track_caller]
fn parse_gold(text: &str, format: DataFormat) -> GoldSet {
    let mut diag = Diagnostics::default();
    let g = gold::parse(gold_meta(format), text.as_bytes(), &[], &mut diag);
    assert!(diag.problems.is_empty(), "{:?}\n{text}", diag.problems);
    g.expect("a gold set")
}

#[track_caller]
fn read_run(text: &str, format: DataFormat, depth: u32, gold: &GoldSet) -> ObservedRun {
    let run::ReadOutcome { run: r, diag, .. } = run::RunReader::new(gold)
        .read(run::Source::bytes(run_meta(format, depth), text.as_bytes()));
    assert!(diag.problems.is_empty(), "{:?}\n{text}", diag.problems);
    r.expect("a run")
}

/// Every gold query's scores at k, by id.
fn scores(gold: &GoldSet, run: &ObservedRun, k: u32) -> BTreeMap<String, Scores> {
    gold.queries
        .iter()
        .zip(&run.observed)
        .map(|(q, o)| (q.id.to_string(), evaluate(q, o.as_ref(), k, 1)))
        .collect()
}

// ---------------------------------------------------------------------------------
// Properties on the library

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On parsed qrels and TREC runs: every metric in [0, 1], RR@k from the first
    /// relevant rank, Hit@k = 1 exactly when Recall@k > 0, P@k * k = relevant docs in
    /// the top k; Recall@k, Hit@k and P@k * k never decrease as k grows, and the first
    /// relevant rank does not depend on k.
    #[test]
    fn metric_bounds_and_monotonic_recall(case in case()) {
        let gold = parse_gold(&qrels(&case), DataFormat::Trec);
        let run = read_run(&trec_run(&case, |q| &q.baseline), DataFormat::Trec, case.depth, &gold);
        for (qi, q) in gold.queries.iter().enumerate() {
            if q.is_no_answer() {
                continue;
            }
            let obs = run.observed[qi].as_ref();
            let mut previous: Option<Scores> = None;
            for k in 1..=case.depth {
                let s = evaluate(q, obs, k, 1);
                for (name, v) in [("rr", s.rr), ("recall", s.recall), ("hit", s.hit),
                                  ("precision", s.precision), ("ndcg", s.ndcg), ("ap", s.ap)] {
                    prop_assert!((0.0..=1.0).contains(&v), "{}: {name} = {v} at k {k}", q.id);
                }
                let rr = match s.first_relevant_rank {
                    Some(r) if r <= k => 1.0 / f64::from(r),
                    _ => 0.0,
                };
                prop_assert_eq!(s.rr, rr);
                prop_assert_eq!(s.hit, if s.recall > 0.0 { 1.0 } else { 0.0 });
                let in_k = relevant_in_top_k(q, obs, k, 1).len() as f64;
                prop_assert!((s.precision * f64::from(k) - in_k).abs() < 1e-9);
                prop_assert!((s.recall * f64::from(q.num_rel) - in_k).abs() < 1e-9);
                if let Some(p) = previous {
                    prop_assert!(s.recall >= p.recall, "{}: recall fell at k {k}", q.id);
                    prop_assert!(s.hit >= p.hit);
                    prop_assert!(s.precision * f64::from(k) >= p.precision * f64::from(k - 1) - 1e-9);
                    prop_assert_eq!(s.first_relevant_rank, p.first_relevant_rank);
                    prop_assert_eq!(s.ap, p.ap, "AP is over the whole list");
                }
                previous = Some(s);
            }
        }
    }

    /// The same run as TREC (shuffled lines, tied scores, empty rankings left out) and
    /// as CSV gives identical scores for every query at every k.
    #[test]
    fn trec_and_csv_runs_score_alike(case in case()) {
        let gold = parse_gold(&qrels(&case), DataFormat::Trec);
        for pick in [(|q: &GenQuery| &q.baseline) as fn(&GenQuery) -> &Vec<usize>, |q| &q.candidate] {
            let csv = read_run(&csv_run(&case, pick), DataFormat::Csv, case.depth, &gold);
            let trec = read_run(&trec_run(&case, pick), DataFormat::Trec, case.depth, &gold);
            for k in 1..=case.depth {
                prop_assert_eq!(scores(&gold, &csv, k), scores(&gold, &trec, k), "k = {}", k);
                for (qi, q) in gold.queries.iter().enumerate() {
                    prop_assert_eq!(
                        relevant_in_top_k(q, csv.observed[qi].as_ref(), k, 1),
                        relevant_in_top_k(q, trec.observed[qi].as_ref(), k, 1)
                    );
                }
            }
        }
    }

    /// A gold as CSV and the same gold as binary qrels give the same scores.
    #[test]
    fn csv_and_qrels_golds_score_alike(case in case()) {
        let from_csv = parse_gold(&gold_csv(&case), DataFormat::Csv);
        let from_qrels = parse_gold(&binary_qrels(&case), DataFormat::Trec);
        let ids = |g: &GoldSet| g.queries.iter().map(|q| (q.id.to_string(), q.num_rel)).collect::<Vec<_>>();
        prop_assert_eq!(ids(&from_csv), ids(&from_qrels));
        let text = csv_run(&case, |q| &q.baseline);
        let a = read_run(&text, DataFormat::Csv, case.depth, &from_csv);
        let b = read_run(&text, DataFormat::Csv, case.depth, &from_qrels);
        for k in 1..=case.depth {
            prop_assert_eq!(scores(&from_csv, &a, k), scores(&from_qrels, &b, k));
        }
    }
}

// ---------------------------------------------------------------------------------
// What `compare` exports, read back

/// JSON with every number turned into a string holding its exact text, so it can be
/// parsed with Rust's correctly rounded `f64::from_str` (serde_json's default float
/// parsing may be one ulp off).
fn numbers_as_text(json: &str) -> serde_json::Value {
    let mut out = String::with_capacity(json.len() * 2);
    let mut chars = json.chars().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            out.push('"');
            out.push(c);
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || matches!(n, '.' | 'e' | 'E' | '+' | '-') {
                    out.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('"');
        } else {
            out.push(c);
        }
    }
    serde_json::from_str(&out).expect("JSON with quoted numbers")
}

fn exact(v: &serde_json::Value) -> f64 {
    v.as_str()
        .unwrap_or_else(|| panic!("a number, got {v}"))
        .parse()
        .expect("a number")
}

/// What the CSV export writes for an id (formula-injection guard, docs/contract.md §9.4).
fn guarded(id: &str) -> String {
    if id.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{id}")
    } else {
        id.to_string()
    }
}

fn write_case(dir: &Path, case: &Case) {
    let manifest = |version: &str, results: &str| {
        format!(
            "index_version = \"{version}\"\ncorpus = \"p\"\ndepth = {}\nresults = \"{results}\"\n",
            case.depth
        )
    };
    let files = [
        ("gold.csv", gold_csv(case)),
        (
            "gold.toml",
            "name = \"p\"\nversion = \"1.0.0\"\ncorpus = \"p\"\ndata = \"gold.csv\"\n".into(),
        ),
        ("base.csv", csv_run(case, |q| &q.baseline)),
        ("cand.csv", csv_run(case, |q| &q.candidate)),
        ("base.toml", manifest("1.0.0", "base.csv")),
        ("cand.toml", manifest("1.1.0", "cand.csv")),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("written");
    }
}

fn ragdiff(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("ragdiff runs")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// `compare`'s JSON numbers are exactly the library's per-query values, and its
    /// CSV export parses back to exactly the JSON's ids, statuses, ranks and numbers
    /// (f64 equality); a run compared with itself changes nothing.
    #[test]
    fn exports_round_trip_the_per_query_values(case in case(), k_pick in 0u32..100) {
        let k = 1 + k_pick % case.depth;
        let dir = tempfile::tempdir().expect("a temporary folder");
        write_case(dir.path(), &case);
        let k_text = k.to_string();
        let out = ragdiff(dir.path(), &[
            "compare", "--gold", "gold.toml", "base.toml", "cand.toml", "--k", &k_text,
            "--resamples", "50", "--no-gate", "--format", "json", "--export-csv", "out.csv",
        ]);
        let nothing_relevant = case.queries.iter().all(|q| q.judged.values().all(|&g| g < 1));
        if nothing_relevant {
            // A gold with no relevant doc at all has nothing to evaluate: exit 2.
            prop_assert_eq!(out.status.code(), Some(2));
            return Ok(());
        }
        prop_assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let json = numbers_as_text(&String::from_utf8(out.stdout).expect("UTF-8"));
        let rows = json["per_query"].as_array().expect("per_query").clone();

        // JSON = the library's values, exactly
        let gold = parse_gold(&gold_csv(&case), DataFormat::Csv);
        let base = read_run(&csv_run(&case, |q| &q.baseline), DataFormat::Csv, case.depth, &gold);
        let cand = read_run(&csv_run(&case, |q| &q.candidate), DataFormat::Csv, case.depth, &gold);
        let (bs, cs) = (scores(&gold, &base, k), scores(&gold, &cand, k));
        let answered = gold.queries.iter().filter(|q| !q.is_no_answer()).count();
        prop_assert_eq!(rows.len(), answered, "per_query lists every evaluated query");
        for row in &rows {
            let id = row["id"].as_str().expect("an id");
            for (side, want) in [("baseline", &bs[id]), ("candidate", &cs[id])] {
                let s = &row[side];
                prop_assert_eq!(exact(&s["rr"]), want.rr, "{} {} rr", id, side);
                prop_assert_eq!(exact(&s["recall"]), want.recall);
                prop_assert_eq!(exact(&s["hit"]), want.hit);
                prop_assert_eq!(exact(&s["precision"]), want.precision);
                prop_assert_eq!(exact(&s["ndcg"]), want.ndcg, "{} {} ndcg", id, side);
                prop_assert_eq!(exact(&s["ap"]), want.ap);
                let rank = s["first_relevant_rank"].as_str().map(|r| r.parse::<u32>().expect("a rank"));
                prop_assert_eq!(rank, want.first_relevant_rank);
            }
            prop_assert_eq!(exact(&row["delta"]["rr"]), cs[id].rr - bs[id].rr);
            prop_assert_eq!(exact(&row["delta"]["recall"]), cs[id].recall - bs[id].recall);
        }

        // CSV = JSON, row by row, in the same order
        let mut reader = csv::Reader::from_path(dir.path().join("out.csv")).expect("out.csv");
        let header: Vec<String> = reader.headers().expect("a header").iter().map(String::from).collect();
        // docs/contract.md §9.8
        let mut expected: Vec<String> = ["id", "status", "failure_kind", "suspect", "tags",
            "baseline_rank", "candidate_rank"].map(String::from).to_vec();
        for m in METRICS {
            for side in ["baseline", "candidate", "delta"] {
                expected.push(format!("{side}_{m}"));
            }
        }
        expected.extend(["lost", "gained", "no_label_can_rescue", "errored"].map(String::from));
        prop_assert_eq!(header, expected);
        let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a CSV row")).collect();
        prop_assert_eq!(records.len(), rows.len());
        for (rec, row) in records.iter().zip(&rows) {
            let id = row["id"].as_str().expect("an id");
            let guarded_id = guarded(id);
            prop_assert_eq!(&rec[0], guarded_id.as_str());
            prop_assert_eq!(&rec[1], row["status"].as_str().expect("a status"));
            prop_assert_eq!(&rec[2], row["failure_kind"].as_str().unwrap_or(""));
            prop_assert_eq!(&rec[4], "", "no tags in this gold");
            for (col, side) in [(5, "baseline"), (6, "candidate")] {
                let rank = row[side]["first_relevant_rank"].as_str().unwrap_or("");
                prop_assert_eq!(&rec[col], rank);
            }
            for (i, m) in METRICS.iter().enumerate() {
                for (j, side) in ["baseline", "candidate", "delta"].iter().enumerate() {
                    let col = 7 + 3 * i + j;
                    let value = &row[*side][*m];
                    let from_csv: f64 = rec[col].parse().expect("a CSV number");
                    prop_assert_eq!(from_csv.to_bits(), exact(value).to_bits(),
                        "{} column {}: CSV {} JSON {}", id, col, &rec[col], value);
                }
            }
            for (col, key) in [(25, "lost"), (26, "gained")] {
                let ids: Vec<String> = row[key].as_array().expect("ids").iter()
                    .map(|d| guarded(d.as_str().expect("an id"))).collect();
                prop_assert_eq!(&rec[col], ids.join(";"));
            }
            let rescue = if row["no_label_can_rescue"] == true { "true" } else { "" };
            prop_assert_eq!(&rec[27], rescue);
            // No run manifest lists `errored` here (docs/contract.md §6.8).
            prop_assert_eq!(&rec[28], row["errored"].as_str().unwrap_or(""));
        }

        // the baseline compared with itself: nothing changes
        let out = ragdiff(dir.path(), &[
            "compare", "--gold", "gold.toml", "base.toml", "base.toml", "--k", &k_text,
            "--resamples", "50", "--format", "json",
        ]);
        let nothing_relevant = case.queries.iter().all(|q| q.judged.values().all(|&g| g < 1));
        if nothing_relevant {
            // A gold with no relevant doc at all has nothing to evaluate: exit 2.
            prop_assert_eq!(out.status.code(), Some(2));
            return Ok(());
        }
        prop_assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let json = numbers_as_text(&String::from_utf8(out.stdout).expect("UTF-8"));
        prop_assert_eq!(json["newly_failed"].as_array().map(Vec::len), Some(0));
        prop_assert_eq!(json["fixed"].as_array().map(Vec::len), Some(0));
        for row in json["per_query"].as_array().expect("per_query") {
            let status = row["status"].as_str().expect("a status");
            prop_assert!(status == "unchanged" || status == "still_failing", "{}", status);
            for metric in ["rr", "recall", "hit", "precision", "ndcg", "ap"] {
                prop_assert_eq!(exact(&row["delta"][metric]), 0.0);
            }
        }
    }
}

/// The metrics of the CSV export, in its column order (docs/contract.md §9.8).
const METRICS: [&str; 6] = ["rr", "recall", "hit", "precision", "ndcg", "ap"];
