//! Comparing two runs over one gold set: comparability, per-query pairs and
//! statuses, means with their statistics; the report around it is `report`'s
//! (docs/contract.md §6.1 and §6.2).

use semver::Version;
use serde::Serialize;

pub mod drift;

use crate::eval::measures::Spread;
use crate::eval::{Means, Repeated};
use crate::metrics::named::Measure;
use crate::metrics::{self, Metric, Scores};
use crate::model::{GoldSet, Id, Observed, ObservedRun, Role, RunMeta, Side};
use crate::stats;

pub mod holes;
pub mod latency;

/// A query's status, in the order reports list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    NewlyFailed,
    Regressed,
    StillFailing,
    /// RR@k is 0 in some repeat of a side and > 0 in another (docs/contract.md §6.5).
    Flaky,
    Improved,
    Fixed,
    Unchanged,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::NewlyFailed,
        Status::Regressed,
        Status::StillFailing,
        Status::Flaky,
        Status::Improved,
        Status::Fixed,
        Status::Unchanged,
    ];

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

    /// Newly failed and fixed by RR@k; otherwise regressed or improved by RR, then
    /// Recall, then nDCG (the default primary metric, RR).
    pub fn classify(b: &Scores, c: &Scores) -> Status {
        Self::classify_by(b, c, Primary::default(), None)
    }

    /// Newly failed and fixed by RR@k; otherwise regressed or improved by `primary`
    /// (`named`: a named primary's values on each side), ties broken by the others
    /// in [`TIE_BREAK`] order (docs/contract.md §6.2).
    pub fn classify_by(
        b: &Scores,
        c: &Scores,
        primary: Primary,
        named: Option<Side<f64>>,
    ) -> Status {
        match (b.rr > 0.0, c.rr > 0.0) {
            (true, false) => Status::NewlyFailed,
            (false, true) => Status::Fixed,
            (false, false) => Status::StillFailing,
            (true, true) => Self::moved_by(b, c, primary, named),
        }
    }

    /// Regressed, improved or unchanged by `primary` (a named one by its values
    /// `named`), then the others in [`TIE_BREAK`] order.
    fn moved_by(b: &Scores, c: &Scores, primary: Primary, named: Option<Side<f64>>) -> Status {
        // a named primary's means over repeats that differ by rounding alone tie (§6.2)
        let first = named
            .filter(|v| (v.candidate - v.baseline).abs() > 1e-12)
            .map_or(std::cmp::Ordering::Equal, |v| {
                v.candidate.total_cmp(&v.baseline)
            });
        let metric = primary.metric();
        let order = metric
            .into_iter()
            .chain(TIE_BREAK.into_iter().filter(|m| Some(*m) != metric))
            .fold(first, |o, m| o.then(m.of(c).total_cmp(&m.of(b))));
        match order {
            std::cmp::Ordering::Less => Status::Regressed,
            std::cmp::Ordering::Greater => Status::Improved,
            std::cmp::Ordering::Equal => Status::Unchanged,
        }
    }
}

/// The metrics that break a tie of the primary metric, in this order (docs/contract.md
/// §6.2); the primary metric itself is skipped. With the default primary (RR) this is
/// the order regressed and improved always had: RR, Recall, nDCG.
pub const TIE_BREAK: [Metric; 3] = [Metric::Rr, Metric::Recall, Metric::Ndcg];

/// What decides improved and regressed (`--primary`, docs/contract.md §6.2): one of
/// today's metrics at k, or a measure by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primary {
    Metric(Metric),
    Named(Measure),
}

impl Default for Primary {
    fn default() -> Self {
        Primary::Metric(Metric::Rr)
    }
}

impl Primary {
    /// Today's metric it is, if it is one.
    pub fn metric(self) -> Option<Metric> {
        match self {
            Primary::Metric(m) => Some(m),
            Primary::Named(_) => None,
        }
    }

    /// The named measure it is, if it is one.
    pub fn named(self) -> Option<Measure> {
        match self {
            Primary::Named(m) => Some(m),
            Primary::Metric(_) => None,
        }
    }

    /// At the gold's k: a name that denotes one of today's metrics there (`nDCG@10`
    /// when k = 10, `AP`) is that metric, as a gate rule's is (docs/contract.md §5.4).
    pub fn at_k(self, k: u32) -> Primary {
        match self.named().and_then(|m| m.builtin()) {
            Some((metric, cutoff)) if cutoff.is_none_or(|c| c == k) => Primary::Metric(metric),
            _ => self,
        }
    }
}

/// How a query's status is decided: under one index version the repeats of both
/// sides are pooled (docs/contract.md §6.5); improved and regressed by `primary`.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub bump: Bump,
    pub primary: Primary,
}

impl Rule {
    /// The rule between two runs: their versions' bump, and `primary`.
    pub fn of(runs: Side<&ObservedRun>, primary: Primary) -> Self {
        Self {
            bump: Bump::between(runs.baseline, runs.candidate),
            primary,
        }
    }

    /// Byte-equal index versions: every repeat of both sides is a repeat of one index.
    pub fn pooled(self) -> bool {
        self.bump == Bump::Same
    }

    /// The status from each side's repeats (docs/contract.md §6.5), `named` a named
    /// primary's values over each side's repeats.
    pub fn status(self, b: &Repeated, c: &Repeated, named: Option<Side<Spread>>) -> Status {
        let means = named.map(|s| s.map(|v| v.mean));
        if self.pooled() {
            // A named primary that differs between any two pooled repeats (§6.4).
            let spread = named.is_some_and(|s| {
                s.baseline.max.max(s.candidate.max) - s.baseline.min.min(s.candidate.min) > 1e-12
            });
            if spread || b.varies || c.varies || crate::eval::scored_otherwise(&b.first, &c.first) {
                return Status::Flaky;
            }
            // The primary metric joins the test for "changed": a move in it alone is
            // non-determinism too.
            return match Status::classify_by(&b.scores, &c.scores, self.primary, means) {
                Status::Regressed | Status::Improved => Status::Flaky,
                other => other,
            };
        }
        // The majority rule across versions: a side's RR@k counts as 0 when it is 0
        // in more than half of its repeats.
        let (zb, nb, zc, nc) = (b.zero_rr, b.repeats, c.zero_rr, c.repeats);
        if zb == 0 {
            if 2 * zc > nc {
                Status::NewlyFailed
            } else if zc > 0 {
                Status::Flaky
            } else {
                Status::moved_by(&b.scores, &c.scores, self.primary, means)
            }
        } else if zb == nb {
            let found = nc - zc;
            if 2 * found > nc {
                Status::Fixed
            } else if found > 0 {
                Status::Flaky
            } else {
                Status::StillFailing
            }
        } else {
            Status::Flaky
        }
    }
}

