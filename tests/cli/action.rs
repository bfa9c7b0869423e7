//! action.yml's own step scripts: the gate's step cut out of the action the way
//! `.ci/run` cuts them for shellcheck, run with bash and a fake `ragdiff` that records
//! the arguments it was given.

use std::path::Path;
use std::process::Command;

/// The `run: |` block of the step whose `id:` is `id`, dedented.
pub fn step_script(action: &str, id: &str) -> String {
    let lines: Vec<&str> = action.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == format!("id: {id}"))
        .unwrap_or_else(|| panic!("no step with id {id} in action.yml"));
    let run = (start..lines.len())
        .find(|&i| lines[i].trim() == "run: |")
        .expect("the step has a run: | block");
    let indent = lines[run].len() - lines[run].trim_start().len();
    let block: Vec<&str> = lines[run + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
        .copied()
        .collect();
    let cut = block
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .expect("a non-empty block");
    block
        .iter()
        .map(|l| l.get(cut..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The action's gate step, ready to run in `dir` with `fake` installed as the
/// `ragdiff` it calls, and the environment every step of the action sees; the caller
/// adds its own variables and runs it.
pub fn gate_step(dir: &Path, fake: &Path) -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let action = std::fs::read_to_string(root.join("action.yml")).expect("action.yml");
    let script = step_script(&action, "gate");
    let bin = dir.join("root").join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(fake, bin.join("ragdiff")).expect("fake ragdiff");
    let mut cmd = Command::new("bash");
    cmd.args(["-e", "-c", &script])
        .current_dir(dir)
        .env("RAGDIFF_ROOT", dir.join("root"))
        .env("RUNNER_TEMP", dir)
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("GITHUB_OUTPUT", dir.join("output.txt"))
        .env("RAGDIFF_BASELINE", "runs/baseline.toml")
        .env("RAGDIFF_CANDIDATE", "runs/candidate.toml");
    cmd
}

#[test]
fn the_gate_step_passes_every_line_of_a_multi_line_args() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let argv = dir.path().join("argv.txt");
    let out = gate_step(dir.path(), &root.join("tests/fixtures/action/fake-ragdiff"))
        .env("RAGDIFF_GOLD", "")
        .env("RAGDIFF_ALLOW_FAILED_FILE", "")
        .env(
            "RAGDIFF_ARGS",
            "--max-drop mrr=0.02\n--strict-flaky\n\t--fail-on-significant-drop  \n",
        )
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "the step failed: {out:?}");
    let args = std::fs::read_to_string(&argv).expect("the fake ragdiff ran");
    let args: Vec<&str> = args.lines().collect();
    let extra = &args[..args.iter().position(|a| *a == "--export-markdown").unwrap()];
    assert_eq!(
        extra,
        [
            "compare",
            "--require-frozen",
            "--max-drop",
            "mrr=0.02",
            "--strict-flaky",
            "--fail-on-significant-drop"
        ]
    );
    assert_eq!(
        args[args.len() - 3..],
        ["--", "runs/baseline.toml", "runs/candidate.toml"]
    );
}

#[test]
fn the_gate_step_passes_no_extra_argument_for_an_empty_args() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let argv = dir.path().join("argv.txt");
    let out = gate_step(dir.path(), &root.join("tests/fixtures/action/fake-ragdiff"))
        .env("RAGDIFF_GOLD", "")
        .env("RAGDIFF_ALLOW_FAILED_FILE", "")
        .env("RAGDIFF_ARGS", "")
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "the step failed: {out:?}");
    let args = std::fs::read_to_string(&argv).expect("the fake ragdiff ran");
    assert_eq!(args.lines().nth(2), Some("--export-markdown"), "{args}");
}
