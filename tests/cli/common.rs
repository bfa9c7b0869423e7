//! Helpers shared by the CLI tests: run the binary from a folder (fixtures use
//! relative paths, so messages show short file names), render an outcome as one
//! text for snapshots, and the `eval` JSON as typed values.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde::Deserialize;

/// The crate's root: the demo (`gold/`, `runs/`) lives here.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    crate_dir().join("tests/fixtures").join(rel)
}

/// `ragdiff` run from `dir`, with the environment variables that change output
/// cleared so a developer's shell cannot change a snapshot.
pub fn ragdiff(dir: impl AsRef<Path>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragdiff"));
    cmd.current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CI")
        .env_remove("COLUMNS")
        .env_remove("RAGDIFF_TIMINGS")
        .env("NO_COLOR", "1")
        // 2026-12-01 UTC: the date reports and `accept` write (reproducible).
        .env("SOURCE_DATE_EPOCH", "1796083200");
    cmd
}

/// Run `ragdiff ARGS` from `dir` and return what it did, whatever its exit code.
pub fn run(dir: impl AsRef<Path>, args: &[&str]) -> Output {
    ragdiff(dir).args(args).output().expect("ragdiff runs")
}

/// The exit code (-1 when killed by a signal).
pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit code, stdout and stderr in one text, so a snapshot pins all three together
/// (uv's `tests/it/common` pattern).
pub fn render(out: &Output) -> String {
    format!(
        "success: {}\nexit_code: {}\n----- stdout -----\n{}\n----- stderr -----\n{}",
        out.status.success(),
        code(out),
        stdout(out),
        stderr(out)
    )
}

/// What a test ran, for [`ragdiff_snapshot!`]: an `Output` it has, or a `Command` to
/// run now.
pub trait Outcome {
    fn outcome(self) -> Output;
}

impl Outcome for Output {
    fn outcome(self) -> Output {
        self
    }
}

impl Outcome for &Output {
    fn outcome(self) -> Output {
        self.clone()
    }
}

impl Outcome for &mut Command {
    fn outcome(self) -> Output {
        self.output().expect("ragdiff runs")
    }
}

impl Outcome for Command {
    fn outcome(mut self) -> Output {
        self.output().expect("ragdiff runs")
    }
}

/// The insta settings of [`ragdiff_snapshot!`]: filters for what differs between one
/// machine or build and another, each replaced by a name in brackets: a temporary
/// folder (`[TEMP]`, also as the system resolves it: macOS's `/private/var/…`), the
/// crate's folder (`[CRATE]`), the seconds of `RAGDIFF_TIMINGS` lines
/// (`[SECONDS]`; `ragdiff()` clears the variable, a test may set it), a git commit id
/// (`[COMMIT]`: a test's own commits differ run to run) and ragdiff's own
/// version (`ragdiff [VERSION]`, `@v[VERSION]`). Index and gold versions in the data are
/// left alone.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    let temp = std::env::temp_dir();
    let mut temps = vec![temp.clone()];
    if let Ok(real) = temp.canonicalize() {
        temps.push(real);
    }
    for dir in temps {
        let dir = dir.to_string_lossy().trim_end_matches('/').to_string();
        settings.add_filter(
            &format!(r"{}/\.tmp[0-9A-Za-z]+", regex_escape(&dir)),
            "[TEMP]",
        );
    }
    settings.add_filter(&regex_escape(&crate_dir().to_string_lossy()), "[CRATE]");
    // A commit a test makes has a new id each run (its time is in it); sha256s are 64.
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
    settings.add_filter(r"(timing: \S+ done at )\d+\.\d+ s", "${1}[SECONDS] s");
    let version = regex_escape(env!("CARGO_PKG_VERSION"));
    settings.add_filter(&format!(r"\bragdiff {version}\b"), "ragdiff [VERSION]");
    settings.add_filter(&format!(r"@v{version}\b"), "@v[VERSION]");
    settings
}

/// `text` with every regex metacharacter escaped (insta's filters take a pattern).
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Snapshot what a user sees of one run: its exit code, stdout and stderr in one text
/// ([`render`]), through [`snapshot_settings`]' filters. Takes an `Output` (or
/// `&Output`) or a `Command` to run; `@"…"` after it makes the snapshot inline (for a
/// short outcome: a message and its code), else it is a file in tests/cli/snapshots
/// named by the test. Update with `cargo insta review`, or for file snapshots
/// `INSTA_UPDATE=always cargo test …`, and read what changed.
///
/// An rstest function names each of its snapshots (`ragdiff_snapshot!(name, out)`, the
/// name made with [`slug`] from the case): its cases share one function name and run in
/// parallel, so insta's counted names would follow the order they finish in.
///
/// ```ignore
/// ragdiff_snapshot!(run(fixture("broken"), &["validate"]));
/// ragdiff_snapshot!(ragdiff(dir).args(["eval", "x.toml"]), @r"
/// success: false
/// exit_code: 2
/// …
/// ");
/// ```
macro_rules! ragdiff_snapshot {
    ($out:expr, @$snapshot:literal $(,)?) => {{
        let text = $crate::common::render(&$crate::common::Outcome::outcome($out));
        $crate::common::snapshot_settings().bind(|| insta::assert_snapshot!(text, @$snapshot));
    }};
    ($name:expr, $out:expr $(,)?) => {{
        let text = $crate::common::render(&$crate::common::Outcome::outcome($out));
        let name: String = $name.into();
        $crate::common::snapshot_settings().bind(|| insta::assert_snapshot!(name, text));
    }};
    ($out:expr $(,)?) => {{
        let text = $crate::common::render(&$crate::common::Outcome::outcome($out));
        $crate::common::snapshot_settings().bind(|| insta::assert_snapshot!(text));
    }};
}
pub(crate) use ragdiff_snapshot;