/// Which side's retriever failed on a query (its manifest's `errored`,
/// docs/contract.md §6.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErroredOn {
    Baseline,
    Candidate,
    Both,
}

impl ErroredOn {
    /// Errored on the baseline (`b`), the candidate (`c`), both or neither.
    pub fn of(b: bool, c: bool) -> Option<Self> {
        match (b, c) {
            (true, true) => Some(Self::Both),
            (true, false) => Some(Self::Baseline),
            (false, true) => Some(Self::Candidate),
            (false, false) => None,
        }
    }

    /// `baseline`, `candidate` or `both`: JSON's and CSV's value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Candidate => "candidate",
            Self::Both => "both",
        }
    }

    /// The marker the table and Markdown show.
    pub fn marker(self) -> &'static str {
        match self {
            Self::Baseline => "errored on the baseline",
            Self::Candidate => "errored on the candidate",
            Self::Both => "errored on both sides",
        }
    }
}

/// Why a query newly failed (docs/contract.md §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A relevant doc is still returned, below k.
    Ranking,
    /// No relevant doc is returned at all.
    Retrieval,
    /// No relevant doc is in the candidate's chunk map: the new index does not hold
    /// them (docs/contract.md §2.11).
    Coverage,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Ranking => "ranking",
            FailureKind::Retrieval => "retrieval",
            FailureKind::Coverage => "coverage",
        }
    }
}

/// The kind of index version change from baseline to candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bump {
    Major,
    Minor,
    Patch,
    Same,
    Older,
    /// Different versions, one of them not semantic: equal or not, no order.
    NotSemver,
}

impl Bump {
    /// The bump from the baseline's index version to the candidate's; `Same` when
    /// either has none or both are spelled alike, `NotSemver` when they differ and
    /// one is not a semantic version (docs/contract.md §6.1).
    pub fn between(b: &ObservedRun, c: &ObservedRun) -> Bump {
        match (&b.meta.index_version, &c.meta.index_version) {
            (Some(bv), Some(cv)) if bv.as_str() == cv.as_str() => Bump::Same,
            (Some(bv), Some(cv)) => match (bv.semver(), cv.semver()) {
                (Some(bs), Some(cs)) => Bump::of(bs, cs),
                _ => Bump::NotSemver,
            },
            _ => Bump::Same,
        }
    }

    /// By semver precedence: a change only in pre-release counts as patch. `Same`
    /// only for byte-equal versions (docs/contract.md §6.5: one meaning of "same
    /// index"); a change in build metadata alone is a patch.
    pub fn of(baseline: &Version, candidate: &Version) -> Bump {
        use std::cmp::Ordering::*;
        match candidate.cmp_precedence(baseline) {
            Less => Bump::Older,
            Equal if candidate == baseline => Bump::Same,
            Equal => Bump::Patch,
            Greater if candidate.major != baseline.major => Bump::Major,
            Greater if candidate.minor != baseline.minor => Bump::Minor,
            Greater => Bump::Patch,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Bump::Major => "major",
            Bump::Minor => "minor",
            Bump::Patch => "patch",
            Bump::Same => "same",
            Bump::Older => "older",
            Bump::NotSemver => "not semver",
        }
    }
}

/// One reason two runs are not comparable (docs/contract.md §6.1), kept typed so a
/// caller can tell them apart; its Display is the line the refusal prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// The runs answered different question sets.
    Corpus {
        baseline: Option<String>,
        candidate: Option<String>,
    },
    /// A run answered other questions than the gold's.
    GoldCorpus {
        gold: String,
        side: Role,
        run: Option<String>,
    },
    Depth {
        baseline: u32,
        candidate: u32,
    },
    /// A filter only one side has.
    FilterOnlyIn {
        side: Role,
        key: String,
        value: String,
    },
    /// A filter both sides have, with other values.
    FilterValue {
        key: String,
        baseline: String,
        candidate: String,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |s: &Option<String>| s.clone().unwrap_or_else(|| "(none)".into());
        match self {
            Self::Corpus {
                baseline,
                candidate,
            } => write!(
                f,
                "corpus:  baseline {}, candidate {}",
                show(baseline),
                show(candidate)
            ),
            Self::GoldCorpus { gold, side, run } => write!(
                f,
                "corpus:  gold {gold}, {side} {} (the run answered other questions)",
                show(run)
            ),
            Self::Depth {
                baseline,
                candidate,
            } => {
                write!(
                    f,
                    "depth:   baseline {baseline}, candidate {candidate} (--depth N compares both at a common depth N <= {})",
                    baseline.min(candidate)
                )
            }
            Self::FilterOnlyIn { side, key, value } => {
                write!(f, "filters: {key}={value} only in {side}")
            }
            Self::FilterValue {
                key,
                baseline,
                candidate,
            } => write!(
                f,
                "filters: {key}: baseline {baseline}, candidate {candidate}"
            ),
        }
    }
}

