//! Writing results: stdout, or files written atomically (a temporary file in the same
//! folder, then a rename), so a reader never sees half a report. No folders are made.

use std::io::Write;
use std::path::Path;

use crate::validate::{InvalidInput, Location, ProblemKind};

/// Write `text` to `path` atomically; `-` is stdout.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    write_files(&[path], |_, out| out.write_all(text.as_bytes()))
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

/// What stands at `path` when it is neither absent nor a regular file: an export is
/// renamed over a regular file only, never over a device, FIFO, link or folder.
pub fn not_regular(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(path).ok()?.file_type();
    Some(if kind.is_file() {
        return None;
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    })
}

/// The refusal of an export over `kind` (see [`not_regular`]).
fn not_regular_error(path: &Path, kind: &str) -> InvalidInput {
    write_error(
        path,
        std::io::Error::other(format!(
            "it is {kind}, not a regular file; an export replaces only a regular file (`-` writes to stdout)"
        )),
    )
}

/// Write several files atomically as a set: `render(i, out)` writes the i-th into a
/// temporary file in its own folder, and only when all were written are they
/// renamed into place. A failure leaves no temporary file and no partial output; an
/// interruption leaves the old set or the whole new one (src/interrupt.rs). A path
/// `-` is written to stdout after the files.
///
/// A new file gets the mode a plain create gives under the umask; a replaced one
/// keeps its mode.
pub fn write_files(
    paths: &[&Path],
    render: impl Fn(usize, &mut dyn Write) -> std::io::Result<()> + Sync,
) -> anyhow::Result<()> {
    write_files_sharing(paths, render, |_| None)
}

/// [`write_files`], where `copy_of(i)` may name, for a path `-`, a file of the set
/// that `render` writes the same bytes into: stdout then gets that file's bytes,
/// read back once it is in place, rather than a second rendering.
pub fn write_files_sharing(
    paths: &[&Path],
    render: impl Fn(usize, &mut dyn Write) -> std::io::Result<()> + Sync,
    copy_of: impl Fn(usize) -> Option<usize>,
) -> anyhow::Result<()> {
    // Something in the way would only show at the rename, after other exports were
    // already in place: refuse it before writing anything.
    for path in paths {
        if *path != Path::new("-")
            && let Some(kind) = not_regular(path)
        {
            return Err(not_regular_error(path, kind).into());
        }
    }
    let mut staged: Vec<(&Path, tempfile::NamedTempFile)> = Vec::new();
    let result = stage(paths, &render, &mut staged);
    if let Err(e) = result {
        let mut pending = crate::interrupt::hold();
        for (_, tmp) in staged {
            pending.unregister(tmp.path());
        }
        return Err(e.into());
    }
    crate::interrupt::pause_at("exports-staged", false);
    // Rename into place, the whole set in one step an interruption cannot split.
    // Should one rename still fail, the exports already renamed are removed again,
    // so a failed run leaves no export behind.
    let mut pending = crate::interrupt::hold();
    // Each placed file with its index in `paths`, still open.
    let mut placed: Vec<(usize, &Path, std::fs::File)> = Vec::new();
    let files = (0..paths.len()).filter(|&i| paths[i] != Path::new("-"));
    let mut staged = files.zip(staged);
    while let Some((i, (path, tmp))) = staged.next() {
        if !placed.is_empty() {
            crate::interrupt::pause_at("between-renames", true);
        }
        let temp_path = tmp.path().to_path_buf();
        let result = tmp.persist(path);
        pending.unregister(&temp_path);
        match result {
            Ok(file) => placed.push((i, path, file)),
            Err(e) => {
                for (_, done, _) in placed {
                    let _ = std::fs::remove_file(done);
                }
                for (_, (_, rest)) in staged {
                    pending.unregister(rest.path());
                }
                return Err(write_error(path, e.error).into());
            }
        }
    }
    drop(pending);
    for (i, path) in paths.iter().enumerate() {
        if *path == Path::new("-") {
            // Read back through the handle still open: by now the name could
            // name another file.
            let copied = copy_of(i).and_then(|j| placed.iter_mut().find(|(k, ..)| *k == j));
            to_stdout(|out| match copied {
                Some((.., file)) => {
                    use std::io::Seek;
                    file.seek(std::io::SeekFrom::Start(0))?;
                    std::io::copy(file, out).map(|_| ())
                }
                None => render(i, out),
            })?;
        }
    }
    Ok(())
}

/// Write to stdout through `write`; stdout is a CI log: workflow commands in it are
/// neutralised. The guard sees large chunks (the outer buffer), not every small
/// write.
fn to_stdout(write: impl FnOnce(&mut GuardedStdout) -> std::io::Result<()>) -> std::io::Result<()> {
    let guard = crate::text::LineGuard::new(std::io::BufWriter::new(std::io::stdout().lock()));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, guard);
    closed_is_done(write(&mut out).and_then(|()| {
        out.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .finish()
    }))
}

