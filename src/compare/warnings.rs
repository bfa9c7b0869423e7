//! The comparison's own warnings (docs/contract.md §6.4, §7.1, §12.11): what a reader of the
//! report should know about the runs compared, and gates that cannot test anything.

use crate::compare::{Bump, Comparison, Options, segments};
use crate::model::{Role, RunMeta, Side};
use crate::stats::{self, Correction};
use crate::text::plural;

/// Fewer compared queries than this get a warning: the statistics mean little.
pub const FEW_QUERIES: usize = 10;

/// The gates asked for that the comparison's shape may leave without a test.
#[derive(Debug, Clone, Copy, Default)]
pub struct GatesAsked {
    /// `--non-inferior-per-segment` or `--max-drop-per-segment`.
    pub per_segment: bool,
    /// `--fail-on-significant-drop`, with the gate's alpha.
    pub significant_drop: Option<f64>,
}

impl Comparison {
    /// Warnings about the comparison itself: the same results, swapped versions,
    /// nothing changed, too few queries.
    pub fn warnings(&self, runs: Side<&RunMeta>) -> Vec<String> {
        comparison_warnings(self, runs)
    }

    /// Notes on how the comparison was read: repeats pooled under one index version
    /// (docs/contract.md §6.5).
    pub fn notes(&self, runs: Side<&RunMeta>) -> Vec<String> {
        let mut out = self.extra_draws_notes();
        out.extend(self.pooled_note(runs));
        out
    }

    /// A Monte Carlo p that drew more than first planned, because its first 99%
    /// interval held a threshold of the gate (docs/contract.md §7): the tested
    /// metrics', then the named measures' (by their ir_measures names; one that is a
    /// tested metric at k has that metric's p and note), overall, then per segment.
    fn extra_draws_notes(&self) -> Vec<String> {
        let overall = self.tested_by_label(&self.means).map(|(l, d)| (l, None, d));
        let segments = self.segments.iter().flat_map(|s| {
            self.tested_by_label(&s.means)
                .map(|(l, d)| (l, Some(s.tag.as_str()), d))
        });
        overall
            .chain(segments)
            .filter(|(_, _, d)| d.extended)
            .map(|(label, tag, d)| {
                let at = tag.map_or_else(String::new, |t| format!(" in segment {t}"));
                format!(
                    "the {label} p{at} drew {} sign flips: its first estimate's 99% interval held a threshold of the gate",
                    d.resamples.flatten().unwrap_or(0)
                )
            })
            .collect()
    }

    /// The tested means of `means` with the labels reports give them: the four
    /// tested metrics, then each named measure that is not one of them at k.
    fn tested_by_label<'a>(
        &self,
        means: &'a crate::compare::MeansReport,
    ) -> impl Iterator<Item = (String, &'a crate::compare::MeanDelta)> {
        let k = self.k;
        let four = crate::compare::TESTED.map(move |m| (m.label(k), means.get(m)));
        let named = means
            .measures
            .0
            .iter()
            .filter(move |(m, _)| crate::compare::measures::tested_at_k(*m, k).is_none())
            .map(|(m, d)| (m.name(), d));
        four.into_iter().chain(named)
    }

    fn pooled_note(&self, runs: Side<&RunMeta>) -> Vec<String> {
        let Side {
            baseline: b,
            candidate: c,
        } = self.repeats;
        if self.bump != Bump::Same || b + c < 3 {
            return Vec::new();
        }
        let version = runs
            .baseline
            .index_version
            .as_ref()
            .map_or_else(|| "(none)".to_string(), ToString::to_string);
        vec![format!(
            "same index version {version} on both sides: the {} repeats were pooled ({b} baseline, {c} candidate); a query whose RR, Recall or nDCG differs between any two is flaky and non-deterministic",
            b + c
        )]
    }

    /// Gates that test nothing on this comparison: per-segment gates without a
    /// tested segment, a significant-drop gate whose Holm floor is above alpha.
    pub fn gate_warnings(&self, asked: GatesAsked, opts: &Options) -> Vec<String> {
        let mut out = segment_warnings(self, asked.per_segment, opts.min_segment_queries);
        out.extend(holm_floor_warning(
            self,
            asked.significant_drop,
            opts.resamples,
        ));
        out
    }
}

