//! `compare --changed-since REV` (docs/contract.md §12.1): which of the gate's own
//! inputs differ from a git revision, so a pull request that edits the gold, the
//! baseline, the allow-list or the policy says so in its report. git is run as a
//! program (the runner's own git, `git cat-file`): a library for three read-only
//! commands would be far larger than the use.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::model::{ChangedInput, ChangedInputs};
use crate::validate::Diagnostics;

/// Compare each input (what it is, its path) with its blob at `rev`. Outside git, or
/// when `rev` names no commit here, a warning says why nothing is listed (never a
/// silent skip) and the result is `None`.
pub fn since(
    rev: &str,
    inputs: &[(&'static str, &Path)],
    diag: &mut Diagnostics,
) -> Option<ChangedInputs> {
    let unlisted = "so what this pull request changed in the gate's inputs is not listed";
    // The repository is the gold's (its manifest is listed first), else the
    // working directory's.
    let start = inputs
        .first()
        .and_then(|(_, p)| std::fs::canonicalize(p).ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let Some(top) = toplevel(start.as_deref()) else {
        diag.warn(format!(
            "--changed-since {rev}: the gold is not inside a git repository (or git cannot run), {unlisted}"
        ));
        return None;
    };
    let Some(commit) = commit_of(&top, rev) else {
        diag.warn(format!(
            "--changed-since {rev}: no such commit in this repository (fetch it first, e.g. `git fetch --depth=1 origin {rev}`), {unlisted}"
        ));
        return None;
    };
    let mut changed = Vec::new();
    let mut checked = 0;
    for &(input, path) in inputs {
        // A file gone now counts only if the revision had it (`removed`).
        let now = std::fs::read(path).ok();
        // Only a file compared with the revision counts as checked: one outside the
        // repository has its own warning, never a place in "N files checked".
        let Some(rel) = in_repository(&top, path) else {
            if now.is_some() {
                diag.warn(format!(
                    "--changed-since {rev}: the {input} {} is outside the git repository, so whether it changed is not known",
                    path.display()
                ));
            }
            continue;
        };
        checked += usize::from(now.is_some());
        let then = blob(&top, &commit, &rel);
        let link = std::fs::read_link(path).ok();
        let change = match (&then, &now) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            // a link is compared as git keeps it, then its target
            (Some(_), Some(_)) if link.is_some() => {
                match link_change(&top, &commit, path, &rel, 0) {
                    Some(change) => change,
                    None => continue,
                }
            }
            (Some(then), Some(now)) if then != now => "changed",
            _ => continue,
        };
        let details = if input == POLICY_FILE && link.is_none() {
            crate::load::policy_diff::details(path, then.as_deref(), now.as_deref())
        } else {
            Vec::new()
        };
        changed.push(ChangedInput {
            input,
            path: path.display().to_string(),
            change,
            details,
        });
    }
    Some(ChangedInputs {
        since: rev.to_string(),
        commit,
        checked,
        changed,
    })
}

/// How the link `path` (at `rel` in the repository) differs from `commit`: `None`
/// when `commit` holds the same link (git's mode 120000, the same text) and its
/// target is unchanged too, placed and compared the same way (at most
/// [`MAX_LINKS`] links deep); else `changed`, or `removed` when the target is gone.
fn link_change(
    top: &Path,
    commit: &str,
    path: &Path,
    rel: &Path,
    depth: usize,
) -> Option<&'static str> {
    let Ok(text) = std::fs::read_link(path) else {
        // no link (any more): compared by its bytes
        let now = std::fs::read(path).ok();
        return match (blob(top, commit, rel), now) {
            (Some(then), Some(now)) if then == now => None,
            (_, None) => Some("removed"),
            _ => Some("changed"),
        };
    };
    let same_link = depth < MAX_LINKS
        && is_link_at(top, commit, rel)
        && blob(top, commit, rel).is_some_and(|then| then == text.as_os_str().as_encoded_bytes());
    if !same_link {
        return Some("changed");
    }
    let target = match path.parent() {
        Some(dir) => dir.join(&text),
        None => text.clone(),
    };
    let Some(target_rel) = in_repository(top, &target) else {
        // a link out of the repository: what it reads cannot be compared
        return Some("changed");
    };
    link_change(top, commit, &target, &target_rel, depth + 1)
}

/// How many links deep [`link_change`] follows a link to links.
const MAX_LINKS: usize = 8;

/// Whether `commit` keeps `rel` as a symbolic link (mode 120000).
fn is_link_at(top: &Path, commit: &str, rel: &Path) -> bool {
    let out = git(Some(top))
        .args(["ls-tree", "-z", commit, "--"])
        .arg(rel)
        .output();
    out.is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"120000 "))
}

/// What the policy file is called in the inputs: what changed inside it is listed
/// setting by setting (`crate::load::policy_diff`).
pub const POLICY_FILE: &str = "policy file";

/// `path` relative to the repository's top folder by its own name: no symbolic
/// link followed (not the file's, nor a folder's on the way), so an input replaced
/// by a link is compared at its own path, where git keeps the link (an input made a
/// link to a committed file is "changed", not that file's unchanged blob). A path
/// that is only inside the repository through links (the top folder reached by
/// another name) is placed with its folder's links followed.
fn in_repository(top: &Path, path: &Path) -> Option<PathBuf> {
    let absolute = std::env::current_dir().ok()?.join(path);
    let mut lexical = PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    if let Ok(rel) = lexical.strip_prefix(top) {
        return Some(rel.to_path_buf());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let placed = std::fs::canonicalize(dir).ok()?.join(path.file_name()?);
    placed.strip_prefix(top).ok().map(Path::to_path_buf)
}

fn git(dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    cmd.stdin(Stdio::null()).stderr(Stdio::null());
    cmd
}

/// The top folder (canonical) of the repository holding `dir`.
fn toplevel(dir: Option<&Path>) -> Option<PathBuf> {
    let out = git(dir)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let top = text.trim_end_matches('\n');
    (out.status.success() && !top.is_empty())
        .then(|| std::fs::canonicalize(top).ok())
        .flatten()
}

/// The commit `rev` names, or `None` (a revision that looks like an option is none).
fn commit_of(top: &Path, rev: &str) -> Option<String> {
    if rev.is_empty() || rev.starts_with('-') {
        return None;
    }
    let out = git(Some(top))
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{rev}^{{commit}}"))
        .output()
        .ok()?;
    let sha = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !sha.is_empty()).then_some(sha)
}

/// The bytes of `rel` at `commit`, or `None` when the commit has no such file.
fn blob(top: &Path, commit: &str, rel: &Path) -> Option<Vec<u8>> {
    let out = git(Some(top))
        .args(["cat-file", "blob"])
        .arg(format!("{commit}:{}", rel.display()))
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}
