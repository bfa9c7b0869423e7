//! Every catchable fatal signal (src/interrupt.rs `FATAL`) removes the temporary
//! export files and exits 128 + the signal's number (src/exit.rs `signalled`).
//! These tests pause `compare` with the test hook, compiled only under the cargo
//! feature `test-hooks`.

use rstest::rstest;

use crate::outputs::{interrupt_at, interrupt_folder, temporaries};

#[rstest]
#[case::sighup("-HUP", 129)]
#[case::sigquit("-QUIT", 131)]
#[case::sigusr1("-USR1", 138)]
#[case::sigusr2("-USR2", 140)]
#[case::sigpipe("-PIPE", 141)]
#[case::sigalrm("-ALRM", 142)]
#[case::sigxcpu("-XCPU", 152)]
#[case::sigxfsz("-XFSZ", 153)]
#[case::sigvtalrm("-VTALRM", 154)]
#[case::sigprof("-PROF", 155)]
#[cfg_attr(
    not(feature = "test-hooks"),
    ignore = "needs --features test-hooks: run by .ci/run"
)]
fn a_fatal_signal_leaves_no_temporary_file_and_exits_128_plus_its_number(
    #[case] signal: &str,
    #[case] expected: i32,
) {
    let dir = interrupt_folder();
    let (code, err) = interrupt_at(dir.path(), "tmp-created", signal);
    assert_eq!(code, Some(expected), "stderr:\n{err}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// Without the feature the hook is not compiled: the variable changes nothing and the
/// run never pauses. (Under the feature the hook is compiled in, so the test is not.)
#[test]
#[cfg(not(feature = "test-hooks"))]
fn without_the_feature_the_pause_hook_does_nothing() {
    let dir = interrupt_folder();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ragdiff"))
        .current_dir(dir.path())
        .args([
            "compare",
            "--gold",
            "gold.toml",
            "base.toml",
            "cand.toml",
            "--no-gate",
        ])
        .env("RAGDIFF_TEST_PAUSE_AT", "tmp-created")
        .args(["--export-json", "out/x.json"])
        .output()
        .expect("ragdiff runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("paused at"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}
