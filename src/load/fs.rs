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
    // Test hook: a test swaps a FIFO in here, after the check (docs/contract.md §12).
    #[cfg(feature = "test-hooks")]
    crate::interrupt::pause_at(&format!("input-checked {display}"), false);
    let unreadable = |e: std::io::Error| ProblemKind::PathUnreadable {
        what,
        path: display.to_string(),
        reason: e.to_string(),
    };
    // O_NONBLOCK: a FIFO swapped in after the check cannot block the open; the
    // fstat below refuses it, and the flag is cleared for ordinary reads.
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ProblemKind::PathNotRegular {
            what,
            path: display.to_string(),
        });
    }
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with integer arguments only.
    let cleared = unsafe {
        let flags = nix::libc::fcntl(fd, nix::libc::F_GETFL);
        flags >= 0 && nix::libc::fcntl(fd, nix::libc::F_SETFL, flags & !nix::libc::O_NONBLOCK) >= 0
    };
    if !cleared {
        return Err(unreadable(std::io::Error::last_os_error()));
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
        Ok(_) if on_kernel_fs(path) => Err(ProblemKind::PathKernel {
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

/// Whether `path` (links followed) is on procfs or sysfs: "regular" files there can
/// block in `read` (`/proc/kmsg`) or never end.
fn on_kernel_fs(path: &Path) -> bool {
    path.canonicalize()
        .is_ok_and(|p| p.starts_with("/proc") || p.starts_with("/sys"))
}

/// Warn for each input whose canonical path (links followed) is outside the git
/// repository the command runs in (outside git: the working directory): a link out
/// of the checkout reads a file the pull request's diff does not show.
pub fn warn_outside_root(inputs: &[&Path], diag: &mut Diagnostics) {
    let Ok(cwd) = std::env::current_dir().and_then(|d| d.canonicalize()) else {
        return;
    };
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf();
    let mut warned = std::collections::HashSet::new();
    for input in inputs {
        if let Ok(full) = input.canonicalize()
            && !full.starts_with(&root)
            && warned.insert(full.clone())
        {
            diag.warn(format!(
                "{} resolves outside {} (to {}): a file the repository's history does not show",
                crate::text::shown(&input.display().to_string()),
                if root == cwd && !root.join(".git").exists() {
                    "the working directory"
                } else {
                    "the git repository"
                },
                crate::text::shown(&full.display().to_string())
            ));
        }
    }
}

/// A file's identity and times, as [`fingerprint`] compares them.
pub type Fingerprint = (u64, u64, u64, i64, i64, i64, i64);

/// What tells a file changed between two reads: device, inode, size, modification
/// time and status-change time (`None` when it cannot be read). A rename over it or a
/// rewrite changes it, even one at the same size whose modification time is set back
/// (setting it changes the ctime, which no user can set).
pub fn fingerprint(path: &Path) -> Option<Fingerprint> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
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
        // The same size again, the modification time put back: the ctime tells.
        let before = fingerprint(&path);
        let mtime = std::fs::metadata(&path)
            .expect("meta")
            .modified()
            .expect("mtime");
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, "Q1 Q0 D3 1 1 t\n").expect("rewritten");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open")
            .set_modified(mtime)
            .expect("mtime restored");
        assert_ne!(fingerprint(&path), before, "same size, mtime restored");
        let other = dir.path().join("other.trec");
        std::fs::write(&other, "Q1 Q0 D2 1 1 t\n").expect("written");
        let before = fingerprint(&path);
        std::fs::rename(&other, &path).expect("renamed over");
        assert_ne!(fingerprint(&path), before, "another inode");
        assert_eq!(fingerprint(&dir.path().join("gone")), None);
    }
}