/// Every difference that makes two runs incomparable (empty when comparable):
/// corpus, the gold's corpus, depth, then filters as a set.
pub fn differences(gold: &GoldSet, b: &RunMeta, c: &RunMeta) -> Vec<Difference> {
    let mut out = Vec::new();
    if b.corpus != c.corpus {
        out.push(Difference::Corpus {
            baseline: b.corpus.clone(),
            candidate: c.corpus.clone(),
        });
    }
    if let Some(gc) = &gold.meta.corpus {
        for (side, run) in [(Role::Baseline, b), (Role::Candidate, c)] {
            if run.corpus.as_ref().is_some_and(|rc| rc != gc) {
                out.push(Difference::GoldCorpus {
                    gold: gc.clone(),
                    side,
                    run: run.corpus.clone(),
                });
            }
        }
    }
    if b.compared_depth() != c.compared_depth() {
        out.push(Difference::Depth {
            baseline: b.depth,
            candidate: c.depth,
        });
    }
    for (key, value) in &b.filters {
        match c.filters.get(key) {
            None => out.push(Difference::FilterOnlyIn {
                side: Role::Baseline,
                key: key.clone(),
                value: value.clone(),
            }),
            Some(cv) if cv != value => out.push(Difference::FilterValue {
                key: key.clone(),
                baseline: value.clone(),
                candidate: cv.clone(),
            }),
            Some(_) => {}
        }
    }
    for (key, value) in &c.filters {
        if !b.filters.contains_key(key) {
            out.push(Difference::FilterOnlyIn {
                side: Role::Candidate,
                key: key.clone(),
                value: value.clone(),
            });
        }
    }
    out
}

/// One query's deltas (candidate minus baseline), as JSON shows them.
pub type Delta = metrics::Values;

/// One query's comparison; serialized by hand (below).
#[derive(Debug, Clone)]
pub struct QueryRow {
    pub id: Id,
    pub status: Status,
    /// Each side's values at k (JSON `baseline` and `candidate`).
    pub scores: Side<Scores>,
    pub delta: Delta,
    pub failure_kind: Option<FailureKind>,
    /// Relevant ids in the baseline's top k but not the candidate's.
    pub lost: Box<[Id]>,
    /// Relevant ids in the candidate's top k but not the baseline's.
    pub gained: Box<[Id]>,
    /// Unjudged docs in each top k, and whether a new failure is suspect; JSON
    /// shows its keys in the row itself.
    pub holes: holes::Holes,
    /// The side(s) whose manifest lists the query as errored (docs/contract.md §6.8).
    pub errored: Option<ErroredOn>,
    /// RR@k is 0 in some repeat and > 0 in another, on each side (§6.5).
    pub flaky: Side<bool>,
    /// In how many repeats of each side RR@k is 0.
    pub zero_rr_repeats: Side<u32>,
    /// Rank-biased overlap of the two first repeats' lists; `None` when a TREC run
    /// does not list the query (§6.5).
    pub rbo: Option<f64>,
    /// How many repeats each side has (JSON shows them in `baseline` and `candidate`).
    pub repeats: Side<u32>,
    /// Each side's values at the extra cutoffs (`--cutoffs`, docs/contract.md §6.7);
    /// JSON shows them as `at` inside `baseline` and `candidate`.
    pub at: Side<crate::eval::cutoffs::ByCutoff>,
    /// Each side's named measures (`--measure`, docs/contract.md §5.4); JSON shows
    /// them as `measures` inside `baseline`, `candidate` and `delta`.
    pub measures: Side<crate::eval::measures::Named>,
}

/// The row's JSON keys in their order (docs/contract.md §10.3), the
/// holes' keys among the row's own: written out rather than derived with
/// `#[serde(flatten)]`, which serializes the row as a map of unknown length, a
/// struct no longer. `repeats`, `at` and `measures` are not keys of their own.
impl Serialize for QueryRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let h = &self.holes;
        let mut row = s.serialize_struct("QueryRow", 20)?;
        row.serialize_field("id", &self.id)?;
        row.serialize_field("status", &self.status)?;
        row.serialize_field("baseline", &self.scores.baseline)?;
        row.serialize_field("candidate", &self.scores.candidate)?;
        row.serialize_field("delta", &self.delta)?;
        row.serialize_field("failure_kind", &self.failure_kind)?;
        row.serialize_field("lost", &self.lost)?;
        row.serialize_field("gained", &self.gained)?;
        row.serialize_field("baseline_unjudged_at_k", &h.unjudged_at_k.baseline)?;
        row.serialize_field("candidate_unjudged_at_k", &h.unjudged_at_k.candidate)?;
        row.serialize_field("unjudged_entered", &h.unjudged_entered)?;
        row.serialize_field("suspect", &h.suspect)?;
        row.serialize_field("baseline_flaky", &self.flaky.baseline)?;
        row.serialize_field("candidate_flaky", &self.flaky.candidate)?;
        let zero = &self.zero_rr_repeats;
        row.serialize_field("baseline_zero_rr_repeats", &zero.baseline)?;
        row.serialize_field("candidate_zero_rr_repeats", &zero.candidate)?;
        row.serialize_field("rbo", &self.rbo)?;
        let (upper, as_relevant) = holes::row_bounds(h, self.scores.as_ref());
        row.serialize_field("upper", &upper)?;
        row.serialize_field("unjudged_as_relevant", &as_relevant)?;
        row.serialize_field("no_label_can_rescue", &h.no_label_can_rescue)?;
        // Only on a query that errored (docs/contract.md §10.3).
        match self.errored {
            Some(on) => row.serialize_field("errored", on.name())?,
            None => row.skip_field("errored")?,
        }
        row.end()
    }
}

/// A mean with its delta and, for RR, Recall, Hit and nDCG, its statistics.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MeanDelta {
    pub baseline: f64,
    pub candidate: f64,
    pub delta: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    /// `sign_flip_exact` or `sign_flip_monte_carlo`: the interval inverts the
    /// sign-flip test (docs/contract.md §7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_method: Option<stats::CiMethod>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// `exact` or `monte_carlo` (docs/contract.md §7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_method: Option<stats::PMethod>,
    /// A Monte Carlo p's standard error; `Some(None)` (JSON null) when p is exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_mc_se: Option<Option<f64>>,
    /// The sign flips behind a Monte Carlo p and its interval; `Some(None)` (JSON
    /// null) when both are exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<Option<u32>>,
    /// The Monte Carlo p needed the extra draws (its first 99% interval held a
    /// threshold of the gate): a note says so.
    #[serde(skip)]
    pub extended: bool,
    /// The p adjusted over its family (docs/contract.md §7.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
    /// The family `p_adjusted` belongs to, and how it was adjusted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<stats::Correction>,
    /// Cohen's d_z of the per-query deltas; `Some(None)` is JSON null (undefined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect_size: Option<Option<f64>>,
    /// The minimum detectable effect at 80% power and `mde_alpha` (tested metrics
    /// only, docs/contract.md §7.3); `Some(None)` is JSON null (undefined).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mde: Option<Option<f64>>,
    /// The alpha `mde` is computed at: the family's after Holm's first step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mde_alpha: Option<f64>,
    /// The sample standard deviation of the per-query deltas (tested metrics only):
    /// the power figures' input (docs/contract.md §7.3).
    #[serde(skip)]
    pub sd: Option<f64>,
    /// A would-be member of a family (a named measure a rule names, or the named
    /// primary) whose sign-flip test can give no p below 0.05 whatever the signs of
    /// its deltas (no compared query moved it, or at most 5 did: the exact test's
    /// smallest p is 2^(1−m); or a fixed `--resamples` of 19 or fewer floors its
    /// Monte Carlo p at 0.05 or more): it can never fail the gate, so it counts in no
    /// family (Tarone 1990; docs/contract.md §7.1). Never set on the four tested
    /// metrics, which always count.
    #[serde(skip)]
    pub out_of_reach: bool,
}

