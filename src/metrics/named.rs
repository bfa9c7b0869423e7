//! Measures by name (docs/contract.md §5.4): ir_measures' names (`RR@10`, `R@100`,
//! `P(rel=2)@10`, `nDCG@20`, `AP`, `AP@100`, `Rprec`, `Bpref`, `Judged@10`,
//! `Success@10`), parsed once and scored per query, each equal to the trec_eval
//! measure ir_measures maps it to.

use std::fmt;

use super::bpref::{Judged, bpref};
use super::judged::judged_at_k;
use super::rprec::r_precision;
use crate::model::{GoldQuery, Observed};

/// What a named measure computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Rr,
    Recall,
    Precision,
    Ndcg,
    Ap,
    Rprec,
    Bpref,
    Judged,
    Success,
}

/// One kind's name, what it takes, and how the contract reads it.
struct Spec {
    kind: Kind,
    /// The names it is given by (the first is printed).
    names: &'static [&'static str],
    cutoff: Cutoff,
    /// Takes `(rel=N)`: relevant when the grade is at least N (trec_eval `-l N`).
    rel: bool,
    /// Takes `(judged_only=True)`: unjudged docs removed before the cut (trec_eval
    /// `-J`), as ir_measures' pytrec_eval provider takes it.
    judged_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cutoff {
    Required,
    /// Without one: the whole returned list.
    Optional,
    Refused,
}

const SPECS: [Spec; 9] = [
    Spec {
        kind: Kind::Rr,
        names: &["RR"],
        cutoff: Cutoff::Optional,
        rel: true,
        judged_only: true,
    },
    Spec {
        kind: Kind::Recall,
        names: &["R"],
        cutoff: Cutoff::Optional,
        rel: true,
        judged_only: true,
    },
    Spec {
        kind: Kind::Precision,
        names: &["P"],
        cutoff: Cutoff::Required,
        rel: true,
        judged_only: true,
    },
    Spec {
        kind: Kind::Ndcg,
        names: &["nDCG"],
        cutoff: Cutoff::Optional,
        rel: false,
        judged_only: true,
    },
    Spec {
        kind: Kind::Ap,
        names: &["AP"],
        cutoff: Cutoff::Optional,
        rel: true,
        judged_only: true,
    },
    Spec {
        kind: Kind::Rprec,
        names: &["Rprec", "RPrec"],
        cutoff: Cutoff::Refused,
        rel: true,
        judged_only: true,
    },
    Spec {
        kind: Kind::Bpref,
        names: &["Bpref"],
        cutoff: Cutoff::Refused,
        rel: true,
        judged_only: false,
    },
    Spec {
        kind: Kind::Judged,
        names: &["Judged"],
        cutoff: Cutoff::Required,
        rel: false,
        judged_only: false,
    },
    Spec {
        kind: Kind::Success,
        names: &["Success"],
        cutoff: Cutoff::Required,
        rel: true,
        judged_only: true,
    },
];

/// The known names, as an unknown name's message lists them.
pub const KNOWN: &str = "RR@k, R@k, P@k, nDCG@k, AP, AP@k, Rprec (or RPrec), Bpref, Judged@k, Success@k; RR, R, nDCG and AP also without @k (the whole list); (rel=N) after RR, R, P, AP, Rprec, Bpref or Success; (judged_only=True) after RR, R, P, nDCG, AP, Rprec or Success";

/// A parsed measure: `Kind(judged_only=True,rel=N)@cutoff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Measure {
    pub kind: Kind,
    pub rel: Option<i64>,
    pub cutoff: Option<u32>,
    /// On the condensed list: unjudged docs removed, then the cut (docs/contract.md
    /// §5.3's judged-only values).
    pub judged_only: bool,
}

impl Measure {
    /// Parse an ir_measures name; the error names what is wrong (the caller adds the
    /// known names).
    pub fn parse(text: &str) -> Result<Measure, String> {
        let text = text.trim();
        let (head, cutoff) = match text.rsplit_once('@') {
            Some((head, c)) => {
                let c: u32 = c.parse().ok().filter(|&c| c >= 1).ok_or_else(|| {
                    format!("`{}`: the cutoff must be a whole number >= 1", safe(text))
                })?;
                (head, Some(c))
            }
            None => (text, None),
        };
        let (name, params) = match head.split_once('(') {
            Some((name, params)) => {
                let params = params
                    .strip_suffix(')')
                    .ok_or_else(|| format!("`{}`: a parameter list ends with `)`", safe(text)))?;
                (
                    name,
                    Params::parse(params).map_err(|e| format!("`{}`: {e}", safe(text)))?,
                )
            }
            None => (head, Params::default()),
        };
        let Params { rel, judged_only } = params;
        let spec = SPECS
            .iter()
            .find(|s| s.names.contains(&name))
            .ok_or_else(|| format!("unknown measure `{}`", safe(text)))?;
        match (spec.cutoff, cutoff) {
            (Cutoff::Required, None) => {
                return Err(format!(
                    "`{}` needs a cutoff: {}@k",
                    safe(text),
                    spec.names[0]
                ));
            }
            (Cutoff::Refused, Some(_)) => {
                return Err(format!(
                    "`{}` takes no cutoff (it reads the whole list)",
                    safe(text)
                ));
            }
            _ => {}
        }
        if rel.is_some() && !spec.rel {
            return Err(format!("`{}` takes no (rel=N)", safe(text)));
        }
        if judged_only && !spec.judged_only {
            return Err(format!(
                "`{}` takes no (judged_only=True) (ir_measures has none)",
                safe(text)
            ));
        }
        Ok(Measure {
            kind: spec.kind,
            rel,
            cutoff,
            judged_only,
        })
    }

