//! Command-line types only (clap derive). `app` turns them into validated settings.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::eval::cutoffs::SortBy;
use crate::exit::help::{
    ALL_EXIT_CODES, CHECK_EXIT_CODES, EVAL_EXIT_CODES, EXIT_CODES, RECORD_EXIT_CODES,
};
use crate::gate::Suspects;
use crate::model::threshold::{self, GivenThreshold, RuleFlag};
use crate::report::Format;

/// Catch retrieval regressions: evaluate a baseline and a candidate run against one
/// frozen gold set, refuse meaningless comparisons, and show which queries broke.
#[derive(Debug, Parser)]
#[command(name = "ragdiff", version, after_help = ALL_EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare a baseline and a candidate run (the main job; the gate)
    #[command(after_help = EXIT_CODES)]
    Compare(CompareArgs),
    /// Evaluate one run: per-query table and means
    #[command(after_help = EVAL_EXIT_CODES)]
    Eval(EvalArgs),
    /// List every problem in the gold set and runs
    #[command(after_help = CHECK_EXIT_CODES)]
    Validate(ValidateArgs),
    /// Record the gold data's sha256 and frozen_version in its manifest
    #[command(after_help = CHECK_EXIT_CODES)]
    Freeze(FreezeArgs),
    /// Write a starting layout here: gold/, runs/, runs/accepted-failures.csv and the workflow
    Init(InitArgs),
    /// Make the candidate the next baseline, once the gate passes
    #[command(after_help = EXIT_CODES)]
    Promote(PromoteArgs),
    /// Accept newly failed queries: append them to the allow-list for the candidate's index version
    #[command(after_help = EVAL_EXIT_CODES)]
    Accept(AcceptArgs),
    /// Ask the retriever every gold question and write its answers as a run (results and manifest)
    #[command(after_help = RECORD_EXIT_CODES)]
    Record(RecordArgs),
    /// Print the trend of every metric across promoted index versions (history.jsonl)
    #[command(after_help = CHECK_EXIT_CODES)]
    History(HistoryArgs),
}

/// `history` prints a table, Markdown (Mermaid charts), HTML (SVG charts) or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HistoryFormat {
    Table,
    Markdown,
    Html,
    Json,
}