impl MeanDelta {
    /// Means of 0 without statistics: the rest of a mean that has none (Judged@k,
    /// a named measure in a segment too few to test).
    pub(crate) const UNTESTED: MeanDelta = MeanDelta {
        baseline: 0.0,
        candidate: 0.0,
        delta: 0.0,
        ci_low: None,
        ci_high: None,
        ci_method: None,
        p_value: None,
        p_method: None,
        p_mc_se: None,
        resamples: None,
        extended: false,
        p_adjusted: None,
        family: None,
        correction: None,
        effect_size: None,
        mde: None,
        mde_alpha: None,
        sd: None,
        out_of_reach: false,
    };
}

/// The families of tests whose p-values are adjusted together (docs/contract.md
/// §7.1): the four tested metrics overall, and every tested metric of every segment
/// that is not too few. Tags never change an overall p.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Overall,
    Segments,
}

#[derive(Debug, Clone, Serialize)]
pub struct MeansReport {
    pub rr: MeanDelta,
    pub recall: MeanDelta,
    pub hit: MeanDelta,
    pub ndcg: MeanDelta,
    pub precision: MeanDelta,
    pub ap: MeanDelta,
    /// Judged@k (docs/contract.md §6.3); no statistics.
    pub judged: MeanDelta,
    /// The means with the top k's unjudged docs counted as relevant (docs/contract.md
    /// §5.3): the overall means only, absent from a segment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<holes::MeanBounds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unjudged_as_relevant: Option<holes::MeanAsRelevant>,
    /// Named measures (`--measure`, docs/contract.md §5.4), set by [`measures::attach`].
    #[serde(skip_serializing_if = "measures::NamedMeans::is_empty")]
    pub measures: measures::NamedMeans,
}

impl MeansReport {
    pub fn get(&self, m: Metric) -> &MeanDelta {
        match m {
            Metric::Rr => &self.rr,
            Metric::Recall => &self.recall,
            Metric::Hit => &self.hit,
            Metric::Precision => &self.precision,
            Metric::Ndcg => &self.ndcg,
            Metric::Ap => &self.ap,
        }
    }
}

/// The metrics with statistics, in the order [`stats::paired`] takes them.
pub const TESTED: [Metric; stats::METRICS] =
    [Metric::Rr, Metric::Recall, Metric::Hit, Metric::Ndcg];

#[derive(Debug, Clone, Copy, Serialize)]
pub struct ZeroRr {
    pub baseline: usize,
    pub candidate: usize,
    pub delta: i64,
}

/// What a comparison needs besides the gold and the two runs.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    pub k: u32,
    pub resamples: u32,
    pub seed: u64,
    /// `--min-segment-queries` (docs/contract.md §6.6).
    pub min_segment_queries: usize,
    /// `--segment-correction` (docs/contract.md §7.1).
    pub segment_correction: stats::Correction,
    /// `--rbo-p` (docs/contract.md §6.5).
    pub rbo_p: f64,
    /// `--cutoffs` (docs/contract.md §6.7).
    pub cutoffs: &'a [u32],
    /// `--measure` (docs/contract.md §5.4).
    pub measures: &'a [crate::metrics::named::Measure],
    /// The named measures gate rules name: computed (given or not) and joined to the
    /// overall family (docs/contract.md §7.1).
    pub gated: &'a [crate::metrics::named::Measure],
    /// The named measures per-segment rules name: computed in every segment too and
    /// joined to the segment family (docs/contract.md §6.6, §7.1).
    pub segment_gated: &'a [crate::metrics::named::Measure],
    /// Baseline and candidate read the same results (docs/contract.md §12.11).
    pub same_results: bool,
    /// `--primary` (docs/contract.md §6.2), resolved at k ([`Primary::at_k`]).
    pub primary: Primary,
    /// `--risk-alpha`, in the order given (docs/contract.md §7.4).
    pub risk_alphas: &'a [f64],
    /// Nothing after the comparison reads the runs' observations: drop each query's
    /// once its row is built, calling this to hand the memory back
    /// ([`compare_releasing`]).
    pub release: Option<&'a dyn Fn()>,
    /// Told each phase's name as it ends ("compare", then "segments, drift,
    /// cutoffs"): the timings under `RAGDIFF_TIMINGS`.
    pub phase_done: &'a dyn Fn(&str),
}

impl Options<'_> {
    /// The named measures that join the overall family: those gate rules name, then a
    /// named primary not among them, each once (docs/contract.md §7.1).
    pub fn joined(&self) -> Vec<Measure> {
        let mut joined = self.gated.to_vec();
        joined.extend(self.primary.named().filter(|m| !joined.contains(m)));
        joined
    }

    /// Every named measure computed per query, each once: `measures`, then those of
    /// [`Options::joined`] and `segment_gated` not among them (docs/contract.md §5.4);
    /// the order of each row's `measures`.
    pub fn computed(&self) -> Vec<Measure> {
        let mut computed = self.measures.to_vec();
        for m in self
            .joined()
            .into_iter()
            .chain(self.segment_gated.iter().copied())
        {
            if !computed.contains(&m) {
                computed.push(m);
            }
        }
        computed
    }
}

