//! The file system for inputs: reading a whole file and checking a path, each
//! problem recorded with the path as the user wrote it. Inputs must be regular files
//! (a symbolic link to one is fine) and are read through a line-capped [`Guard`].

use std::io::Read;
use std::path::Path;

use crate::load::lines::{Guard, GuardError};
use crate::validate::{Diagnostics, Location, ProblemKind};

/// Read a whole file, recording why not when it cannot be read. It must be a
/// regular file, and is read through a [`Guard`], so a file without line ends (a
/// sparse file) stops at the line cap instead of filling memory.
pub fn read_file(
    path: &Path,
    what: &'static str,
    display: &str,
    diag: &mut Diagnostics,
) -> Option<Vec<u8>> {
    let unreadable = |e: std::io::Error| ProblemKind::PathUnreadable {
        what,
        path: display.to_string(),
        reason: e.to_string(),
    };
    let file = match open_regular(path, what, display) {
        Ok(file) => file,
        Err(kind) => {
            diag.problem(Location::file(display), kind);
            return None;
        }
    };
    let mut bytes = Vec::new();
    match Guard::lines(file).read_to_end(&mut bytes) {
        Ok(_) => Some(bytes),
        Err(e) => {
            let (line, kind) = match GuardError::of(&e) {
                Some(g) => g.problem(),
                None => (None, unreadable(e)),
            };
            diag.problem(Location::at(display, line), kind);
            None
        }
    }
}

/// Open `path` when [`check_path`] accepts it (opening a FIFO would block), and
/// check again on the open file that it is a regular file (it may have been replaced
/// in between).
pub fn open_regular(
    path: &Path,
    what: &'static str,
    display: &str,
) -> Result<std::fs::File, ProblemKind> {
    check_path(path, what, display)?;
    let unreadable = |e: std::io::Error| ProblemKind::PathUnreadable {
        what,
        path: display.to_string(),
        reason: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ProblemKind::PathNotRegular {
            what,
            path: display.to_string(),
        });
    }
    Ok(file)
}

/// Why a data path cannot be used, if it cannot: missing, a directory, not a regular
/// file (a device, a FIFO: reading one could block or never end), unreadable (a
/// symlink loop shows here as the system's own message). Symbolic links are
/// followed.
pub fn check_path(path: &Path, what: &'static str, display: &str) -> Result<(), ProblemKind> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(ProblemKind::PathIsDir {
            what,
            path: display.to_string(),
        }),
        Ok(meta) if !meta.is_file() => Err(ProblemKind::PathNotRegular {
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

/// What tells a file changed between two reads: device, inode, size and modification
/// time (`None` when it cannot be read). A rename over it or a rewrite changes it.
pub fn fingerprint(path: &Path) -> Option<(u64, u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
}

#[cfg(test)]
mod fingerprint_tests {
    use super::fingerprint;

    /// A rewrite of the same size with another modification time, and a rename over
    /// the file, each change its fingerprint; reading it does not.
    #[test]
    fn a_rewrite_or_a_rename_over_the_file_changes_its_fingerprint() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("run.trec");
        std::fs::write(&path, "Q1 Q0 D1 1 1 t\n").expect("written");
        let first = fingerprint(&path);
        assert!(first.is_some());
        let _ = std::fs::read(&path).expect("read");
        assert_eq!(fingerprint(&path), first, "reading changes nothing");
        std::fs::write(&path, "Q1 Q0 D2 1 1 t\n").expect("rewritten");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_modified(later).expect("mtime set");
        assert_ne!(fingerprint(&path), first, "same size, another mtime");
        let other = dir.path().join("other.trec");
        std::fs::write(&other, "Q1 Q0 D2 1 1 t\n").expect("written");
        let before = fingerprint(&path);
        std::fs::rename(&other, &path).expect("renamed over");
        assert_ne!(fingerprint(&path), before, "another inode");
        assert_eq!(fingerprint(&dir.path().join("gone")), None);
    }
}
