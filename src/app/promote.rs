//! `promote`: make the candidate the next baseline, the one command that writes over
//! inputs (and only the baseline's). The gate runs first, its report on stdout; then
//! the candidate's manifest and the results it names are copied beside the baseline
//! manifest, under names derived from the baseline's, as one atomic set.

use std::path::{Path, PathBuf};

use sha2::Digest as _;

use crate::exit;
use crate::load::{self, manifest};
use crate::output::{self, same_path};
use crate::settings;
use crate::validate::{Diagnostics, InvalidInput};

pub fn run(s: settings::Promote) -> anyhow::Result<u8> {
    let crate::model::Side {
        baseline,
        candidate,
    } = s.compare.runs.clone();
    let mut diag = Diagnostics::default();
    let bm = load::run_meta(&baseline, &mut diag);
    let cm = load::run_meta(&candidate, &mut diag);
    let doc = manifest::read(&candidate, &mut diag);
    diag.check()?;
    let (bm, cm, doc) = (diag.require(bm)?, diag.require(cm)?, diag.require(doc)?);
    if same_path(&bm.results, &cm.results) {
        return Err(InvalidInput::usage(format!(
            "{} and {} already read the same results file {}: nothing to promote (export a new candidate first)",
            baseline.display(),
            candidate.display(),
            cm.results.display()
        ))
        .into());
    }
    let plan = plan(&baseline, &cm)?;
    check_destinations(&s.compare, &baseline, &candidate, &cm, &plan)?;

    // What the gate reads: each file promote will copy, hashed now; the copy is
    // hashed as it is written and must match before anything is renamed into place
    // (a file changed while the gate ran is never promoted).
    let digests = plan
        .copies
        .iter()
        .map(|c| sha256_of(&c.from))
        .collect::<Result<Vec<_>, _>>()?;

    let history = load::history::beside(&baseline);
    check_history(&history)?;
    let (code, report) = super::compare::run_with_report(s.compare)?;
    if code != exit::SUCCESS {
        if !s.force {
            crate::text::eprintln(&format!(
                "promote: the gate did not pass (exit {code}); nothing promoted (--force promotes anyway)"
            ));
            return Ok(code);
        }
        crate::text::eprintln(&format!(
            "promote: the gate did not pass (exit {code}); promoting anyway (--force)"
        ));
    }

    let text = rewritten(doc, &plan);
    let history_text = appended_history(&history, &report)?;
    drop(report);
    write_set(
        &plan,
        &digests,
        &baseline,
        &text,
        HistoryFile {
            path: &history,
            bytes: &history_text,
        },
    )?;
    output::stdout(&promoted_message(&baseline, &candidate, &bm, &plan))?;
    Ok(exit::SUCCESS)
}

/// Write the promoted set atomically (docs/contract.md §12): every copy (checked
/// against the digest the gate read), the baseline manifest, then the history.
fn write_set(
    plan: &Plan,
    digests: &[Vec<u8>],
    baseline: &Path,
    text: &str,
    history: HistoryFile,
) -> anyhow::Result<()> {
    let HistoryFile {
        path: history,
        bytes: history_text,
    } = history;
    let mut dests: Vec<&Path> = plan.copies.iter().map(|c| c.to.as_path()).collect();
    dests.push(baseline);
    dests.push(history);
    // The baseline's files keep their own modes when they are replaced.
    let modes: Vec<Option<std::fs::Permissions>> = dests
        .iter()
        .map(|p| std::fs::metadata(p).ok().map(|m| m.permissions()))
        .collect();
    crate::interrupt::pause_at("promote-copy", false);
    output::write_files(&dests, |i, out| match plan.copies.get(i) {
        Some(copy) => {
            let mut file = std::fs::File::open(&copy.from)?;
            let mut hashing = Hashing {
                inner: out,
                hasher: sha2::Sha256::new(),
            };
            std::io::copy(&mut file, &mut hashing)?;
            if hashing.hasher.finalize().as_slice() != digests[i].as_slice() {
                return Err(std::io::Error::other(format!(
                    "{} changed while promote ran (after the gate read it); nothing promoted: run promote again",
                    crate::text::shown(&copy.from.display().to_string())
                )));
            }
            Ok(())
        }
        None if i == plan.copies.len() => out.write_all(text.as_bytes()),
        None => out.write_all(history_text),
    })?;
    for (path, mode) in dests.iter().zip(modes) {
        if let Some(mode) = mode {
            std::fs::set_permissions(path, mode)?;
        }
    }
    Ok(())
}