impl Comparison {
    /// The whole comparison, in order: rows -> means -> the Holm family -> segments
    /// -> drift -> cutoffs. When `opts.release` is set the runs' observations are
    /// dropped as the rows are built (the cutoffs are then not computed from them:
    /// set it only without cutoffs).
    pub fn build(
        gold: &GoldSet,
        mut runs: Side<&mut ObservedRun>,
        drift_pairs: drift::Pairs,
        opts: &Options,
    ) -> Comparison {
        // An errored query is an empty ranking on its side (§6.8).
        let errored = runs.as_mut().map(|run| run.empty_errored(gold));
        let computed = opts.computed();
        let mut cmp = match opts.release {
            Some(release) if opts.cutoffs.is_empty() && computed.is_empty() => {
                let runs = runs.as_mut().map(|run| &mut **run);
                compare_releasing(gold, runs, opts.k, draws_of(opts, 0), opts.primary, release)
            }
            _ => measured(gold, runs.as_ref().map(|run| &**run), opts, &computed),
        };
        let runs = runs.map(|run| &*run);
        (opts.phase_done)("compare");
        mark_errored(&mut cmp, errored);
        cmp.latency = latency::LatencyOutcome::of(runs.baseline, runs.candidate);
        cmp.same_results = opts.same_results || (cmp.bump != Bump::Same && cmp.same_repeats);
        // One run of an approximate index cannot confirm a new failure (§6.5).
        cmp.unconfirmed_by = runs
            .iter()
            .filter(|r| r.meta.approximate && r.meta.repeat_count() == 1)
            .map(|r| {
                r.meta.manifest.as_ref().map_or_else(
                    || r.meta.results_display.clone(),
                    |m| m.display().to_string(),
                )
            })
            .collect();
        if !cmp.unconfirmed_by.is_empty() {
            cmp.unconfirmed = ids_with(&cmp.rows, Status::NewlyFailed);
        }
        cmp.candidate_approximate = runs.candidate.meta.approximate;
        cmp.segment_correction = opts.segment_correction;
        cmp.risk_alphas = opts.risk_alphas.to_vec();
        cmp.risk = risk::of(&cmp.rows.iter().collect::<Vec<_>>(), opts.risk_alphas);
        segments::attach(&mut cmp, gold, opts);
        drift::apply(&mut cmp, gold, drift_pairs, opts.rbo_p);
        cutoffs::attach(&mut cmp, gold, runs, opts.cutoffs);
        measures::attach(&mut cmp, gold, opts);
        (opts.phase_done)("segments, drift, cutoffs");
        cmp
    }
}

/// The overall family's draws (the four's, and a gated named measure's) when
/// `counted` of the named measures that join it count (`measures::counts`): its extra draws
/// look at the thresholds of the whole family, those measures included (§7.1).
fn draws_of(opts: &Options, counted: usize) -> stats::Draws {
    stats::Draws {
        resamples: opts.resamples,
        seed: opts.seed,
        family: stats::METRICS + counted,
        correction: stats::Correction::Holm,
    }
}

/// [`compare_with`] with each row's named measures (`computed`, docs/contract.md
/// §5.4) filled before the means: the overall family counts the named measures that
/// join it only where their p can reach 0.05 (§7.1), so its size, which the four's draws
/// look at, is known only from their per-query values.
fn measured(
    gold: &GoldSet,
    runs: Side<&ObservedRun>,
    opts: &Options,
    computed: &[Measure],
) -> Comparison {
    let rule = Rule::of(runs, opts.primary);
    let mut rows = rows_of(gold, runs, opts.k, rule, 0..gold.queries.len());
    measures::fill(&mut rows.rows, gold, runs, computed);
    let counted = measures::counted(&rows.rows, computed, &opts.joined(), opts.resamples).len();
    finish(rows, opts.k, rule, draws_of(opts, counted))
}

/// Flag each errored row with its side(s) and keep each side's errored ids in
/// natural order (docs/contract.md §6.8).
fn mark_errored(cmp: &mut Comparison, mut errored: Side<Vec<String>>) {
    if errored.baseline.is_empty() && errored.candidate.is_empty() {
        return;
    }
    let sets = errored.as_ref().map(|ids| {
        ids.iter()
            .map(String::as_str)
            .collect::<rustc_hash::FxHashSet<&str>>()
    });
    for row in &mut cmp.rows {
        let id: &str = &row.id;
        row.errored = ErroredOn::of(sets.baseline.contains(id), sets.candidate.contains(id));
    }
    drop(sets);
    crate::text::sort_natural(&mut errored.baseline);
    crate::text::sort_natural(&mut errored.candidate);
    cmp.errored = errored;
}

/// The marker of a query one run of an approximate index cannot confirm
/// (docs/contract.md §6.4): the gate's reason, the table and Markdown say it.
pub const UNCONFIRMED: &str = "unconfirmed: one run of an approximate index";

