//! The gate: a policy applied to a comparison gives a verdict with every reason
//! (docs/contract.md §8). It owns the verdict, its reasons and the accepted
//! failures; reading the allow-list is `load::allow`'s work.

use serde::Serialize;

use crate::compare::{Comparison, Status, TESTED};
use crate::metrics::Metric;
use crate::metrics::named::Measure;
use crate::model::{AllowEntry, AllowSource, GoldSet, Side};
use crate::text::{name_ids, name_ids_with, plural, safe_id};

/// Significance level of `--fail-on-significant-drop`.
pub const ALPHA: f64 = 0.05;

pub use crate::model::threshold::Target;

pub use crate::model::threshold::Origin;
use crate::model::threshold::{KFrom, RuleFlag};

/// A gate rule: what it reads, its value (a drop or a margin) and where it was
/// given (a flag, or an entry of the policy file's `[gate]` table).
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub target: Target,
    pub value: f64,
    pub origin: Origin,
}

impl Rule {
    /// A flag's rule.
    pub fn flag(target: Target, value: f64) -> Self {
        Self {
            target,
            value,
            origin: Origin::Flag,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub max_drop: Vec<Rule>,
    /// Accepted new failures and the versions they are judged against.
    pub allowed: AllowList,
    pub fail_on_significant_drop: bool,
    pub enforced: bool,
    /// `--non-inferior METRIC=MARGIN` (docs/contract.md §6.6).
    pub non_inferior: Vec<Rule>,
    /// `--non-inferior-per-segment METRIC=MARGIN` (docs/contract.md §8.3).
    pub non_inferior_per_segment: Vec<Rule>,
    /// `--max-drop-per-segment METRIC=VALUE` (docs/contract.md §8.4).
    pub max_drop_per_segment: Vec<Rule>,
    /// What a suspect new failure does (docs/contract.md §6.3).
    pub suspects: Suspects,
    /// `--strict-flaky`: every flaky query fails the gate (docs/contract.md §6.5).
    pub strict_flaky: bool,
    /// `--min-rbo`: fail when the mean RBO of the drift queries is below it.
    pub min_rbo: Option<f64>,
    /// `--nondeterminism warn`: non-deterministic retrieval only warns (§6.5).
    pub nondeterminism: Severity,
    /// `--unconfirmed warn`: a new failure one run of an approximate index cannot
    /// confirm only warns (§6.5).
    pub unconfirmed: Severity,
    /// `--errored warn`: queries the candidate's retriever failed on only warn
    /// (docs/contract.md §6.8).
    pub errored: Severity,
    /// `--max-latency-increase STAT=LIMIT` (docs/contract.md §6.9).
    pub max_latency_increase: Vec<crate::model::latency::LatencyLimit>,
    /// `[gate] block`: which newly failed queries fail the gate (docs/contract.md §8.7).
    pub block: Blocking,
    /// `--inconclusive`: whether an INCONCLUSIVE verdict exits 1 or 0 (docs/contract.md §8.3).
    pub inconclusive: Inconclusive,
    /// `--fail-on-risk`: fail on a significant downside risk overall at the first
    /// alpha (docs/contract.md §7.4).
    pub fail_on_risk: bool,
}

/// `--inconclusive fail|pass` (`[gate] inconclusive`): what an INCONCLUSIVE verdict
/// does to the exit code (docs/contract.md §8.3); also the flag's values, by clap's
/// derive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Inconclusive {
    /// Exit 1: the team asked for evidence it did not get.
    #[default]
    Fail,
    /// Exit 0: the verdict still says INCONCLUSIVE.
    Pass,
}

/// The gate's verdict in one word (JSON `gate.verdict`): FAIL > INCONCLUSIVE > PASS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    /// Nothing failed, but a non-inferiority test could not tell (its interval holds
    /// -margin).
    Inconclusive,
}

/// `[gate] block` against the gold: which newly failed queries fail the gate
/// (docs/contract.md §8.7).
#[derive(Debug, Clone, Default)]
pub enum Blocking {
    /// Every newly failed query (the default).
    #[default]
    All,
    /// None: the other rules judge the change.
    None,
    /// Only the gold queries carrying one of `tags` (`ids`).
    Tags {
        tags: Vec<String>,
        ids: rustc_hash::FxHashSet<String>,
    },
}

impl Blocking {
    /// The policy's `block` resolved against the gold's tags; `Err` holds the tags
    /// no gold query carries.
    pub fn of(block: &crate::load::policy::Block, gold: &GoldSet) -> Result<Self, Vec<String>> {
        use crate::load::policy::Block;
        let tags = match block {
            Block::All => return Ok(Self::All),
            Block::None => return Ok(Self::None),
            Block::Tags(tags) => tags,
        };
        let wanted: Vec<Option<u32>> = tags
            .iter()
            .map(|t| {
                let i = gold.tags.labels.iter().position(|l| &**l == t.as_str())?;
                u32::try_from(i).ok()
            })
            .collect();
        let unknown: Vec<String> = tags
            .iter()
            .zip(&wanted)
            .filter(|(_, w)| w.is_none())
            .map(|(t, _)| t.clone())
            .collect();
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let wanted: Vec<u32> = wanted.into_iter().flatten().collect();
        let ids = gold
            .queries
            .iter()
            .enumerate()
            .filter(|(i, _)| gold.tags.of(*i).iter().any(|l| wanted.contains(l)))
            .map(|(_, q)| q.id.to_string())
            .collect();
        Ok(Self::Tags {
            tags: tags.clone(),
            ids,
        })
    }

    /// Whether newly failed query `id` fails the gate.
    pub fn blocks(&self, id: &str) -> bool {
        match self {
            Self::All => true,
            Self::None => false,
            Self::Tags { ids, .. } => ids.contains(id),
        }
    }

    /// The policy's value as it is written: `"none"`, `"tag:A"`, `["tag:A", "tag:B"]`.
    pub fn shown(&self) -> String {
        match self {
            Self::All => "\"all\"".to_string(),
            Self::None => "\"none\"".to_string(),
            Self::Tags { tags, .. } => {
                let each: Vec<String> = tags
                    .iter()
                    .map(|t| format!("\"tag:{}\"", safe_id(t)))
                    .collect();
                match each.as_slice() {
                    [one] => one.clone(),
                    _ => format!("[{}]", each.join(", ")),
                }
            }
        }
    }
}

