//! Deterministic synthetic workload for benchmarks and scale tests: a gold set and
//! two runs (baseline and candidate), each as TREC and CSV, with manifests.
//!
//! ```text
//! cargo run --release --example synth -- --queries 100000 --depth 100 --seed 1 --out /tmp/wl-m
//! ```
//!
//! Writes in DIR: `gold.qrels`, `gold.csv`, `gold.toml` (TREC qrels) and
//! `gold-csv.toml`; `baseline.trec`, `candidate.trec`, `baseline.csv`,
//! `candidate.csv`; `baseline.toml`, `candidate.toml` (TREC) and `baseline-csv.toml`,
//! `candidate-csv.toml`. `--interleave` writes the TREC runs with queries interleaved
//! (line i of every query before line i+1 of any), as a non-grouped exporter might.
//! `--tags N` also writes `tags.csv` (`id,tags`: 1-3 of N labels per query, skewed so
//! segment sizes vary) with `gold-tags.toml` (the qrels and that side file), and
//! `gold-tags.csv` (the CSV gold with a `tags` column) with `gold-csv-tags.toml`; the
//! other files do not change, so the same runs compare with and without tags.
//! Each query has 1-5 relevant docs; the baseline returns some of them at random
//! ranks; the candidate moves some docs, drops some and gains some, so every status
//! occurs. Scores strictly decrease with rank.
//!
//! `--shape r` (workload R, a real ranking change): 1-5 relevant docs graded 1-3 plus
//! 0-2 judged non-relevant docs (grade 0) per query, in the qrels (the CSV gold keeps
//! the relevant ids, ungraded, and a `non_relevant_doc_ids` column); scores with 4 to
//! 17 significant digits; a changed query's candidate is a new ranking drawn from
//! another generator (as a new embedding model would return). `--changed F` (0..=1)
//! sets the share of queries whose candidate differs (shape m: moved, dropped or
//! gained docs; shape r: a new ranking); without it shape m changes about half and
//! shape r 86%. The baseline does not depend on `--changed`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

struct Args {
    queries: u64,
    depth: u32,
    seed: u64,
    out: PathBuf,
    interleave: bool,
    tags: usize,
    json: bool,
    shape_r: bool,
    changed: Option<f64>,
}

fn parse_args() -> Args {
    let mut args = Args {
        queries: 1000,
        depth: 100,
        seed: 1,
        out: PathBuf::from("synth"),
        interleave: false,
        tags: 0,
        json: false,
        shape_r: false,
        changed: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--queries" => args.queries = value().parse().unwrap_or_else(|_| usage("--queries N")),
            "--depth" => args.depth = value().parse().unwrap_or_else(|_| usage("--depth D")),
            "--seed" => args.seed = value().parse().unwrap_or_else(|_| usage("--seed S")),
            "--out" => args.out = PathBuf::from(value()),
            "--interleave" => args.interleave = true,
            "--tags" => args.tags = value().parse().unwrap_or_else(|_| usage("--tags N")),
            "--json" => args.json = true,
            "--shape" => {
                args.shape_r = match value().as_str() {
                    "m" => false,
                    "r" => true,
                    _ => usage("--shape m|r"),
                }
            }
            "--changed" => {
                let f: f64 = value().parse().unwrap_or_else(|_| usage("--changed F"));
                if !(0.0..=1.0).contains(&f) {
                    usage("--changed takes a share from 0 to 1");
                }
                args.changed = Some(f);
            }
            _ => usage(&format!("unknown argument {flag}")),
        }
    }
    if args.depth == 0 || args.queries == 0 {
        usage("--queries and --depth must be at least 1");
    }
    args
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "synth: {msg}\nusage: synth --queries N --depth D --seed S --out DIR [--interleave] [--tags N] [--json] [--shape m|r] [--changed F]"
    );
    std::process::exit(2)
}

/// Doc ids come from a space much larger than one ranking.
const DOC_SPACE: u64 = 50_000_000;

struct Query {
    relevant: Vec<u64>,
    /// Grade of each relevant doc (1 in shape m).
    grades: Vec<u32>,
    /// Docs judged not relevant (grade 0; none in shape m).
    non_relevant: Vec<u64>,
    baseline: Vec<u64>,
    candidate: Vec<u64>,
}

