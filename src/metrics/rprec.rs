//! R-precision (trec_eval's `Rprec`, ir_measures' `Rprec`/`RPrec`; docs/contract.md
//! §5.4): precision after R docs, R being the query's number of relevant docs.

/// Relevant docs in the top R of the whole returned list, divided by R. A list
/// shorter than R counts the relevant docs it holds (trec_eval looks at min(R,
/// returned) docs and divides by R); 0 when the query has no relevant doc or nothing
/// was returned. `relevant_ranks` may be in any order; ties are already broken by the
/// reader (score descending, then doc id descending, as trec_eval).
pub fn r_precision(relevant_ranks: impl IntoIterator<Item = u32>, num_rel: u32) -> f64 {
    if num_rel == 0 {
        return 0.0;
    }
    let in_r = relevant_ranks.into_iter().filter(|&r| r <= num_rel).count();
    in_r as f64 / f64::from(num_rel)
}

#[cfg(test)]
mod tests {
    use super::r_precision;

    #[test]
    fn counts_the_top_r_only() {
        // R = 4: relevant at 1, 3, 5 -> two in the top 4
        assert_eq!(r_precision([1, 3, 5], 4), 0.5);
        // a short list: relevant at 1 and 2 of 2 returned, R = 5
        assert_eq!(r_precision([1, 2], 5), 0.4);
        assert_eq!(r_precision([], 3), 0.0);
        assert_eq!(r_precision([1], 0), 0.0);
        assert_eq!(r_precision([1, 2, 3], 3), 1.0);
    }
}