impl Policy {
    /// The rules at the gold's k (docs/contract.md §5.4): a name of one of today's
    /// metrics at k is that metric's rule; of two rules of one kind on one measure
    /// the later applies (a flag's over the file's, the last flag given). Refused,
    /// every one listed: a non-inferiority rule on P or AP at k (no interval), and
    /// two entries of one `[gate]` table that are one measure at k (a table has no
    /// order to settle them).
    pub fn at_k(&self, k: u32, from: KFrom) -> Result<Policy, Vec<String>> {
        use crate::model::threshold as t;
        let mut problems = Vec::new();
        let at_k = AtK { k, from };
        let mut at = |kind: &RuleFlag, rules: &[Rule]| resolved(kind, rules, at_k, &mut problems);
        let policy = Policy {
            max_drop: at(&t::MAX_DROP, &self.max_drop),
            non_inferior: at(&t::NON_INFERIOR, &self.non_inferior),
            max_drop_per_segment: at(&t::MAX_DROP_PER_SEGMENT, &self.max_drop_per_segment),
            non_inferior_per_segment: at(
                &t::NON_INFERIOR_PER_SEGMENT,
                &self.non_inferior_per_segment,
            ),
            ..self.clone()
        };
        if problems.is_empty() {
            Ok(policy)
        } else {
            Err(problems)
        }
    }

    /// The named measures the overall rules read, each once in the rules' order:
    /// they are computed and join the overall family (docs/contract.md §7.1).
    pub fn named_measures(&self) -> Vec<Measure> {
        named_in(self.max_drop.iter().chain(&self.non_inferior))
    }

    /// The named measures the per-segment rules read, each once in the rules' order:
    /// they are computed in every segment and join the segment family
    /// (docs/contract.md §7.1).
    pub fn segment_measures(&self) -> Vec<Measure> {
        named_in(
            self.max_drop_per_segment
                .iter()
                .chain(&self.non_inferior_per_segment),
        )
    }

    /// This policy with the allow-list and `block` read against the gold
    /// (docs/contract.md §8).
    pub fn with_gold(&self, allowed: AllowList, block: Blocking) -> Policy {
        Policy {
            allowed,
            block,
            ..self.clone()
        }
    }
}

/// The named measures `rules` read, each once, in their order.
fn named_in<'a>(rules: impl Iterator<Item = &'a Rule>) -> Vec<Measure> {
    let mut out: Vec<Measure> = Vec::new();
    for rule in rules {
        if let Some(m) = rule.target.named()
            && !out.contains(&m)
        {
            out.push(m);
        }
    }
    out
}

/// The comparison's k and where it came from, for the rules' messages.
#[derive(Debug, Clone, Copy)]
struct AtK {
    k: u32,
    from: KFrom,
}

/// `rules` at k, each measure once (the later rule of two on one measure applies);
/// the rules `kind` cannot take, and two entries of one table on one measure, are
/// problems.
fn resolved(kind: &RuleFlag, rules: &[Rule], at_k: AtK, problems: &mut Vec<String>) -> Vec<Rule> {
    let k = at_k.k;
    let mut at: Vec<Rule> = Vec::with_capacity(rules.len());
    for rule in rules {
        let target = rule.target.at_k(k);
        let shown = |r: &Rule| match &r.origin {
            Origin::File { name, .. } => crate::text::cut_to(&crate::text::shown(name), 80),
            Origin::Flag => r.target.named().map_or_else(
                || {
                    target
                        .metric()
                        .map_or_else(String::new, |m| m.key().to_string())
                },
                |n| n.name(),
            ),
        };
        if let Target::Metric(m) = target
            && kind.tested_only
            && !TESTED.contains(&m)
        {
            problems.push(format!(
                "{}: metric `{}` has no confidence interval; use rr, mrr, recall, hit or ndcg (or a named measure at another cutoff, which carries one)",
                rule.origin.prefix(kind),
                shown(rule)
            ));
            continue;
        }
        let same_table = at.iter().find(|r| {
            r.target == target
                && matches!(r.origin, Origin::File { .. })
                && matches!(rule.origin, Origin::File { .. })
        });
        if let Some(first) = same_table {
            problems.push(format!(
                "{}: `{}` and `{}` are one measure at {}, {}: keep one (a table's entries have no order to settle which applies)",
                rule.origin.prefix(kind),
                shown(first),
                shown(rule),
                at_k.from.shown(k),
                target.label(k)
            ));
            continue;
        }
        at.push(Rule {
            target,
            ..rule.clone()
        });
    }
    at.iter()
        .enumerate()
        .filter(|(i, r)| !at[i + 1..].iter().any(|later| later.target == r.target))
        .map(|(_, r)| r.clone())
        .collect()
}

/// `--suspects`: whether a suspect new failure fails the gate or only warns (also the
/// flag's values, by clap's derive).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Suspects {
    #[default]
    Fail,
    Warn,
}

/// `--nondeterminism`: whether non-deterministic retrieval under one index version
/// fails the gate or only warns (docs/contract.md §6.5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Severity {
    #[default]
    Fail,
    Warn,
}

/// The allow-list's entries with the two sides' index versions: an entry applies
/// when it names the candidate's version or none (docs/contract.md §8.5).
#[derive(Debug, Clone, Default)]
pub struct AllowList {
    pub entries: Vec<AllowEntry>,
    /// Each side's index version, as its manifest spells it.
    pub versions: Side<Option<String>>,
}

/// A newly failed query the allow-list accepts, with the list's reason.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub id: String,
    pub reason: String,
    /// The version the entry names; null: any version.
    pub index_version: Option<String>,
    pub accepted_at: Option<String>,
}

/// The gate's verdict (JSON `gate`).
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The run exits 0 when the gate is enforced: PASS, or INCONCLUSIVE under
    /// `--inconclusive pass`.
    pub passed: bool,
    /// `pass`, `fail` or `inconclusive` (docs/contract.md §8.3).
    pub verdict: Outcome,
    pub reasons: Vec<String>,
    /// One code per reason, in the same order: `newly_failed`, `nondeterministic`,
    /// `max_drop`, `significant_drop`, `same_results`, `segment_significant_drop`,
    /// `max_drop_per_segment`, `non_inferiority` (docs/contract.md §6.6), `flaky`,
    /// `min_rbo` (docs/contract.md §6.5).
    pub codes: Vec<&'static str>,
    /// False under `--no-gate`: the verdict is shown but never fails the run.
    pub enforced: bool,
    /// Every non-inferiority test asked for, overall and per segment.
    pub non_inferiority: Vec<NonInferiority>,
    /// The reasons, structured, for formats that write ids their own way.
    #[serde(skip)]
    pub causes: Vec<Reason>,
    /// Suspect new failures that only warn (`--suspects warn`), in natural order.
    #[serde(skip)]
    pub suspects_warned: Vec<String>,
    /// The gate's notes: allow-list entries that apply to any version, entries used
    /// up by a promotion.
    #[serde(skip)]
    pub notes: Vec<String>,
    /// Newly failed queries (not accepted) that `[gate] block` leaves to the other
    /// rules, in natural order (docs/contract.md §8.7).
    pub not_blocking: Vec<String>,
    /// `block` as the policy writes it, when it is not `"all"`.
    #[serde(skip)]
    pub block: Option<String>,
    /// A PASS whose comparison cannot see a drop that matters (docs/contract.md
    /// §7.3): empty unless the verdict is PASS.
    pub unseen_drops: Vec<UnseenDrop>,
}

