//! The file system for inputs: reading a whole file and checking a path, each
//! problem recorded with the path as the user wrote it.

use std::path::Path;

use crate::validate::{Diagnostics, Location, ProblemKind};

/// Read a whole file, recording why not when it cannot be read.
pub fn read_file(
    path: &Path,
    what: &'static str,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<Vec<u8>> {
    match check_path(path, what, display) {
        Err(kind) => {
            diag.problem(Location::file(display), kind);
            None
        }
        Ok(()) => match std::fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                diag.problem(
                    Location::file(display),
                    ProblemKind::PathUnreadable {
                        what,
                        path: display.to_string(),
                        reason: e.to_string(),
                    },
                );
                None
            }
        },
    }
}

/// Why a data path cannot be used, if it cannot: missing, a directory, unreadable
/// (a symlink loop shows here as the system's own message).
pub fn check_path(path: &Path, what: &'static str, display: &str) -> Result<(), ProblemKind> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(ProblemKind::PathIsDir {
            what,
            path: display.to_string(),
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ProblemKind::PathMissing {
            what,
            path: display.to_string(),
        }),
        Err(e) => Err(ProblemKind::PathUnreadable {
            what,
            path: display.to_string(),
            reason: e.to_string(),
        }),
    }
}
