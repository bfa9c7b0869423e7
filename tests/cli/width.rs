//! Terminal tables that fit (docs/contract.md §9.9), read off a real terminal: the
//! report runs in a tmux pane of 80, 100 and 120 columns and `capture-pane -p -J`
//! (wrapped lines joined back) must show no line wider than the pane.

use std::path::Path;
use std::process::Command;

use crate::common::{crate_dir, fixture};

/// Whether a missing tool fails the test (CI) rather than skipping it.
fn in_ci() -> bool {
    ["CI", "RAGDIFF_CI"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty() && x != "false"))
}

pub(crate) fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !in_ci(),
            "tmux is missing: .ci/run installs it with apt-get"
        );
        eprintln!("skipped: tmux is not installed (apt-get install tmux)");
    }
    ok
}

/// A tmux server of its own (its own socket), killed on drop.
pub(crate) struct Pane {
    socket: String,
}

impl Pane {
    /// `script` run by sh in a detached pane `width` columns wide, from `dir`.
    pub(crate) fn run(width: usize, dir: &Path, script: &str) -> Pane {
        let socket = format!(
            "ragdiff-width-{}-{width}-{}",
            std::process::id(),
            script.len()
        );
        let pane = Pane { socket };
        let full = format!(
            "cd '{}' && {script}; echo \"__exit $?\"; sleep 600",
            dir.display()
        );
        let ok = pane
            .tmux()
            .args(["new-session", "-d", "-x", &width.to_string(), "-y", "60"])
            .args(["sh", "-c", &full])
            .status()
            .expect("tmux runs");
        assert!(ok.success(), "tmux new-session");
        pane
    }

    pub(crate) fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"])
            .env("TERM", "xterm-256color")
            .env_remove("COLUMNS")
            .env_remove("NO_COLOR")
            .env("SOURCE_DATE_EPOCH", "1796083200");
        c
    }

    /// The whole pane, history included, wrapped lines joined, once the script ended.
    fn screen(&self) -> String {
        for _ in 0..6000 {
            let out = self
                .tmux()
                .args(["capture-pane", "-p", "-J", "-S", "-", "-E", "-"])
                .output()
                .expect("capture-pane");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            if text.lines().any(|l| l.starts_with("__exit ")) {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the command in the pane did not finish");
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
    }
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ragdiff")
}

/// Every line at most `width` columns; the report's landmarks present.
#[track_caller]
fn fits(screen: &str, width: usize, landmarks: &[&str]) {
    for line in screen.lines() {
        let w = line.trim_end().chars().count();
        assert!(
            w <= width,
            "a line of {w} columns at {width}:\n{line}\n\n{screen}"
        );
    }
    for l in landmarks {
        assert!(screen.contains(l), "{l:?} missing at {width}:\n{screen}");
    }
}

#[test]
fn the_demo_fits_80_100_and_120_columns_in_a_terminal() {
    if !have_tmux() {
        return;
    }
    for width in [80, 100, 120] {
        let pane = Pane::run(width, crate_dir(), &format!("'{}' compare", bin()));
        let screen = pane.screen();
        fits(
            &screen,
            width,
            &[
                "FAIL",
                "__exit 1",
                "newly_failed",
                "Q-21",
                "metric (8 queries)",
                "warning:",
            ],
        );
        // Wrapped at word boundaries: the words of the verdict come back whole.
        let words: Vec<&str> = screen.split_whitespace().collect();
        for w in [
            "unjudged",
            "intent:billing",
            "newly_failed",
            "U-1,",
            "0.7506",
        ] {
            assert!(words.contains(&w), "{w} whole at {width}:\n{screen}");
        }
    }
}

/// Under tmux the tables are fitted to the pane's width without COLUMNS, and
/// `eval --cutoffs` (a table of 60 columns) leaves columns out from the right.
#[test]
fn eval_with_cutoffs_fits_80_columns_in_a_terminal() {
    if !have_tmux() {
        return;
    }
    let script = format!("'{}' eval runs/candidate.toml --cutoffs 1,3,5", bin());
    let screen = Pane::run(80, crate_dir(), &script).screen();
    fits(
        &screen,
        80,
        &["__exit 0", "(left out to fit 80 columns: ", "Q-21"],
    );
}

#[test]
#[ignore = "needs RAGDIFF_REFERENCE_DIR (the Vaswani qrels): run by .ci/run"]
fn a_93_query_comparison_fits_80_100_and_120_columns_in_a_terminal() {
    let dir = std::env::var_os("RAGDIFF_REFERENCE_DIR").expect("RAGDIFF_REFERENCE_DIR");
    let qrels = Path::new(&dir).join("vaswani/qrels");
    assert!(have_tmux() || !in_ci());
    if !have_tmux() {
        return;
    }
    for width in [80, 100, 120] {
        let script = format!(
            "'{}' compare --gold '{}' --k 10 bm25.toml bm25-stem.toml",
            bin(),
            qrels.display()
        );
        let screen = Pane::run(width, &fixture("verdict/real"), &script).screen();
        fits(
            &screen,
            width,
            &[
                "FAIL",
                "__exit 1",
                "metric (93 queries)",
                "unchanged: 13 queries",
            ],
        );
    }
}

/// A terminal that reports 0 columns (a pty nobody sized, as `script` makes with
/// stdin not a terminal, the way CI wrappers run it) has no width: the report is
/// whole, not every line cut to `…` (§9.9).
#[test]
fn a_terminal_of_zero_columns_narrows_nothing() {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        assert!(!in_ci(), "script is missing: Debian's bsdutils has it");
        eprintln!("skipped: script (util-linux) is not installed");
        return;
    }
    let out = Command::new("script")
        .args(["-qec", &format!("'{}' compare", bin()), "/dev/null"])
        .current_dir(crate_dir())
        .stdin(std::process::Stdio::null())
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .expect("script runs");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{screen}");
    for landmark in ["1 query newly failed", "Q-21", "policy  "] {
        assert!(screen.contains(landmark), "{landmark:?} missing:\n{screen}");
    }
    assert!(
        !screen.lines().any(|l| l.trim() == "…"),
        "lines cut to nothing:\n{screen}"
    );
}

/// `COLUMNS` of 1 or 2 leaves a stacked block's labels no room: the report is still
/// written with the gate's exit code, never a panic (exit 101).
#[test]
fn a_width_of_one_or_two_columns_is_no_crash() {
    for columns in ["1", "2"] {
        let out = Command::new(bin())
            .arg("compare")
            .current_dir(crate_dir())
            .env("COLUMNS", columns)
            .env("NO_COLOR", "1")
            .output()
            .expect("ragdiff runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "COLUMNS={columns}:\n{err}");
        assert!(!err.contains("panicked"), "COLUMNS={columns}:\n{err}");
    }
}
