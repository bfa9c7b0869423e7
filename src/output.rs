//! Writing results: stdout, or files written atomically (a temporary file in the same
//! folder, then a rename), so a reader never sees half a report. No folders are made.

use std::io::Write;
use std::path::Path;

use crate::validate::{InvalidInput, Location, ProblemKind};

/// Write `text` to `path` atomically; `-` is stdout.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if path == Path::new("-") {
        return stdout(text);
    }
    let display = path.display().to_string();
    let fail = |e: std::io::Error| {
        InvalidInput::one(
            Location::file(&display),
            ProblemKind::Write {
                path: display.clone(),
                reason: e.to_string(),
            },
        )
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ragdiff-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(text.as_bytes()).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Write to stdout; a closed pipe surfaces as an io error the caller treats as done.
pub fn stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