/// stdout as [`to_stdout`] writes it (a concrete type, so `std::io::copy` reads
/// straight into its buffer).
type GuardedStdout =
    std::io::BufWriter<crate::text::LineGuard<std::io::BufWriter<std::io::StdoutLock<'static>>>>;

/// Write each file of `paths` (`-` aside) into a temporary file beside it, registered
/// for removal on an interruption from the moment it exists. The files are created
/// one by one, then rendered, flushed and synced side by side, one thread each (a
/// JSON export of 100,000 queries beside the CSV and Markdown ones: README,
/// "Performance"); the first error in path order is returned.
fn stage<'p>(
    paths: &[&'p Path],
    render: &(impl Fn(usize, &mut dyn Write) -> std::io::Result<()> + Sync),
    staged: &mut Vec<(&'p Path, tempfile::NamedTempFile)>,
) -> Result<(), InvalidInput> {
    let mut index = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        if *path != Path::new("-") {
            staged.push((*path, create_temp(path)?));
            index.push(i);
        }
    }
    let results: Vec<Result<(), InvalidInput>> = std::thread::scope(|s| {
        let jobs: Vec<_> = staged
            .iter_mut()
            .zip(&index)
            .map(|((path, tmp), &i)| {
                let path: &Path = path;
                s.spawn(move || fill(path, tmp, |out| render(i, out)))
            })
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("an export thread panicked"))
            .collect()
    });
    results.into_iter().collect()
}

/// A temporary file beside `path`, registered for removal on an interruption, with
/// the mode a plain create gives under the umask, or `path`'s own when it exists.
fn create_temp(path: &Path) -> Result<tempfile::NamedTempFile, InvalidInput> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // Created 0666 so the umask applies as to a plain create.
    let tmp = {
        let mut pending = crate::interrupt::hold();
        let tmp = tempfile::Builder::new()
            .prefix(".ragdiff-")
            .suffix(".tmp")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| write_error(path, e))?;
        crate::interrupt::pause_at("tmp-created", true);
        pending.register(tmp.path());
        tmp
    };
    if let Ok(old) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))
            .map_err(|e| write_error(path, e))?;
    }
    Ok(tmp)
}

/// Render into the temporary file of `path`, flush and sync it.
fn fill(
    path: &Path,
    tmp: &mut tempfile::NamedTempFile,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), InvalidInput> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
    render(&mut out).map_err(|e| write_error(path, e))?;
    out.flush().map_err(|e| write_error(path, e))?;
    drop(out);
    tmp.as_file().sync_all().map_err(|e| write_error(path, e))
}

/// Write to stdout, workflow commands neutralised (`text::neutralize_commands`); a
/// closed pipe surfaces as an io error the caller treats as done.
pub fn stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let text = crate::text::neutralize_commands(text);
    closed_is_done(out.write_all(text.as_bytes()).and_then(|()| out.flush()))?;
    Ok(())
}

/// A reader that closed the pipe (`ragdiff … | head`) has all it wants: not an
/// error, and the exit code stays the gate's.
fn closed_is_done(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Whether two paths name the same file, whether or not it exists yet: the folders
/// are resolved (links, `..`), the file names compared.
pub fn same_path(a: &Path, b: &Path) -> bool {
    fn resolve(p: &Path) -> Option<std::path::PathBuf> {
        if let Ok(full) = p.canonicalize() {
            return Some(full);
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(dir.canonicalize().ok()?.join(p.file_name()?))
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Refuse exports that would overwrite an input or each other, or replace anything
/// but a regular file (exit 2), before anything is read or written: inputs are never
/// modified, and two exports to one file would lose one of them.
pub fn check_exports(exports: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), InvalidInput> {
    for (i, (flag, path)) in exports.iter().enumerate() {
        if *path == Path::new("-") {
            continue;
        }
        if let Some(kind) = not_regular(path) {
            return Err(not_regular_error(path, kind));
        }
        // Its folder must exist (ragdiff creates none): said now, before the runs are
        // read, not after, with a temporary file's name.
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(InvalidInput::usage(format!(
                "{flag} {}: the folder {} does not exist; ragdiff creates no folders",
                crate::text::shown(&path.display().to_string()),
                crate::text::shown(&folder.display().to_string())
            )));
        }
        if let Some(input) = inputs.iter().find(|input| same_path(path, input)) {
            return Err(InvalidInput::usage(format!(
                "{flag} {} would overwrite the input {}; write the report elsewhere",
                path.display(),
                input.display()
            )));
        }
        if let Some((other, _)) = exports[..i]
            .iter()
            .find(|(_, p)| *p != Path::new("-") && same_path(path, p))
        {
            return Err(InvalidInput::usage(format!(
                "{other} and {flag} both write {}; give each its own file",
                path.display()
            )));
        }
    }
    Ok(())
}
