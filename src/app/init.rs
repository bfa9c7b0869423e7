//! `init`: write a starting layout into the current folder (the repository's root):
//! `gold/`, `runs/`, `runs/accepted-failures.csv` (header only), a commented
//! `ragdiff.toml` (every policy key at its default), the workflow that runs the gate
//! and the one that posts its report as a pull-request comment. The one command that creates folders; it never overwrites.

use std::path::Path;

use crate::exit;
use crate::output;
use crate::validate::InvalidInput;

/// The workflow, with `RAGDIFF_ACTION` standing for this action at this version.
const WORKFLOW: &str = include_str!("init_workflow.yml");

/// The second workflow: the gate's report as one pull-request comment, kept up to
/// date (`workflow_run` of the gate's workflow; docs/contract.md §4.5).
const COMMENT_WORKFLOW: &str = include_str!("init_comment.yml");

/// The allow-list with its header only: the gate reads it from the first run on.
const ALLOW_LIST: &str = "id,reason,index_version,accepted_at\n";

/// The policy file, every key commented out at its default (docs/contract.md §8.6).
const POLICY: &str = include_str!("init_policy.toml");

const FOLDERS: [&str; 4] = ["gold", "runs", ".github", ".github/workflows"];
pub const WORKFLOW_PATH: &str = ".github/workflows/rag-retrieval.yml";
pub const COMMENT_WORKFLOW_PATH: &str = ".github/workflows/rag-retrieval-comment.yml";
const ALLOW_LIST_PATH: &str = "runs/accepted-failures.csv";

/// The repository Cargo.toml names (`OWNER/ragdiff` until the project has its home).
fn built_repository() -> &'static str {
    let repo = env!("CARGO_PKG_REPOSITORY");
    repo.strip_prefix("https://github.com/")
        .unwrap_or(repo)
        .trim_end_matches('/')
        .trim_end_matches(".git")
}

/// `REPOSITORY@vVERSION`: `--repository`, else the repository this build names, at
/// the tag of the version that writes the workflow. A placeholder owner (`OWNER`) is
/// refused: a workflow naming it fails on its first run, or worse, runs whatever a
/// stranger publishes under that name.
pub fn action_ref(repository: Option<&str>) -> anyhow::Result<String> {
    let repo = repository.unwrap_or(built_repository());
    let valid = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    match repo.split_once('/') {
        Some((owner, name)) if valid(owner) && valid(name) && owner != "OWNER" => {
            Ok(format!("{repo}@v{}", env!("CARGO_PKG_VERSION")))
        }
        _ if repository.is_none() => Err(InvalidInput::usage(format!(
            "this build of ragdiff names the placeholder repository {repo}: pass --repository OWNER/NAME, the GitHub repository that holds ragdiff's action.yml (your fork, or ragdiff's home), so the workflow's `uses:` line names it"
        ))
        .into()),
        _ => Err(InvalidInput::usage(format!(
            "--repository {}: expected OWNER/NAME, a GitHub repository (not the placeholder OWNER)",
            crate::text::shown(repo)
        ))
        .into()),
    }
}

pub fn run(args: &crate::cli::InitArgs) -> anyhow::Result<u8> {
    // Before anything is written: a workflow naming a placeholder is refused.
    let action = action_ref(args.repository.as_deref())?;
    // A file where a folder belongs would stop the layout half-way: refuse first.
    for folder in FOLDERS {
        let p = Path::new(folder);
        if p.exists() && !p.is_dir() {
            return Err(InvalidInput::usage(format!(
                "{folder} exists and is not a folder; move it away, then run ragdiff init again"
            ))
            .into());
        }
    }
    let mut created = Vec::new();
    let mut skipped = Vec::new();
    for folder in FOLDERS {
        if Path::new(folder).is_dir() {
            skipped.push(format!("{folder}/"));
        } else {
            std::fs::create_dir(folder).map_err(|e| {
                InvalidInput::usage(format!("{folder}: cannot create the folder: {e}"))
            })?;
            created.push(format!("{folder}/"));
        }
    }
    let note = format!(
        "The gate names {} at the tag of the ragdiff version (the package ragdiff-gate)\n# that wrote this file.",
        action.split('@').next().unwrap_or(&action)
    );
    let workflow = WORKFLOW
        .replace("RAGDIFF_ACTION_NOTE", &note)
        .replace("RAGDIFF_ACTION", &action)
        .replace("RAGDIFF_VERSION", env!("CARGO_PKG_VERSION"));
    let comment = COMMENT_WORKFLOW.replace("RAGDIFF_GATE_WORKFLOW", WORKFLOW_PATH);
    let files = [
        (ALLOW_LIST_PATH, ALLOW_LIST),
        (crate::load::policy::FILE_NAME, POLICY),
        (WORKFLOW_PATH, &workflow),
        (COMMENT_WORKFLOW_PATH, &comment),
    ];
    for (path, text) in files {
        // symlink_metadata: a dangling link is something that exists too.
        if Path::new(path).symlink_metadata().is_ok() {
            skipped.push(path.to_string());
        } else {
            output::write(Path::new(path), text)?;
            created.push(path.to_string());
        }
    }
    let mut out = String::new();
    for c in &created {
        out.push_str(&format!("created  {c}\n"));
    }
    for s in &skipped {
        out.push_str(&format!("skipped  {s} (it exists; left as it is)\n"));
    }
    if !Path::new(".git").exists() {
        out.push_str(
            "\nnote: no .git here; GitHub runs workflows from .github/workflows at the repository's root\n",
        );
    }
    out.push_str(&next_steps());
    output::stdout(&out)?;
    Ok(exit::SUCCESS)
}

fn next_steps() -> String {
    format!(
        "
Next steps:
  1. Put your gold set in gold/: the data (CSV `id,expected_doc_ids` with ids
     separated by `;`, or TREC qrels)
     and a manifest gold/NAME.toml naming it, for example:
         name = \"NAME\"
         version = \"1.0.0\"
         corpus = \"CORPUS\"
         data = \"NAME.csv\"
         k = 10
  2. Freeze it:  ragdiff freeze
  3. Export a baseline run of your current retriever over the gold queries:
     runs/baseline.toml (index_version, corpus, depth, results) and its results
     (CSV `id,retrieved_doc_ids`, best first, separated by `;`, or a TREC run).
  4. Replace the export step in {WORKFLOW_PATH}
     with your export of the candidate run (runs/candidate.toml).
  5. Set the gate's policy in ragdiff.toml (every key is there, commented out).
     Commit gold/, runs/, ragdiff.toml and .github/: the workflow runs the gate
     on every pull request, and {COMMENT_WORKFLOW_PATH}
     posts its report as one comment on the pull request.
  6. After a change is merged, make its run the next baseline:  ragdiff promote
"
    )
}
