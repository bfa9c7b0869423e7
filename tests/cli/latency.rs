//! Latency beside quality in `compare` (docs/contract.md §6.9): p50, p95, p99 and
//! max per side from a `latency_ms` field or column or the manifest's latency side
//! file, checked against numpy (tests/fixtures/latency/compute.py stores its values in
//! expected.json), and `--max-latency-increase`, judged only between runs recorded
//! with the same concurrency on the same host.

use crate::common::{assert_code, fixture, run, stderr, stdout, with};

/// `compare base.toml cand.toml` of a fixture folder, without its policy file.
const NO_CONFIG_CASE: [&str; 6] = [
    "compare",
    "--gold",
    "gold.toml",
    "--no-config",
    "base.toml",
    "cand.toml",
];

fn compare(candidate: &str, extra: &[&str]) -> std::process::Output {
    compare_with("base.toml", candidate, extra)
}

fn compare_with(baseline: &str, candidate: &str, extra: &[&str]) -> std::process::Output {
    crate::common::compare_fixture("latency", baseline, candidate, extra)
}

use crate::common::json_value as json;

fn expected() -> serde_json::Value {
    let text = std::fs::read_to_string(fixture("latency/expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json parses")
}

#[track_caller]
fn assert_stats(actual: &serde_json::Value, expected: &serde_json::Value) {
    assert_eq!(actual["queries"], expected["queries"]);
    for stat in ["p50", "p95", "p99", "max"] {
        let (a, e) = (
            actual[stat].as_f64().unwrap(),
            expected[stat].as_f64().unwrap(),
        );
        assert!((a - e).abs() < 1e-9, "{stat}: ragdiff {a}, numpy {e}");
    }
}

#[test]
fn percentiles_equal_numpys_from_a_field_a_column_and_a_side_file() {
    let e = expected();
    // JSONL `latency_ms` against a CSV `latency_ms` column.
    let r = json(&compare("cand.toml", &["--format", "json"]));
    let l = &r["latency"];
    assert_stats(&l["baseline"], &e["baseline"]);
    assert_stats(&l["candidate"], &e["candidate"]);
    assert_eq!(l["comparable"], true);
    let d = l["delta"]["p95"].as_f64().unwrap();
    let want = e["candidate"]["p95"].as_f64().unwrap() - e["baseline"]["p95"].as_f64().unwrap();
    assert!((d - want).abs() < 1e-9, "{d} {want}");
    // The typed report (every key known) reads it too.
    let args = with(&NO_CONFIG_CASE, &["--format", "json"]);
    let typed = crate::common::compare_json(fixture("latency"), &args, 0);
    assert_eq!(typed.latency.as_ref(), Some(l));
    // TREC results with the manifest's side file: the same latencies.
    let r = json(&compare("cand-trec.toml", &["--format", "json"]));
    assert_stats(&r["latency"]["candidate"], &e["side_file"]);
    // No latency on a side: no `latency` key, and a warning.
    let out = compare_with("base-no-latency.toml", "cand.toml", &["--format", "json"]);
    assert_code(&out, 0);
    let r = json(&out);
    assert!(r.get("latency").is_none());
    assert!(
        r["warnings"].to_string().contains("only the candidate has latency (a `latency_ms` field or column, or a latency side file): latency is not compared"),
        "{}",
        r["warnings"]
    );
}

#[test]
fn the_gate_fails_on_a_latency_increase_above_the_limit() {
    // p95 grows from 19.511 to 24.173 ms: +4.662 ms, +23.9%.
    let out = compare("cand.toml", &["--max-latency-increase", "p95=20%"]);
    assert_code(&out, 1);
    assert!(
        stdout(&out).contains("latency p95 rose from 19.511 ms to 24.173 ms (+4.662 ms, +23.9%), more than the allowed 20%"),
        "{}",
        stdout(&out)
    );
    let r = json(&compare(
        "cand.toml",
        &["--max-latency-increase", "p95=4ms", "--format", "json"],
    ));
    assert_eq!(
        r["gate"]["codes"],
        serde_json::json!(["max_latency_increase"])
    );
    assert_code(
        &compare("cand.toml", &["--max-latency-increase", "p95=30%"]),
        0,
    );
    assert_code(
        &compare("cand.toml", &["--max-latency-increase", "p95=5ms"]),
        0,
    );
    // Two limits, one broken (max grew by 52%).
    let both = [
        "--max-latency-increase",
        "p95=30%",
        "--max-latency-increase",
        "max=50%",
    ];
    assert_code(&compare("cand.toml", &both), 1);
    // The policy file's key, and a flag replacing its limit of the same statistic.
    let dir = crate::common::temp_copy(&fixture("latency"));
    let policy = "[gate]\nmax_latency_increase = { p95 = \"20%\" }\n";
    std::fs::write(dir.path().join("ragdiff.toml"), policy).unwrap();
    let args = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];
    assert_code(&run(dir.path(), &args), 1);
    let looser = [&args[..], &["--max-latency-increase", "p95=30%"]].concat();
    assert_code(&run(dir.path(), &looser), 0);
    std::fs::write(
        dir.path().join("ragdiff.toml"),
        "[gate]\nmax_latency_increase = { p90 = \"20%\" }\n",
    )
    .unwrap();
    let bad = run(dir.path(), &args);
    assert_code(&bad, 2);
    assert!(
        stderr(&bad).contains("ragdiff.toml:2: `max_latency_increase`: p90 = \"20%\" is not p50, p95, p99 or max = \"20%\" or \"50ms\""),
        "{}",
        stderr(&bad)
    );
}