/// `text` as a snapshot name: every character but a letter or digit becomes `_`.
pub fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Assert the exit code, showing the whole outcome when it is not the expected one.
#[track_caller]
pub fn assert_code(out: &Output, expected: i32) {
    assert_eq!(
        code(out),
        expected,
        "unexpected exit code:\n{}",
        render(out)
    );
}

/// Assert that `out` (an [`Outcome`]) renders ([`render`]) as exit code `expected`,
/// nothing on stdout and exactly `stderr` on stderr: what an inline snapshot of a
/// refusal or a broken input pins, for a test that checks several in a loop or builds
/// lines that repeat (one a gold query). Nothing is filtered ([`snapshot_settings`]):
/// a path the message shows must be as written.
#[track_caller]
pub fn assert_stderr(out: impl Outcome, expected: i32, stderr: &str) {
    let want = format!(
        "success: {}\nexit_code: {expected}\n----- stdout -----\n\n----- stderr -----\n{stderr}",
        expected == 0
    );
    let got = render(&out.outcome());
    assert!(got == want, "expected\n{want}\ngot\n{got}");
}

/// `error: invalid input: N problem(s)` and `problems` under it, one an indented
/// line: what ragdiff writes on stderr for broken inputs (docs/contract.md §11, exit 2).
pub fn invalid_input<S: AsRef<str>>(problems: &[S]) -> String {
    let n = problems.len();
    let noun = if n == 1 { "problem" } else { "problems" };
    let lines: String = problems
        .iter()
        .map(|p| format!("  {}\n", p.as_ref()))
        .collect();
    format!("error: invalid input: {n} {noun}\n{lines}")
}

/// Assert that `out` exited 2 with nothing on stdout and exactly [`invalid_input`] of
/// `problems` on stderr.
#[track_caller]
pub fn assert_invalid<S: AsRef<str>>(out: impl Outcome, problems: &[S]) {
    assert_stderr(out, 2, &invalid_input(problems));
}

/// What clap writes on stderr for a command line it refuses (exit 2): `error: `
/// `message`, then where to read more.
pub fn usage_error(message: &str) -> String {
    format!("error: {message}\n\nFor more information, try '--help'.\n")
}

/// The demo gold's queries (`gold/demo.csv`), in the order ragdiff lists them.
pub const DEMO_QUERIES: [&str; 9] = [
    "Q-17", "Q-18", "Q-21", "Q-22", "Q-23", "Q-24", "Q-25", "Q-26", "Q-27",
];

/// `file: gold query ID is missing from this repeat …` for each of `ids`: the
/// problem a repeat of a run that lacks queries another repeat lists has, once a query.
pub fn missing_from_repeat(file: &str, ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| {
            format!(
                "{file}: gold query {id} is missing from this repeat although another \
                 repeat of the run lists it; every repeat answers the same queries"
            )
        })
        .collect()
}

/// Assert that `text` has a line equal to `line` once trimmed.
#[track_caller]
pub fn assert_line(text: &str, line: &str) {
    assert!(
        text.lines().any(|l| l.trim() == line),
        "no line\n  {line}\nin\n{text}"
    );
}

/// `ragdiff eval --format json` as typed values (ripgrep `tests/json.rs` style): a
/// missing, mistyped or unknown key fails the parse, so these types list every key the
/// code emits (docs/contract.md). A nullable key is still required: its field reads
/// through [`nullable`], which has no "missing means null" default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalJson {
    pub schema_version: String,
    pub gold: GoldJson,
    pub run: RunJson,
    pub k: u32,
    pub per_query: Vec<Row>,
    pub means: Means,
    /// Present with `--cutoffs` only (docs/contract.md §2.8).
    #[serde(default)]
    pub means_at: Option<std::collections::BTreeMap<String, AtJson>>,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}