fn make_query(rng: &mut Xoshiro256PlusPlus, depth: usize, changed: Option<f64>) -> Query {
    let n_rel = rng.random_range(1..=5usize);
    let relevant: Vec<u64> = (0..n_rel).map(|_| rng.random_range(0..DOC_SPACE)).collect();
    let mut baseline: Vec<u64> = Vec::with_capacity(depth);
    let mut used = std::collections::HashSet::with_capacity(depth * 2);
    while baseline.len() < depth {
        let d = rng.random_range(0..DOC_SPACE);
        if !relevant.contains(&d) && used.insert(d) {
            baseline.push(d);
        }
    }
    // Put each relevant doc in with probability 0.7, at a rank skewed to the top.
    for &r in &relevant {
        if rng.random_bool(0.7) && used.insert(r) {
            let pos = (rng.random_range(0.0..1.0f64).powi(3) * depth as f64) as usize;
            baseline[pos.min(depth - 1)] = r;
        }
    }
    let mut candidate = baseline.clone();
    let kind = match changed {
        None => rng.random_range(0..10u32),
        Some(p) if rng.random_bool(p) => rng.random_range(5..10u32),
        Some(_) => 0,
    };
    match kind {
        // Unchanged.
        0..=4 => {}
        // Move a few docs around.
        5..=7 => {
            for _ in 0..rng.random_range(1..=5u32) {
                let a = rng.random_range(0..depth);
                let b = rng.random_range(0..depth);
                candidate.swap(a, b);
            }
        }
        // Lose a doc at the top, gain a fresh one.
        8 => {
            let fresh = loop {
                let d = rng.random_range(0..DOC_SPACE);
                if !used.contains(&d) && !relevant.contains(&d) {
                    break d;
                }
            };
            candidate.remove(0);
            candidate.push(fresh);
        }
        // Find a relevant doc the baseline missed.
        _ => {
            if let Some(&r) = relevant.iter().find(|r| !used.contains(r)) {
                candidate.insert(0, r);
                candidate.pop();
            }
        }
    }
    Query {
        grades: vec![1; relevant.len()],
        non_relevant: Vec::new(),
        relevant,
        baseline,
        candidate,
    }
}

/// Shape r: graded relevant docs, judged non-relevant ones, and a changed query's
/// candidate drawn afresh from `cand` (its own generator).
fn make_query_r(
    rng: &mut Xoshiro256PlusPlus,
    cand: &mut Xoshiro256PlusPlus,
    depth: usize,
    changed: f64,
) -> Query {
    let n_rel = rng.random_range(1..=5usize);
    let relevant: Vec<u64> = (0..n_rel).map(|_| rng.random_range(0..DOC_SPACE)).collect();
    let grades: Vec<u32> = (0..n_rel).map(|_| rng.random_range(1..=3u32)).collect();
    let non_relevant: Vec<u64> = (0..rng.random_range(0..=2usize))
        .map(|_| rng.random_range(0..DOC_SPACE))
        .filter(|d| !relevant.contains(d))
        .collect();
    let baseline = ranking_r(rng, depth, &relevant, &non_relevant);
    let candidate = if cand.random_bool(changed) {
        ranking_r(cand, depth, &relevant, &non_relevant)
    } else {
        baseline.clone()
    };
    Query {
        relevant,
        grades,
        non_relevant,
        baseline,
        candidate,
    }
}

/// One ranking of shape r: fresh unjudged docs, each relevant doc with probability 0.7
/// at a rank skewed to the top, each judged non-relevant doc with probability 0.5.
fn ranking_r(
    rng: &mut Xoshiro256PlusPlus,
    depth: usize,
    relevant: &[u64],
    non_relevant: &[u64],
) -> Vec<u64> {
    let judged = |d: &u64| relevant.contains(d) || non_relevant.contains(d);
    let mut list: Vec<u64> = Vec::with_capacity(depth);
    let mut used = std::collections::HashSet::with_capacity(depth * 2);
    while list.len() < depth {
        let d = rng.random_range(0..DOC_SPACE);
        if !judged(&d) && used.insert(d) {
            list.push(d);
        }
    }
    let mut placed = std::collections::HashSet::new();
    for (&d, p, power) in relevant
        .iter()
        .map(|d| (d, 0.7, 3))
        .chain(non_relevant.iter().map(|d| (d, 0.5, 1)))
    {
        if rng.random_bool(p) {
            let pos = (rng.random_range(0.0..1.0f64).powi(power) * depth as f64) as usize;
            let pos = pos.min(depth - 1);
            if placed.insert(pos) {
                list[pos] = d;
            }
        }
    }
    list
}

