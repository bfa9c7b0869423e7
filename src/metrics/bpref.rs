//! bpref (trec_eval's `bpref`, ir_measures' `Bpref`; docs/contract.md §5.4): the
//! fraction of preferences "relevant above judged non-relevant" the ranking keeps,
//! reading judged docs only (an unjudged doc is skipped, never taken as
//! non-relevant).

/// One judged doc of a returned list, in rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    Relevant,
    /// Judged, graded below the relevance threshold.
    NonRelevant,
}

/// trec_eval's `bpref`: for each relevant doc returned, 1 - min(n, R) / min(N, R),
/// where n counts the judged non-relevant docs above it, R the query's relevant docs
/// and N its judged non-relevant docs (1 when n = 0); summed and divided by R.
/// 0 when the query has no relevant doc. A relevant doc not returned adds 0.
pub fn bpref(
    judged_in_rank_order: impl IntoIterator<Item = Judged>,
    num_rel: u32,
    num_nonrel: u32,
) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    let denominator = f64::from(num_nonrel.min(num_rel));
    let mut nonrel_above = 0u32;
    let mut sum = 0.0;
    for j in judged_in_rank_order {
        match j {
            Judged::NonRelevant => nonrel_above += 1,
            Judged::Relevant if nonrel_above == 0 => sum += 1.0,
            // nonrel_above > 0 implies num_nonrel > 0, so the denominator is > 0
            Judged::Relevant => sum += 1.0 - f64::from(nonrel_above.min(num_rel)) / denominator,
        }
    }
    sum / f64::from(num_rel)
}

#[cfg(test)]
mod tests {
    use super::Judged::{NonRelevant as N, Relevant as R};
    use super::bpref;

    #[test]
    fn counts_non_relevant_docs_above_each_relevant_one() {
        // R N R, 2 relevant, 1 judged non-relevant: (1 + (1 - 1/1)) / 2
        assert_eq!(bpref([R, N, R], 2, 1), 0.5);
        // N R, 3 relevant (two not returned), 5 non-relevant: (1 - 1/3) / 3
        assert!((bpref([N, R], 3, 5) - (2.0 / 3.0) / 3.0).abs() < 1e-15);
        // more non-relevant above than R: capped at R
        assert_eq!(bpref([N, N, N, R], 2, 4), 0.0);
        assert_eq!(bpref([R, R], 2, 0), 1.0);
        assert_eq!(bpref([], 2, 3), 0.0);
        assert_eq!(bpref([R], 0, 3), 0.0);
    }
}