/// `history`: which history file, in which format.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The history file [default: history.jsonl beside the baseline manifest: the policy file's `baseline`, else runs/baseline.toml]
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = HistoryFormat::Table)]
    pub format: HistoryFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `eval` prints a table or JSON (Markdown and CSV are comparison reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalFormat {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct GoldArg {
    /// Gold manifest (.toml) or bare gold data (qrels or CSV) [default: the only *.toml in gold/]
    #[arg(long, value_name = "GOLD")]
    pub gold: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub gold: GoldArg,
    /// RUN (manifest or results file); or GOLD RUN as bare files, trec_eval style; or one CSV in the seeds' layout (id,question,expected_doc_ids,retrieved_doc_ids)
    #[arg(value_name = "INPUT", num_args = 1..=2, required = true)]
    pub inputs: Vec<PathBuf>,
    /// Evaluation cutoff [default: the gold's k, else the run depth]; refused when the gold pins k
    #[arg(long, value_parser = at_least_one)]
    pub k: Option<u32>,
    /// Output format
    #[arg(long, value_enum, default_value_t = EvalFormat::Table)]
    pub format: EvalFormat,
    /// Also report RR, Recall, Hit, P and nDCG at each of these cutoffs (e.g. 1,3,10; each 1..=depth); never gating
    #[arg(long, value_delimiter = ',', value_name = "C,C,...", value_parser = at_least_one)]
    pub cutoffs: Vec<u32>,
    /// Order of the per-query rows: by id (natural order) or worst first (RR, then Recall, then id)
    #[arg(long, value_enum, default_value_t = SortBy::Id)]
    pub sort: SortBy,
    /// Also report this measure, by its ir_measures name (RR@10, R@100, P(rel=2)@10, nDCG@20, AP, AP@100, Rprec, Bpref, Judged@10, Success@10, RR(judged_only=True)@10); repeatable
    #[arg(long = "measure", value_name = "NAME")]
    pub measures: Vec<String>,
    /// Refuse an unfrozen gold set (exit 2)
    #[arg(long)]
    pub require_frozen: bool,
    /// Column names of long-table runs that have no `[columns]` of their own, e.g. query=qid,doc=docno,score=sim (keys query, doc, rank, score); the runs are then read as long tables
    #[arg(long, value_name = "KEY=NAME,...")]
    pub columns: Option<String>,
    /// Also score every query on its judged docs only: unjudged docs removed before the cut at k (condensed lists, as trec_eval -J)
    #[arg(long)]
    pub judged_only: bool,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub gold: GoldArg,
    /// Runs to check [default: runs/baseline.toml and runs/candidate.toml when present]
    #[arg(value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Evaluation cutoff to check against each run's depth
    #[arg(long, value_parser = at_least_one)]
    pub k: Option<u32>,
    /// Treat an unfrozen gold set as a problem
    #[arg(long)]
    pub require_frozen: bool,
}

#[derive(Debug, Args)]
pub struct FreezeArgs {
    /// Gold manifest to freeze [default: the only *.toml in gold/]
    #[arg(value_name = "GOLD")]
    pub gold: Option<PathBuf>,
}

/// `init`: where the workflow's gate step finds the action.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The GitHub repository that holds ragdiff's action.yml (OWNER/NAME, e.g. your
    /// fork); the workflow names it at this version's tag. Needed while this build's
    /// own repository is the placeholder OWNER/ragdiff
    #[arg(long, value_name = "OWNER/NAME")]
    pub repository: Option<String>,
}

/// `promote`: `compare`'s inputs and gate options, and `--force`.
#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// The comparison and gate that must pass first: every `compare` option
    #[command(flatten)]
    pub compare: CompareArgs,
    /// Promote even when the gate fails (invalid input and refusals still stop it)
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub gold: GoldArg,
    /// Baseline and candidate run manifests [default: runs/baseline.toml runs/candidate.toml]
    #[arg(value_names = ["BASELINE", "CANDIDATE"], num_args = 2)]
    pub runs: Vec<PathBuf>,
    /// Evaluation cutoff [default: the gold's k, else the depth]; refused when the gold pins k
    #[arg(long, value_parser = at_least_one)]
    pub k: Option<u32>,
    /// Output format on stdout [default: table]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Also write the Markdown report to FILE (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Also write the JSON report to FILE (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Also write the per-query CSV to FILE (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Also write the HTML report to FILE (- for stdout): one self-contained page with charts and, per changed query, both ranked lists
    #[arg(long, value_name = "FILE")]
    pub export_html: Option<PathBuf>,
    /// Doc titles for the HTML report only: a local CSV `doc_id,title` (never in any other output)
    #[arg(long, value_name = "FILE")]
    pub titles: Option<PathBuf>,
    /// Also write the label queue to FILE (- for stdout): CSV query_id,doc_id,candidate_rank,baseline_rank,status of every unjudged doc in the candidate's top k of newly failed, regressed and still-failing queries
    #[arg(long, value_name = "FILE")]
    pub export_label_queue: Option<PathBuf>,
    /// What a suspect new failure does (a newly failed query whose top k gained unjudged docs): fail the gate, or only warn [default: fail]
    #[arg(long, value_enum)]
    pub suspects: Option<Suspects>,
    /// Seed of the resampling generator [default: 0]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Sign flips for the randomization test and its interval [default: 10,000 while at most 10,000 queries moved, 10^8 / moved above (at least 1,000); exact when at most 16 moved]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub resamples: Option<u32>,
    /// Fail when a mean drops by more than VALUE (absolute); METRIC is mrr|rr|recall|hit|precision|ndcg|ap at the gold's k, or a measure by name (nDCG@20, P(rel=2)@10: split at the last =) (repeatable)
    #[arg(long, value_name = "METRIC=VALUE", value_parser = given(&threshold::MAX_DROP))]
    pub max_drop: Vec<GivenThreshold>,
    /// Accept a newly failed query (repeatable)
    #[arg(long, value_name = "ID")]
    pub allow_failed: Vec<String>,
    /// Accept the newly failed queries listed in a CSV file `id,reason`
    #[arg(long, value_name = "FILE")]
    pub allow_failed_file: Option<PathBuf>,
    /// List the gate's inputs (gold, baseline, allow-list) that differ from this git revision, e.g. the pull request's base
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Fail when RR, Recall, Hit or nDCG drops with Holm-adjusted p < 0.05, overall or in a segment that is not too few; a measure a gate rule names joins the overall test
    #[arg(long, overrides_with = "no_fail_on_significant_drop")]
    pub fail_on_significant_drop: bool,
    /// Undo `fail_on_significant_drop = true` of ragdiff.toml
    #[arg(long, overrides_with = "fail_on_significant_drop")]
    pub no_fail_on_significant_drop: bool,
    /// How the segment tests' p-values are adjusted among themselves: holm (any false alarm) or bh (Benjamini-Hochberg, the share of false alarms; for screening many segments) [default: holm]
    #[arg(long, value_enum, value_name = "METHOD")]
    pub segment_correction: Option<crate::stats::Correction>,
    /// URisk and TRisk of the candidate against the baseline at this ALPHA (a loss weighs 1 + ALPHA times a gain; 0 to 1000; repeatable, the first is the one --fail-on-risk reads) [default: 1 2 5]
    #[arg(long, value_name = "ALPHA", allow_negative_numbers = true)]
    pub risk_alpha: Vec<f64>,
    /// Fail when the overall TRisk of RR or nDCG at the first --risk-alpha is below -2 (significant downside risk)
    #[arg(long, overrides_with = "no_fail_on_risk")]
    pub fail_on_risk: bool,
    /// Undo `fail_on_risk = true` of ragdiff.toml
    #[arg(long, overrides_with = "fail_on_risk")]
    pub no_fail_on_risk: bool,
    /// Segments with fewer queries are shown but not tested ("too few to test") [default: 10]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub min_segment_queries: Option<u32>,
    /// Fail unless the 95% CI of the mean delta lies above -MARGIN; METRIC is rr|mrr|recall|hit|ndcg at the gold's k, or a measure by name (repeatable)
    #[arg(long, value_name = "METRIC=MARGIN", value_parser = given(&threshold::NON_INFERIOR))]
    pub non_inferior: Vec<GivenThreshold>,
    /// The same non-inferiority test in every segment that is not too few; METRIC as for --non-inferior (a measure by name is computed in every segment and joins the segment significance test) (repeatable)
    #[arg(long, value_name = "METRIC=MARGIN", value_parser = given(&threshold::NON_INFERIOR_PER_SEGMENT))]
    pub non_inferior_per_segment: Vec<GivenThreshold>,
    /// Fail when a segment that is not too few drops by more than VALUE; METRIC as for --max-drop (a measure by name is computed in every segment and joins the segment significance test) (repeatable)
    #[arg(long, value_name = "METRIC=VALUE", value_parser = given(&threshold::MAX_DROP_PER_SEGMENT))]
    pub max_drop_per_segment: Vec<GivenThreshold>,
    /// Refuse an unfrozen gold set (exit 2)
    #[arg(long, overrides_with = "no_require_frozen")]
    pub require_frozen: bool,
    /// Undo `require_frozen = true` of ragdiff.toml
    #[arg(long, overrides_with = "require_frozen")]
    pub no_require_frozen: bool,
    /// Report only: never fail the gate (exit 2 and 3 still apply)
    #[arg(long)]
    pub no_gate: bool,
    /// What an INCONCLUSIVE verdict does (a non-inferiority test whose interval holds -margin, nothing else failing): exit 1 (fail) or exit 0 (pass) [default: fail]
    #[arg(long, value_enum)]
    pub inconclusive: Option<crate::gate::Inconclusive>,
    /// Fail on every flaky query (RR@k 0 in some repeats of a run, > 0 in others)
    #[arg(long, overrides_with = "no_strict_flaky")]
    pub strict_flaky: bool,
    /// Undo `strict_flaky = true` of ragdiff.toml
    #[arg(long, overrides_with = "strict_flaky")]
    pub no_strict_flaky: bool,
    /// What non-deterministic retrieval under one index version does (a query whose RR, Recall or nDCG differs between two pooled repeats): fail the gate, or only warn [default: fail]
    #[arg(long, value_enum)]
    pub nondeterminism: Option<crate::gate::Severity>,
    /// What a newly failed query does when a side that says `approximate = true` lists one results file (unconfirmed): fail the gate, or only warn [default: fail]
    #[arg(long, value_enum)]
    pub unconfirmed: Option<crate::gate::Severity>,
    /// What a query the candidate's retriever failed on (its manifest's `errored`, written by `record --allow-errors`) does: fail the gate, or only warn [default: fail]
    #[arg(long, value_enum)]
    pub errored: Option<crate::gate::Severity>,
    /// Fail when a latency statistic of the candidate grows by more than LIMIT over the baseline's: STAT is p50|p95|p99|max, LIMIT a percentage (p95=20%) or milliseconds (p95=50ms); applied only when both runs were recorded with the same concurrency on the same host; repeatable
    #[arg(long, value_name = "STAT=LIMIT", value_parser = latency_limit)]
    pub max_latency_increase: Vec<crate::model::latency::GivenLatencyLimit>,
    /// The metric that decides improved and regressed, ties broken by RR, Recall, nDCG: rr (mrr), recall, hit, precision (p), ndcg or ap (map) at the gold's k, or a measure by name (nDCG@20, P(rel=2)@10), which then also shows in the means and joins the overall test; newly failed and fixed stay RR@k-defined [default: rr]
    #[arg(long, value_name = "NAME")]
    pub primary: Option<String>,
    /// Compare both runs at a common depth N: each list cut to its first N docs before anything is computed (N at most the smaller declared depth)
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub depth: Option<u32>,
    /// Persistence of rank-biased overlap (drift), 0 < P < 1 [default: 0.9]
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub rbo_p: Option<f64>,
    /// Fail when the mean rank-biased overlap of all queries in both runs is below VALUE
    #[arg(long, value_name = "VALUE", allow_negative_numbers = true)]
    pub min_rbo: Option<f64>,
    /// Also report RR, Recall, Hit, P and nDCG at each of these cutoffs (e.g. 1,3,10; each 1..=depth); never gating, statuses stay at k
    #[arg(long, value_delimiter = ',', value_name = "C,C,...", value_parser = at_least_one)]
    pub cutoffs: Vec<u32>,
    /// Also report this measure with an interval and a p, by its ir_measures name (RR@10, R@100, P(rel=2)@10, nDCG@20, AP@100, Rprec, Bpref, Judged@10, Success@10, RR(judged_only=True)@10); repeatable; never gating
    #[arg(long = "measure", value_name = "NAME")]
    pub measures: Vec<String>,
    /// Column names of long-table runs that have no `[columns]` of their own, e.g. query=qid,doc=docno,score=sim (keys query, doc, rank, score); the runs are then read as long tables
    #[arg(long, value_name = "KEY=NAME,...")]
    pub columns: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Which `ragdiff.toml` applies (docs/contract.md §8.6).
#[derive(Debug, Clone, Args, Default)]
pub struct ConfigArgs {
    /// The policy file to apply [default: ragdiff.toml, looked for from here up to the git root]
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Apply no ragdiff.toml: the flags' defaults
    #[arg(long)]
    pub no_config: bool,
}

/// `accept`: which newly failed queries, why, and the comparison they failed in.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// The newly failed query ids to accept
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
    /// Why their failures are accepted (one line; written to the allow-list)
    #[arg(long, value_name = "TEXT", required = true)]
    pub reason: String,
    /// Take the newly failed ids and the candidate's version from a JSON report CI exported (its gold sha256 must match the local gold's) instead of comparing here
    #[arg(long, value_name = "REPORT")]
    pub from_report: Option<PathBuf>,
    #[command(flatten)]
    pub gold: GoldArg,
    /// Baseline run manifest [default: runs/baseline.toml]
    #[arg(long, value_name = "MANIFEST")]
    pub baseline: Option<PathBuf>,
    /// Candidate run manifest [default: runs/candidate.toml]
    #[arg(long, value_name = "MANIFEST")]
    pub candidate: Option<PathBuf>,
    /// The allow-list to append to [default: runs/accepted-failures.csv, created with its header when absent]
    #[arg(long, value_name = "FILE")]
    pub allow_failed_file: Option<PathBuf>,
    /// Evaluation cutoff, as for compare
    #[arg(long, value_parser = at_least_one)]
    pub k: Option<u32>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `record` (docs/contract.md §4.8): the questions, the retriever, the run it writes.
/// Every setting may come from ragdiff.toml's `[record]` too, so none has a clap
/// default and the rules between them (`--http` needs `--ids`, `--ids` needs
/// `--http`) are checked once flags and file are merged (`settings::record`).
#[derive(Debug, Args)]
pub struct RecordArgs {
    #[command(flatten)]
    pub gold: GoldArg,
    /// The retriever as a process speaking JSON Lines on stdin/stdout: "CMD ARGS…", split as a POSIX shell would (quotes, backslashes), run without a shell
    #[arg(long, value_name = "CMD", conflicts_with = "http")]
    pub command: Option<String>,
    /// The retriever as a search server: a URL template ({question} and {id} URL-encoded, {depth}); GET, or POST with --http-body
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,
    /// POST this JSON template ({question}, {id} JSON-escaped inside a string, {depth}, {filters})
    #[arg(long, value_name = "FILE")]
    pub http_body: Option<PathBuf>,
    /// Where the doc ids are in an answer: a JSON pointer, `*` for every element of an array (e.g. /hits/hits/*/_id); needed with --http
    #[arg(long, value_name = "POINTER")]
    pub ids: Option<String>,
    /// Where the scores are, likewise (e.g. /hits/hits/*/_score)
    #[arg(long, value_name = "POINTER")]
    pub scores: Option<String>,
    /// A request header "Name: value" (repeatable; the value is never printed)
    #[arg(long, value_name = "NAME: VALUE")]
    pub header: Vec<String>,
    /// A request header whose value is the environment variable VAR, e.g. Authorization=SEARCH_TOKEN (never printed)
    #[arg(long, value_name = "NAME=VAR")]
    pub header_env: Vec<String>,
    /// Retries of a request after a connection error, a timeout, 429 or 5xx (exponential backoff with jitter, honouring Retry-After) [default: 3]
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// At most this many requests a second (--http)
    #[arg(long, value_name = "RPS")]
    pub max_rps: Option<f64>,
    /// The run manifest to write; the results go beside it (STEM.jsonl, .trec or .csv) [default: ragdiff.toml's `candidate`, else runs/candidate.toml]
    #[arg(long, value_name = "MANIFEST")]
    pub out: Option<PathBuf>,
    /// The index version the run is retrieved from (semver), written to the manifest
    #[arg(
        long,
        value_name = "VERSION",
        required_unless_present = "append_repeat"
    )]
    pub index_version: Option<String>,
    /// Add one repeat, recorded now from another build of the same index, to this existing run manifest (its results format, depth and filters; results = [...] grows by one file, written with the manifest as one set)
    #[arg(long, value_name = "MANIFEST", conflicts_with_all = ["out", "repeats", "results_format"])]
    pub append_repeat: Option<PathBuf>,
    /// Results asked for per query; longer lists are cut [default: 10]
    #[arg(long, value_parser = at_least_one)]
    pub depth: Option<u32>,
    /// An access filter sent with every request and written to the manifest's [filters] (repeatable)
    #[arg(long, value_name = "KEY=VALUE")]
    pub filter: Vec<String>,
    /// The results file's format [default: jsonl]
    #[arg(long, value_enum)]
    pub results_format: Option<crate::record::write::ResultsFormat>,
    /// Requests in flight at most [default: 4]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<u32>,
    /// Seconds one request may take; then the recording fails (a process's group is killed) [default: 10]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Where the retriever's stderr goes, every question's text redacted; - for ragdiff's own stderr [default: discarded; its last 20 lines, questions redacted, are shown on failure]
    #[arg(long, value_name = "FILE")]
    pub retriever_log: Option<PathBuf>,
    /// Also ask these questions nobody labelled (TSV, JSONL or TREC topics); they feed drift only
    #[arg(long, value_name = "FILE")]
    pub include_unlabelled: Option<PathBuf>,
    /// Which part of a TREC topic is the question [default: title]
    #[arg(long, value_enum)]
    pub topic_field: Option<TopicField>,
    /// Record the run even when up to N queries errored (listed in the manifest's `errored`); more fail it (exit 4) [default: 0]
    #[arg(long, value_name = "N")]
    pub allow_errors: Option<u32>,
    /// Ask every question N times, writing N results files of the same index (`results = [...]`): query-time nondeterminism only, not the index build's [default: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeats: Option<u32>,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `--topic-field`: a TREC topic's title or description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TopicField {
    Title,
    Desc,
}

/// A `METRIC=VALUE` flag's value parser: the typed threshold, a malformed value kept
/// with its message (named flag and value) for settings to list with every other
/// problem (docs/contract.md §3).
fn given(
    rule: &'static RuleFlag,
) -> impl Fn(&str) -> Result<GivenThreshold, std::convert::Infallible> + Clone + Send + Sync + 'static
{
    move |text| Ok(rule.given(text))
}

/// `--max-latency-increase`'s value parser: the typed limit, a malformed value kept
/// with its message for settings to list with every other problem.
fn latency_limit(
    text: &str,
) -> Result<crate::model::latency::GivenLatencyLimit, std::convert::Infallible> {
    Ok(crate::model::latency::GivenLatencyLimit::of(text))
}

/// A cutoff, a depth or k: a whole number of at least 1 (a rank position), in
/// ragdiff's words rather than clap's `0 is not in 1..=4294967295`
/// (docs/contract.md §3).
fn at_least_one(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("0 is not a rank: cutoffs, k and depth count from 1".to_string()),
        Ok(n) => u32::try_from(n)
            .map_err(|_| format!("{n} is more than ragdiff takes (at most {})", u32::MAX)),
        Err(_) => Err("not a whole number of at least 1".to_string()),
    }
}
