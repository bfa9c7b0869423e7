//! Entry points for the fuzz targets in `fuzz/` and their regression tests: parse
//! arbitrary bytes as one kind of input, collecting problems. Must never panic.

use std::path::{Path, PathBuf};

use crate::load::{gold, manifest, run};
use crate::model::{DataFormat, GoldMeta, GoldQuery, GoldSet, Judgement, RunMeta};
use crate::validate::Diagnostics;

/// The kinds of input a fuzz target feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    GoldCsv,
    Qrels,
    RunCsv,
    TrecRun,
    GoldManifest,
    RunManifest,
}

impl Input {
    pub const ALL: [Input; 6] = [
        Input::GoldCsv,
        Input::Qrels,
        Input::RunCsv,
        Input::TrecRun,
        Input::GoldManifest,
        Input::RunManifest,
    ];

    /// The fuzz target's name (and its folder under `fuzz/`).
    pub fn name(self) -> &'static str {
        match self {
            Input::GoldCsv => "gold_csv",
            Input::Qrels => "qrels",
            Input::RunCsv => "run_csv",
            Input::TrecRun => "trec_run",
            Input::GoldManifest => "gold_manifest",
            Input::RunManifest => "run_manifest",
        }
    }
}

fn gold_meta(format: DataFormat) -> GoldMeta {
    GoldMeta::bare(&PathBuf::from("fuzz"), format)
}

/// A small gold set the run targets are read against.
pub fn small_gold() -> GoldSet {
    let q = |id: &str, docs: &[(&str, i64)]| {
        GoldQuery::new(
            id.into(),
            docs.iter()
                .map(|(d, g)| Judgement {
                    doc: (*d).into(),
                    grade: *g,
                })
                .collect(),
            1,
        )
    };
    GoldSet::new(
        gold_meta(DataFormat::Csv),
        vec![
            q("1", &[("a", 1), ("b", 2)]),
            q("2", &[("c", 1)]),
            q("3", &[]),
            q("Q-1", &[("D-1", 1), ("D-2", 0)]),
        ],
    )
}

/// Parse `bytes` as `input`; returns the diagnostics.
pub fn parse(input: Input, bytes: &[u8]) -> Diagnostics {
    let mut diag = Diagnostics::default();
    match input {
        Input::GoldCsv | Input::Qrels => {
            let format = if input == Input::GoldCsv {
                DataFormat::Csv
            } else {
                DataFormat::Trec
            };
            let _ = gold::parse(gold_meta(format), bytes, &[], &mut diag);
        }
        Input::RunCsv | Input::TrecRun => {
            let gold = small_gold();
            let format = if input == Input::RunCsv {
                DataFormat::Csv
            } else {
                DataFormat::Trec
            };
            for declared in [true, false] {
                let meta = RunMeta {
                    depth: 5,
                    depth_declared: declared,
                    ..RunMeta::bare(&PathBuf::from("fuzz"), format)
                };
                let run::ReadOutcome { run, diag: d, .. } =
                    run::RunReader::new(&gold).read(run::Source::bytes(meta, bytes));
                if let Some(run) = run {
                    for (q, obs) in gold.queries.iter().zip(&run.observed) {
                        let _ = crate::metrics::evaluate(q, obs.as_ref(), 3, 1);
                    }
                }
                diag.problems.extend(d.problems);
                diag.warnings.extend(d.warnings);
            }
        }
        Input::GoldManifest | Input::RunManifest => {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return diag;
            };
            let path = Path::new("fuzz-dir-that-does-not-exist/manifest.toml");
            if let Some(doc) = manifest::parse(path, text.to_string(), &mut diag) {
                if input == Input::GoldManifest {
                    let _ = manifest::gold(&doc, &mut diag);
                } else {
                    let _ = manifest::run(&doc, &mut diag);
                }
            }
        }
    }
    // Rendering every message is part of what must not panic.
    for p in &diag.problems {
        let _ = p.to_string();
    }
    diag
}
