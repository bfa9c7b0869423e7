//! Ctrl-C (SIGINT) and SIGTERM: remove any temporary export file being written, then
//! exit 130, so an interrupted run leaves nothing behind.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Install the handler once, at start-up.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if let Ok(paths) = PENDING.lock() {
            for p in paths.iter() {
                let _ = std::fs::remove_file(p);
            }
        }
        std::process::exit(130);
    });
}

/// A temporary file that must not outlive an interruption.
pub fn register(path: &Path) {
    if let Ok(mut paths) = PENDING.lock() {
        paths.push(path.to_path_buf());
    }
}

/// The temporary file was renamed into place or removed.
pub fn unregister(path: &Path) {
    if let Ok(mut paths) = PENDING.lock() {
        paths.retain(|p| p != path);
    }
}