impl Verdict {
    /// What a PASS cannot see, in words: `this comparison cannot see a drop of
    /// MRR@10 smaller than 0.0620 (93 queries)` (`of any size` for an MDE of 1 or
    /// more); a named measure in a segment followed by `in segment T (N queries)`, at
    /// most [`UNSEEN_SEGMENTS`] of them named (docs/contract.md §7.3); tags written by
    /// `id`; `None` when nothing is unseen.
    pub fn unseen_text(
        &self,
        k: u32,
        queries: usize,
        id: &dyn Fn(&str) -> String,
    ) -> Option<String> {
        if self.unseen_drops.is_empty() {
            return None;
        }
        let (overall, in_segments): (Vec<&UnseenDrop>, Vec<&UnseenDrop>) =
            self.unseen_drops.iter().partition(|u| u.segment.is_none());
        let mut each: Vec<String> = overall.iter().map(|u| self.unseen_one(u, k)).collect();
        if !each.is_empty() {
            let last = each.len() - 1;
            each[last].push_str(&format!(" ({queries} queries)"));
        }
        each.extend(in_segments.iter().take(UNSEEN_SEGMENTS).map(|u| {
            let tag = u.segment.as_deref().unwrap_or_default();
            format!(
                "{} in segment {} ({} queries)",
                self.unseen_one(u, k),
                id(tag),
                u.queries
            )
        }));
        let more = in_segments.len().saturating_sub(UNSEEN_SEGMENTS);
        let more = if more > 0 {
            format!(
                ", and {} more in segments (the JSON report lists them)",
                more
            )
        } else {
            String::new()
        };
        Some(format!(
            "this comparison cannot see a drop of {}{more}",
            each.join(", or of ")
        ))
    }

    /// One unseen drop: `LABEL smaller than MDE` or `LABEL of any size`.
    fn unseen_one(&self, u: &UnseenDrop, k: u32) -> String {
        // Every tested metric lies in [0, 1]: an MDE of 1 or more sees no drop.
        if u.mde >= 1.0 {
            format!("{} of any size", u.of.label(k))
        } else {
            format!("{} smaller than {:.4}", u.of.label(k), u.mde)
        }
    }
}

/// The drop a metric's gate cares about (one with a non-inferiority margin is
/// judged by its interval instead).
pub const UNSEEN_DROP: f64 = 0.05;

/// The note names at most this many unseen drops in segments (JSON lists all).
pub const UNSEEN_SEGMENTS: usize = 5;

/// One measure whose minimum detectable effect is larger than the drop the gate
/// cares about (JSON `gate.unseen_drops[]`, docs/contract.md §7.3).
#[derive(Debug, Clone, Serialize)]
pub struct UnseenDrop {
    /// `rr`, `recall`, `hit`, `ndcg`, or a named measure's ir_measures name.
    pub metric: String,
    /// The segment's tag, for a named measure a per-segment rule names; absent
    /// overall.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    /// The drop that matters, [`UNSEEN_DROP`] (a measure with a margin is never
    /// listed: its interval judged it).
    pub drop: f64,
    pub mde: f64,
    pub mde_alpha: f64,
    /// The queries compared (the segment's, in a segment).
    pub queries: usize,
    /// The metric or named measure, for labels.
    #[serde(skip)]
    pub of: Target,
}

/// What a PASS speaks for, each with the drop that matters: the primary metric
/// (RR when the primary is P@k or MAP; a named primary among the named measures)
/// and, under `--fail-on-significant-drop`,
/// every member of a family (the tested metrics and the named measures a rule
/// names; in segments, the named ones only), at 0.05, unless a non-inferiority
/// margin in its place judged it. Those whose MDE is larger and whose interval does
/// not rule the drop out are returned: the tested metrics, the named ones overall,
/// then each segment's named ones in report order; an undefined MDE (nothing
/// moved) is not. Only a PASS speaks for them: FAIL and INCONCLUSIVE name what to
/// look at.
fn unseen_drops(policy: &Policy, cmp: &Comparison, verdict: Outcome) -> Vec<UnseenDrop> {
    if verdict != Outcome::Pass {
        return Vec::new();
    }
    let primary = match cmp.primary {
        crate::compare::Primary::Metric(m) if TESTED.contains(&m) => Target::Metric(m),
        crate::compare::Primary::Metric(_) => Target::Metric(Metric::Rr),
        crate::compare::Primary::Named(m) => Target::Named(m),
    };
    let overall = Place {
        segment: None,
        margins: &policy.non_inferior,
        queries: cmp.rows.len(),
        fail_on_significant_drop: policy.fail_on_significant_drop,
    };
    let tested = TESTED.into_iter().filter_map(|metric| {
        let target = Target::Metric(metric);
        overall.unseen(target, cmp.means.get(metric), target == primary)
    });
    let named = cmp
        .means
        .measures
        .0
        .iter()
        .map(|(n, md)| (Target::Named(*n), md));
    let named = named.filter(|(t, md)| md.family.is_some() || md.out_of_reach || *t == primary);
    let mut out: Vec<UnseenDrop> = tested
        .chain(named.filter_map(|(t, md)| overall.unseen(t, md, t == primary)))
        .collect();
    for s in cmp.segments.iter().filter(|s| !s.too_few) {
        let place = Place {
            segment: Some(&s.tag),
            margins: &policy.non_inferior_per_segment,
            queries: s.queries,
            ..overall
        };
        let named = s.means.measures.0.iter();
        out.extend(named.filter_map(|(n, md)| place.unseen(Target::Named(*n), md, false)));
    }
    out
}

/// Where a measure is judged for [`unseen_drops`]: overall or in one segment.
#[derive(Clone, Copy)]
struct Place<'a> {
    segment: Option<&'a str>,
    /// The non-inferiority rules of this place.
    margins: &'a [Rule],
    queries: usize,
    fail_on_significant_drop: bool,
}

