//! Scale (docs/contract.md §2.10): the streaming path gives the results of the
//! straightforward one, per query, on generated data; grouped and interleaved TREC
//! runs give byte-identical reports; the same runs as TREC and as CSV give the same
//! per-query results. Benchmarks are not tests: nothing here is timed.
//!
//! The data comes from a small deterministic generator below (a test cannot build the
//! `synth` example); `synth_example_if_built` also runs the real generator at a tiny
//! size when a build of it is found under target/.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::common::{CompareJson, CompareRow, SideJson, Status, assert_code, render, run};

/// Queries and depth of the generated workload; k for the comparison.
const QUERIES: usize = 400;
const DEPTH: usize = 20;
const K: &str = "10";
/// Pads every TREC line of the "messy" runs so a run crosses the reader's 1 MiB
/// chunk: lines are split across a chunk boundary too.
fn long_tag() -> String {
    format!("padded-tag-{}", "x".repeat(150))
}

/// SplitMix64: small, deterministic, good enough to shape test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// One generated query: its judgements (doc, grade) and the two rankings in
/// trec_eval order. `in_runs` false: the runs do not list it.
struct GenQuery {
    id: String,
    judged: Vec<(String, i64)>,
    baseline: Vec<String>,
    candidate: Vec<String>,
    in_runs: bool,
    /// Give every doc of the query one score (the ranking is then by doc id).
    constant: bool,
}

fn doc(n: usize) -> String {
    format!("D{n}")
}

/// A ranking of up to `len` distinct docs from a small space (so docs repeat across
/// queries and ties between ids like D9 and D10 occur), with some relevant docs put
/// in at ranks skewed to the top.
fn ranking(rng: &mut Rng, len: usize, relevant: &[String]) -> Vec<String> {
    let mut list: Vec<String> = Vec::with_capacity(len);
    while list.len() < len {
        let d = doc(rng.below(3000));
        if !list.contains(&d) && !relevant.contains(&d) {
            list.push(d);
        }
    }
    for r in relevant {
        if !list.is_empty() && rng.percent(60) {
            let pos = rng.below(len).min(rng.below(len));
            list[pos] = r.clone();
        }
    }
    list
}

/// The generated workload: `QUERIES` gold queries, grades 0-3 (some no-answer
/// queries), rankings of at most `DEPTH` docs (some shorter or empty), a candidate
/// that moves, drops and gains docs, and some queries the runs do not list.
fn generate(seed: u64) -> Vec<GenQuery> {
    let mut rng = Rng(seed);
    (0..QUERIES)
        .map(|i| {
            let no_answer = rng.percent(8);
            let mut judged: Vec<(String, i64)> = Vec::new();
            let mut add = |rng: &mut Rng, grade: i64| loop {
                let d = doc(rng.below(3000));
                if !judged.iter().any(|(j, _)| *j == d) {
                    judged.push((d, grade));
                    break;
                }
            };
            if !no_answer {
                for _ in 0..1 + rng.below(5) {
                    let g = 1 + rng.below(3) as i64;
                    add(&mut rng, g);
                }
            }
            for _ in 0..rng.below(3) + usize::from(no_answer) {
                add(&mut rng, 0);
            }
            let relevant: Vec<String> = judged
                .iter()
                .filter(|(_, g)| *g > 0)
                .map(|(d, _)| d.clone())
                .collect();
            let len = if rng.percent(10) {
                rng.below(DEPTH + 1)
            } else {
                DEPTH
            };
            let baseline = ranking(&mut rng, len, &relevant);
            let mut candidate = baseline.clone();
            match rng.below(10) {
                0..=3 => {}
                4..=6 => {
                    for _ in 0..1 + rng.below(4) {
                        if !candidate.is_empty() {
                            let (a, b) = (rng.below(candidate.len()), rng.below(candidate.len()));
                            candidate.swap(a, b);
                        }
                    }
                }
                7 => {
                    if !candidate.is_empty() {
                        candidate.remove(0);
                    }
                }
                _ => {
                    if let Some(r) = relevant.iter().find(|r| !candidate.contains(r)) {
                        candidate.insert(0, r.clone());
                        candidate.truncate(DEPTH);
                    }
                }
            }
            let constant = rng.percent(5);
            let mut q = GenQuery {
                id: format!("q{i}"),
                judged,
                baseline,
                candidate,
                in_runs: !rng.percent(4),
                constant,
            };
            if constant {
                // all scores equal: trec_eval ranks by doc id, descending bytes
                q.baseline.sort_unstable_by(|a, b| b.cmp(a));
                q.candidate.sort_unstable_by(|a, b| b.cmp(a));
            }
            q
        })
        .collect()
}