/// Read a key whose value may be `null` but which must be present (serde's derive
/// treats a missing `Option` field as `None` unless `deserialize_with` is given).
pub fn nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldJson {
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub version: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub frozen_at: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub sha256: Option<String>,
    pub frozen: bool,
    #[serde(deserialize_with = "nullable")]
    pub corpus: Option<String>,
    pub queries: usize,
    /// Relevant docs per query (a whole number, as a JSON key) -> queries.
    pub relevant_per_query: std::collections::BTreeMap<u32, usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunJson {
    #[serde(deserialize_with = "nullable")]
    pub index_version: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub corpus: Option<String>,
    pub depth: u32,
    /// Present only under `compare --depth` (docs/contract.md §6.1).
    #[serde(default)]
    pub declared_depth: Option<u32>,
    pub filters: std::collections::BTreeMap<String, String>,
    pub results: String,
    pub repeats: usize,
    /// Present only when the run has a chunk map (docs/contract.md §2.11).
    #[serde(default)]
    pub doc_map: Option<DocMapJson>,
    /// The manifest's `[meta]`, present only when it has one (docs/contract.md §2.2).
    #[serde(default)]
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
    /// The gold ids its manifest lists as errored, present only when there are any
    /// (docs/contract.md §6.8).
    #[serde(default)]
    pub errored: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocMapJson {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub first_relevant_rank: Option<u32>,
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
    pub unjudged_at_k: u32,
    /// Present with `--cutoffs` only (docs/contract.md §2.8).
    #[serde(default)]
    pub at: Option<std::collections::BTreeMap<String, AtJson>>,
    /// Present with `--judged-only` only (docs/contract.md §5.3).
    #[serde(default)]
    pub judged_only: Option<SideJson>,
    /// Present with `--measure` only (docs/contract.md §5.4).
    #[serde(default)]
    pub measures: Option<Named>,
}

/// Named measures' values by printed name (docs/contract.md §5.4), in JSON's order.
pub type Named = serde_json::Map<String, serde_json::Value>;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Means {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
    pub judged: f64,
    /// Present with `--judged-only` only (docs/contract.md §5.3).
    #[serde(default)]
    pub judged_only: Option<DeltaJson>,
    /// Present with `--measure` only (docs/contract.md §5.4).
    #[serde(default)]
    pub measures: Option<Named>,
}

impl EvalJson {
    /// The row of query `id`; panics when it is not listed.
    #[track_caller]
    pub fn row(&self, id: &str) -> &Row {
        self.per_query
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("query {id} is not in per_query"))
    }
}

/// Run `ragdiff ARGS` from `dir`, expect exit 0, and parse stdout as eval JSON.
#[track_caller]
pub fn eval_json(dir: impl AsRef<Path>, args: &[&str]) -> EvalJson {
    let out = run(dir, args);
    assert_code(&out, 0);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("eval JSON does not parse: {e}\n{}", render(&out)))
}

/// Equal within floating-point noise.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: {actual}, expected {expected}"
    );
}

/// Copy the files of `src` (not recursive) into a new temporary folder.
pub fn temp_copy(src: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for entry in std::fs::read_dir(src).expect("the fixture folder") {
        let entry = entry.expect("a folder entry");
        if entry.file_type().expect("a file type").is_file() {
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copied");
        }
    }
    dir
}

// ---------------------------------------------------------------------------------
// `compare`: the JSON report as typed values, and generated comparisons.

/// `ragdiff compare --format json` as typed values (docs/contract.md lists the keys);
/// a missing, mistyped or unknown key or enum value fails the parse.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareJson {
    pub schema_version: String,
    pub gold: GoldJson,
    pub baseline: RunJson,
    pub candidate: RunJson,
    pub k: u32,
    pub bump: Bump,
    pub reproducibility_check: bool,
    pub nondeterministic: Vec<String>,
    pub means: CompareMeans,
    pub zero_rr: ZeroRrJson,
    /// URisk and TRisk per metric and alpha (docs/contract.md §7.4).
    pub risk: Vec<RiskJson>,
    pub segments: Vec<SegmentJson>,
    pub drift: DriftJson,
    /// Present with `--cutoffs` only (docs/contract.md §6.7).
    #[serde(default)]
    pub means_at: Option<std::collections::BTreeMap<String, MeansAtJson>>,
    pub per_query: Vec<CompareRow>,
    pub newly_failed: Vec<String>,
    pub fixed: Vec<String>,
    pub still_failing: Vec<String>,
    pub suspect: Vec<String>,
    /// Newly failed ids whose candidate top k holds no unjudged doc (§5.3).
    pub no_label_can_rescue: Vec<String>,
    pub flaky: Vec<String>,
    /// Newly failed ids one run of an approximate index cannot confirm (§6.5).
    pub unconfirmed: Vec<String>,
    /// Both sides' latency statistics, present only when both have latency (§6.9).
    #[serde(default)]
    pub latency: Option<serde_json::Value>,
    pub accepted: Vec<AcceptedJson>,
    pub no_answer: Vec<String>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
    pub gate: GateJson,
    pub resamples: Option<u32>,
    pub seed: u64,
    pub min_segment_queries: usize,
    /// The `ragdiff.toml` that applied; null: none (docs/contract.md §10.3).
    pub policy: Option<PolicyJson>,
    /// The flags that set the policy; absent when none (docs/contract.md §9.2).
    #[serde(default)]
    pub policy_flags: Vec<String>,
    /// Absent without history.jsonl beside the baseline (docs/contract.md §9.11).
    #[serde(default)]
    pub history: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyJson {
    pub path: String,
    pub sha256: String,
}

/// A query's status, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    NewlyFailed,
    Regressed,
    StillFailing,
    Flaky,
    Improved,
    Fixed,
    Unchanged,
}

impl Status {
    /// The name JSON and CSV give it.
    pub fn name(self) -> &'static str {
        match self {
            Status::NewlyFailed => "newly_failed",
            Status::Regressed => "regressed",
            Status::StillFailing => "still_failing",
            Status::Flaky => "flaky",
            Status::Improved => "improved",
            Status::Fixed => "fixed",
            Status::Unchanged => "unchanged",
        }
    }
}

/// The index version change from baseline to candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bump {
    Major,
    Minor,
    Patch,
    Same,
    Older,
    NotSemver,
}

/// Why a query newly failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Ranking,
    Retrieval,
    Coverage,
}