/// The history file promote rewrites and its new bytes.
struct HistoryFile<'a> {
    path: &'a Path,
    bytes: &'a [u8],
}

/// The history file, when it exists, must be a regular file promote can read: it is
/// rewritten with one more line (docs/contract.md §9.11). Checked before the gate runs.
fn check_history(path: &Path) -> Result<(), InvalidInput> {
    if path.symlink_metadata().is_err() {
        return Ok(());
    }
    let display = path.display().to_string();
    load::fs::check_path(path, "history", &display).map_err(|kind| {
        let mut diag = Diagnostics::default();
        diag.problem(crate::validate::Location::file(&display), kind);
        diag.check()
            .err()
            .unwrap_or_else(|| InvalidInput::usage(display.clone()))
    })
}

/// The history file's bytes as they are, then this promotion's line (its lines are
/// never rewritten or checked here: `history` and `compare` warn about a bad one).
fn appended_history(path: &Path, report: &crate::report::CompareReport) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path.symlink_metadata().is_ok() {
        let display = path.display().to_string();
        let mut diag = Diagnostics::default();
        bytes = load::fs::read_file(path, "history", &display, &mut diag).unwrap_or_default();
        diag.check()?;
    }
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    let line = crate::report::history::line_of(report, super::accept::today_utc());
    serde_json::to_writer(&mut bytes, &line)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Refuse, before the gate runs, a promote that would write over anything but the
/// baseline's own files (docs/contract.md §12): the gold's manifest, data and tags,
/// the candidate's manifest, repeats, doc map and latency file, the allow-list, an export of this
/// run, or another of its own destinations. A copy onto its own source (a doc map
/// both sides share) changes nothing and is allowed.
fn check_destinations(
    s: &settings::Compare,
    baseline: &Path,
    candidate: &Path,
    cm: &crate::model::RunMeta,
    plan: &Plan,
) -> Result<(), InvalidInput> {
    let mut diag = Diagnostics::default();
    let gold = load::gold_or_default(s.gold.clone(), &mut diag)
        .and_then(|p| load::gold_meta(&p, &mut diag));
    let mut inputs: Vec<(&str, &Path)> = Vec::new();
    if let Some(g) = &gold {
        inputs.extend(g.manifest.as_deref().map(|p| ("the gold manifest", p)));
        inputs.push(("the gold data", g.data.as_path()));
        inputs.extend(
            g.tags_file
                .iter()
                .map(|t| ("the tags file", t.path.as_path())),
        );
    }
    inputs.push(("the candidate manifest", candidate));
    inputs.extend(cm.results_paths().map(|p| ("the candidate's results", p)));
    inputs.extend(
        cm.doc_map
            .iter()
            .map(|(_, p)| ("the candidate's doc map", p.as_path())),
    );
    inputs.extend(
        cm.recording
            .latency
            .iter()
            .map(|(_, p)| ("the candidate's latency file", p.as_path())),
    );
    inputs.extend(
        s.allow_failed
            .file
            .iter()
            .map(|p| ("the allow-list", p.as_path())),
    );
    let exports = s.outputs.exports();
    let mut dests: Vec<(Option<&Path>, &Path)> = plan
        .copies
        .iter()
        .map(|c| (Some(c.from.as_path()), c.to.as_path()))
        .collect();
    dests.push((None, baseline));
    let history = load::history::beside(baseline);
    dests.push((None, history.as_path()));
    let shown = |p: &Path| crate::text::shown(&p.display().to_string()).to_string();
    for (i, (from, to)) in dests.iter().enumerate() {
        let own = from.is_some_and(|f| same_path(f, to));
        if !own && let Some((what, input)) = inputs.iter().find(|(_, p)| same_path(to, p)) {
            return Err(InvalidInput::usage(format!(
                "promote would write {} over {what} {}; inputs are never written (rename the baseline manifest or the candidate's files)",
                shown(to),
                shown(input)
            )));
        }
        if let Some((flag, _)) = exports.iter().find(|(_, p)| same_path(to, p)) {
            return Err(InvalidInput::usage(format!(
                "{flag} {} is also where promote writes; write the report elsewhere",
                shown(to)
            )));
        }
        if dests[..i].iter().any(|(_, p)| same_path(to, p)) {
            return Err(InvalidInput::usage(format!(
                "promote would write {} twice; rename the candidate's files",
                shown(to)
            )));
        }
    }
    Ok(())
}