/// How a TREC run is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trec {
    /// Grouped by query, lines in rank order, scores strictly decreasing.
    Clean,
    /// Grouped by query, lines shuffled within the query, equal scores where
    /// trec_eval's doc-id tie-break keeps the order, long tags, a comment line, run
    /// queries the gold lacks.
    Messy,
    /// As `Messy`, with the queries' lines interleaved (line i of every query before
    /// line i+1 of any).
    Interleaved,
}

/// TREC lines of one ranking (trec_eval order given), in the order to write them.
fn trec_lines(rng: &mut Rng, q: &GenQuery, list: &[String], tag: &str, style: Trec) -> Vec<String> {
    let mut score = 1000.0f64;
    let mut lines: Vec<String> = Vec::with_capacity(list.len());
    for (i, d) in list.iter().enumerate() {
        if i > 0 {
            let tie_ok = list[i - 1].as_bytes() > d.as_bytes();
            let tie = q.constant || (style != Trec::Clean && tie_ok && rng.percent(40));
            if !tie {
                score -= 0.25 * (1 + rng.below(8)) as f64;
            }
        }
        lines.push(format!("{} Q0 {d} {} {score:.4} {tag}", q.id, i + 1));
    }
    if style != Trec::Clean {
        rng.shuffle(&mut lines);
    }
    lines
}