/// Everything computed from the two runs, before the gate.
#[derive(Debug)]
pub struct Comparison {
    pub k: u32,
    pub rows: Vec<QueryRow>,
    pub means: MeansReport,
    pub zero_rr: ZeroRr,
    pub no_answer: Vec<String>,
    pub nondeterministic: Vec<String>,
    /// Ids flaky on either side, in natural order (§6.5).
    pub flaky: Vec<String>,
    /// Rank-biased overlap of every query in both runs; filled by [`drift::apply`].
    pub drift: drift::Drift,
    pub bump: Bump,
    /// The metric that decides improved and regressed (docs/contract.md §6.2).
    pub primary: Primary,
    /// Baseline and candidate read the same results: one file, identical bytes, or
    /// (under different index versions) a candidate repeat whose every ranked list
    /// is a baseline repeat's (docs/contract.md §12.1).
    pub same_results: bool,
    /// Some candidate repeat lists, for every gold query, the same ranking as some
    /// baseline repeat (parsed, not bytes).
    pub same_repeats: bool,
    /// Gold queries whose ranked list is not the same in every repeat of both
    /// sides, of `lists_compared` (§6.5: "every list identical").
    pub lists_changed: usize,
    pub lists_compared: usize,
    /// How many repeats each side has.
    pub repeats: Side<u32>,
    /// Newly failed ids a side that says `approximate = true` with one results file
    /// cannot confirm (docs/contract.md §6.4), natural order.
    pub unconfirmed: Vec<String>,
    /// The manifests of those sides.
    pub unconfirmed_by: Vec<String>,
    /// The candidate's manifest says `approximate = true`.
    pub candidate_approximate: bool,
    /// Each side's gold queries its manifest lists as errored, natural order
    /// (docs/contract.md §6.8).
    pub errored: Side<Vec<String>>,
    /// Both sides' latency statistics, or which side alone has latency (§6.9).
    pub latency: latency::LatencyOutcome,
    /// Per-tag results (docs/contract.md §6.6), worst RR delta first; set by
    /// [`segments::attach`].
    pub segments: Vec<segments::Segment>,
    /// How the segment family is adjusted (docs/contract.md §7.1).
    pub segment_correction: stats::Correction,
    /// URisk and TRisk over every compared query (docs/contract.md §7.4), per metric
    /// and alpha; set by [`Comparison::build`].
    pub risk: Vec<risk::Risk>,
    /// The alphas they are computed at, in the order given (the first is the gate's).
    pub risk_alphas: Vec<f64>,
    /// Means at each extra cutoff (docs/contract.md §6.7); set by [`cutoffs::attach`].
    pub means_at: cutoffs::MeansAt,
    /// The rows whose `suspect` waits for the baseline's check (docs/contract.md
    /// §6.3): [`Comparison::confirm_suspects`] settles them.
    pub suspects: holes::Suspects,
}

impl Comparison {
    /// Settle every provisional suspect: `returned(hash)` says whether some baseline
    /// repeat returned that doc for some query (docs/contract.md §6.3).
    pub fn confirm_suspects(&mut self, returned: &dyn Fn(u64) -> bool) {
        let suspects = std::mem::take(&mut self.suspects);
        suspects.confirm(&mut self.rows, returned);
    }

    /// How many tests the overall family holds: today's four tested metrics and the
    /// named measures gate rules name (docs/contract.md §7.1).
    pub fn overall_family_size(&self) -> usize {
        stats::METRICS + self.means.measures.in_family()
    }
}

/// Order per-query rows: status, then delta RR ascending, then delta Recall
/// ascending, then id in natural order (`docs/contract.md §2.8`).
pub fn sort_rows(rows: &mut [QueryRow]) {
    // Ids are unique, so the order is total and an unstable sort (no buffer) is exact.
    rows.sort_unstable_by(|a, b| {
        a.status
            .cmp(&b.status)
            .then(a.delta.rr.total_cmp(&b.delta.rr))
            .then(a.delta.recall.total_cmp(&b.delta.recall))
            .then_with(|| crate::text::natural_cmp(&a.id, &b.id))
    });
}

/// Compare two runs of the same gold set at k.
pub fn compare(
    gold: &GoldSet,
    b: &ObservedRun,
    c: &ObservedRun,
    k: u32,
    resamples: u32,
    seed: u64,
) -> Comparison {
    let draws = stats::Draws {
        resamples,
        seed,
        family: stats::METRICS,
        correction: stats::Correction::Holm,
    };
    compare_with(gold, Side::new(b, c), k, draws, Primary::default())
}

/// [`compare`] with improved and regressed decided by `primary` (docs/contract.md §6.2),
/// the tested metrics drawn by `draws`: its `family` the overall family's size, whose
/// thresholds their extra draws look at (§7, §7.1).
pub fn compare_with(
    gold: &GoldSet,
    runs: Side<&ObservedRun>,
    k: u32,
    draws: stats::Draws,
    primary: Primary,
) -> Comparison {
    let rule = Rule::of(runs, primary);
    let rows = rows_of(gold, runs, k, rule, 0..gold.queries.len());
    finish(rows, k, rule, draws)
}

/// Gold queries per step of [`compare_releasing`].
const STEP: usize = 8_192;
/// At most this many calls of `release`: handing memory back walks the whole heap,
/// so once per step of a million queries would cost seconds (measured: 122 calls,
/// ~4 s); the steps between calls still drop their observations.
const MAX_RELEASES: usize = 16;

/// [`compare`], dropping each query's observations once its row is built, a step of
/// queries at a time, and calling `release` after a step (to hand the freed memory
/// back; at most [`MAX_RELEASES`] times): for when nothing after the comparison reads the runs' observations
/// (no extra cutoffs, no label queue), so the runs and the rows are never held whole
/// at once. The same comparison as [`compare_with`].
pub fn compare_releasing(
    gold: &GoldSet,
    mut runs: Side<&mut ObservedRun>,
    k: u32,
    draws: stats::Draws,
    primary: Primary,
    release: &dyn Fn(),
) -> Comparison {
    let rule = Rule::of(runs.as_ref().map(|r| &**r), primary);
    let n = gold.queries.len();
    let mut rows = Rows {
        rows: Vec::with_capacity(n),
        ..Rows::default()
    };
    let steps = n.div_ceil(STEP);
    let every = steps.div_ceil(MAX_RELEASES).max(1);
    for (i, start) in (0..n).step_by(STEP).enumerate() {
        let range = start..n.min(start + STEP);
        rows.append(rows_of(
            gold,
            runs.as_ref().map(|run| &**run),
            k,
            rule,
            range.clone(),
        ));
        for run in runs.as_mut() {
            run.release(range.clone());
        }
        if (i + 1) % every == 0 || i + 1 == steps {
            release();
        }
    }
    finish(rows, k, rule, draws)
}