/// The family an adjusted p belongs to (docs/contract.md §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Overall,
    Segments,
}

/// How a sign-flip p was computed (docs/contract.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PMethod {
    Exact,
    MonteCarlo,
}

/// How an interval was computed (docs/contract.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CiMethod {
    SignFlipExact,
    SignFlipMonteCarlo,
}

/// How a family's p-values were adjusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    Holm,
    Bh,
}

/// A mean of RR, Recall, Hit or nDCG: its delta and always its statistics.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestedMeanJson {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub ci_method: CiMethod,
    pub p_value: f64,
    pub p_method: PMethod,
    /// Null when p is exact (the key is always there).
    #[serde(deserialize_with = "nullable")]
    pub p_mc_se: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub resamples: Option<u32>,
    pub p_adjusted: f64,
    pub family: Family,
    pub correction: Correction,
    /// Cohen's d_z; null when undefined.
    #[serde(deserialize_with = "nullable")]
    pub effect_size: Option<f64>,
    /// The minimum detectable effect at 80% power (§7.3); null when undefined.
    #[serde(deserialize_with = "nullable")]
    pub mde: Option<f64>,
    pub mde_alpha: f64,
}

/// A mean of P or AP: its delta, never statistics (the keys are absent).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanJson {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareMeans {
    pub rr: TestedMeanJson,
    pub recall: TestedMeanJson,
    pub hit: TestedMeanJson,
    pub ndcg: TestedMeanJson,
    pub precision: MeanJson,
    pub ap: MeanJson,
    pub judged: MeanJson,
    /// The overall means only, absent from a segment's (docs/contract.md §5.3).
    #[serde(default)]
    pub upper: Option<MeanUpperJson>,
    #[serde(default)]
    pub unjudged_as_relevant: Option<MeanAsRelevantJson>,
    /// Present with `--measure` only, each a tested mean without `p_adjusted`,
    /// `family` and `correction` (docs/contract.md §5.4).
    #[serde(default)]
    pub measures: Option<Named>,
}

/// One value per side.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidesJson<T> {
    pub baseline: T,
    pub candidate: T,
}

/// The means with the top k's unjudged docs counted as relevant (§5.3).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanUpperJson {
    pub rr: SidesJson<f64>,
    pub recall: SidesJson<f64>,
    pub hit: SidesJson<f64>,
    pub precision: SidesJson<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanAsRelevantJson {
    pub ndcg: SidesJson<f64>,
    pub ap: SidesJson<f64>,
}

/// One side's upper bounds (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpperJson {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
}

/// One side's nDCG@k and AP with the unjudged docs counted as relevant (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsRelevantJson {
    pub ndcg: f64,
    pub ap: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZeroRrJson {
    pub baseline: usize,
    pub candidate: usize,
    pub delta: i64,
}

/// One side of a per-query row.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideJson {
    #[serde(deserialize_with = "nullable")]
    pub first_relevant_rank: Option<u32>,
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
    /// Present with `--cutoffs` only (docs/contract.md §6.7).
    #[serde(default)]
    pub at: Option<std::collections::BTreeMap<String, AtJson>>,
    /// Present with `compare --measure` only (docs/contract.md §10.1).
    #[serde(default)]
    pub measures: Option<Named>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeltaJson {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
    pub ap: f64,
    /// Present in a compare row with `--measure` only (docs/contract.md §10.3).
    #[serde(default)]
    pub measures: Option<Named>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRow {
    pub id: String,
    pub status: Status,
    pub baseline: SideJson,
    pub candidate: SideJson,
    pub delta: DeltaJson,
    /// Set for newly failed queries only, `null` otherwise.
    #[serde(deserialize_with = "nullable")]
    pub failure_kind: Option<FailureKind>,
    pub lost: Vec<String>,
    pub gained: Vec<String>,
    pub baseline_unjudged_at_k: u32,
    pub candidate_unjudged_at_k: u32,
    pub unjudged_entered: u32,
    pub suspect: bool,
    pub baseline_flaky: bool,
    pub candidate_flaky: bool,
    pub baseline_zero_rr_repeats: u32,
    pub candidate_zero_rr_repeats: u32,
    #[serde(deserialize_with = "nullable")]
    pub rbo: Option<f64>,
    /// Null when neither side has an unjudged doc in its top k (§5.3).
    #[serde(deserialize_with = "nullable")]
    pub upper: Option<SidesJson<UpperJson>>,
    #[serde(deserialize_with = "nullable")]
    pub unjudged_as_relevant: Option<SidesJson<AsRelevantJson>>,
    pub no_label_can_rescue: bool,
    /// `baseline`, `candidate` or `both`, present only on an errored query (§6.8).
    #[serde(default)]
    pub errored: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptedJson {
    pub id: String,
    pub reason: String,
    pub index_version: Option<String>,
    pub accepted_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateJson {
    pub passed: bool,
    /// `pass`, `fail` or `inconclusive` (docs/contract.md §8.3).
    pub verdict: OutcomeJson,
    pub reasons: Vec<String>,
    pub codes: Vec<ReasonCode>,
    pub enforced: bool,
    pub non_inferiority: Vec<NonInferiorityJson>,
    /// Newly failed ids `[gate] block` leaves to the other rules (§8.7).
    pub not_blocking: Vec<String>,
    /// What a PASS cannot see (§7.3).
    pub unseen_drops: Vec<UnseenDropJson>,
}

/// `gate.unseen_drops[]`: a metric whose MDE exceeds the drop that matters.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnseenDropJson {
    pub metric: String,
    /// A named measure's entry in a segment only (docs/contract.md §7.3).
    #[serde(default)]
    pub segment: Option<String>,
    pub drop: f64,
    pub mde: f64,
    pub mde_alpha: f64,
    pub queries: usize,
}

/// `gate.verdict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeJson {
    Pass,
    Fail,
    Inconclusive,
}

/// `gate.codes`: one per reason, in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    NewlyFailed,
    Nondeterministic,
    MaxDrop,
    SignificantDrop,
    SameResults,
    SegmentSignificantDrop,
    MaxDropPerSegment,
    NonInferiority,
    Flaky,
    MinRbo,
    Risk,
    Errored,
}