fn create(dir: &std::path::Path, name: &str) -> BufWriter<File> {
    let path = dir.join(name);
    BufWriter::with_capacity(
        1 << 20,
        File::create(&path)
            .unwrap_or_else(|e| usage(&format!("cannot write {}: {e}", path.display()))),
    )
}

fn main() -> std::io::Result<()> {
    let args = parse_args();
    std::fs::create_dir_all(&args.out)?;
    let dir = args.out.as_path();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let mut cand = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed_c0de);
    let depth = args.depth as usize;
    let queries: Vec<Query> = (0..args.queries)
        .map(|_| match args.shape_r {
            true => make_query_r(&mut rng, &mut cand, depth, args.changed.unwrap_or(0.86)),
            false => make_query(&mut rng, depth, args.changed),
        })
        .collect();
    let scores = Scores {
        realistic: args.shape_r,
        seed: args.seed,
    };

    let mut qrels = create(dir, "gold.qrels");
    let mut gold_csv = create(dir, "gold.csv");
    match args.shape_r {
        true => writeln!(gold_csv, "id,expected_doc_ids,non_relevant_doc_ids")?,
        false => writeln!(gold_csv, "id,expected_doc_ids")?,
    }
    for (i, q) in queries.iter().enumerate() {
        let ids: Vec<String> = q.relevant.iter().map(|d| format!("D{d}")).collect();
        for (id, grade) in ids.iter().zip(&q.grades) {
            writeln!(qrels, "q{i} 0 {id} {grade}")?;
        }
        for d in &q.non_relevant {
            writeln!(qrels, "q{i} 0 D{d} 0")?;
        }
        match args.shape_r {
            true => {
                let non: Vec<String> = q.non_relevant.iter().map(|d| format!("D{d}")).collect();
                writeln!(gold_csv, "q{i},{},{}", ids.join(";"), non.join(";"))?
            }
            false => writeln!(gold_csv, "q{i},{}", ids.join(";"))?,
        }
    }
    qrels.flush()?;
    gold_csv.flush()?;

    for (name, pick) in [
        (
            "baseline",
            (|q: &Query| &q.baseline) as fn(&Query) -> &Vec<u64>,
        ),
        ("candidate", |q: &Query| &q.candidate),
    ] {
        let mut trec = create(dir, &format!("{name}.trec"));
        let mut csv = create(dir, &format!("{name}.csv"));
        writeln!(csv, "id,retrieved_doc_ids")?;
        for (i, q) in queries.iter().enumerate() {
            let docs = pick(q);
            let ids: Vec<String> = docs.iter().map(|d| format!("D{d}")).collect();
            writeln!(csv, "q{i},{}", ids.join(";"))?;
        }
        if args.interleave {
            for rank in 0..depth {
                for (i, q) in queries.iter().enumerate() {
                    write_trec_line(&mut trec, i, pick(q), rank, name, &scores)?;
                }
            }
        } else {
            for (i, q) in queries.iter().enumerate() {
                for rank in 0..pick(q).len() {
                    write_trec_line(&mut trec, i, pick(q), rank, name, &scores)?;
                }
            }
        }
        trec.flush()?;
        csv.flush()?;
        if args.json {
            write_json(dir, name, &queries, pick, &scores)?;
        }
        let version = if name == "baseline" { "1.0.0" } else { "1.1.0" };
        for (suffix, results) in [
            ("", format!("{name}.trec")),
            ("-csv", format!("{name}.csv")),
            ("-json", format!("{name}.json")),
            ("-jsonl", format!("{name}.jsonl")),
        ] {
            std::fs::write(
                dir.join(format!("{name}{suffix}.toml")),
                format!(
                    "index_version = \"{version}\"\ncorpus = \"synth\"\ndepth = {}\nresults = \"{results}\"\n",
                    args.depth
                ),
            )?;
        }
    }
    for (name, data) in [("gold.toml", "gold.qrels"), ("gold-csv.toml", "gold.csv")] {
        std::fs::write(
            dir.join(name),
            format!(
                "name = \"synth\"\nversion = \"1.0.0\"\ncorpus = \"synth\"\ndata = \"{data}\"\n"
            ),
        )?;
    }
    if args.tags > 0 {
        write_tags(dir, &queries, args.tags, args.seed)?;
    }
    eprintln!(
        "synth: {} queries x depth {} -> {}",
        args.queries,
        args.depth,
        dir.display()
    );
    Ok(())
}