impl Place<'_> {
    /// The drop of `of` this place cannot see, if it speaks for `of` (`judged`: the
    /// primary metric), its MDE is larger than the drop that matters and its
    /// interval does not rule that drop out (docs/contract.md §7.3).
    fn unseen(
        &self,
        of: Target,
        m: &crate::compare::MeanDelta,
        judged: bool,
    ) -> Option<UnseenDrop> {
        // a measure with a margin in this place is judged by its interval: in a PASS
        // the interval lies above -margin, which no drop of the margin fits
        if self.margins.iter().any(|r| r.target == of) {
            return None;
        }
        let drop = (judged || self.fail_on_significant_drop).then_some(UNSEEN_DROP)?;
        // an interval whose lower end is above -drop saw that no such drop is there
        if m.ci_low.is_some_and(|low| low > -drop) {
            return None;
        }
        // a member left out of its family as its p cannot reach 0.05 (§7.1) sees no
        // drop of any size (MDE 1 at the gate's alpha) once some query moved it
        let (mde, mde_alpha) = if m.out_of_reach && m.sd.is_some_and(|s| s > 0.0) {
            (1.0, crate::stats::GATE_ALPHA)
        } else {
            (m.mde.flatten()?, m.mde_alpha?)
        };
        (mde > drop).then(|| UnseenDrop {
            metric: of.key(),
            segment: self.segment.map(str::to_string),
            drop,
            mde,
            mde_alpha,
            queries: self.queries,
            of,
        })
    }
}

/// Why the gate failed, kept structured so each format can write the ids its way.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    NewlyFailed {
        k: u32,
        ids: Vec<String>,
        /// How many of them are suspect (docs/contract.md §6.3).
        suspect: usize,
        /// How many of them one run of an approximate index cannot confirm
        /// (docs/contract.md §6.4).
        unconfirmed: usize,
    },
    Nondeterministic {
        ids: Vec<String>,
    },
    Drop {
        label: String,
        by: f64,
        allowed: f64,
    },
    Significant {
        label: String,
        delta: f64,
        p: f64,
    },
    /// Both runs read the same results, under different index versions: the
    /// candidate's results cannot come from its index.
    SameResults,
    /// A segment's mean dropped with Holm-adjusted p < 0.05.
    SegmentSignificant {
        segment: String,
        label: String,
        delta: f64,
        p: f64,
        tests: usize,
        correction: crate::stats::Correction,
    },
    /// A segment's mean dropped by more than `--max-drop-per-segment` allows.
    SegmentDrop {
        segment: String,
        label: String,
        by: f64,
        allowed: f64,
    },
    /// A non-inferiority test that did not show the candidate non-inferior.
    NotNonInferior {
        segment: Option<String>,
        label: String,
        margin: f64,
        ci: (f64, f64),
        verdict: NiVerdict,
        /// The queries that would settle an inconclusive test, and how many this
        /// comparison has (docs/contract.md §8.3).
        queries_needed: Option<u64>,
        queries: usize,
    },
    /// The candidate's manifest lists these gold queries as errored (§6.8).
    Errored {
        ids: Vec<String>,
    },
    /// `--max-latency-increase`: a latency statistic grew by more than allowed.
    Latency {
        limit: crate::model::latency::LatencyLimit,
        baseline: f64,
        candidate: f64,
    },
    /// `--max-latency-increase` set, but the runs' latency cannot be judged against
    /// each other (docs/contract.md §6.9): the verdict is INCONCLUSIVE, so a
    /// candidate that drops its latency or its `[record]` table never passes a limit
    /// it broke.
    LatencyUnjudged {
        /// The limits, as `p95=20%`, space-separated.
        limits: String,
        why: String,
    },
    /// `--strict-flaky` and these queries are flaky.
    Flaky {
        ids: Vec<String>,
    },
    /// `--min-rbo`: the mean RBO is below the minimum.
    MinRbo {
        mean: f64,
        min: f64,
        p: f64,
    },
    /// `--fail-on-risk`: the overall TRisk at the first alpha is below -2.
    Risk {
        label: String,
        alpha: f64,
        urisk: f64,
        trisk: f64,
    },
}

impl Reason {
    /// The reason in one sentence, ids written by `id`.
    pub fn render(&self, id: &dyn Fn(&str) -> String) -> String {
        match self {
            Reason::NewlyFailed {
                k,
                ids,
                suspect,
                unconfirmed,
            } => format!(
                "{} newly failed ({}{}RR@{k} fell to 0): {}",
                plural(ids.len(), "query", "queries"),
                if *suspect > 0 {
                    format!("{suspect} suspect: label first; ")
                } else {
                    String::new()
                },
                if *unconfirmed > 0 {
                    format!("{unconfirmed} {}; ", crate::compare::UNCONFIRMED)
                } else {
                    String::new()
                },
                name_ids_with(ids, id)
            ),
            Reason::Nondeterministic { ids } => format!(
                "non-deterministic retrieval: the index version is the same but {} scored otherwise (RR, Recall or nDCG): {}",
                plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            ),
            Reason::Drop { label, by, allowed } => {
                format!("mean {label} dropped by {by:.4}, more than the allowed {allowed}")
            }
            Reason::Significant { label, delta, p } => {
                format!(
                    "mean {label} dropped significantly: {}, adjusted p = {p:.4} < {ALPHA} (Holm)",
                    crate::text::delta(*delta)
                )
            }
            Reason::SameResults => "baseline and candidate read the same results, yet their index versions differ: the candidate's results cannot come from its index".to_string(),
            Reason::Flaky { ids } => format!(
                "{} flaky (RR@k is 0 in some repeats only) and --strict-flaky is set: {}",
                plural(ids.len(), "query is", "queries are"),
                name_ids_with(ids, id)
            ),
            Reason::MinRbo { mean, min, p } => {
                format!("mean RBO (p = {p}) is {mean:.4}, below the minimum {min}")
            }
            Reason::Risk {
                label,
                alpha,
                urisk,
                trisk,
            } => format!(
                "{label} shows significant downside risk: TRisk {trisk:+.2} < -2 at alpha {alpha} (URisk {})",
                crate::text::delta(*urisk)
            ),
            Reason::Latency {
                limit,
                baseline,
                candidate,
            } => format!(
                "latency {} rose from {baseline:.3} ms to {candidate:.3} ms ({}), more than the allowed {}",
                limit.stat.name(),
                latency_change(*baseline, *candidate),
                limit.increase.shown()
            ),
            Reason::LatencyUnjudged { limits, why } => format!(
                "max_latency_increase {limits} cannot be judged: {why}"
            ),
            Reason::Errored { ids } => format!(
                "the candidate's retriever failed on {} (its manifest's `errored`; each counts as an empty ranking): {}",
                plural(ids.len(), "query", "queries"),
                name_ids_with(ids, id)
            ),
            other => render_segment_reason(other, id),
        }
    }