impl CompareJson {
    /// The row of query `id`; panics when it is not listed.
    #[track_caller]
    pub fn row(&self, id: &str) -> &CompareRow {
        self.per_query
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("query {id} is not in per_query"))
    }

    /// Ids of the rows with `status`, in report order.
    pub fn with_status(&self, status: Status) -> Vec<&str> {
        self.per_query
            .iter()
            .filter(|r| r.status == status)
            .map(|r| r.id.as_str())
            .collect()
    }
}

/// Run `ragdiff ARGS` from `dir`, expect exit `expected`, and parse stdout as compare
/// JSON (ARGS must ask for `--format json`).
#[track_caller]
pub fn compare_json(dir: impl AsRef<Path>, args: &[&str], expected: i32) -> CompareJson {
    let out = run(dir, args);
    assert_code(&out, expected);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("compare JSON does not parse: {e}\n{}", render(&out)))
}

/// What a generated query does between baseline and candidate (k = 3, depth 5, one
/// relevant doc `r`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    /// `r` moves from rank 1 to rank 4: newly failed by ranking.
    NewlyFailed,
    /// `r` is no longer returned: newly failed by retrieval.
    NewlyFailedRetrieval,
    Regressed,
    Improved,
    Fixed,
    StillFailing,
}

impl Change {
    /// The baseline's and the candidate's lists.
    pub fn lists(self) -> (&'static str, &'static str) {
        match self {
            Change::Unchanged => ("r;x1;x2", "r;x1;x2"),
            Change::NewlyFailed => ("r;x1;x2", "x1;x2;x3;r"),
            Change::NewlyFailedRetrieval => ("x1;r", "x1;x2"),
            Change::Regressed => ("r;x1", "x1;r"),
            Change::Improved => ("x1;r", "r;x1"),
            Change::Fixed => ("x1;x2;x3;r", "r"),
            Change::StillFailing => ("x1", "x2"),
        }
    }

    /// The status compare gives it.
    pub fn status(self) -> Status {
        match self {
            Change::Unchanged => Status::Unchanged,
            Change::NewlyFailed | Change::NewlyFailedRetrieval => Status::NewlyFailed,
            Change::Regressed => Status::Regressed,
            Change::Improved => Status::Improved,
            Change::Fixed => Status::Fixed,
            Change::StillFailing => Status::StillFailing,
        }
    }
}

/// A CSV cell, quoted when it must be.
pub fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Write a generated comparison into `dir`: `gold.toml` (unfrozen, k = 3, corpus
/// `gen`) over `gold.csv`, and `base.toml` (1.0.0) and `cand.toml` (1.1.0), depth 5,
/// over `base.csv` and `cand.csv`. Each query has the one relevant doc `r`.
pub fn write_generated(dir: &Path, queries: &[(String, Change)]) {
    use std::fmt::Write as _;
    let (mut gold, mut base, mut cand) = (
        String::from("id,expected_doc_ids\n"),
        String::from("id,retrieved_doc_ids\n"),
        String::from("id,retrieved_doc_ids\n"),
    );
    for (id, change) in queries {
        let id = csv_cell(id);
        let (b, c) = change.lists();
        let _ = writeln!(gold, "{id},r");
        let _ = writeln!(base, "{id},{b}");
        let _ = writeln!(cand, "{id},{c}");
    }
    let files = [
        ("gold.csv", gold),
        ("base.csv", base),
        ("cand.csv", cand),
        (
            "gold.toml",
            "name = \"gen\"\nversion = \"1.0.0\"\ncorpus = \"gen\"\ndata = \"gold.csv\"\nk = 3\n"
                .to_string(),
        ),
        (
            "base.toml",
            "index_version = \"1.0.0\"\ncorpus = \"gen\"\ndepth = 5\nresults = \"base.csv\"\n"
                .to_string(),
        ),
        (
            "cand.toml",
            "index_version = \"1.1.0\"\ncorpus = \"gen\"\ndepth = 5\nresults = \"cand.csv\"\n"
                .to_string(),
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("a generated file is written");
    }
}

/// The arguments that compare a folder made by [`write_generated`], run from it.
pub const GENERATED: [&str; 5] = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];

/// Why the tests that read the reference data are ignored by a plain `cargo test`.
pub const NEEDS_REFERENCE: &str =
    "needs RAGDIFF_REFERENCE_DIR (../shared/reference): run by .ci/run with --include-ignored";

/// The folder of the reference data (`RAGDIFF_REFERENCE_DIR`, relative to the crate).
/// The tests that call it are `#[ignore]`d (a user's clone has no `../shared`); when
/// they are run, an unset variable or a missing folder fails them.
pub fn reference_dir() -> PathBuf {
    let dir = std::env::var_os("RAGDIFF_REFERENCE_DIR")
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| panic!("RAGDIFF_REFERENCE_DIR is unset: {NEEDS_REFERENCE}"));
    let dir = PathBuf::from(dir);
    let dir = if dir.is_relative() {
        crate_dir().join(dir)
    } else {
        dir
    };
    assert!(
        dir.is_dir(),
        "RAGDIFF_REFERENCE_DIR={} is not a folder: {NEEDS_REFERENCE}",
        dir.display()
    );
    dir
}