/// Write gold.qrels, gold.toml, and one folder per run encoding (csv/, trec-clean/,
/// trec-messy/, trec-interleaved/), each with base.*, cand.*, base.toml, cand.toml.
fn write_workload(root: &Path, queries: &[GenQuery]) {
    let mut qrels = String::new();
    for q in queries {
        for (d, g) in &q.judged {
            let _ = writeln!(qrels, "{} 0 {d} {g}", q.id);
        }
    }
    std::fs::write(root.join("gold.qrels"), qrels).expect("written");
    std::fs::write(
        root.join("gold.toml"),
        "name = \"scale\"\nversion = \"1.0.0\"\ncorpus = \"scale\"\ndata = \"gold.qrels\"\n",
    )
    .expect("written");

    let manifest = |version: &str, results: &str| {
        format!(
            "index_version = \"{version}\"\ncorpus = \"scale\"\ndepth = {DEPTH}\nresults = \"{results}\"\n"
        )
    };
    type Pick = fn(&GenQuery) -> &Vec<String>;
    let sides: [(&str, &str, Pick); 2] = [
        ("base", "1.0.0", |q| &q.baseline),
        ("cand", "1.1.0", |q| &q.candidate),
    ];

    let csv_dir = root.join("csv");
    std::fs::create_dir(&csv_dir).expect("csv/");
    for (name, version, pick) in sides {
        let mut text = String::from("id,retrieved_doc_ids\n");
        for q in queries {
            // a query the runs do not list: an empty cell (TREC: no lines)
            let list = if q.in_runs {
                pick(q).join(";")
            } else {
                String::new()
            };
            let _ = writeln!(text, "{},{list}", q.id);
        }
        std::fs::write(csv_dir.join(format!("{name}.csv")), text).expect("written");
        std::fs::write(
            csv_dir.join(format!("{name}.toml")),
            manifest(version, &format!("{name}.csv")),
        )
        .expect("written");
    }

    for (folder, style) in [
        ("trec-clean", Trec::Clean),
        ("trec-messy", Trec::Messy),
        ("trec-interleaved", Trec::Interleaved),
    ] {
        let dir = root.join(folder);
        std::fs::create_dir(&dir).expect("a run folder");
        for (name, version, pick) in sides {
            // The same seed for messy and interleaved: the same lines, in another order.
            let mut rng = Rng(0x5EED ^ u64::from(name == "cand"));
            let tag = if style == Trec::Clean {
                name.to_string()
            } else {
                long_tag()
            };
            let mut per_query: Vec<Vec<String>> = queries
                .iter()
                .filter(|q| q.in_runs)
                .map(|q| trec_lines(&mut rng, q, pick(q), &tag, style))
                .collect();
            if style != Trec::Clean {
                // run queries the gold does not have: ignored, counted in a warning
                per_query.push(vec![format!("extra-1 Q0 D1 1 1.0 {tag}")]);
                per_query.insert(3, vec![format!("extra-2 Q0 D2 1 1.0 {tag}")]);
            }
            let mut text = String::new();
            if style != Trec::Clean {
                text.push_str("# generated by tests/cli/scale.rs\n");
            }
            if style == Trec::Interleaved {
                let longest = per_query.iter().map(Vec::len).max().unwrap_or(0);
                for i in 0..longest {
                    for lines in &per_query {
                        if let Some(l) = lines.get(i) {
                            text.push_str(l);
                            text.push('\n');
                        }
                    }
                }
            } else {
                for l in per_query.iter().flatten() {
                    text.push_str(l);
                    text.push('\n');
                }
            }
            if style != Trec::Clean {
                assert!(
                    text.len() > 1 << 20,
                    "{folder}/{name}.trec must exceed 1 MiB"
                );
            }
            std::fs::write(dir.join(format!("{name}.trec")), text).expect("written");
            std::fs::write(
                dir.join(format!("{name}.toml")),
                manifest(version, &format!("{name}.trec")),
            )
            .expect("written");
        }
    }
}

/// `compare` from `root/folder` (so every variant's report names `base.*` alike);
/// returns stdout.
fn compare(root: &Path, folder: &str) -> Vec<u8> {
    let out = run(
        root.join(folder),
        &[
            "compare",
            "--gold",
            "../gold.toml",
            "base.toml",
            "cand.toml",
            "--k",
            K,
            "--resamples",
            "200",
            "--no-gate",
            "--format",
            "json",
        ],
    );
    assert_code(&out, 0);
    out.stdout
}

fn parse(bytes: &[u8]) -> CompareJson {
    serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "compare JSON does not parse: {e}\n{}",
            String::from_utf8_lossy(bytes)
        )
    })
}

/// The report without what names the files (`results`) and the warnings.
fn without_files(bytes: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    for side in ["baseline", "candidate"] {
        v[side]
            .as_object_mut()
            .expect("a run object")
            .remove("results");
    }
    v.as_object_mut().expect("an object").remove("warnings");
    // A TREC run leaves out a query with nothing returned, which is then not in drift
    // (docs/contract.md §6.5); the CSV run lists it with an empty cell.
    v.as_object_mut().expect("an object").remove("drift");
    for row in v["per_query"].as_array_mut().expect("per_query") {
        row.as_object_mut().expect("a row").remove("rbo");
    }
    v
}

fn workload(seed: u64) -> (tempfile::TempDir, Vec<GenQuery>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let queries = generate(seed);
    write_workload(dir.path(), &queries);
    (dir, queries)
}

