//! Measures by name (docs/contract.md §5.4): ir_measures' names (`RR@10`, `R@100`,
//! `P(rel=2)@10`, `nDCG@20`, `AP`, `AP@100`, `Rprec`, `Bpref`, `Judged@10`,
//! `Success@10`) parsed and printed back. Their values per query are
//! `metrics::named`'s; the name lives here so that the command line and the policy
//! file parse it where they are read.

use std::fmt;

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
                    format!(
                        "`{}`: the cutoff must be a whole number from 1 to {}",
                        safe(text),
                        u32::MAX
                    )
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
                    let rel: i64 = value.parse().map_err(|_| ONLY)?;
                    // trec_eval grades a doc outside the qrels -1 (-2 in the pool
                    // but unjudged): `-l -1` would count those as relevant
                    if rel < 0 {
                        return Err(format!(
                            "rel={rel} is below 0; rel is the lowest grade that counts as relevant, a whole number >= 0 (rel=0 counts every doc judged 0 or above)"
                        ));
                    }
                    out.rel = Some(rel);
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