/// Warnings about the comparison itself: swapped versions, too few queries.
fn comparison_warnings(cmp: &Comparison, runs: Side<&RunMeta>) -> Vec<String> {
    let mut warnings = Vec::new();
    if cmp.same_results {
        warnings.push(if cmp.bump == Bump::Same {
            "baseline and candidate read the same results: nothing can change between them".to_string()
        } else {
            "baseline and candidate read the same results, under different index versions: was the candidate run on its own index?".to_string()
        });
    }
    if cmp.bump == Bump::Older {
        let version = |m: &RunMeta| {
            m.index_version
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        warnings.push(format!(
            "the candidate's index version {} is lower than the baseline's {}: are baseline and candidate swapped?",
            version(runs.candidate),
            version(runs.baseline),
        ));
    }
    // "Every list identical" only when every ranked list of every repeat is equal
    // (docs/contract.md §6.5); unchanged metrics over moved lists say how many moved.
    if cmp.bump == Bump::Same && cmp.nondeterministic.is_empty() && !cmp.same_results {
        warnings.push(if cmp.lists_changed == 0 {
            "baseline and candidate hold the same results (same index version, every list identical): nothing changed; after `ragdiff promote`, export the next candidate"
                .to_string()
        } else {
            format!(
                "same index version and no query's RR, Recall or nDCG moved, but {} of {} ranked lists differ: the runs are not identical",
                cmp.lists_changed, cmp.lists_compared
            )
        });
    }
    // A map on one side only (docs/contract.md §2.11).
    let mapped: Vec<(Role, &std::path::Path)> = runs
        .with_roles()
        .filter_map(|(side, m)| Some((side, m.doc_map.as_ref()?.1.as_path())))
        .collect();
    if let [(side, path)] = mapped[..] {
        let other = side.other();
        warnings.push(format!(
            "only the {side} maps chunks to documents (doc_map {}): the {other}'s ids are compared as they are; a map on one side only changes what that side retrieved",
            path.display()
        ));
    }
    if !cmp.unconfirmed.is_empty() {
        let by = match cmp.unconfirmed_by.as_slice() {
            [one] => format!("{one} lists one results file"),
            many => format!("{} list one results file each", many.join(" and ")),
        };
        let n = cmp.unconfirmed.len();
        warnings.push(format!(
            "{} {} unconfirmed: one run of an approximate index ({by}); record repeats from separate builds of the index: `results = [\"build-1.csv\", \"build-2.csv\"]`, each from an index built anew",
            plural(n, "newly failed query", "newly failed queries"),
            if n == 1 { "is" } else { "are" },
        ));
    }
    // Queries the candidate left out are in drift as empty lists (§6.5).
    let left = &cmp.drift.left_out;
    if !left.is_empty() {
        warnings.push(format!(
            "the candidate leaves out {} its baseline lists: drift counts each as an empty list (RBO 0 against the baseline's): {}",
            plural(left.len(), "query", "queries"),
            crate::text::name_ids_with(left, &crate::text::safe_id)
        ));
    }
    warnings.extend(baseline_errored(cmp));
    warnings.extend(latency_warning(cmp));
    if cmp.rows.len() < FEW_QUERIES {
        warnings.push(format!(
            "only {} with a relevant doc {} compared; means, intervals and p-values say little on so few",
            plural(cmp.rows.len(), "query", "queries"),
            if cmp.rows.len() == 1 { "is" } else { "are" }
        ));
    }
    warnings
}

/// Per-segment gates that test nothing: the gold has no tags, or every segment is
/// too few (docs/contract.md §6.6).
fn segment_warnings(cmp: &Comparison, asked: bool, min_queries: usize) -> Vec<String> {
    if !asked || cmp.segments.iter().any(|s| !s.too_few) {
        return Vec::new();
    }
    vec![if cmp.segments.is_empty() {
        "--non-inferior-per-segment and --max-drop-per-segment test nothing: the gold has no tags"
            .to_string()
    } else {
        format!(
            "--non-inferior-per-segment and --max-drop-per-segment test nothing: every segment has fewer than {} queries (--min-segment-queries)",
            min_queries
        )
    }]
}

/// Under `--fail-on-significant-drop`: a family so large that even the smallest p
/// (1 / (1 + resamples)) cannot get below 0.05 after its adjustment
/// (docs/contract.md §7.1), one warning per family. Holm's floor is
/// tests / (1 + resamples), Benjamini-Hochberg's 1 / (1 + resamples).
fn holm_floor_warning(cmp: &Comparison, alpha: Option<f64>, resamples: u32) -> Vec<String> {
    // Only a fixed --resamples has a fixed floor (docs/contract.md §7.1).
    let Some(alpha) = alpha.filter(|_| resamples != 0) else {
        return Vec::new();
    };
    // An exact p has no resampling floor: a family of exact tests is left out.
    let monte_carlo =
        |m: &crate::compare::MeanDelta| m.p_method == Some(stats::PMethod::MonteCarlo);
    let overall_mc = crate::compare::TESTED
        .iter()
        .any(|&m| monte_carlo(cmp.means.get(m)))
        || cmp
            .means
            .measures
            .0
            .iter()
            .any(|(_, md)| md.family.is_some() && monte_carlo(md));
    let segments_mc = cmp.segments.iter().filter(|s| !s.too_few).any(|s| {
        crate::compare::TESTED
            .iter()
            .any(|&m| monte_carlo(s.means.get(m)))
    });
    let segment_tests = segments::segment_family_size(cmp) * usize::from(segments_mc);
    let overall_tests = cmp.overall_family_size() * usize::from(overall_mc);
    let families = [
        ("overall", overall_tests, Correction::Holm),
        ("segment", segment_tests, cmp.segment_correction),
    ];
    families
        .into_iter()
        .filter(|&(_, tests, _)| tests > 0)
        .filter_map(|(family, tests, correction)| {
            let scale = match correction {
                Correction::Holm => tests,
                Correction::Bh => 1,
            };
            let floor = (scale as f64 / (1.0 + f64::from(resamples))).min(1.0);
            (floor >= alpha).then(|| {
                format!(
                    "with {tests} {family} tests and {resamples} resamples the smallest {}-adjusted p is {floor:.4}, so --fail-on-significant-drop cannot fire on the {family} tests; use --resamples {} or more",
                    correction.label(),
                    scale * 20
                )
            })
        })
        .collect()
}

/// The baseline's errored queries (docs/contract.md §6.8): empty rankings there,
/// which only flatter the candidate, so they warn and never fail the gate.
fn baseline_errored(cmp: &Comparison) -> Option<String> {
    let ids = &cmp.errored.baseline;
    if ids.is_empty() {
        return None;
    }
    let them = if ids.len() == 1 { "it" } else { "them" };
    Some(format!(
        "the baseline's retriever failed on {} (its manifest's `errored`): each counts as an empty ranking there, so the candidate cannot newly fail on {them} and may seem to fix {them}: {}",
        plural(ids.len(), "query", "queries"),
        crate::text::name_ids_with(ids, &crate::text::safe_id)
    ))
}

/// Latency that is shown but never judged (docs/contract.md §6.9): one side alone has
/// it, or the two were not recorded with the same concurrency on the same host.
fn latency_warning(cmp: &Comparison) -> Option<String> {
    if let Some(side) = cmp.latency.only {
        return Some(format!(
            "only the {side} has latency (a `latency_ms` field or column, or a latency side file): latency is not compared"
        ));
    }
    let why = cmp.latency.both.as_ref()?.why_not.as_ref()?;
    Some(format!(
        "latency is shown but not gated: {why}; latency is judged only between runs recorded with the same concurrency on the same host"
    ))
}