/// Rows equal, in the same order; otherwise the first differing rows are shown.
#[track_caller]
fn assert_same_rows(what: &str, got: &[CompareRow], want: &[CompareRow]) {
    // RBO aside: see `without_files`.
    let same = |g: &CompareRow, w: &CompareRow| {
        let (mut g, mut w) = (g.clone(), w.clone());
        if g.rbo.is_none() || w.rbo.is_none() {
            (g.rbo, w.rbo) = (None, None);
        }
        g == w
    };
    let differing: Vec<String> = got
        .iter()
        .zip(want)
        .filter(|(g, w)| !same(g, w))
        .take(3)
        .map(|(g, w)| format!("  got  {g:?}\n  want {w:?}"))
        .collect();
    assert!(
        differing.is_empty() && got.len() == want.len(),
        "{what}: {} and {} rows; first differing rows:\n{}",
        got.len(),
        want.len(),
        differing.join("\n")
    );
}

/// (a) The same runs as TREC (grouped, scores strictly decreasing; or shuffled with
/// ties) and as CSV: the same report, per query and in every mean and statistic.
#[test]
fn trec_and_csv_runs_give_the_same_results() {
    let (dir, _) = workload(11);
    let csv = compare(dir.path(), "csv");
    let report = parse(&csv);
    assert!(
        report.per_query.len() > QUERIES / 2,
        "most queries compared"
    );
    assert!(!report.no_answer.is_empty(), "some no-answer queries");
    for status in [
        Status::NewlyFailed,
        Status::Regressed,
        Status::Improved,
        Status::Fixed,
        Status::Unchanged,
    ] {
        assert!(
            !report.with_status(status).is_empty(),
            "the workload has {status:?} queries"
        );
    }
    for folder in ["trec-clean", "trec-messy"] {
        let trec = compare(dir.path(), folder);
        assert_same_rows(folder, &parse(&trec).per_query, &report.per_query);
        assert_eq!(
            without_files(&trec),
            without_files(&csv),
            "{folder}: the report differs from the CSV run's"
        );
    }
}

/// (b) Grouped and interleaved TREC runs (the same lines in another order) give
/// byte-identical reports, warnings included.
#[test]
fn grouped_and_interleaved_trec_runs_give_identical_reports() {
    let (dir, _) = workload(12);
    let grouped = compare(dir.path(), "trec-messy");
    let interleaved = compare(dir.path(), "trec-interleaved");
    if grouped != interleaved {
        panic!(
            "reports differ:\n--- grouped\n{}\n--- interleaved\n{}",
            String::from_utf8_lossy(&grouped),
            String::from_utf8_lossy(&interleaved)
        );
    }
    // One side grouped, the other interleaved, both ways round: the grouped side's
    // lists pair as they are read with lists that turn out partial, so drift is
    // paired again (docs/contract.md §6.5); the report must not show it.
    for (folder, base, cand) in [
        ("trec-mixed-1", "trec-messy", "trec-interleaved"),
        ("trec-mixed-2", "trec-interleaved", "trec-messy"),
    ] {
        let mixed = dir.path().join(folder);
        std::fs::create_dir(&mixed).expect("a run folder");
        for (name, from) in [("base", base), ("cand", cand)] {
            for ext in ["trec", "toml"] {
                let file = format!("{name}.{ext}");
                std::fs::copy(dir.path().join(from).join(&file), mixed.join(&file))
                    .expect("copied");
            }
        }
        let got = compare(dir.path(), folder);
        assert!(
            got == grouped,
            "{folder}: the report differs from the grouped runs':\n{}",
            String::from_utf8_lossy(&got)
        );
    }
    let report = parse(&grouped);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("2 run queries are not in the gold set")),
        "{:?}",
        report.warnings
    );
}

/// One query's numbers from the straightforward path.
#[derive(Debug, Clone, PartialEq)]
struct Naive {
    first_relevant_rank: Option<u32>,
    rr: f64,
    recall: f64,
    ndcg: f64,
}

