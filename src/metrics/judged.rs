//! Judged@k and unjudged counts (docs/contract.md §6.3): how much of a top k the gold
//! has labels for. A doc is judged for a query when the gold has a line for it,
//! whatever its grade.

use crate::model::Observed;

/// Docs in the top k the gold has no judgement for. 0 for an empty or missing
/// ranking; a list shorter than k counts only the docs it holds.
pub fn unjudged_at_k(observed: Option<&Observed>, k: u32) -> u32 {
    observed.map_or(0, |o| o.unjudged_at(k))
}

/// Judged@k: judged docs in the top k divided by k, like P@k: a list shorter than k,
/// or an empty one, lowers it. (ir_measures' `Judged@k` divides a list shorter than
/// k by its length instead; on lists of at least k docs the two agree.)
pub fn judged_at_k(observed: Option<&Observed>, k: u32) -> f64 {
    let Some(o) = observed else {
        return 0.0;
    };
    let judged = o.len.min(k) - o.unjudged_at(k);
    f64::from(judged) / f64::from(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Hit;

    fn observed(len: u32, judged_ranks: &[u32]) -> Observed {
        Observed {
            len,
            hits: judged_ranks
                .iter()
                .map(|&rank| Hit { rank, judged: 0 })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn counts_only_the_top_k() {
        let o = observed(10, &[1, 3, 7]);
        assert_eq!(unjudged_at_k(Some(&o), 5), 3);
        assert_eq!(judged_at_k(Some(&o), 5), 0.4);
        assert_eq!(unjudged_at_k(Some(&o), 10), 7);
    }

    #[test]
    fn short_and_missing_lists_divide_by_k() {
        let o = observed(2, &[1, 2]);
        assert_eq!(unjudged_at_k(Some(&o), 5), 0);
        assert_eq!(judged_at_k(Some(&o), 5), 0.4);
        assert_eq!(judged_at_k(None, 5), 0.0);
        assert_eq!(unjudged_at_k(None, 5), 0);
        assert_eq!(judged_at_k(Some(&Observed::default()), 3), 0.0);
    }
}
