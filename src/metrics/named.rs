//! Measures by name (docs/contract.md §5.4): ir_measures' names (`RR@10`, `R@100`,
//! `P(rel=2)@10`, `nDCG@20`, `AP`, `AP@100`, `Rprec`, `Bpref`, `Judged@10`,
//! `Success@10`), parsed once and scored per query, each equal to the trec_eval
//! measure ir_measures maps it to.

use super::bpref::{Judged, bpref};
use super::judged::judged_at_k;
use super::rprec::r_precision;
pub use crate::model::measure::{KNOWN, Kind, Measure, parse_all};
use crate::model::{GoldQuery, Observed};

impl Measure {
    /// The measure's value for `q` (`None` observed: an empty ranking), relevant
    /// meaning a grade of at least `rel`, else the gold's `min_grade`.
    pub fn value(&self, q: &GoldQuery, observed: Option<&Observed>, min_grade: i64) -> f64 {
        let empty = Observed::default();
        let condensed = observed
            .filter(|_| self.judged_only)
            .map(super::bounds::condensed);
        let obs = condensed.as_ref().or(observed).unwrap_or(&empty);
        let threshold = self.rel.unwrap_or(min_grade);
        let grade = |j: u32| q.judged[j as usize].grade;
        let num_rel = match self.rel {
            None => q.num_rel,
            Some(t) => q.judged.iter().filter(|j| j.grade >= t).count() as u32,
        };
        let c = self.cutoff.unwrap_or(u32::MAX);
        let relevant_ranks = || {
            obs.hits
                .iter()
                .filter(move |h| grade(h.judged) >= threshold)
                .map(|h| h.rank)
        };
        let in_c = || relevant_ranks().filter(|&r| r <= c).count() as u32;
        match self.kind {
            Kind::Rr => super::reciprocal_rank(relevant_ranks().next(), c),
            Kind::Recall => super::recall(in_c(), num_rel),
            Kind::Precision => super::precision(in_c(), c),
            Kind::Success => super::hit(in_c()),
            Kind::Ndcg => {
                let mut ideal: Vec<f64> = q.judged.iter().map(|j| j.grade as f64).collect();
                let found = obs.hits.iter().map(|h| (h.rank, grade(h.judged) as f64));
                super::ndcg(found, &mut ideal, c)
            }
            Kind::Ap => {
                let ranks: Vec<u32> = relevant_ranks().filter(|&r| r <= c).collect();
                super::average_precision(&ranks, num_rel)
            }
            Kind::Rprec => r_precision(relevant_ranks(), num_rel),
            Kind::Bpref => {
                let judged = q.judged.len() as u32;
                let judged_in_order = obs.hits.iter().map(|h| {
                    if grade(h.judged) >= threshold {
                        Judged::Relevant
                    } else {
                        Judged::NonRelevant
                    }
                });
                bpref(judged_in_order, num_rel, judged - num_rel)
            }
            Kind::Judged => judged_at_k(observed, c),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ir_measures_names_and_prints_them_back() {
        for (given, printed) in [
            ("RR@10", "RR@10"),
            ("R@100", "R@100"),
            ("P@5", "P@5"),
            ("P(rel=2)@10", "P(rel=2)@10"),
            ("P(rel = 2)@10", "P(rel=2)@10"),
            ("nDCG@20", "nDCG@20"),
            ("nDCG", "nDCG"),
            ("AP", "AP"),
            ("AP@100", "AP@100"),
            ("RPrec", "Rprec"),
            ("Rprec", "Rprec"),
            ("Bpref", "Bpref"),
            ("Bpref(rel=2)", "Bpref(rel=2)"),
            ("Judged@10", "Judged@10"),
            ("Success@10", "Success@10"),
            ("RR(judged_only=True)@10", "RR(judged_only=True)@10"),
            ("RR(judged_only=False)@10", "RR@10"),
            (
                "P(rel=2, judged_only=True)@5",
                "P(judged_only=True,rel=2)@5",
            ),
            ("nDCG(judged_only=True)", "nDCG(judged_only=True)"),
            ("Rprec(judged_only=True)", "Rprec(judged_only=True)"),
        ] {
            assert_eq!(Measure::parse(given).unwrap().name(), printed, "{given}");
        }
    }

    #[test]
    fn names_of_built_in_metrics_map_to_them() {
        use crate::model::Metric;
        let b = |t: &str| Measure::parse(t).unwrap().builtin();
        assert_eq!(b("RR@3"), Some((Metric::Rr, Some(3))));
        assert_eq!(b("R@10"), Some((Metric::Recall, Some(10))));
        assert_eq!(b("Success@5"), Some((Metric::Hit, Some(5))));
        assert_eq!(b("P@5"), Some((Metric::Precision, Some(5))));
        assert_eq!(b("nDCG@20"), Some((Metric::Ndcg, Some(20))));
        assert_eq!(b("AP"), Some((Metric::Ap, None)));
        for other in [
            "AP@100",
            "RR",
            "nDCG",
            "P(rel=2)@10",
            "Bpref",
            "Rprec",
            "Judged@10",
            "RR(judged_only=True)@3",
        ] {
            assert_eq!(b(other), None, "{other}");
        }
    }

    /// Judged only: the unjudged docs go before the cut. U-1 N-1 U-2 R-1 condenses
    /// to N-1 R-1: RR@2 0.5 (0 on the whole list), P@2 0.5.
    #[test]
    fn judged_only_measures_read_the_condensed_list() {
        use crate::model::{Hit, Judgement};
        let judged = [("N-1", 0), ("R-1", 1)]
            .map(|(doc, grade)| Judgement {
                doc: doc.into(),
                grade,
            })
            .to_vec();
        let q = GoldQuery::new("Q".into(), judged, 1);
        let at = |doc: &str, rank: u32| Hit {
            rank,
            judged: q.find(doc.as_bytes()).unwrap() as u32,
        };
        let o = Observed {
            len: 4,
            hits: vec![at("N-1", 2), at("R-1", 4)].into(),
            ..Observed::default()
        };
        let v = |name: &str| Measure::parse(name).unwrap().value(&q, Some(&o), 1);
        assert_eq!(v("RR@2"), 0.0);
        assert_eq!(v("RR(judged_only=True)@2"), 0.5);
        assert_eq!(v("RR(judged_only=True)@1"), 0.0);
        assert_eq!(v("P(judged_only=True)@2"), 0.5);
        assert_eq!(v("Success(judged_only=True)@2"), 1.0);
        assert_eq!(v("Rprec(judged_only=True)"), 0.0);
        assert_eq!(
            Measure::parse("RR(judged_only=True)@2")
                .unwrap()
                .value(&q, None, 1),
            0.0
        );
    }

    #[test]
    fn refuses_what_ir_measures_would_not_take() {
        for (given, message) in [
            ("MRR@10", "unknown measure `MRR@10`"),
            ("ndcg@10", "unknown measure `ndcg@10`"),
            ("P", "`P` needs a cutoff: P@k"),
            (
                "P@0",
                "the cutoff must be a whole number from 1 to 4294967295",
            ),
            (
                "P@x",
                "the cutoff must be a whole number from 1 to 4294967295",
            ),
            ("Rprec@10", "takes no cutoff"),
            ("nDCG(rel=2)@10", "takes no (rel=N)"),
            (
                "P(gain=2)@10",
                "the parameters are rel=N (a whole number) and judged_only=True or False",
            ),
            ("P(rel=x)@10", "the parameters are rel=N"),
            (
                "P(rel=-1)@10",
                "`P(rel=-1)@10`: rel=-1 is below 0; rel is the lowest grade that counts as relevant, a whole number >= 0 (rel=0 counts every doc judged 0 or above)",
            ),
            ("RR(judged_only=true)@10", "the parameters are rel=N"),
            (
                "RR(judged_only=True,judged_only=True)@10",
                "judged_only is given twice",
            ),
            ("Bpref(judged_only=True)", "takes no (judged_only=True)"),
            ("Judged(judged_only=True)@10", "takes no (judged_only=True)"),
            ("P(rel=2@10", "a parameter list ends with `)`"),
        ] {
            let e = Measure::parse(given).unwrap_err();
            assert!(e.contains(message), "{given}: {e}");
        }
        let (ok, problems) = parse_all(["AP", "Bogus", "AP", "RR@3"]);
        assert_eq!(
            ok.iter().map(Measure::name).collect::<Vec<_>>(),
            ["AP", "RR@3"]
        );
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].contains("known measures: RR@k"),
            "{}",
            problems[0]
        );
    }
}