    /// The built-in metric this name denotes and its cutoff (`None`: AP, the whole
    /// list): `RR@c`, `R@c`, `Success@c`, `P@c`, `nDCG@c` and `AP`, without `(rel=N)`.
    /// A gate rule takes these at the gold's k (docs/contract.md §5.4).
    pub fn builtin(&self) -> Option<(crate::model::Metric, Option<u32>)> {
        use crate::model::Metric;
        if self.rel.is_some() || self.judged_only {
            return None;
        }
        let metric = match (self.kind, self.cutoff) {
            (Kind::Ap, None) => return Some((Metric::Ap, None)),
            (_, None) => return None,
            (Kind::Rr, _) => Metric::Rr,
            (Kind::Recall, _) => Metric::Recall,
            (Kind::Success, _) => Metric::Hit,
            (Kind::Precision, _) => Metric::Precision,
            (Kind::Ndcg, _) => Metric::Ndcg,
            _ => return None,
        };
        Some((metric, self.cutoff))
    }

    /// The printed name (ir_measures' own: `P(rel=2)@10`, `Rprec`).
    pub fn name(&self) -> String {
        self.to_string()
    }

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

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = SPECS
            .iter()
            .find(|s| s.kind == self.kind)
            .expect("every kind has a spec");
        f.write_str(spec.names[0])?;
        match (self.judged_only, self.rel) {
            (true, Some(rel)) => write!(f, "(judged_only=True,rel={rel})")?,
            (true, None) => f.write_str("(judged_only=True)")?,
            (false, Some(rel)) => write!(f, "(rel={rel})")?,
            (false, None) => {}
        }
        if let Some(c) = self.cutoff {
            write!(f, "@{c}")?;
        }
        Ok(())
    }
}

/// A parameter list: `rel=N` and `judged_only=True|False`, comma-separated, each
/// at most once (ir_measures' spelling; `judged_only=False` is the default).
#[derive(Debug, Default)]
struct Params {
    rel: Option<i64>,
    judged_only: bool,
}

impl Params {
    fn parse(list: &str) -> Result<Self, String> {
        const ONLY: &str =
            "the parameters are rel=N (a whole number) and judged_only=True or False";
        let mut out = Params::default();
        let mut seen_judged = false;
        for param in list.split(',') {
            let (key, value) = param.split_once('=').ok_or(ONLY)?;
            let value = value.trim();
            match key.trim() {
                "rel" if out.rel.is_none() => {
                    out.rel = Some(value.parse().map_err(|_| ONLY)?);
                }
                "judged_only" if !seen_judged => {
                    seen_judged = true;
                    out.judged_only = match value {
                        "True" => true,
                        "False" => false,
                        _ => return Err(ONLY.into()),
                    };
                }
                "rel" | "judged_only" => return Err(format!("{} is given twice", key.trim())),
                _ => return Err(ONLY.into()),
            }
        }
        Ok(out)
    }
}

/// A name as a message shows it: escaped, at most 80 columns (a name from a flag or
/// a policy key may be megabytes long).
fn safe(text: &str) -> String {
    crate::text::cut_to(&crate::text::safe_id(text), 80)
}

/// Parse every name, each once in the order first given; the problems (each with
/// the known names) for the others.
pub fn parse_all<'a>(names: impl IntoIterator<Item = &'a str>) -> (Vec<Measure>, Vec<String>) {
    let mut measures = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        match Measure::parse(name) {
            Ok(m) if measures.contains(&m) => {}
            Ok(m) => measures.push(m),
            Err(e) => problems.push(format!("{e}; known measures: {KNOWN}")),
        }
    }
    (measures, problems)
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
            ("P@0", "the cutoff must be a whole number >= 1"),
            ("P@x", "the cutoff must be a whole number >= 1"),
            ("Rprec@10", "takes no cutoff"),
            ("nDCG(rel=2)@10", "takes no (rel=N)"),
            (
                "P(gain=2)@10",
                "the parameters are rel=N (a whole number) and judged_only=True or False",
            ),
            ("P(rel=x)@10", "the parameters are rel=N"),
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