/// Means, statistics and order of the rows (in gold order), the tested metrics drawn
/// by `draws`.
fn finish(rows: Rows, k: u32, rule: Rule, draws: stats::Draws) -> Comparison {
    let Rows {
        mut rows,
        mut no_answer,
        mut nondeterministic,
        lists,
        suspects,
    } = rows;
    let bump = rule.bump;
    let flaky = ids_with(&rows, Status::Flaky);
    // Means and statistics go over the rows in id order, as `eval` does, so a run's
    // mean never depends on the run it is compared with. Sorting references moves
    // 8 bytes a row, not the row; the report's order is total, so `sort_rows` gives
    // the same order from any start.
    let mut by_id: Vec<&QueryRow> = rows.iter().collect();
    by_id.sort_unstable_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    let mut means = means_of(&by_id, Some(draws));
    let (upper, as_relevant) = holes::mean_bounds(&by_id);
    (means.upper, means.unjudged_as_relevant) = (Some(upper), Some(as_relevant));
    drop(by_id);
    segments::adjust_overall(&mut means);
    sort_rows(&mut rows);
    crate::text::sort_natural(&mut no_answer);
    crate::text::sort_natural(&mut nondeterministic);
    let zb = rows.iter().filter(|r| r.scores.baseline.rr == 0.0).count();
    let zc = rows.iter().filter(|r| r.scores.candidate.rr == 0.0).count();
    Comparison {
        k,
        means,
        zero_rr: ZeroRr {
            baseline: zb,
            candidate: zc,
            delta: zc as i64 - zb as i64,
        },
        rows,
        no_answer,
        nondeterministic,
        flaky,
        drift: drift::Drift::default(),
        bump,
        primary: rule.primary,
        same_results: false,
        same_repeats: lists.same_pair(),
        lists_changed: lists.changed,
        lists_compared: lists.compared,
        repeats: lists.repeats,
        unconfirmed: Vec::new(),
        unconfirmed_by: Vec::new(),
        candidate_approximate: false,
        errored: Default::default(),
        latency: Default::default(),
        segments: Vec::new(),
        segment_correction: stats::Correction::Holm,
        risk: Vec::new(),
        risk_alphas: Vec::new(),
        means_at: Default::default(),
        suspects,
    }
}

/// The per-query rows of a comparison and the ids set aside while building them,
/// in gold order.
#[derive(Default)]
struct Rows {
    rows: Vec<QueryRow>,
    no_answer: Vec<String>,
    nondeterministic: Vec<String>,
    lists: Lists,
    suspects: holes::Suspects,
}

impl Rows {
    fn append(&mut self, more: Rows) {
        self.rows.extend(more.rows);
        self.suspects.rows.extend(more.suspects.rows);
        self.no_answer.extend(more.no_answer);
        self.nondeterministic.extend(more.nondeterministic);
        self.lists.merge(more.lists);
    }
}

/// The ranked lists of every repeat compared, query by query, as parsed (a hash of
/// the ordered doc ids, never the bytes: docs/contract.md §12.1).
#[derive(Default)]
struct Lists {
    /// How many repeats each side has.
    repeats: Side<u32>,
    /// For each (baseline repeat, candidate repeat), row-major: whether every gold
    /// query's list is the same in both so far.
    same: Vec<bool>,
    /// Gold queries whose list is not the same in every repeat of both sides.
    changed: usize,
    /// Gold queries compared.
    compared: usize,
}

impl Lists {
    fn new(runs: Side<&ObservedRun>) -> Self {
        let repeats = runs.map(|run| run.meta.repeat_count() as u32);
        Self {
            repeats,
            same: vec![true; (repeats.baseline * repeats.candidate) as usize],
            changed: 0,
            compared: 0,
        }
    }

    fn add(&mut self, runs: Side<&ObservedRun>, qi: usize) {
        let hash = |o: Option<&Observed>| o.map(|o| o.list_hash);
        let lists = runs.map(|run| run.observed_in_repeats(qi).map(hash).collect::<Vec<_>>());
        let (bl, cl) = (lists.baseline, lists.candidate);
        let nc = cl.len();
        for (i, bh) in bl.iter().enumerate() {
            for (j, ch) in cl.iter().enumerate() {
                if bh != ch {
                    self.same[i * nc + j] = false;
                }
            }
        }
        let first = bl.first().copied().flatten();
        if bl.iter().chain(&cl).any(|h| *h != first) {
            self.changed += 1;
        }
        self.compared += 1;
    }

    fn merge(&mut self, more: Lists) {
        if self.same.is_empty() {
            *self = more;
            return;
        }
        for (a, b) in self.same.iter_mut().zip(more.same) {
            *a &= b;
        }
        self.changed += more.changed;
        self.compared += more.compared;
    }

    /// Some candidate repeat lists, for every gold query, what some baseline repeat
    /// lists.
    fn same_pair(&self) -> bool {
        self.compared > 0 && self.same.iter().any(|s| *s)
    }
}

/// The rows of the gold queries in `range`, split in halves over up to two threads
/// (each row is its query's alone, so the rows are the same in any split).
fn rows_of(
    gold: &GoldSet,
    runs: Side<&ObservedRun>,
    k: u32,
    rule: Rule,
    range: std::ops::Range<usize>,
) -> Rows {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(2));
    if threads < 2 || range.len() < 1000 {
        return rows_in(gold, runs, k, rule, range);
    }
    let mid = range.start + range.len() / 2;
    std::thread::scope(|s| {
        let second = s.spawn(|| rows_in(gold, runs, k, rule, mid..range.end));
        let mut all = rows_in(gold, runs, k, rule, range.start..mid);
        all.append(second.join().expect("a comparing thread panicked"));
        all
    })
}

/// The rows of the gold's queries in `range`.
fn rows_in(
    gold: &GoldSet,
    runs: Side<&ObservedRun>,
    k: u32,
    rule: Rule,
    range: std::ops::Range<usize>,
) -> Rows {
    let mut out = Rows {
        rows: Vec::with_capacity(range.len()),
        lists: Lists::new(runs),
        ..Rows::default()
    };
    let min_grade = gold.meta.min_grade;
    for qi in range {
        let q = &gold.queries[qi];
        out.lists.add(runs, qi);
        if q.is_no_answer() {
            out.no_answer.push(q.id.to_string());
            continue;
        }
        let observed = runs.map(|run| run.observed[qi].as_ref());
        let sides = runs.map(|run| crate::eval::over_repeats(q, run, qi, k, min_grade));
        let named = rule
            .primary
            .named()
            .map(|m| runs.map(|run| crate::eval::measures::spread(q, run, qi, m, min_grade)));
        let mut row = query_row(q, observed, Scored { sides, named }, k, min_grade, rule);
        row.holes = holes::holes(q, observed, k, row.status);
        holes::bounds(&mut row.holes, q, runs, qi, k, min_grade, row.status);
        if row.holes.suspect {
            out.suspects.rows.push(holes::SuspectRow {
                id: q.id.clone(),
                entered: holes::entered(observed).collect(),
            });
        }
        let covered = runs.candidate.covered.as_ref();
        if row.failure_kind.is_some() && covered.is_some_and(|cov| !cov[qi]) {
            row.failure_kind = Some(FailureKind::Coverage);
        }
        // Under one index every flaky query is non-deterministic retrieval (§6.5).
        if rule.pooled() && row.status == Status::Flaky {
            out.nondeterministic.push(q.id.to_string());
        }
        out.rows.push(row);
    }
    out
}