/// Read whole files, sort each query's docs by score descending then doc id
/// descending (byte order), and compute RR@k, Recall@k, nDCG@k (gain = grade,
/// discount log2(rank + 1)) and the first relevant rank.
fn naive(qrels: &str, run: &str, k: usize) -> BTreeMap<String, Naive> {
    let mut judged: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for line in qrels.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        judged
            .entry(f[0].to_string())
            .or_default()
            .insert(f[2].to_string(), f[3].parse().expect("a grade"));
    }
    let mut lists: BTreeMap<String, Vec<(f64, String)>> = BTreeMap::new();
    for line in run.lines() {
        if line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        lists
            .entry(f[0].to_string())
            .or_default()
            .push((f[4].parse().expect("a score"), f[2].to_string()));
    }
    let mut out = BTreeMap::new();
    for (qid, grades) in &judged {
        let num_rel = grades.values().filter(|&&g| g >= 1).count();
        if num_rel == 0 {
            continue; // a no-answer query: never scored
        }
        let mut list = lists.get(qid).cloned().unwrap_or_default();
        list.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .expect("finite scores")
                .then_with(|| b.1.as_bytes().cmp(a.1.as_bytes()))
        });
        let grade = |d: &str| grades.get(d).copied().unwrap_or(0);
        let first = list
            .iter()
            .position(|(_, d)| grade(d) >= 1)
            .map(|p| p as u32 + 1);
        let top = &list[..list.len().min(k)];
        let found = top.iter().filter(|(_, d)| grade(d) >= 1).count();
        let dcg: f64 = top
            .iter()
            .enumerate()
            .map(|(i, (_, d))| grade(d).max(0) as f64 / (i as f64 + 2.0).log2())
            .sum();
        let mut ideal: Vec<i64> = grades.values().copied().filter(|&g| g > 0).collect();
        ideal.sort_unstable_by(|a, b| b.cmp(a));
        let idcg: f64 = ideal
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, &g)| g as f64 / (i as f64 + 2.0).log2())
            .sum();
        out.insert(
            qid.clone(),
            Naive {
                first_relevant_rank: first,
                rr: match first {
                    Some(r) if r as usize <= k => 1.0 / f64::from(r),
                    _ => 0.0,
                },
                recall: found as f64 / num_rel as f64,
                ndcg: if idcg > 0.0 { dcg / idcg } else { 0.0 },
            },
        );
    }
    out
}

#[track_caller]
fn assert_side(id: &str, side: &str, got: &SideJson, want: &Naive) {
    let what = format!("{id} ({side})");
    assert_eq!(
        got.first_relevant_rank, want.first_relevant_rank,
        "{what}: first relevant rank"
    );
    for (name, g, w) in [
        ("RR", got.rr, want.rr),
        ("Recall", got.recall, want.recall),
        ("nDCG", got.ndcg, want.ndcg),
    ] {
        assert!((g - w).abs() < 1e-12, "{what}: {name} {g}, expected {w}");
    }
}

/// (c) The streaming path equals the straightforward one, per query, on runs with
/// shuffled lines, tied scores, constant-score queries, missing and extra queries,
/// read in more than one chunk; grouped and interleaved alike.
#[test]
fn streaming_results_equal_the_straightforward_path() {
    let (dir, queries) = workload(13);
    let root = dir.path();
    let qrels = std::fs::read_to_string(root.join("gold.qrels")).expect("qrels");
    let k: usize = K.parse().expect("k");
    for folder in ["trec-messy", "trec-interleaved"] {
        let report = parse(&compare(root, folder));
        let read = |name: &str| std::fs::read_to_string(root.join(folder).join(name)).expect("run");
        let base = naive(&qrels, &read("base.trec"), k);
        let cand = naive(&qrels, &read("cand.trec"), k);
        let ids: BTreeSet<&str> = report.per_query.iter().map(|r| r.id.as_str()).collect();
        let expected: BTreeSet<&str> = base.keys().map(String::as_str).collect();
        assert_eq!(ids, expected, "{folder}: the compared queries");
        let no_answer: BTreeSet<&str> = report.no_answer.iter().map(String::as_str).collect();
        let expected_no_answer: BTreeSet<&str> = queries
            .iter()
            .filter(|q| q.judged.iter().all(|(_, g)| *g < 1))
            .map(|q| q.id.as_str())
            .collect();
        assert_eq!(no_answer, expected_no_answer, "{folder}: no-answer queries");
        for row in &report.per_query {
            let CompareRow {
                id,
                baseline,
                candidate,
                ..
            } = row;
            assert_side(id, "baseline", baseline, &base[id]);
            assert_side(id, "candidate", candidate, &cand[id]);
        }
    }
}

