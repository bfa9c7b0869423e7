//! Drift: rank-biased overlap between the baseline's and the candidate's first
//! repeat, for every query both runs' files list, labelled or not
//! (docs/contract.md §6.5).

use serde::Serialize;

use crate::compare::Comparison;
use rustc_hash::FxHashMap;

use crate::model::{GoldSet, Id, ListSink, Role, Side};
use crate::text::natural_cmp;

/// `--rbo-p`'s default persistence.
pub const DEFAULT_P: f64 = 0.9;
/// Reports list this many unlabelled queries that moved most.
pub const MOST_CHANGED: usize = 20;
/// The share of drift queries below this RBO is reported.
pub const LOW_RBO: f64 = 0.5;

/// JSON `drift`.
#[derive(Debug, Clone, Serialize)]
pub struct Drift {
    pub rbo_p: f64,
    /// Over every query in drift; `null` when there is none.
    pub mean_rbo: Option<f64>,
    /// Over the gold queries in drift, no-answer ones included.
    pub labelled_mean_rbo: Option<f64>,
    /// Over the queries in both runs and not in the gold.
    pub unlabelled_mean_rbo: Option<f64>,
    pub unlabelled_queries: usize,
    /// Share of the queries in drift with RBO < 0.5.
    pub low_rbo_share: Option<f64>,
    /// The unlabelled queries that moved most: lowest RBO, then id in natural order.
    pub most_changed_unlabelled: Vec<Moved>,
    /// Gold queries in drift.
    #[serde(skip)]
    pub labelled_queries: usize,
    /// The unlabelled queries the baseline listed and the candidate left out, each in
    /// drift as an empty candidate list (natural order; a warning names them).
    #[serde(skip)]
    pub left_out: Vec<String>,
}

impl Default for Drift {
    fn default() -> Self {
        Self {
            rbo_p: DEFAULT_P,
            mean_rbo: None,
            labelled_mean_rbo: None,
            unlabelled_mean_rbo: None,
            unlabelled_queries: 0,
            low_rbo_share: None,
            most_changed_unlabelled: Vec::new(),
            labelled_queries: 0,
            left_out: Vec::new(),
        }
    }
}