/// Whether RR@k, Recall@k or nDCG@k differs between the sides (beyond rounding of
/// means over repeats): under one index version, a non-deterministic query (§6.5).
pub fn moved(row: &QueryRow) -> bool {
    [Metric::Rr, Metric::Recall, Metric::Ndcg]
        .iter()
        .any(|m| (m.of(&row.scores.candidate) - m.of(&row.scores.baseline)).abs() > 1e-12)
}

/// One query's scores on each side over its repeats, and a named primary's values.
struct Scored {
    sides: Side<Repeated>,
    named: Option<Side<Spread>>,
}

/// One query's pair of scores, its status and what moved in its top k.
fn query_row(
    q: &crate::model::GoldQuery,
    observed: Side<Option<&Observed>>,
    scored: Scored,
    k: u32,
    min_grade: i64,
    rule: Rule,
) -> QueryRow {
    let sides = scored.sides;
    let (bs, cs) = (sides.baseline.scores, sides.candidate.scores);
    let status = rule.status(&sides.baseline, &sides.candidate, scored.named);
    let failure_kind = (status == Status::NewlyFailed).then(|| {
        if cs.first_relevant_rank.is_some() {
            FailureKind::Ranking
        } else {
            FailureKind::Retrieval
        }
    });
    let top = observed.map(|o| metrics::relevant_in_top_k(q, o, k, min_grade));
    let (btop, ctop) = (&top.baseline, &top.candidate);
    let lost = btop
        .iter()
        .filter(|d| !ctop.contains(d))
        .map(|d| Id::from(*d))
        .collect();
    let gained = ctop
        .iter()
        .filter(|d| !btop.contains(d))
        .map(|d| Id::from(*d))
        .collect();
    QueryRow {
        id: q.id.clone(),
        status,
        delta: Delta::delta(&bs, &cs),
        scores: Side::new(bs, cs),
        failure_kind,
        lost,
        gained,
        holes: holes::Holes::default(),
        errored: None,
        flaky: sides.as_ref().map(Repeated::flaky),
        zero_rr_repeats: sides.as_ref().map(|s| s.zero_rr),
        rbo: None,
        repeats: sides.as_ref().map(|s| s.repeats),
        at: Default::default(),
        measures: Default::default(),
    }
}

/// Means of both sides with their deltas; for the tested metrics also the
/// randomization test's p and the interval that inverts it. `rows` must be in id order.
fn means_of(rows: &[&QueryRow], draws: Option<stats::Draws>) -> MeansReport {
    let bm = Means::mean_of(rows.iter().map(|r| &r.scores.baseline));
    let cm = Means::mean_of(rows.iter().map(|r| &r.scores.candidate));
    let deltas: Vec<[f64; stats::METRICS]> = rows
        .iter()
        .map(|r| {
            std::array::from_fn(|j| {
                TESTED[j].of(&r.scores.candidate) - TESTED[j].of(&r.scores.baseline)
            })
        })
        .collect();
    let st = draws.map(|d| stats::paired(&deltas, d));
    let mean = |m: Metric| {
        let pos = TESTED.iter().position(|t| *t == m);
        let at = pos.and_then(|p| st.as_ref().map(|st| st[p]));
        // The delta is the mean of the per-query deltas (what the randomization test
        // flips), equal to candidate - baseline up to rounding.
        let delta = metrics::mean(
            rows.iter()
                .map(|r| m.of(&r.scores.candidate) - m.of(&r.scores.baseline)),
        );
        let sd = at
            .and(pos)
            .and_then(|p| stats::power::sd(deltas.iter().map(move |d| d[p])));
        // §7.3: the family's alpha after Holm's first step.
        let mde_alpha = at.and(draws).map(|d| stats::first_step_alpha(d.family));
        MeanDelta {
            baseline: bm.get(m),
            candidate: cm.get(m),
            delta,
            ci_low: at.map(|s| s.ci_low),
            ci_high: at.map(|s| s.ci_high),
            ci_method: at.map(|s| s.ci_method),
            p_value: at.map(|s| s.p_value),
            p_method: at.map(|s| s.p_method),
            p_mc_se: at.map(|s| s.p_mc_se),
            resamples: at.map(|s| s.resamples),
            extended: at.is_some_and(|s| s.extended),
            p_adjusted: None,
            family: None,
            correction: None,
            effect_size: at
                .and(pos)
                .map(|p| stats::effect_size(deltas.iter().map(move |d| d[p]))),
            sd,
            mde: mde_alpha.map(|alpha| stats::power::mde(sd, rows.len(), alpha)),
            mde_alpha,
            out_of_reach: false,
        }
    };
    MeansReport {
        rr: mean(Metric::Rr),
        recall: mean(Metric::Recall),
        hit: mean(Metric::Hit),
        ndcg: mean(Metric::Ndcg),
        precision: mean(Metric::Precision),
        ap: mean(Metric::Ap),
        judged: holes::judged_mean(rows),
        upper: None,
        unjudged_as_relevant: None,
        measures: Default::default(),
    }
}

/// Ids of rows with `status`, in natural order.
pub fn ids_with<'a>(rows: impl IntoIterator<Item = &'a QueryRow>, status: Status) -> Vec<String> {
    let mut ids: Vec<String> = rows
        .into_iter()
        .filter(|r| r.status == status)
        .map(|r| r.id.to_string())
        .collect();
    crate::text::sort_natural(&mut ids);
    ids
}

pub mod cutoffs;
pub mod measures;
pub mod risk;
pub mod segments;
pub mod warnings;

pub use warnings::GatesAsked;

#[cfg(test)]
mod tests;