/// The generator's rankings are what trec_eval's ordering makes of its TREC lines,
/// so (a) compares like with like.
#[test]
fn generated_trec_lines_sort_back_into_the_generated_rankings() {
    let queries = generate(14);
    let mut rng = Rng(1);
    for q in &queries {
        for style in [Trec::Clean, Trec::Messy] {
            let lines = trec_lines(&mut rng, q, &q.baseline, "t", style);
            let mut parsed: Vec<(f64, String)> = lines
                .iter()
                .map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f[4].parse().expect("a score"), f[2].to_string())
                })
                .collect();
            parsed.sort_by(|a, b| {
                b.0.partial_cmp(&a.0)
                    .expect("finite")
                    .then_with(|| b.1.as_bytes().cmp(a.1.as_bytes()))
            });
            let order: Vec<&String> = parsed.iter().map(|(_, d)| d).collect();
            let expected: Vec<&String> = q.baseline.iter().collect();
            assert_eq!(order, expected, "{}", q.id);
        }
    }
}

/// The `synth` example's build, when one exists (tests cannot build examples); the
/// debug one first, as `cargo test` has just built it.
fn synth_binary() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::common::crate_dir().join("target"));
    ["debug", "release"]
        .iter()
        .map(|p| target.join(p).join("examples").join("synth"))
        .find(|p| p.is_file())
}

/// (d) The real generator at a tiny size, when a build of it exists (`cargo test`
/// builds examples into target/debug/examples before running tests, so it usually
/// does): TREC and CSV agree, grouped and interleaved give byte-identical reports.
/// Skipped, saying so, when no build is found; `.ci/run` also runs the generator.
#[test]
fn synth_example_if_built() {
    let Some(synth) = synth_binary() else {
        eprintln!("skipped: no build of the synth example under target/");
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (out, extra) in [("grouped", None), ("interleaved", Some("--interleave"))] {
        let mut cmd = std::process::Command::new(&synth);
        cmd.args(["--queries", "60", "--depth", "10", "--seed", "7", "--out"])
            .arg(dir.path().join(out));
        cmd.args(extra);
        let o = cmd.output().expect("synth runs");
        assert!(o.status.success(), "synth failed: {o:?}");
    }
    let cmp = |folder: &str, gold: &str, base: &str, cand: &str| {
        let out = run(
            dir.path().join(folder),
            &[
                "compare",
                "--gold",
                gold,
                base,
                cand,
                "--k",
                "5",
                "--resamples",
                "200",
                "--no-gate",
                "--format",
                "json",
            ],
        );
        assert_code(&out, 0);
        assert!(!out.stdout.is_empty(), "{}", render(&out));
        out.stdout
    };
    let trec = cmp("grouped", "gold.toml", "baseline.toml", "candidate.toml");
    let interleaved = cmp(
        "interleaved",
        "gold.toml",
        "baseline.toml",
        "candidate.toml",
    );
    assert!(
        trec == interleaved,
        "grouped and interleaved reports differ"
    );
    let csv = cmp(
        "grouped",
        "gold-csv.toml",
        "baseline-csv.toml",
        "candidate-csv.toml",
    );
    assert_same_rows("synth", &parse(&trec).per_query, &parse(&csv).per_query);
}