/// Say plainly that a test was skipped: written to the process's stderr directly,
/// so the test harness's capture does not hide it.
pub fn say_skipped(message: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{message}");
}

/// A real component a test needs (actionlint, zizmor, tmux, Chromium, …) is not on this
/// machine: under `.ci/run`, which installs every one and sets `RAGDIFF_CI`, the test
/// fails; on a user's clone it says it was skipped and what to install.
pub fn missing_component(what: &str) {
    assert!(
        std::env::var_os("RAGDIFF_CI").is_none(),
        "{what} is not installed, and .ci/run (RAGDIFF_CI is set) installs it"
    );
    say_skipped(&format!(
        "skipped: {what} not installed (.ci/run installs it)"
    ));
}

/// A new, empty git repository (what a user runs `init` in).
pub fn empty_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(dir.path())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git init: {out:?}");
    dir
}

/// The demo (`gold/` and `runs/`, files only) copied into a new temporary folder, for
/// commands that write over their inputs (`promote`).
pub fn demo_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for sub in ["gold", "runs"] {
        let from = crate_dir().join(sub);
        let to = dir.path().join(sub);
        std::fs::create_dir(&to).expect("a folder");
        for entry in std::fs::read_dir(&from).expect("the demo folder") {
            let entry = entry.expect("a folder entry");
            if entry.file_type().expect("a file type").is_file() {
                std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copied");
            }
        }
    }
    dir
}

// ---------------------------------------------------------------------------------
// Segments and honest statistics (docs/contract.md §6.6).

/// A segment's mean: statistics keys present only for RR, Recall, Hit and nDCG of a
/// segment that is not too few.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentMeanJson {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub ci_method: Option<CiMethod>,
    pub p_value: Option<f64>,
    pub p_method: Option<PMethod>,
    /// Absent when too few; null when p is exact.
    #[serde(default, deserialize_with = "nullable_present")]
    pub p_mc_se: Option<Option<f64>>,
    #[serde(default, deserialize_with = "nullable_present_u32")]
    pub resamples: Option<Option<u32>>,
    pub p_adjusted: Option<f64>,
    pub family: Option<Family>,
    pub correction: Option<Correction>,
    #[serde(default, deserialize_with = "nullable_present")]
    pub effect_size: Option<Option<f64>>,
    #[serde(default, deserialize_with = "nullable_present")]
    pub mde: Option<Option<f64>>,
    #[serde(default)]
    pub mde_alpha: Option<f64>,
}

/// As [`nullable_present`], for a count.
pub fn nullable_present_u32<'de, D>(d: D) -> Result<Option<Option<u32>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Option::<u32>::deserialize(d).map(Some)
}