/// The sha256 of a file promote copies.
fn sha256_of(path: &Path) -> Result<Vec<u8>, InvalidInput> {
    use sha2::Digest;
    let cannot = |e: std::io::Error| {
        InvalidInput::usage(format!(
            "{}: cannot be read: {e}",
            crate::text::shown(&path.display().to_string())
        ))
    };
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut sink = std::io::sink();
    let mut hashing = Hashing {
        inner: &mut sink,
        hasher: sha2::Sha256::new(),
    };
    std::io::copy(&mut file, &mut hashing).map_err(cannot)?;
    Ok(hashing.hasher.finalize().to_vec())
}

/// A writer that hashes what passes through it.
struct Hashing<'a> {
    inner: &'a mut dyn std::io::Write,
    hasher: sha2::Sha256,
}

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// One file the candidate's manifest names, and where its copy goes.
struct Copy {
    from: PathBuf,
    to: PathBuf,
    kind: CopyKind,
}

/// Which key of the candidate's manifest names a copied file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CopyKind {
    /// `results`, one repeat.
    Results,
    /// `doc_map` (docs/contract.md §2.11).
    DocMap,
    /// `latency`, the latency side file (§6.9).
    Latency,
}

impl CopyKind {
    /// The manifest's key, for a side file.
    fn key(self) -> Option<&'static str> {
        match self {
            Self::Results => None,
            Self::DocMap => Some("doc_map"),
            Self::Latency => Some("latency"),
        }
    }

    /// How the promoted message names a copy of this kind.
    fn label(self) -> &'static str {
        match self {
            Self::Results => "",
            Self::DocMap => "the doc map ",
            Self::Latency => "the latency file ",
        }
    }
}

/// Every copy promote makes (docs/contract.md §2.11, §6.9): each results repeat, then
/// the chunk map and the latency side file, under names derived from the baseline
/// manifest's.
struct Plan {
    copies: Vec<Copy>,
    /// The results were an array (repeats): the rewritten key stays one.
    repeats: bool,
}

fn plan(baseline: &Path, cm: &crate::model::RunMeta) -> Result<Plan, InvalidInput> {
    let sources: Vec<_> = cm.results_paths().map(Path::to_path_buf).collect();
    let repeats = sources.len() > 1;
    let mut copies = Vec::new();
    for (i, from) in sources.into_iter().enumerate() {
        // The first copy keeps the baseline's plain name; repeats follow as -2, -3, …
        let suffix = if i == 0 {
            String::new()
        } else {
            format!("-{}", i + 1)
        };
        let to = copy_path(baseline, &suffix, &from)?;
        copies.push(Copy {
            from,
            to,
            kind: CopyKind::Results,
        });
    }
    let sides = [
        (&cm.doc_map, "-doc-map", CopyKind::DocMap),
        (&cm.recording.latency, "-latency", CopyKind::Latency),
    ];
    for (named, suffix, kind) in sides {
        if let Some((_, from)) = named {
            let to = copy_path(baseline, suffix, from)?;
            copies.push(Copy {
                from: from.clone(),
                to,
                kind,
            });
        }
    }
    Ok(Plan { copies, repeats })
}

