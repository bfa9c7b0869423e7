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

/// The arguments the gate step gives a fake `ragdiff` (no gold, no allow-list) for
/// the action input `args`, one a line; the step must succeed.
#[track_caller]
fn gate_step_argv(args: &str) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let argv = dir.path().join("argv.txt");
    let out = gate_step(dir.path(), &root.join("tests/fixtures/action/fake-ragdiff"))
        .env("RAGDIFF_GOLD", "")
        .env("RAGDIFF_ALLOW_FAILED_FILE", "")
        .env("RAGDIFF_ARGS", args)
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "the step failed: {out:?}");
    std::fs::read_to_string(&argv).expect("the fake ragdiff ran")
}

#[test]
fn the_gate_step_passes_every_line_of_a_multi_line_args() {
    let args =
        gate_step_argv("--max-drop mrr=0.02\n--strict-flaky\n\t--fail-on-significant-drop  \n");
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
    let args = gate_step_argv("");
    assert_eq!(args.lines().nth(2), Some("--export-markdown"), "{args}");
}

/// A fake `curl` serving `-o FILE URL` from `$FAKE_RELEASES` (the URL's last part),
/// failing as `curl -f` does when there is no such file; a fake `cargo` that records
/// its arguments and installs a stand-in `ragdiff` under `--root`.
fn fakes(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).expect("fake bin");
    let curl = "#!/usr/bin/env bash\nout=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift 2 ;; -*) shift ;; *) url=\"$1\"; shift ;; esac; done\n\
                f=\"$FAKE_RELEASES/${url##*/}\"; [ -f \"$f\" ] || exit 22; cp \"$f\" \"$out\"\n";
    let cargo = "#!/usr/bin/env bash\necho \"$@\" > \"$FAKE_CARGO_ARGS\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n\
                 mkdir -p \"$root/bin\"; printf '#!/bin/sh\\necho ragdiff built\\n' > \"$root/bin/ragdiff\"; chmod 755 \"$root/bin/ragdiff\"\n";
    for (name, text) in [("curl", curl), ("cargo", cargo)] {
        let path = bin.join(name);
        std::fs::write(&path, text).expect("fake");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("mode");
    }
    bin
}

/// The action's install step for `version` on a Linux x86_64 runner, the release
/// assets served from `releases`.
fn install_step(dir: &Path, releases: &Path, version: &str) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let action = std::fs::read_to_string(root.join("action.yml")).expect("action.yml");
    let script = step_script(&action, "install");
    let path = format!(
        "{}:{}",
        fakes(dir).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["-e", "-c", &script])
        .current_dir(dir)
        .env("PATH", path)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RAGDIFF_VERSION", version)
        .env("RAGDIFF_ROOT", dir.join("root"))
        .env("RAGDIFF_REPOSITORY", "example/ragdiff")
        .env("GITHUB_ACTION_PATH", root)
        .env("FAKE_RELEASES", releases)
        .env("FAKE_CARGO_ARGS", dir.join("cargo-args.txt"))
        .env("FAKE_ARGV", dir.join("argv.txt"))
        .output()
        .expect("bash runs")
}

/// A release asset as the release workflow makes it, of a stand-in binary.
fn release_of(dir: &Path) -> (std::path::PathBuf, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let releases = dir.join("releases");
    let out = Command::new("bash")
        .arg(root.join("scripts/package-binary.sh"))
        .arg(root.join("tests/fixtures/action/fake-ragdiff"))
        .arg("x86_64-unknown-linux-musl")
        .arg(&releases)
        .output()
        .expect("the packaging script runs");
    assert!(out.status.success(), "packaging failed: {out:?}");
    (releases, env!("CARGO_PKG_VERSION").to_string())
}

#[test]
fn the_action_installs_the_released_binary_after_checking_its_sha256() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (releases, version) = release_of(dir.path());
    let out = install_step(dir.path(), &releases, &version);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the step failed: {out:?}");
    assert!(
        stdout.contains(&format!("installed the released ragdiff {version} binary")),
        "{stdout}"
    );
    let installed = std::fs::read(dir.path().join("root/bin/ragdiff")).expect("installed");
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/action/fake-ragdiff");
    assert_eq!(installed, std::fs::read(fake).expect("fake"));
    assert!(
        !dir.path().join("cargo-args.txt").exists(),
        "nothing was built"
    );
}

#[test]
fn the_action_builds_from_source_when_the_asset_is_missing_or_its_sha256_differs() {
    for tamper in [false, true] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let (releases, version) = release_of(dir.path());
        let archive = releases.join(format!(
            "ragdiff-v{version}-x86_64-unknown-linux-musl.tar.gz"
        ));
        if tamper {
            let mut bytes = std::fs::read(&archive).expect("archive");
            bytes.push(0);
            std::fs::write(&archive, bytes).expect("tampered");
        } else {
            std::fs::remove_file(&archive).expect("removed");
        }
        let out = install_step(dir.path(), &releases, &version);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "the step failed: {out:?}");
        assert!(stdout.contains("building it from source"), "{stdout}");
        assert!(stdout.contains("ragdiff built"), "{stdout}");
        let args = std::fs::read_to_string(dir.path().join("cargo-args.txt")).expect("cargo ran");
        assert!(
            args.contains(&format!("ragdiff-gate --version ={version}")),
            "{args}"
        );
    }
}

/// Empty `baseline` and `candidate` inputs (their defaults) pass no run at all, so
/// ragdiff.toml's `baseline` and `candidate` apply (docs/contract.md §8.6); one without
/// the other stops the step (exit 2) before ragdiff runs.
#[test]
fn empty_run_inputs_leave_the_runs_to_the_policy_file() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = root.join("tests/fixtures/action/fake-ragdiff");
    let argv = dir.path().join("argv.txt");
    let out = gate_step(dir.path(), &fake)
        .env("RAGDIFF_BASELINE", "")
        .env("RAGDIFF_CANDIDATE", "")
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "the step failed: {out:?}");
    let args = std::fs::read_to_string(&argv).expect("the fake ragdiff ran");
    let args: Vec<&str> = args.lines().collect();
    assert!(!args.contains(&"--"), "{args:?}");
    assert!(
        args.last().is_some_and(|a| a.ends_with("label-queue.csv")),
        "the last argument is the label queue's path, no run: {args:?}"
    );

    std::fs::remove_file(&argv).expect("removed");
    let one = gate_step(dir.path(), &fake)
        .env("RAGDIFF_CANDIDATE", "")
        .env("FAKE_ARGV", &argv)
        .output()
        .expect("bash runs");
    assert_eq!(one.status.code(), Some(2), "{one:?}");
    assert!(
        String::from_utf8_lossy(&one.stdout).contains(
            "::error title=ragdiff::set both the baseline and the candidate input, or neither"
        ),
        "{one:?}"
    );
    assert!(!argv.exists(), "ragdiff ran with one run input");
}