/// `Some(None)` for a present null, `Some(Some(x))` for a number; a missing key stays
/// `None` through `#[serde(default)]`.
pub fn nullable_present<'de, D>(d: D) -> Result<Option<Option<f64>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Option::<f64>::deserialize(d).map(Some)
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentMeansJson {
    pub rr: SegmentMeanJson,
    pub recall: SegmentMeanJson,
    pub hit: SegmentMeanJson,
    pub ndcg: SegmentMeanJson,
    pub precision: SegmentMeanJson,
    pub ap: SegmentMeanJson,
    pub judged: SegmentMeanJson,
    /// The named measures per-segment rules name, present with such a rule only
    /// (docs/contract.md §6.6).
    #[serde(default)]
    pub measures: Option<Named>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentJson {
    pub tag: String,
    pub queries: usize,
    pub too_few: bool,
    pub means: SegmentMeansJson,
    pub newly_failed: Vec<String>,
    /// Empty when the segment is too few (docs/contract.md §7.4).
    pub risk: Vec<RiskJson>,
}

/// One risk figure (docs/contract.md §7.4): `trisk` is null when the weighted deltas
/// do not spread.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskJson {
    pub metric: String,
    pub alpha: f64,
    pub urisk: f64,
    #[serde(deserialize_with = "nullable")]
    pub trisk: Option<f64>,
    pub significant_downside_risk: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NiVerdictJson {
    NonInferior,
    Worse,
    Inconclusive,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonInferiorityJson {
    pub metric: String,
    #[serde(deserialize_with = "nullable")]
    pub segment: Option<String>,
    pub margin: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub family: Family,
    pub ci_method: CiMethod,
    pub p_method: PMethod,
    #[serde(deserialize_with = "nullable")]
    pub p_mc_se: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub resamples: Option<u32>,
    pub verdict: NiVerdictJson,
    /// Sakai's design: queries to detect a drop of the margin (§7.3).
    #[serde(deserialize_with = "nullable")]
    pub queries_needed: Option<u64>,
}

impl CompareJson {
    /// The segment of `tag`; panics when it is not listed.
    #[track_caller]
    pub fn segment(&self, tag: &str) -> &SegmentJson {
        self.segments
            .iter()
            .find(|s| s.tag == tag)
            .unwrap_or_else(|| panic!("segment {tag} is not in segments"))
    }
}

/// Five metrics at one extra cutoff (docs/contract.md §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtJson {
    pub rr: f64,
    pub recall: f64,
    pub hit: f64,
    pub precision: f64,
    pub ndcg: f64,
}

/// JSON `drift` (docs/contract.md §6.5).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftJson {
    pub rbo_p: f64,
    #[serde(deserialize_with = "nullable")]
    pub mean_rbo: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub labelled_mean_rbo: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub unlabelled_mean_rbo: Option<f64>,
    pub unlabelled_queries: usize,
    #[serde(deserialize_with = "nullable")]
    pub low_rbo_share: Option<f64>,
    pub most_changed_unlabelled: Vec<MovedJson>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovedJson {
    pub id: String,
    pub rbo: f64,
}

/// `compare --cutoffs`: the five metrics' means at one cutoff, each `means`-shaped
/// without statistics (docs/contract.md §6.7).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeansAtJson {
    pub rr: MeanAtJson,
    pub recall: MeanAtJson,
    pub hit: MeanAtJson,
    pub precision: MeanAtJson,
    pub ndcg: MeanAtJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanAtJson {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
}

/// A copy of the demo (`demo_copy`) whose gold CSV lacks `column` (say `tags` or
/// `non_relevant_doc_ids`), its version raised to 1.2.0 and frozen again, so tests can
/// show the demo without one of its features.
pub fn demo_copy_without(column: &str) -> tempfile::TempDir {
    let dir = demo_copy();
    let data = dir.path().join("gold/demo.csv");
    let text = std::fs::read_to_string(&data).expect("the demo gold");
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header = rows.headers().expect("a header").clone();
    let drop = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("the demo gold has no column {column}"));
    let keep = |r: &csv::StringRecord| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|(i, _)| *i != drop)
            .map(|(_, c)| c.to_string())
            .collect()
    };
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(keep(&header)).expect("written");
    for row in rows.records() {
        out.write_record(keep(&row.expect("a row")))
            .expect("written");
    }
    std::fs::write(&data, out.into_inner().expect("flushed")).expect("written");
    let manifest = dir.path().join("gold/demo.toml");
    let toml = std::fs::read_to_string(&manifest).expect("the demo manifest");
    let raised = toml.replacen("version = \"1.1.0\"", "version = \"1.2.0\"", 1);
    assert_ne!(raised, toml, "the demo gold is at 1.1.0");
    std::fs::write(&manifest, raised).expect("written");
    assert_code(&run(dir.path(), &["freeze", "gold/demo.toml"]), 0);
    dir
}

/// `ragdiff compare --gold gold.toml --no-config BASELINE CANDIDATE EXTRA…` run from
/// the fixture folder `folder`.
pub fn compare_fixture(folder: &str, baseline: &str, candidate: &str, extra: &[&str]) -> Output {
    let args = [
        &[
            "compare",
            "--gold",
            "gold.toml",
            "--no-config",
            baseline,
            candidate,
        ][..],
        extra,
    ]
    .concat();
    run(fixture(folder), &args)
}

/// stdout parsed as JSON, untyped (for keys the typed structs make optional).
pub fn json_value(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", render(out)))
}

// ---------------------------------------------------------------------------------
// Inline cases: a comparison written by the test itself.

/// A case written into a temporary folder by the test that runs it, for inputs too
/// small or too odd to be a fixture folder. The gold manifest is `gold.toml`
/// (`name = "g"`, version 1.0.0, corpus `c`); a run's manifest has corpus `c` and
/// depth 5; [`Case::key`] sets any other key. Files are written as given, so a test can
/// write a broken one.
///
/// ```ignore
/// let case = Case::new()
///     .gold("gold.csv", "id,expected_doc_ids\nQ-1,D-1\n")
///     .key("gold.toml", "k", "3")
///     .run("base.toml", "1.0.0", "base.csv", "id,retrieved_doc_ids\nQ-1,D-1\n")
///     .run("cand.toml", "1.1.0", "cand.csv", "id,retrieved_doc_ids\nQ-1,D-2\n");
/// ragdiff_snapshot!(case.compare(&[]));
/// ```
pub struct Case {
    dir: tempfile::TempDir,
}

impl Default for Case {
    fn default() -> Self {
        Self::new()
    }
}

impl Case {
    /// An empty folder.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    /// A copy of the demo (`gold/`, `runs/`; see [`demo_copy`]).
    pub fn demo() -> Self {
        Self { dir: demo_copy() }
    }

    /// A copy of the files of `tests/fixtures/<folder>` (not its subfolders).
    pub fn fixture(folder: &str) -> Self {
        Self {
            dir: temp_copy(&fixture(folder)),
        }
    }