impl Drift {
    /// Every query in drift.
    pub fn queries(&self) -> usize {
        self.labelled_queries + self.unlabelled_queries
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Moved {
    pub id: String,
    pub rbo: f64,
}

/// Drift with persistence `p` from the pairs the runs' lists made while they were
/// read (`drift::Pairing::results`): each per-query row gets its RBO.
pub fn apply(cmp: &mut Comparison, gold: &GoldSet, pairs: Pairs, p: f64) {
    let Pairs {
        labelled,
        unlabelled,
        left_out,
    } = pairs;
    cmp.drift.rbo_p = p;
    let unlabelled: Vec<(&str, f64)> = unlabelled.iter().map(|(id, r)| (id.as_str(), *r)).collect();
    for row in &mut cmp.rows {
        row.rbo = gold.lookup(&row.id).and_then(|qi| labelled[qi as usize]);
    }
    cmp.drift = summarize(p, labelled.iter().flatten().copied(), &unlabelled);
    cmp.drift.left_out = left_out;
}

/// The means, the low share and the unlabelled queries that moved most.
fn summarize(p: f64, labelled: impl Iterator<Item = f64>, unlabelled: &[(&str, f64)]) -> Drift {
    let mean = |sum: f64, n: usize| (n > 0).then(|| sum / n as f64);
    let (mut l_sum, mut l_n, mut low) = (0.0, 0usize, 0usize);
    for r in labelled {
        l_sum += r;
        l_n += 1;
        low += usize::from(r < LOW_RBO);
    }
    let u_sum: f64 = unlabelled.iter().map(|(_, r)| r).sum();
    low += unlabelled.iter().filter(|(_, r)| *r < LOW_RBO).count();
    let n = l_n + unlabelled.len();
    let mut moved: Vec<(&str, f64)> = unlabelled.to_vec();
    let order =
        |a: &(&str, f64), b: &(&str, f64)| a.1.total_cmp(&b.1).then_with(|| natural_cmp(a.0, b.0));
    if moved.len() > MOST_CHANGED {
        moved.select_nth_unstable_by(MOST_CHANGED - 1, order);
        moved.truncate(MOST_CHANGED);
    }
    moved.sort_unstable_by(order);
    Drift {
        rbo_p: p,
        mean_rbo: mean(l_sum + u_sum, n),
        labelled_mean_rbo: mean(l_sum, l_n),
        unlabelled_mean_rbo: mean(u_sum, unlabelled.len()),
        unlabelled_queries: unlabelled.len(),
        low_rbo_share: (n > 0).then(|| low as f64 / n as f64),
        most_changed_unlabelled: moved
            .into_iter()
            .map(|(id, rbo)| Moved {
                id: id.to_string(),
                rbo,
            })
            .collect(),
        labelled_queries: l_n,
        left_out: Vec::new(),
    }
}

/// How two lists of doc hashes compare (drift's RBO, given by the caller).
pub type PairFn = Box<dyn Fn(&[u64], &[u64]) -> f64 + Send + Sync>;

/// Drift computed while the two runs are read (docs/contract.md §6.5): each run's
/// first repeat offers every returned list, as doc hashes, when its ranking is
/// complete. The first side to offer a query's list leaves it waiting; the second
/// pairs them and both are dropped. Runs exported in the same query order (grouped
/// TREC, CSV, JSON in gold order) so hold only the lists one side is ahead by, not
/// every list of both runs.
pub struct Pairing {
    pair: PairFn,
    state: std::sync::Mutex<PairState>,
}

#[derive(Default)]
struct PairState {
    gold: Vec<Slot>,
    other: FxHashMap<Id, Slot>,
    /// Lists waiting now, and the most that ever waited at once.
    waiting: usize,
    peak: usize,
    /// A side offered a list that turned out partial (an interleaved TREC run): every
    /// value is void and later offers are ignored; the caller pairs again.
    poisoned: bool,
    /// Each side whose reading ended: a list the other side offers then for a query
    /// it did not list is never paired, so it is not kept (docs/contract.md §12).
    finished: Side<bool>,
    /// The queries not in the gold that the baseline listed and the candidate left
    /// out: each paired with an empty list (docs/contract.md §6.5).
    left_out: Vec<Id>,
}

#[derive(Default)]
enum Slot {
    #[default]
    Empty,
    /// One side's list, waiting for the other side's.
    Waiting(Role, Box<[u64]>),
    Done(f64),
}

impl Pairing {
    pub fn new(gold_queries: usize, pair: PairFn) -> Self {
        let mut gold = Vec::with_capacity(gold_queries);
        gold.resize_with(gold_queries, Slot::default);
        Self {
            pair,
            state: std::sync::Mutex::new(PairState {
                gold,
                ..PairState::default()
            }),
        }
    }

    /// The most lists that ever waited at once (the memory drift cost).
    pub fn peak_waiting(&self) -> usize {
        self.state.lock().map_or(0, |st| st.peak)
    }

    /// Every pair's value: per gold query (`None` when a run did not list it), and the
    /// queries not in the gold that both runs listed.
    pub fn results(self) -> Pairs {
        let st = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        let done = |s: &Slot| match s {
            Slot::Done(r) => Some(*r),
            _ => None,
        };
        let gold = st.gold.iter().map(done).collect();
        let other = st
            .other
            .iter()
            .filter_map(|(id, s)| Some((id.clone(), done(s)?)))
            .collect();
        let mut left_out: Vec<String> = st.left_out.iter().map(ToString::to_string).collect();
        crate::text::sort_natural(&mut left_out);
        Pairs {
            labelled: gold,
            unlabelled: other,
            left_out,
        }
    }

    /// A list of the baseline's that the candidate, its reading ended, never listed:
    /// the candidate returned nothing for it, so it pairs with an empty list, as a CSV
    /// run's empty cell would (docs/contract.md §6.5). Leaving a query out must not
    /// take it out of the mean RBO that `--min-rbo` judges.
    fn left_out(&self, st: &mut PairState, qi: Option<usize>, qid: &str, list: &[u64]) {
        let rbo = (self.pair)(list, &[]);
        match qi {
            Some(qi) => st.gold[qi] = Slot::Done(rbo),
            None => {
                st.other.insert(Id::from(qid), Slot::Done(rbo));
                st.left_out.push(Id::from(qid));
            }
        }
    }
}

/// What the pairing found: each gold query's RBO, by its index (`None` when a run did
/// not list it), and the queries not in the gold that both runs listed.
#[derive(Debug, Default)]
pub struct Pairs {
    pub labelled: Vec<Option<f64>>,
    pub unlabelled: Vec<(Id, f64)>,
    /// The queries not in the gold that the baseline listed and the candidate did
    /// not (in `unlabelled` with an empty candidate list), in natural order.
    pub left_out: Vec<String>,
}

impl ListSink for Pairing {
    /// Run `side` returned `list` for a query: gold query `qi`, or `qid` when the gold
    /// does not have it.
    fn offer(&self, side: Role, qi: Option<usize>, qid: &str, list: &[u64]) {
        let waiting = {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if st.poisoned {
                return;
            }
            // The other side ended: only a list it left waiting can still pair (this
            // side's own were dropped when it ended), so keep nothing new.
            if st.finished[side.other()] {
                let waits = match qi {
                    Some(qi) => matches!(st.gold[qi], Slot::Waiting(..)),
                    None => matches!(st.other.get(qid), Some(Slot::Waiting(..))),
                };
                if !waits {
                    // The candidate ended without this query: an empty list.
                    if side == Role::Baseline {
                        self.left_out(&mut st, qi, qid, list);
                    }
                    return;
                }
            }
            let slot = match qi {
                Some(qi) => &mut st.gold[qi],
                None => st.other.entry(Id::from(qid)).or_default(),
            };
            let theirs = match std::mem::take(slot) {
                Slot::Waiting(other, theirs) if other != side => Some(theirs),
                before => {
                    // The same side again cannot happen for a valid run: keep the newer.
                    let fresh = !matches!(before, Slot::Waiting(..));
                    *slot = Slot::Waiting(side, list.into());
                    if fresh {
                        st.waiting += 1;
                        st.peak = st.peak.max(st.waiting);
                    }
                    None
                }
            };
            match theirs {
                Some(t) => {
                    st.waiting -= 1;
                    t
                }
                None => return,
            }
        };
        // Paired outside the lock, baseline first.
        let rbo = if side == Role::Candidate {
            (self.pair)(&waiting, list)
        } else {
            (self.pair)(list, &waiting)
        };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.poisoned {
            return;
        }
        match qi {
            Some(qi) => st.gold[qi] = Slot::Done(rbo),
            None => {
                st.other.insert(Id::from(qid), Slot::Done(rbo));
            }
        }
    }

    /// Some list offered was partial: drop everything (the memory too) and ignore
    /// later offers; [`Pairing::is_poisoned`] tells the caller to pair again with
    /// lists offered only when complete.
    fn poison(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.poisoned = true;
        st.gold.iter_mut().for_each(|s| *s = Slot::Empty);
        st.other = FxHashMap::default();
        st.left_out = Vec::new();
        st.waiting = 0;
    }

    fn is_poisoned(&self) -> bool {
        self.state.lock().map_or(true, |st| st.poisoned)
    }

    /// Run `side` will offer nothing more: the lists the other side left waiting for
    /// it are dropped (a run whose many queries the other lacks, a million unlabelled
    /// ones say, no longer holds them all), and later ones are not kept.
    fn finished(&self, side: Role) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.finished[side] = true;
        let stale = |s: &Slot| matches!(s, Slot::Waiting(w, _) if *w != side);
        let mut dropped = 0;
        // The candidate ended: the baseline's lists it never listed pair with an
        // empty list (docs/contract.md §6.5); the candidate's the baseline left
        // waiting are dropped.
        let mut left: Vec<(Option<usize>, Id, Box<[u64]>)> = Vec::new();
        for (qi, slot) in st.gold.iter_mut().enumerate().filter(|(_, s)| stale(s)) {
            if let Slot::Waiting(Role::Baseline, list) = std::mem::take(slot) {
                left.push((Some(qi), Id::default(), list));
            }
            dropped += 1;
        }
        let before = st.other.len();
        st.other.retain(|id, s| {
            if !stale(s) {
                return true;
            }
            if let Slot::Waiting(Role::Baseline, list) = std::mem::take(s) {
                left.push((None, id.clone(), list));
            }
            false
        });
        dropped += before - st.other.len();
        st.waiting -= dropped;
        for (qi, id, list) in left {
            self.left_out(&mut st, qi, &id, &list);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut ids = vec!["Q-10", "Q-2", "Q-1", "Q-02", "A", "Q-1a", "Q-"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["A", "Q-", "Q-1", "Q-1a", "Q-2", "Q-02", "Q-10"]);
    }

    #[test]
    fn summary_of_labelled_and_unlabelled() {
        let unlabelled: Vec<(&str, f64)> = (0..25)
            .map(|i| (["U-1", "U-2", "U-10"][i % 3], 0.04 * i as f64))
            .collect();
        let d = summarize(0.9, [1.0, 0.25].into_iter(), &unlabelled[..3]);
        assert_eq!(d.mean_rbo, Some((1.25 + 0.0 + 0.04 + 0.08) / 5.0));
        assert_eq!(d.labelled_mean_rbo, Some(0.625));
        assert_eq!(d.unlabelled_queries, 3);
        assert_eq!(d.low_rbo_share, Some(4.0 / 5.0));
        let none = summarize(0.9, std::iter::empty(), &[]);
        assert_eq!((none.mean_rbo, none.unlabelled_mean_rbo), (None, None));
        let ties = [("U-10", 0.1), ("U-9", 0.1), ("U-1", 0.3)];
        let t = summarize(0.5, std::iter::empty(), &ties);
        let ids: Vec<&str> = t
            .most_changed_unlabelled
            .iter()
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(ids, ["U-9", "U-10", "U-1"]);
        // Equal by value: the shorter digit run first (docs/contract.md §5.2), not
        // byte order, as every other list of ids is sorted.
        let zeros = [("Q-02", 0.2), ("Q-2", 0.2)];
        let z = summarize(0.5, std::iter::empty(), &zeros);
        let ids: Vec<&str> = z
            .most_changed_unlabelled
            .iter()
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(ids, ["Q-2", "Q-02"]);
        let many: Vec<(String, f64)> = (0..30)
            .map(|i| (format!("U-{i}"), 1.0 - i as f64 / 30.0))
            .collect();
        let many: Vec<(&str, f64)> = many.iter().map(|(s, r)| (s.as_str(), *r)).collect();
        let m = summarize(0.9, std::iter::empty(), &many);
        assert_eq!(m.most_changed_unlabelled.len(), MOST_CHANGED);
        assert_eq!(m.most_changed_unlabelled[0].id, "U-29");
        assert_eq!(m.most_changed_unlabelled[19].id, "U-10");
    }
}

#[cfg(test)]
mod pairing_tests {
    use super::{Pairing, Pairs};
    use crate::metrics::rbo::rbo_ext;
    use crate::model::{ListSink, Role};

    fn pairing(n: usize) -> Pairing {
        Pairing::new(n, Box::new(|a, b| rbo_ext(a, b, 0.9)))
    }

    #[test]
    fn runs_in_the_same_order_hold_one_list_at_a_time() {
        let p = pairing(1000);
        for qi in 0..1000 {
            let list = [qi as u64, 7, 8];
            p.offer(Role::Baseline, Some(qi), "", &list);
            p.offer(Role::Candidate, Some(qi), "", &list);
        }
        assert_eq!(p.peak_waiting(), 1);
        let Pairs {
            labelled: gold,
            unlabelled: other,
            ..
        } = p.results();
        assert!(gold.iter().all(|r| *r == Some(1.0)));
        assert!(other.is_empty());
    }

    /// A million unlabelled queries in one run only used to wait, every list, for a
    /// run that never lists them (docs/contract.md §12.23): once the other run's
    /// reading ends they are dropped and no later one is kept; pairs are unchanged.
    #[test]
    fn lists_the_finished_side_never_listed_are_not_kept() {
        let p = pairing(2);
        p.offer(Role::Baseline, None, "U-0", &[1, 2]);
        p.offer(Role::Baseline, Some(0), "", &[4]);
        for i in 1..=1000 {
            p.offer(Role::Candidate, None, &format!("X-{i}"), &[i]);
        }
        p.offer(Role::Candidate, Some(1), "", &[5]);
        assert_eq!(p.peak_waiting(), 1003);
        p.finished(Role::Baseline);
        let waiting = |p: &Pairing| p.state.lock().expect("a lock").waiting;
        assert_eq!(waiting(&p), 2, "the baseline's own lists still wait");
        for i in 1001..=2000 {
            p.offer(Role::Candidate, None, &format!("X-{i}"), &[i]);
        }
        assert_eq!(waiting(&p), 2, "nothing new is kept");
        p.offer(Role::Candidate, None, "U-0", &[2, 1]);
        p.offer(Role::Candidate, Some(0), "", &[4]);
        assert_eq!(waiting(&p), 0);
        let Pairs {
            labelled: gold,
            unlabelled: other,
            ..
        } = p.results();
        assert_eq!(gold, [Some(1.0), None]);
        assert_eq!(other.len(), 1, "U-0 paired, the X-* were in one run only");
        assert_eq!(other[0].1, rbo_ext(&[1, 2], &[2, 1], 0.9));
    }

    /// A query the baseline lists and the candidate leaves out pairs with an empty
    /// list once the candidate's reading ends, whichever side ends first
    /// (docs/contract.md §6.5); one the candidate alone lists is in no pair.
    #[test]
    fn a_baseline_list_the_candidate_left_out_pairs_with_an_empty_list() {
        for candidate_first in [false, true] {
            let p = pairing(2);
            p.offer(Role::Candidate, None, "U-7", &[3]);
            if !candidate_first {
                p.offer(Role::Baseline, Some(1), "", &[9]);
                p.offer(Role::Baseline, None, "U-9", &[1, 2]);
            }
            p.finished(Role::Candidate);
            if candidate_first {
                p.offer(Role::Baseline, Some(1), "", &[9]);
                p.offer(Role::Baseline, None, "U-9", &[1, 2]);
            }
            p.finished(Role::Baseline);
            let Pairs {
                labelled,
                unlabelled,
                left_out,
            } = p.results();
            assert_eq!(labelled, [None, Some(0.0)]);
            assert_eq!(unlabelled, [(crate::model::Id::from("U-9"), 0.0)]);
            assert_eq!(left_out, ["U-9"]);
        }
    }

    #[test]
    fn runs_in_opposite_orders_hold_one_side_and_still_pair_all() {
        let p = pairing(100);
        for qi in 0..100 {
            p.offer(Role::Baseline, Some(qi), "", &[1, 2]);
        }
        for qi in (0..100).rev() {
            p.offer(Role::Candidate, Some(qi), "", &[2, 3]);
        }
        assert_eq!(p.peak_waiting(), 100);
        let Pairs { labelled: gold, .. } = p.results();
        let expected = rbo_ext(&[1, 2], &[2, 3], 0.9);
        assert!(gold.iter().all(|r| *r == Some(expected)));
    }

    #[test]
    fn baseline_first_whichever_side_arrives_first_and_unpaired_lists_have_none() {
        let p = pairing(2);
        p.offer(Role::Candidate, Some(0), "", &[5, 6, 7]);
        p.offer(Role::Baseline, Some(0), "", &[5]);
        p.offer(Role::Baseline, Some(1), "", &[9]);
        p.offer(Role::Baseline, None, "U-1", &[1]);
        p.offer(Role::Candidate, None, "U-1", &[2]);
        p.offer(Role::Candidate, None, "U-2", &[3]);
        let Pairs {
            labelled: gold,
            unlabelled: mut other,
            ..
        } = p.results();
        assert_eq!(gold[0], Some(rbo_ext(&[5], &[5, 6, 7], 0.9)));
        assert_eq!(gold[1], None, "the candidate never listed it");
        other.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(other.len(), 1, "U-2 is in one run only");
        assert_eq!(other[0].1, 0.0);
    }

    #[test]
    fn a_poisoned_pairing_drops_what_waits_and_ignores_later_offers() {
        let p = pairing(2);
        p.offer(Role::Baseline, Some(0), "", &[1, 2]);
        p.offer(Role::Baseline, None, "U-1", &[1]);
        assert!(!p.is_poisoned());
        p.poison();
        p.offer(Role::Candidate, Some(0), "", &[1, 2]);
        p.offer(Role::Baseline, Some(1), "", &[3]);
        p.offer(Role::Candidate, Some(1), "", &[3]);
        p.offer(Role::Candidate, None, "U-1", &[1]);
        assert!(p.is_poisoned());
        let Pairs {
            labelled: gold,
            unlabelled: other,
            ..
        } = p.results();
        assert_eq!(gold, vec![None, None], "no value survives a poisoning");
        assert!(other.is_empty());
    }
}
