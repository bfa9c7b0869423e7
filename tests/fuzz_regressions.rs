//! Every fuzz seed and every crash reproducer in `fuzz/` goes through the same entry
//! point the fuzz targets use: none may panic. Reproducers are kept in
//! `fuzz/regressions/<target>/` once the bug is fixed.

use std::path::Path;

use ragdiff::fuzz::{Input, parse};

#[test]
fn fuzz_seeds_and_reproducers_parse_without_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = 0;
    for input in Input::ALL {
        for folder in ["corpus", "regressions"] {
            let dir = root.join(folder).join(input.name());
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                // A fuzzer running beside the tests may replace corpus files.
                let Ok(bytes) = std::fs::read(entry.path()) else {
                    continue;
                };
                let _ = parse(input, &bytes);
                files += 1;
            }
        }
    }
    assert!(
        files >= 6,
        "expected at least one seed per target, found {files}"
    );
}

#[test]
fn every_target_rejects_garbage_with_a_problem_not_a_panic() {
    let garbage: &[u8] = b"\xff\xfe\x00 \"unterminated\n,,;;\r\n\x01";
    for input in Input::ALL {
        let diag = parse(input, garbage);
        if input != Input::GoldManifest && input != Input::RunManifest {
            assert!(
                !diag.problems.is_empty(),
                "{} accepted garbage without a problem",
                input.name()
            );
        }
    }
}
