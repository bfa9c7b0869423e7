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

// ---------------------------------------------------------------------------------
// The comment workflow: the gate's report as one pull-request comment

const COMMENT_WORKFLOW: &str = ".github/workflows/rag-retrieval-comment.yml";
const HEAD_SHA: &str = "1f0c2a9b3d4e5f60718293a4b5c6d7e8f9012345";
const MARKER: &str = "<!-- ragdiff-report -->";

/// The comment workflow init writes into a fresh repository.
fn comment_workflow() -> String {
    let dir = empty_repository();
    assert_code(
        &run(dir.path(), &["init", "--repository", "example/ragdiff"]),
        0,
    );
    std::fs::read_to_string(dir.path().join(COMMENT_WORKFLOW)).expect("the comment workflow")
}

/// The Python of the workflow's comment step, as the runner's shell hands it to
/// `python3 -` (the heredoc's lines, their common indent removed).
fn comment_script(workflow: &str) -> String {
    let lines: Vec<&str> = workflow.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == "python3 - <<'PYTHON'")
        .expect("the comment step's heredoc");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.trim() == "PYTHON")
            .expect("the heredoc's end");
    let indent = lines[start].len() - lines[start].trim_start().len();
    lines[start + 1..end]
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

/// What one run of the comment step did against the recorded exchange `name`:
/// its exit status and output, and every request the fake API received.
struct CommentRun {
    status: std::process::ExitStatus,
    stdout: String,
    requests: Vec<serde_json::Value>,
}

fn run_comment_step(name: &str, report: Option<&str>) -> CommentRun {
    let work = tempfile::tempdir().expect("a temporary folder");
    let script = work.path().join("step.py");
    std::fs::write(&script, comment_script(&comment_workflow())).expect("written");
    let report_path = work.path().join("report.md");
    if let Some(text) = report {
        std::fs::write(&report_path, text).expect("written");
    }
    let log = work.path().join("requests.jsonl");
    let exchange = crate::common::fixture(&format!("init_workflow/exchange-{name}.json"));
    let server_script = crate::common::fixture("init_workflow/fake_github.py");
    let mut server = match Process::new("python3")
        .arg(&server_script)
        .arg(&exchange)
        .arg(&log)
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => panic!("python3: {e}"),
    };
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.as_mut().expect("piped")),
        &mut port,
    )
    .expect("the fake API's port");
    let out = Process::new("python3")
        .arg(&script)
        .env(
            "GITHUB_API_URL",
            format!("http://127.0.0.1:{}", port.trim()),
        )
        .env("GH_TOKEN", "token-not-printed")
        .env("REPOSITORY", "acme/app")
        .env("RUN_NUMBER", "42")
        .env("RUN_URL", "https://github.com/acme/app/actions/runs/9001")
        .env("HEAD_SHA", HEAD_SHA)
        .env("REPORT", &report_path)
        .output()
        .expect("python3 runs the step");
    server.kill().expect("the fake API stops");
    server.wait().expect("reaped");
    let requests = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a logged request"))
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !stdout.contains("token-not-printed")
            && !String::from_utf8_lossy(&out.stderr).contains("token-not-printed"),
        "the token was printed"
    );
    CommentRun {
        status: out.status,
        stdout: stdout + &String::from_utf8_lossy(&out.stderr),
        requests,
    }
}