    /// The case's folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write `text` to `rel` (its folders made as needed), replacing what was there.
    pub fn file(self, rel: &str, text: impl AsRef<[u8]>) -> Self {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a folder");
        }
        std::fs::write(&path, text).expect("written");
        self
    }

    /// The text of `rel`.
    pub fn read(&self, rel: &str) -> String {
        read(self.path(), rel)
    }

    /// Replace the first `from` in `rel` by `to`; `from` must be there.
    #[track_caller]
    pub fn edit(self, rel: &str, from: &str, to: &str) -> Self {
        edit(self.path(), rel, from, to);
        self
    }

    /// Gold data `data` with `text`, and `gold.toml` over it.
    pub fn gold(self, data: &str, text: &str) -> Self {
        let manifest =
            format!("name = \"g\"\nversion = \"1.0.0\"\ncorpus = \"c\"\ndata = \"{data}\"\n");
        self.file(data, text).file("gold.toml", manifest)
    }

    /// Run results `data` with `text`, and the manifest `manifest` over them at index
    /// version `version`.
    pub fn run(self, manifest: &str, version: &str, data: &str, text: &str) -> Self {
        let toml = format!(
            "index_version = \"{version}\"\ncorpus = \"c\"\ndepth = 5\nresults = \"{data}\"\n"
        );
        self.file(data, text).file(manifest, toml)
    }

    /// Set top-level `key` of the manifest `rel` to `value` (TOML, as written: `"x"`,
    /// `3`): the key's line is replaced, or a new line goes before the first table.
    pub fn key(self, rel: &str, key: &str, value: &str) -> Self {
        let text = self.read(rel);
        let line = format!("{key} = {value}");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let table = lines.iter().position(|l| l.starts_with('['));
        let top = &lines[..table.unwrap_or(lines.len())];
        match top.iter().position(|l| {
            l.split_once('=')
                .is_some_and(|(name, _)| name.trim() == key)
        }) {
            Some(at) => lines[at] = line,
            None => lines.insert(table.unwrap_or(lines.len()), line),
        }
        self.file(rel, lines.join("\n") + "\n")
    }

    /// `ragdiff freeze gold.toml`, which must succeed.
    #[track_caller]
    pub fn freeze(self) -> Self {
        assert_code(&self.ragdiff(&["freeze", "gold.toml"]), 0);
        self
    }

    /// `ragdiff ARGS` run from the case's folder.
    pub fn ragdiff(&self, args: &[&str]) -> Output {
        run(self.path(), args)
    }

    /// `ragdiff compare --gold gold.toml base.toml cand.toml EXTRA…` from the folder.
    pub fn compare(&self, extra: &[&str]) -> Output {
        self.ragdiff(&with(&COMPARE_CASE, extra))
    }
}

/// The text of `dir/rel`.
#[track_caller]
pub fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Replace the first `from` in `dir/rel` by `to`; `from` must be there.
#[track_caller]
pub fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let text = read(dir, rel);
    assert!(text.contains(from), "{rel} has no {from:?}:\n{text}");
    std::fs::write(dir.join(rel), text.replacen(from, to, 1)).expect("written");
}

/// What [`Case::compare`] runs before its extra arguments.
pub const COMPARE_CASE: [&str; 5] = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];

/// [`COMPARE_CASE`] with its report as JSON on stdout (`--format json`).
pub const COMPARE_CASE_JSON: [&str; 7] = [
    "compare",
    "--gold",
    "gold.toml",
    "base.toml",
    "cand.toml",
    "--format",
    "json",
];

/// `eval` of a case folder's `cand.toml` against `gold.toml`, as JSON on stdout.
pub const EVAL_CAND_JSON: [&str; 6] = [
    "eval",
    "--gold",
    "gold.toml",
    "cand.toml",
    "--format",
    "json",
];

/// `compare` of the demo with its allow-list, as JSON on stdout.
pub const DEMO_ALLOWED_JSON: [&str; 5] = [
    "compare",
    "--format",
    "json",
    "--allow-failed-file",
    "runs/accepted-failures.csv",
];

/// `base` followed by `extra`: a test's fixed arguments and the ones it adds.
pub fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

/// The filters of [`ragdiff_snapshot!`] replace what differs between machines and
/// runs, and leave the data's own versions and digests alone.
#[test]
fn snapshot_filters_hide_what_differs_between_machines() {
    let case = Case::new();
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let sha256 = "2ddf6cf705ab".repeat(5) + "2ddf";
    let stderr = format!(
        "{}/gold.toml\n{}/tests/fixtures\nsince {commit}\nsha256 {sha256}\n\
         timing: parse done at 0.125 s\nragdiff {} · index 1.0.0 -> 0.1.0\n",
        case.path().display(),
        crate_dir().display(),
        env!("CARGO_PKG_VERSION"),
    );
    let out = Output {
        status: std::process::Command::new("false")
            .status()
            .expect("false runs"),
        stdout: Vec::new(),
        stderr: stderr.into_bytes(),
    };
    ragdiff_snapshot!(out, @"
    success: false
    exit_code: 1
    ----- stdout -----

    ----- stderr -----
    [TEMP]/gold.toml
    [CRATE]/tests/fixtures
    since [COMMIT]
    sha256 2ddf6cf705ab2ddf6cf705ab2ddf6cf705ab2ddf6cf705ab2ddf6cf705ab2ddf
    timing: parse done at [SECONDS] s
    ragdiff [VERSION] · index 1.0.0 -> 0.1.0
    ");
}