    /// An inconclusive non-inferiority test, or a latency limit the runs cannot
    /// judge: it makes the verdict INCONCLUSIVE, unless another reason fails it.
    pub fn is_inconclusive(&self) -> bool {
        matches!(
            self,
            Reason::NotNonInferior {
                verdict: NiVerdict::Inconclusive,
                ..
            } | Reason::LatencyUnjudged { .. }
        )
    }

    /// The reason's code in JSON `gate.codes`.
    pub fn code(&self) -> &'static str {
        match self {
            Reason::NewlyFailed { .. } => "newly_failed",
            Reason::Nondeterministic { .. } => "nondeterministic",
            Reason::Drop { .. } => "max_drop",
            Reason::Significant { .. } => "significant_drop",
            Reason::SameResults => "same_results",
            Reason::SegmentSignificant { .. } => "segment_significant_drop",
            Reason::SegmentDrop { .. } => "max_drop_per_segment",
            Reason::NotNonInferior { .. } => "non_inferiority",
            Reason::Flaky { .. } => "flaky",
            Reason::MinRbo { .. } => "min_rbo",
            Reason::Risk { .. } => "risk",
            Reason::Errored { .. } => "errored",
            Reason::Latency { .. } => "max_latency_increase",
            Reason::LatencyUnjudged { .. } => "latency_unjudged",
        }
    }
}

/// Apply the policy: the verdict, the accepted new failures (sorted by id) and the
/// gate's own warnings (allow-listed queries that did not newly fail).
pub fn decide(policy: &Policy, cmp: &Comparison, k: u32) -> (Verdict, Vec<Accepted>, Vec<String>) {
    let newly: Vec<&str> = cmp
        .rows
        .iter()
        .filter(|r| r.status == Status::NewlyFailed)
        .map(|r| r.id.as_str())
        .collect();
    let (accepted, mut warnings, notes) = accept(&policy.allowed, &newly);
    let mut failing: Vec<String> = newly
        .iter()
        .filter(|id| !accepted.iter().any(|a| a.id == **id))
        .map(|s| s.to_string())
        .collect();
    crate::text::sort_natural(&mut failing);
    let (mut failing, not_blocking): (Vec<String>, Vec<String>) =
        failing.into_iter().partition(|id| policy.block.blocks(id));
    let block = (!matches!(policy.block, Blocking::All)).then(|| policy.block.shown());
    if let (false, Some(b)) = (not_blocking.is_empty(), &block) {
        warnings.push(not_blocking_warning(&not_blocking, b));
    }
    if policy.unconfirmed == Severity::Warn && !cmp.unconfirmed.is_empty() {
        let (unconfirmed, rest): (Vec<String>, Vec<String>) = failing
            .into_iter()
            .partition(|id| cmp.unconfirmed.contains(id));
        failing = rest;
        if !unconfirmed.is_empty() {
            warnings.push(format!(
                "{} newly failed, unconfirmed (one run of an approximate index; --unconfirmed warn): {}",
                plural(unconfirmed.len(), "query", "queries"),
                name_ids_with(&unconfirmed, &safe_id)
            ));
        }
    }
    let (failing, suspect, suspects_warned, warned) = split_suspects(policy, cmp, failing, k);
    warnings.extend(warned);
    let mut causes = Vec::new();
    if cmp.same_results && cmp.bump != crate::compare::Bump::Same {
        causes.push(Reason::SameResults);
    }
    if !failing.is_empty() {
        let unconfirmed = failing
            .iter()
            .filter(|id| cmp.unconfirmed.contains(id))
            .count();
        causes.push(Reason::NewlyFailed {
            k,
            ids: failing,
            suspect,
            unconfirmed,
        });
    }
    severity_causes(policy, cmp, &mut causes, &mut warnings);
    causes.extend(mean_causes(policy, cmp, k));
    causes.extend(segment_causes(policy, cmp, k));
    let non_inferiority = non_inferiority(policy, cmp);
    causes.extend(non_inferiority_causes(&non_inferiority, k));
    causes.extend(noise_causes(policy, cmp));
    causes.extend(risk_causes(policy, cmp, k));
    causes.extend(latency_causes(policy, cmp));
    let (verdict, passed) = outcome(&causes, policy.inconclusive);
    let verdict = Verdict {
        passed,
        verdict,
        reasons: causes.iter().map(|c| c.render(&safe_id)).collect(),
        codes: causes.iter().map(Reason::code).collect(),
        enforced: policy.enforced,
        non_inferiority,
        causes,
        suspects_warned,
        notes,
        not_blocking,
        block,
        unseen_drops: unseen_drops(policy, cmp, verdict),
    };
    (verdict, accepted, warnings)
}

/// `+7.755 ms, +62.8%`: a latency's change (the percentage only from a baseline
/// above 0).
pub fn latency_change(baseline: f64, candidate: f64) -> String {
    let d = candidate - baseline;
    if baseline > 0.0 {
        format!("{d:+.3} ms, {:+.1}%", 100.0 * d / baseline)
    } else {
        format!("{d:+.3} ms")
    }
}

/// `--max-latency-increase` (docs/contract.md §6.9): a cause per statistic above its
/// ceiling when both sides were recorded alike; else one inconclusive cause saying
/// why the limits cannot be judged.
fn latency_causes(policy: &Policy, cmp: &Comparison) -> Vec<Reason> {
    let limits = &policy.max_latency_increase;
    if limits.is_empty() {
        return Vec::new();
    }
    // A limit the runs cannot judge leaves the verdict open: dropping latency or the
    // `[record]` table is the candidate's to do, and must not pass a broken limit.
    let unjudged = |why: String| {
        let shown: Vec<String> = limits.iter().map(|l| l.shown()).collect();
        vec![Reason::LatencyUnjudged {
            limits: shown.join(" "),
            why,
        }]
    };
    let l = match (&cmp.latency.both, cmp.latency.only) {
        (Some(l), _) if l.comparable => l,
        (Some(l), _) => {
            return unjudged(l.why_not.clone().unwrap_or_default());
        }
        (None, Some(side)) => return unjudged(format!("only the {side} has latency")),
        (None, None) => {
            return unjudged(
                "neither run has latency (a `latency_ms` field or column, or a latency side file)"
                    .into(),
            );
        }
    };
    limits
        .iter()
        .filter_map(|limit| {
            let (b, c) = (l.baseline.get(limit.stat), l.candidate.get(limit.stat));
            // A hair of tolerance: 20% of 10 ms is 12 ms, whatever the float error.
            (c > limit.increase.ceiling(b) + 1e-9).then_some(Reason::Latency {
                limit: *limit,
                baseline: b,
                candidate: c,
            })
        })
        .collect()
}