/// The requests as `METHOD PATH` lines, in order.
fn request_lines(run: &CommentRun) -> Vec<String> {
    run.requests
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["method"].as_str().unwrap_or(""),
                r["path"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The body of the one write (POST or PATCH) the step made.
fn written_body(run: &CommentRun) -> String {
    let writes: Vec<&serde_json::Value> = run
        .requests
        .iter()
        .filter(|r| r["method"] != "GET")
        .collect();
    assert_eq!(writes.len(), 1, "{:?}", request_lines(run));
    writes[0]["body"]["body"]
        .as_str()
        .expect("a body")
        .to_string()
}

#[test]
fn the_comment_workflow_runs_on_the_gates_workflow_run_with_two_permissions() {
    let text = comment_workflow();
    for line in [
        "  workflow_run:",
        "    workflows: [\"RAG retrieval contract\"]",
        "    types: [completed]",
        "permissions: {}",
        "      github.event.workflow_run.event == 'pull_request' &&",
        "      github.event.workflow_run.path == '.github/workflows/rag-retrieval.yml'",
        "      actions: read",
        "      pull-requests: write",
        "          run-id: ${{ github.event.workflow_run.id }}",
        "          HEAD_SHA: ${{ github.event.workflow_run.head_sha }}",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?}:\n{text}");
    }
    // Nothing of the pull request's is checked out or run; no number from the artifact.
    assert!(!text.contains("actions/checkout"), "{text}");
    assert!(
        !text.contains("${{ github.event.workflow_run.pull_requests"),
        "{text}"
    );
    // The gate's workflow carries the name the trigger names.
    let dir = empty_repository();
    assert_code(
        &run(dir.path(), &["init", "--repository", "example/ragdiff"]),
        0,
    );
    let gate = std::fs::read_to_string(dir.path().join(WORKFLOW)).expect("the gate's workflow");
    assert!(
        gate.lines().any(|l| l == "name: RAG retrieval contract"),
        "{gate}"
    );
}

#[test]
fn the_comment_step_edits_only_the_bots_marked_comment_found_by_head_sha() {
    let run = run_comment_step("update", Some("## ragdiff: FAIL\n\nQ-21 newly failed\n"));
    assert!(run.status.success(), "{}", run.stdout);
    assert_eq!(
        request_lines(&run),
        [
            "GET /repos/acme/app/pulls?state=open&per_page=100&page=1",
            "GET /repos/acme/app/pulls?state=open&per_page=100&page=2",
            "GET /repos/acme/app/issues/7/comments?per_page=100&page=1",
            "PATCH /repos/acme/app/issues/comments/555",
        ]
    );
    assert!(
        run.requests
            .iter()
            .all(|r| r["authorization"] == "Bearer token-not-printed")
    );
    assert_eq!(
        written_body(&run),
        format!(
            "{MARKER}\nfrom run [42](https://github.com/acme/app/actions/runs/9001) at sha {HEAD_SHA}; a fork can change the workflow that made this report, so it is as trustworthy as the check itself\n\n## ragdiff: FAIL\n\nQ-21 newly failed\n"
        )
    );
    assert!(
        run.stdout.contains("updated comment 555 on pull request 7"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_comment_step_creates_the_comment_when_the_bot_has_none() {
    let run = run_comment_step("create", Some("## ragdiff: PASS\n"));
    assert!(run.status.success(), "{}", run.stdout);
    assert_eq!(
        request_lines(&run).last().map(String::as_str),
        Some("POST /repos/acme/app/issues/3/comments")
    );
    assert!(written_body(&run).ends_with("\n\n## ragdiff: PASS\n"));
}

#[test]
fn the_comment_step_writes_nothing_when_no_open_pull_request_has_the_head() {
    let run = run_comment_step("none", Some("## ragdiff: PASS\n"));
    assert!(run.status.success(), "{}", run.stdout);
    assert_eq!(
        request_lines(&run),
        ["GET /repos/acme/app/pulls?state=open&per_page=100&page=1"]
    );
    assert!(run.stdout.contains(&format!(
        "no open pull request has head {HEAD_SHA}: no comment"
    )));
}

#[test]
fn the_comment_is_cut_at_githubs_65536_characters() {
    // Multi-byte characters: the cap counts characters, not bytes.
    let report = "é".repeat(100_000);
    let run = run_comment_step("create", Some(&report));
    assert!(run.status.success(), "{}", run.stdout);
    let body = written_body(&run);
    assert_eq!(body.chars().count(), 65_536);
    assert!(body.starts_with(MARKER));
    assert!(body.ends_with(
        "\n\n… cut at GitHub's 65,536 characters: the whole report is in the run's artifact ragdiff-report."
    ));
}

#[test]
fn the_comment_step_reads_only_a_regular_report_file() {
    // No report.md in the artifact (the gate stopped before writing it).
    let run = run_comment_step("create", None);
    assert!(run.status.success(), "{}", run.stdout);
    assert!(
        written_body(&run)
            .ends_with("\n\nThe gate's run left no Markdown report (report.md) in its artifact.")
    );
}