fn write_trec_line(
    out: &mut impl Write,
    qi: usize,
    docs: &[u64],
    rank: usize,
    tag: &str,
    scores: &Scores,
) -> std::io::Result<()> {
    if let Some(d) = docs.get(rank) {
        let score = scores.text(qi, rank, docs.len(), tag);
        writeln!(out, "q{qi} Q0 D{d} {} {score} {tag}", rank + 1)?;
    }
    Ok(())
}

/// The score written for a rank: shape m `len - rank + 0.5` with 4 decimals; shape r
/// a value in (0.05, 0.95] strictly decreasing with rank, jittered and written with
/// 4 to 17 decimals, both drawn from a hash of (seed, run, query, rank).
struct Scores {
    realistic: bool,
    seed: u64,
}

impl Scores {
    fn text(&self, qi: usize, rank: usize, len: usize, tag: &str) -> String {
        if !self.realistic {
            return format!("{:.4}", (len - rank) as f64 + 0.5);
        }
        let h =
            splitmix(self.seed ^ splitmix(qi as u64 ^ ((tag.len() as u64) << 40)) ^ rank as u64);
        let jitter = (h >> 11) as f64 / (1u64 << 53) as f64;
        let step = 0.9 / len as f64;
        let value = 0.95 - step * (rank as f64 + 0.5 * jitter);
        format!("{value:.*}", 4 + (h % 14) as usize)
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The tagged gold files of `--tags N` (labels from their own generator, so every
/// other file is the same as without tags).
fn write_tags(
    dir: &std::path::Path,
    queries: &[Query],
    n: usize,
    seed: u64,
) -> std::io::Result<()> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7a95);
    let mut side = create(dir, "tags.csv");
    let mut gold = create(dir, "gold-tags.csv");
    writeln!(side, "id,tags")?;
    writeln!(gold, "id,expected_doc_ids,tags")?;
    for (i, q) in queries.iter().enumerate() {
        let mut labels: Vec<usize> = Vec::new();
        for _ in 0..rng.random_range(1..=3u32) {
            let u: f64 = rng.random_range(0.0..1.0);
            let t = ((u * u) * n as f64) as usize;
            if !labels.contains(&t) {
                labels.push(t.min(n - 1));
            }
        }
        let tags: Vec<String> = labels.iter().map(|t| format!("tag:{t}")).collect();
        let ids: Vec<String> = q.relevant.iter().map(|d| format!("D{d}")).collect();
        writeln!(side, "q{i},{}", tags.join(";"))?;
        writeln!(gold, "q{i},{},{}", ids.join(";"), tags.join(";"))?;
    }
    side.flush()?;
    gold.flush()?;
    for (name, data, extra) in [
        ("gold-tags.toml", "gold.qrels", "tags = \"tags.csv\"\n"),
        ("gold-csv-tags.toml", "gold-tags.csv", ""),
    ] {
        std::fs::write(
            dir.join(name),
            format!(
                "name = \"synth\"\nversion = \"1.0.0\"\ncorpus = \"synth\"\ndata = \"{data}\"\n{extra}"
            ),
        )?;
    }
    Ok(())
}

/// One run as JSON (a dict of dicts, scores as in the TREC file) and as JSONL (ids in
/// rank order with their scores).
fn write_json(
    dir: &std::path::Path,
    name: &str,
    queries: &[Query],
    pick: fn(&Query) -> &Vec<u64>,
    scores: &Scores,
) -> std::io::Result<()> {
    let mut json = create(dir, &format!("{name}.json"));
    let mut jsonl = create(dir, &format!("{name}.jsonl"));
    write!(json, "{{")?;
    for (i, q) in queries.iter().enumerate() {
        let docs = pick(q);
        let score = |rank: usize| scores.text(i, rank, docs.len(), name);
        let sep = if i == 0 { "" } else { "," };
        let entries: Vec<String> = docs
            .iter()
            .enumerate()
            .map(|(r, d)| format!("\"D{d}\": {}", score(r)))
            .collect();
        writeln!(json, "{sep}\n\"q{i}\": {{{}}}", entries.join(", "))?;
        let ids: Vec<String> = docs.iter().map(|d| format!("\"D{d}\"")).collect();
        let scores: Vec<String> = (0..docs.len()).map(score).collect();
        writeln!(
            jsonl,
            "{{\"id\": \"q{i}\", \"retrieved_doc_ids\": [{}], \"scores\": [{}]}}",
            ids.join(", "),
            scores.join(", ")
        )?;
    }
    writeln!(json, "}}")?;
    json.flush()?;
    jsonl.flush()
}
