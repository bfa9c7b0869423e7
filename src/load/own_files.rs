//! A run's results are never one of the gate's own files (docs/contract.md §12.1,
//! "Tamper-evident"): a repeat that is the gold data, the tags file, a doc map, the
//! allow-list or the policy file (the same file through any link, or the same bytes)
//! would let a candidate's results be whatever the gold says.

use std::path::Path;

use crate::model::RunMeta;
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Record a problem for every results file (each repeat of each run) that is one of
/// `own`: (what it is, its path). Files are compared as `same_results` does: one
/// canonical path or inode, or equal bytes (files of different sizes are not read).
pub fn check(runs: &[&RunMeta], own: &[(&'static str, &Path)], diag: &mut Diagnostics) {
    for meta in runs {
        for results in meta.results_paths() {
            for (what, path) in own {
                if crate::load::same_results(results, path) {
                    diag.problem(
                        Location::file(results.display().to_string()),
                        ProblemKind::ResultsAreInput {
                            what,
                            input: path.display().to_string(),
                        },
                    );
                }
            }
        }
    }
}