/// The reasons a `fail|warn` severity governs, in the contract's order (§8): the
/// candidate's errored queries (`--errored`, §6.8) and non-deterministic retrieval
/// (`--nondeterminism`, §6.5); each is a cause, or a warning under `warn`.
fn severity_causes(
    policy: &Policy,
    cmp: &Comparison,
    causes: &mut Vec<Reason>,
    warnings: &mut Vec<String>,
) {
    let errored = (!cmp.errored.candidate.is_empty()).then(|| Reason::Errored {
        ids: cmp.errored.candidate.clone(),
    });
    let nondeterministic = (!cmp.nondeterministic.is_empty()).then(|| Reason::Nondeterministic {
        ids: cmp.nondeterministic.clone(),
    });
    let governed = [
        (errored, policy.errored, "--errored warn"),
        (
            nondeterministic,
            policy.nondeterminism,
            "--nondeterminism warn",
        ),
    ];
    for (cause, severity, flag) in governed {
        match (cause, severity) {
            (None, _) => {}
            (Some(cause), Severity::Fail) => causes.push(cause),
            (Some(cause), Severity::Warn) => {
                warnings.push(format!("{} ({flag})", cause.render(&safe_id)));
            }
        }
    }
}

/// The verdict of these reasons, FAIL > INCONCLUSIVE > PASS, and whether the run
/// exits 0 with the gate enforced (docs/contract.md §8.3).
fn outcome(causes: &[Reason], inconclusive: Inconclusive) -> (Outcome, bool) {
    if causes.iter().any(|c| !c.is_inconclusive()) {
        (Outcome::Fail, false)
    } else if causes.is_empty() {
        (Outcome::Pass, true)
    } else {
        (Outcome::Inconclusive, inconclusive == Inconclusive::Pass)
    }
}

/// The warning for newly failed queries `block` leaves to the other rules; `block`
/// cut to [`BLOCK_COLUMNS`], so the 2,000-column bound on a warning (docs/contract.md
/// §11) never cuts off the ids after it.
fn not_blocking_warning(ids: &[String], block: &str) -> String {
    format!(
        "{} newly failed but {} not fail the gate (block = {}): {}",
        plural(ids.len(), "query", "queries"),
        if ids.len() == 1 { "does" } else { "do" },
        crate::text::cut_to(block, BLOCK_COLUMNS),
        name_ids_with(ids, &safe_id)
    )
}

/// How many columns of `block` the not-blocking warning shows.
const BLOCK_COLUMNS: usize = 200;

/// Apply `--suspects` to the failing ids: with `warn`, suspect ones leave the list
/// for a warning. Returns the failing ids, how many of them are suspect, the ids
/// that only warn, and the warning.
fn split_suspects(
    policy: &Policy,
    cmp: &Comparison,
    failing: Vec<String>,
    k: u32,
) -> (Vec<String>, usize, Vec<String>, Option<String>) {
    // One map of the suspect rows: a scan of every row per failing id is quadratic
    // when most queries move.
    let suspects: rustc_hash::FxHashMap<&str, u32> = cmp
        .rows
        .iter()
        .filter(|r| r.holes.suspect)
        .map(|r| (r.id.as_str(), r.holes.suspect_entered))
        .collect();
    let entered = |id: &str| suspects.get(id).copied();
    let (suspect, rest): (Vec<String>, Vec<String>) =
        failing.into_iter().partition(|id| entered(id).is_some());
    if policy.suspects == Suspects::Fail || suspect.is_empty() {
        let n = suspect.len();
        let mut all: Vec<String> = rest.into_iter().chain(suspect).collect();
        crate::text::sort_natural(&mut all);
        return (all, n, Vec::new(), None);
    }
    let named: Vec<String> = suspect
        .iter()
        .map(|id| format!("{} ({})", safe_id(id), entered(id).unwrap_or(0)))
        .collect();
    let warning = format!(
        "{} newly failed but {} suspect, so {} not fail the gate (--suspects warn); label the unjudged docs that entered the top {k} first (unjudged docs entered): {}",
        plural(suspect.len(), "query", "queries"),
        if suspect.len() == 1 { "is" } else { "are" },
        if suspect.len() == 1 {
            "it does"
        } else {
            "they do"
        },
        name_ids_with(&named, &|s| s.to_string())
    );
    (rest, 0, suspect, Some(warning))
}

/// Split the allow-list into accepted new failures, warnings and notes
/// (docs/contract.md §8.5). An entry applies when it names the candidate's version or
/// none; a newly failed query accepted for another version only fails again, with a
/// warning (a note when that version is the baseline's: used up by its promotion).
/// Entries that apply but did not newly fail get a warning; entries for other
/// versions that did not newly fail are history and say nothing.
fn accept(list: &AllowList, newly: &[&str]) -> (Vec<Accepted>, Vec<String>, Vec<String>) {
    let candidate = list.versions.candidate.as_deref();
    let applies =
        |e: &AllowEntry| e.index_version.is_none() || e.index_version.as_deref() == candidate;
    let mut accepted: Vec<Accepted> = Vec::new();
    let mut any_version: Vec<String> = Vec::new();
    let mut not_failed: Vec<String> = Vec::new();
    // An entry naming the candidate's version wins over one naming none.
    let mut entries: Vec<&AllowEntry> = list.entries.iter().filter(|e| applies(e)).collect();
    entries.sort_by_key(|e| e.index_version.is_none());
    for e in entries {
        if accepted.iter().any(|a| a.id == e.id) || not_failed.contains(&e.id) {
            continue;
        }
        if newly.contains(&e.id.as_str()) {
            if e.index_version.is_none() && matches!(e.source, AllowSource::File { .. }) {
                any_version.push(e.id.clone());
            }
            accepted.push(Accepted {
                id: e.id.clone(),
                reason: e.reason.clone(),
                index_version: e.index_version.clone(),
                accepted_at: e.accepted_at.clone(),
            });
        } else {
            not_failed.push(e.id.clone());
        }
    }
    let (mut warnings, mut notes) = accepted_elsewhere(list, newly, &accepted);
    crate::text::sort_natural(&mut any_version);
    if !any_version.is_empty() {
        notes.push(format!(
            "the allow-list accepts {} for any index version (no index_version): {}; name the index build each acceptance is for",
            plural(any_version.len(), "query", "queries"),
            name_ids(&any_version)
        ));
    }
    crate::text::sort_natural(&mut not_failed);
    accepted.sort_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
    match not_failed.len() {
        0 => {}
        1 => warnings.push(format!(
            "allow-listed query {} did not newly fail; remove it from the allow-list",
            safe_id(&not_failed[0])
        )),
        n => warnings.push(format!(
            "{n} allow-listed queries did not newly fail; remove them from the allow-list: {}",
            name_ids(&not_failed)
        )),
    }
    (accepted, warnings, notes)
}