/// The candidate's manifest (comments and layout kept by toml_edit) with `results`,
/// `doc_map` and `latency` naming the copies beside it; each key's own decoration
/// stays.
fn rewritten(doc: manifest::ManifestDoc, plan: &Plan) -> String {
    let mut doc = doc.doc.into_mut();
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let results: Vec<String> = plan
        .copies
        .iter()
        .filter(|c| c.kind == CopyKind::Results)
        .map(|c| name(&c.to))
        .collect();
    let set = |doc: &mut toml_edit::DocumentMut, key: &str, value: toml_edit::Value| {
        if let Some(old) = doc.get_mut(key).and_then(|i| i.as_value_mut()) {
            let decor = old.decor().clone();
            *old = value;
            *old.decor_mut() = decor;
        }
    };
    let value: toml_edit::Value = if plan.repeats {
        toml_edit::Array::from_iter(results.iter().map(String::as_str)).into()
    } else {
        results[0].as_str().into()
    };
    set(&mut doc, "results", value);
    for copy in &plan.copies {
        if let Some(key) = copy.kind.key() {
            set(&mut doc, key, name(&copy.to).as_str().into());
        }
    }
    doc.to_string()
}

/// What promote did, what it left in place, and what to commit.
fn promoted_message(
    baseline: &Path,
    candidate: &Path,
    bm: &crate::model::RunMeta,
    plan: &Plan,
) -> String {
    let reads: Vec<String> = plan
        .copies
        .iter()
        .map(|c| {
            format!(
                "{}{} (a copy of {})",
                c.kind.label(),
                c.to.display(),
                c.from.display()
            )
        })
        .collect();
    let mut out = format!(
        "\npromoted {} to {}: it now reads {}\n",
        candidate.display(),
        baseline.display(),
        reads.join(", ")
    );
    let mut old: Vec<_> = bm.results_paths().map(Path::to_path_buf).collect();
    old.extend(bm.doc_map.iter().map(|(_, p)| p.clone()));
    old.extend(bm.recording.latency.iter().map(|(_, p)| p.clone()));
    for path in old {
        let kept = plan
            .copies
            .iter()
            .any(|c| same_path(&path, &c.to) || same_path(&path, &c.from));
        if !kept {
            out.push_str(&format!(
                "note: {} is no longer named by {}; left in place\n",
                path.display(),
                baseline.display()
            ));
        }
    }
    let mut written: Vec<String> = plan
        .copies
        .iter()
        .map(|c| c.to.display().to_string())
        .collect();
    written.push(load::history::beside(baseline).display().to_string());
    out.push_str(&format!(
        "next: commit {} and {}; export the next candidate over {}\n",
        baseline.display(),
        written.join(", "),
        candidate.display()
    ));
    out
}

/// A copy's path: beside the baseline manifest, the manifest's stem and `suffix`
/// with the source's extension (which decides the format when none is declared).
fn copy_path(baseline: &Path, suffix: &str, source: &Path) -> Result<PathBuf, InvalidInput> {
    let stem = baseline
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".to_string());
    let name = match source.extension() {
        Some(ext) => format!("{stem}{suffix}.{}", ext.to_string_lossy()),
        None => format!("{stem}{suffix}.results"),
    };
    let path = match baseline.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name),
        _ => PathBuf::from(name),
    };
    if same_path(&path, baseline) {
        return Err(InvalidInput::usage(format!(
            "the copy of {} would be named {}, the baseline manifest itself; rename the candidate's results",
            source.display(),
            path.display()
        )));
    }
    Ok(path)
}