/// A latency limit the runs cannot judge leaves the verdict INCONCLUSIVE (exit 1,
/// `--inconclusive pass` exits 0), never PASS: the candidate's latency and its
/// `[record]` table are the candidate's to leave out (docs/contract.md §6.9).
#[test]
fn latency_recorded_otherwise_is_shown_with_a_warning_and_left_inconclusive() {
    let out = compare(
        "cand-other.toml",
        &["--max-latency-increase", "p95=20%", "--format", "json"],
    );
    assert_code(&out, 1);
    let r = json(&out);
    assert_eq!(r["latency"]["comparable"], false);
    assert_stats(&r["latency"]["candidate"], &expected()["candidate"]);
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("latency is shown but not gated: the baseline and the candidate were recorded with concurrency 4 against 8 and host ci-1 against ci-2; latency is judged only between runs recorded with the same concurrency on the same host"),
        "{warnings}"
    );
    assert_eq!(r["gate"]["verdict"], "inconclusive");
    assert_eq!(r["gate"]["codes"], serde_json::json!(["latency_unjudged"]));
    assert_eq!(
        r["gate"]["reasons"],
        serde_json::json!([
            "max_latency_increase p95=20% cannot be judged: the baseline and the candidate were recorded with concurrency 4 against 8 and host ci-1 against ci-2"
        ])
    );
    let out = compare(
        "cand-no-record.toml",
        &["--max-latency-increase", "p95=20%"],
    );
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("latency is shown but not gated: the candidate's manifest has no `[record]` table (concurrency, host)"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("change (not gated)"),
        "{}",
        stdout(&out)
    );
    let out = compare(
        "cand-no-record.toml",
        &[
            "--max-latency-increase",
            "p95=20%",
            "--inconclusive",
            "pass",
        ],
    );
    assert_code(&out, 0);
    assert!(
        stdout(&out).starts_with("INCONCLUSIVE (passes: inconclusive = pass)  max_latency_increase p95=20% cannot be judged: the candidate's manifest has no `[record]` table (concurrency, host)\n"),
        "{}",
        stdout(&out)
    );
    // Neither side has latency: the limits cannot be judged either.
    let out = run(
        fixture("compare"),
        &with(
            &NO_CONFIG_CASE,
            &[
                "--max-latency-increase",
                "p95=20%",
                "--max-latency-increase",
                "max=5ms",
            ],
        ),
    );
    assert_code(&out, 1);
    assert!(
        stdout(&out).starts_with("INCONCLUSIVE  max_latency_increase p95=20% max=5ms cannot be judged: neither run has latency (a `latency_ms` field or column, or a latency side file)\n"),
        "{}",
        stdout(&out)
    );
}

/// The hostile candidate: 23.9% slower at p95 under a limit of 1%, it fails; the same
/// results with the latency or the `[record]` table left out must not pass.
#[test]
fn a_candidate_cannot_pass_a_latency_limit_by_leaving_its_latency_out() {
    let limit = ["--max-latency-increase", "p95=1%"];
    let out = compare("cand.toml", &limit);
    assert_code(&out, 1);
    assert!(
        stdout(&out).starts_with("FAIL  latency p95 rose from 19.511 ms to 24.173 ms (+4.662 ms, +23.9%), more than the allowed 1%\n"),
        "{}",
        stdout(&out)
    );
    // Its [record] table deleted: was PASS (exit 0).
    let out = compare("cand-no-record.toml", &limit);
    assert_code(&out, 1);
    assert!(
        stdout(&out).starts_with("INCONCLUSIVE  "),
        "{}",
        stdout(&out)
    );
    // The baseline's latency left out, as the candidate's would be.
    let out = compare_with("base-no-latency.toml", "cand.toml", &limit);
    assert_code(&out, 1);
    assert!(
        stdout(&out).starts_with("INCONCLUSIVE  max_latency_increase p95=1% cannot be judged: only the candidate has latency\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn markdown_shows_the_latency_table() {
    let md = stdout(&compare("cand.toml", &["--format", "markdown"]));
    assert!(
        md.contains("| latency (ms) | p50 | p95 | p99 | max |"),
        "{md}"
    );
    assert!(
        md.contains("| baseline (40 queries) | 11.201 | 19.511 | 28.005 | 32.022 |"),
        "{md}"
    );
    assert!(md.contains("| change | +3.568 ms, +31.9% |"), "{md}");
}

#[test]
fn bad_limits_and_bad_latencies_are_input_errors() {
    let out = compare(
        "cand.toml",
        &[
            "--max-latency-increase",
            "p90=20%",
            "--max-latency-increase",
            "p95=20",
        ],
    );
    assert_code(&out, 2);
    let err = stderr(&out);
    for flag in ["p90=20%", "p95=20"] {
        assert!(
            err.contains(&format!("--max-latency-increase {flag}: expected STAT=LIMIT with STAT p50, p95, p99 or max and LIMIT a percentage (20%) or milliseconds (50ms), like p95=20%")),
            "{err}"
        );
    }
    // 100 KB of value is shown in at most 80 columns, with every other problem
    let long = format!("p95={}", "9".repeat(100_000));
    let out = compare(
        "cand.toml",
        &["--max-latency-increase", &long, "--max-drop", "rr=-1"],
    );
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.len() < 1_000, "{} bytes of stderr", err.len());
    assert!(
        err.contains("--max-drop rr=-1: the value must be a number >= 0"),
        "{err}"
    );
    assert!(err.contains("--max-latency-increase p95=999"), "{err}");
    let out = compare("cand-bad.toml", &[]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("bad-latency.csv:4: query q03: latency_ms is -1; a latency is a number of milliseconds >= 0"),
        "{}",
        stderr(&out)
    );
}