/// Newly failed queries not accepted, whose entries name other versions: a warning
/// each, a note when the version is the baseline's (docs/contract.md §8.5).
fn accepted_elsewhere(
    list: &AllowList,
    newly: &[&str],
    accepted: &[Accepted],
) -> (Vec<String>, Vec<String>) {
    let candidate = list.versions.candidate.as_deref();
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    let mut elsewhere: Vec<(&str, &str)> = list
        .entries
        .iter()
        .filter(|e| e.index_version.is_some() && e.index_version.as_deref() != candidate)
        .filter(|e| newly.contains(&e.id.as_str()))
        .filter(|e| !accepted.iter().any(|a| a.id == e.id))
        .filter_map(|e| Some((e.id.as_str(), e.index_version.as_deref()?)))
        .collect();
    elsewhere.sort_by(|a, b| crate::text::natural_cmp(a.0, b.0).then(a.1.cmp(b.1)));
    elsewhere.dedup();
    let baseline = list.versions.baseline.as_deref();
    let now = candidate.map_or_else(
        || "the candidate names no index_version".to_string(),
        |v| format!("the candidate is {}", safe_id(v)),
    );
    for (id, version) in elsewhere {
        if Some(version) == baseline {
            notes.push(format!(
                "{} was accepted for {}, the baseline's version (used up by its promotion); {now}, so it fails the gate again",
                safe_id(id),
                safe_id(version)
            ));
        } else {
            warnings.push(format!(
                "{} was accepted for {}; {now}: look again",
                safe_id(id),
                safe_id(version)
            ));
        }
    }
    (warnings, notes)
}

/// The mean a rule reads: today's metric's, or the named measure's (computed for
/// every rule that names one, docs/contract.md §5.4).
fn mean_of(cmp: &Comparison, t: Target) -> Option<&crate::compare::MeanDelta> {
    match t {
        Target::Metric(m) => Some(cmp.means.get(m)),
        Target::Named(n) => cmp.means.measures.get(n),
    }
}

/// The reasons that come from means: `--max-drop` and `--fail-on-significant-drop`
/// (the overall family: today's tested metrics, then the named measures a rule
/// names, docs/contract.md §7.1).
fn mean_causes(policy: &Policy, cmp: &Comparison, k: u32) -> Vec<Reason> {
    let mut causes = Vec::new();
    for &Rule {
        target,
        value: allowed,
        ..
    } in &policy.max_drop
    {
        let Some(m) = mean_of(cmp, target) else {
            continue;
        };
        if -m.delta > allowed + 1e-12 {
            causes.push(Reason::Drop {
                label: target.label(k),
                by: -m.delta,
                allowed,
            });
        }
    }
    if policy.fail_on_significant_drop {
        let tested = TESTED.map(Target::Metric);
        let named = cmp.means.measures.0.iter().map(|(n, _)| Target::Named(*n));
        for target in tested.into_iter().chain(named) {
            let Some(m) = mean_of(cmp, target) else {
                continue;
            };
            if let Some(p) = m.p_adjusted
                && m.delta < 0.0
                && p < ALPHA
            {
                causes.push(Reason::Significant {
                    label: target.label(k),
                    delta: m.delta,
                    p,
                });
            }
        }
    }
    causes
}

/// A non-inferiority test's verdict (docs/contract.md §6.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NiVerdict {
    /// The CI's lower end is above -margin: shown no worse than the margin.
    NonInferior,
    /// The CI's upper end is below -margin: shown worse than the margin.
    Worse,
    /// Neither: the data cannot tell.
    Inconclusive,
}

impl NiVerdict {
    pub fn of(margin: f64, ci_low: f64, ci_high: f64) -> Self {
        if ci_low > -margin {
            Self::NonInferior
        } else if ci_high < -margin {
            Self::Worse
        } else {
            Self::Inconclusive
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::NonInferior => "non_inferior",
            Self::Worse => "worse",
            Self::Inconclusive => "inconclusive",
        }
    }

    /// In words, for the reports.
    pub fn words(self) -> &'static str {
        match self {
            Self::NonInferior => "non-inferior",
            Self::Worse => "worse",
            Self::Inconclusive => "inconclusive",
        }
    }
}

/// One non-inferiority test (JSON `gate.non_inferiority[]`).
#[derive(Debug, Clone, Serialize)]
pub struct NonInferiority {
    /// `rr`, `recall`, `hit`, `ndcg`, or a named measure's ir_measures name.
    pub metric: String,
    /// The segment's tag; `None` (null) for the overall test.
    pub segment: Option<String>,
    pub margin: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The test's family, how its interval and its p were computed, the p's Monte
    /// Carlo standard error and the draws behind both (null when exact), as in its
    /// mean (docs/contract.md §7, §10.1).
    pub family: Option<crate::compare::Family>,
    pub ci_method: Option<crate::stats::CiMethod>,
    pub p_method: Option<crate::stats::PMethod>,
    pub p_mc_se: Option<f64>,
    pub resamples: Option<u32>,
    pub verdict: NiVerdict,
    /// The queries a comparison needs to detect a drop of the margin with 80% power
    /// at the family's first-step alpha (Sakai's design, docs/contract.md §7.3);
    /// null when the deltas' standard deviation is 0.
    pub queries_needed: Option<u64>,
    /// The queries this test compared (the segment's, for a segment).
    #[serde(skip)]
    pub queries: usize,
    /// The metric or named measure, for labels.
    #[serde(skip)]
    pub of: Target,
}

impl NonInferiority {
    /// What settles an inconclusive test, in words: `about N queries would settle
    /// it (M compared)`; `None` when the test is not inconclusive or N is unknown.
    pub fn settle_text(&self) -> Option<String> {
        settle_text(self.verdict, self.queries_needed, self.queries)
    }
}

fn settle_text(verdict: NiVerdict, needed: Option<u64>, queries: usize) -> Option<String> {
    if verdict != NiVerdict::Inconclusive {
        return None;
    }
    let needed = needed?;
    Some(format!(
        "about {needed} queries would settle it ({queries} compared)"
    ))
}

