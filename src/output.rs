//! Writing results: stdout, or files written atomically (a temporary file in the same
//! folder, then a rename), so a reader never sees half a report. No folders are made.

use std::io::Write;
use std::path::Path;

use crate::validate::{InvalidInput, Location, ProblemKind};

/// Write `text` to `path` atomically; `-` is stdout.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    write_files(&[(path, text.to_string())])
}

fn write_error(path: &Path, e: std::io::Error) -> InvalidInput {
    let display = path.display().to_string();
    InvalidInput::one(
        Location::file(&display),
        ProblemKind::Write {
            path: display.clone(),
            reason: e.to_string(),
        },
    )
}

/// Write several files atomically as a set: every one goes to a temporary file in
/// its own folder first, and only when all were written are they renamed into
/// place. A failure leaves no temporary file and no partial output behind.
pub fn write_files(files: &[(&Path, String)]) -> anyhow::Result<()> {
    let mut staged = Vec::new();
    for (path, text) in files {
        if *path == Path::new("-") {
            continue;
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".ragdiff-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| write_error(path, e))?;
        tmp.write_all(text.as_bytes())
            .map_err(|e| write_error(path, e))?;
        tmp.as_file().sync_all().map_err(|e| write_error(path, e))?;
        staged.push((path, tmp));
    }
    for (path, tmp) in staged {
        tmp.persist(path).map_err(|e| write_error(path, e.error))?;
    }
    for (path, text) in files {
        if *path == Path::new("-") {
            stdout(text)?;
        }
    }
    Ok(())
}

/// Write to stdout; a closed pipe surfaces as an io error the caller treats as done.
pub fn stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