/// Every non-inferiority test the policy asks for: overall, then each segment that
/// is not too few (in report order).
fn non_inferiority(policy: &Policy, cmp: &Comparison) -> Vec<NonInferiority> {
    use crate::stats::{first_step_alpha, power};
    let test = |target: Target,
                margin: f64,
                segment: Option<&str>,
                (m, queries, alpha): (&crate::compare::MeanDelta, usize, f64)| {
        let (ci_low, ci_high) = (m.ci_low?, m.ci_high?);
        Some(NonInferiority {
            metric: target.key(),
            segment: segment.map(str::to_string),
            margin,
            ci_low,
            ci_high,
            family: m.family,
            ci_method: m.ci_method,
            p_method: m.p_method,
            p_mc_se: m.p_mc_se.flatten(),
            resamples: m.resamples.flatten(),
            verdict: NiVerdict::of(margin, ci_low, ci_high),
            queries_needed: power::queries_needed(m.sd, margin, alpha),
            queries,
            of: target,
        })
    };
    let overall = first_step_alpha(cmp.overall_family_size());
    let mut out: Vec<NonInferiority> = policy
        .non_inferior
        .iter()
        .filter_map(|r| {
            let m = (mean_of(cmp, r.target)?, cmp.rows.len(), overall);
            test(r.target, r.value, None, m)
        })
        .collect();
    let segment_alpha = first_step_alpha(crate::compare::segments::segment_family_size(cmp));
    for s in cmp.segments.iter().filter(|s| !s.too_few) {
        for &Rule {
            target,
            value: margin,
            ..
        } in &policy.non_inferior_per_segment
        {
            let Some(mean) = segment_mean_of(s, target) else {
                continue;
            };
            out.extend(test(
                target,
                margin,
                Some(&s.tag),
                (mean, s.queries, segment_alpha),
            ));
        }
    }
    out
}

fn non_inferiority_causes(tests: &[NonInferiority], k: u32) -> Vec<Reason> {
    tests
        .iter()
        .filter(|t| t.verdict != NiVerdict::NonInferior)
        .map(|t| Reason::NotNonInferior {
            segment: t.segment.clone(),
            label: t.of.label(k),
            margin: t.margin,
            ci: (t.ci_low, t.ci_high),
            verdict: t.verdict,
            queries_needed: t.queries_needed,
            queries: t.queries,
        })
        .collect()
}

/// The reasons that come from segments that are not too few: a significant drop
/// (Holm-adjusted p, under `--fail-on-significant-drop`) and
/// `--max-drop-per-segment`.
fn segment_causes(policy: &Policy, cmp: &Comparison, k: u32) -> Vec<Reason> {
    let tests = crate::compare::segments::segment_family_size(cmp);
    let mut causes = Vec::new();
    for s in cmp.segments.iter().filter(|s| !s.too_few) {
        for &Rule {
            target,
            value: allowed,
            ..
        } in &policy.max_drop_per_segment
        {
            let Some(m) = segment_mean_of(s, target) else {
                continue;
            };
            if -m.delta > allowed + 1e-12 {
                causes.push(Reason::SegmentDrop {
                    segment: s.tag.clone(),
                    label: target.label(k),
                    by: -m.delta,
                    allowed,
                });
            }
        }
        if !policy.fail_on_significant_drop {
            continue;
        }
        // the segment family: today's tested metrics, then the named measures a
        // per-segment rule names (docs/contract.md §7.1)
        let tested = TESTED.map(Target::Metric);
        let named = s.means.measures.0.iter().map(|(n, _)| Target::Named(*n));
        for target in tested.into_iter().chain(named) {
            let Some(m) = segment_mean_of(s, target) else {
                continue;
            };
            if let Some(p) = m.p_adjusted
                && m.delta < 0.0
                && p < ALPHA
            {
                causes.push(Reason::SegmentSignificant {
                    segment: s.tag.clone(),
                    label: target.label(k),
                    delta: m.delta,
                    p,
                    tests,
                    correction: cmp.segment_correction,
                });
            }
        }
    }
    causes
}

/// The mean a per-segment rule reads in segment `s`: today's metric's, or the
/// named measure's (computed in every segment for the rules that name one,
/// docs/contract.md §6.6).
fn segment_mean_of(
    s: &crate::compare::segments::Segment,
    t: Target,
) -> Option<&crate::compare::MeanDelta> {
    match t {
        Target::Metric(m) => Some(s.means.get(m)),
        Target::Named(n) => s.means.measures.get(n),
    }
}

/// The sentences of the segment and non-inferiority reasons, tags written by `id`.
fn render_segment_reason(reason: &Reason, id: &dyn Fn(&str) -> String) -> String {
    match reason {
        Reason::SegmentSignificant {
            segment,
            label,
            delta,
            p,
            tests,
            correction,
        } => format!(
            "segment {}: mean {label} dropped significantly: {}, adjusted p = {p:.4} < {ALPHA} ({} over {tests} segment tests)",
            id(segment),
            crate::text::delta(*delta),
            correction.label()
        ),
        Reason::SegmentDrop {
            segment,
            label,
            by,
            allowed,
        } => format!(
            "segment {}: mean {label} dropped by {by:.4}, more than the allowed {allowed}",
            id(segment)
        ),
        Reason::NotNonInferior {
            segment,
            label,
            margin,
            ci,
            verdict,
            queries_needed,
            queries,
        } => format!(
            "{}{label} not shown non-inferior (margin {margin}): 95% CI of delta [{}, {}], {}{}",
            segment
                .as_ref()
                .map(|s| format!("segment {}: ", id(s)))
                .unwrap_or_default(),
            crate::text::delta(ci.0),
            crate::text::delta(ci.1),
            verdict.words(),
            settle_text(*verdict, *queries_needed, *queries)
                .map(|t| format!("; {t}"))
                .unwrap_or_default()
        ),
        _ => String::new(),
    }
}

/// The reasons from noise and drift: `--strict-flaky` and `--min-rbo`
/// (docs/contract.md §6.5).
fn noise_causes(policy: &Policy, cmp: &Comparison) -> Vec<Reason> {
    let mut causes = Vec::new();
    if policy.strict_flaky && !cmp.flaky.is_empty() {
        causes.push(Reason::Flaky {
            ids: cmp.flaky.clone(),
        });
    }
    if let (Some(min), Some(mean)) = (policy.min_rbo, cmp.drift.mean_rbo)
        && mean < min
    {
        causes.push(Reason::MinRbo {
            mean,
            min,
            p: cmp.drift.rbo_p,
        });
    }
    causes
}

/// `--fail-on-risk`: RR and nDCG overall at the first alpha, when TRisk is below -2
/// (docs/contract.md §7.4).
fn risk_causes(policy: &Policy, cmp: &Comparison, k: u32) -> Vec<Reason> {
    if !policy.fail_on_risk {
        return Vec::new();
    }
    crate::compare::risk::at_first_alpha(&cmp.risk)
        .filter(|r| r.significant_downside_risk)
        .filter_map(|r| {
            Some(Reason::Risk {
                label: r.of.label(k),
                alpha: r.alpha,
                urisk: r.urisk,
                trisk: r.trisk?,
            })
        })
        .collect()
}
