//! The Python module `ragdiff._native` (cargo feature `python`; maturin builds it
//! from pyproject.toml). `python/ragdiff/__init__.py` wraps it; the user's
//! documentation is docs/guide.md, "Python".
//!
//! The library calls (`report`, `write_run`) install no signal handler, never end the
//! process, show no progress bar and print nothing: they run on a thread of their own
//! with the GIL released, while the caller's thread checks Python's signals
//! (`check_signals`), so Ctrl-C raises `KeyboardInterrupt`. `run_cli` is the `ragdiff`
//! command itself (the console script): it handles signals as the binary does.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::app::write_run::NewRun;
use crate::exit::Refused;
use crate::validate::InvalidInput;

/// How often a waiting call looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// What a library call returns to `__init__.py`: `(kind, text, problems)`, kind `ok`
/// (text: the result), `invalid` (exit 2's problems, as the command prints them),
/// `refused` (exit 3's differences) or `error`.
type Outcome = (String, String, Vec<String>);

/// Run `work` on its own thread with the GIL released, checking Python's signals
/// meanwhile. On `KeyboardInterrupt` the call returns at once; the work goes on to
/// its end on its thread, and its result is dropped (a write already started
/// completes, atomically).
fn detached<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("ragdiff".into())
        .spawn(move || {
            let _ = tx.send(work());
        })?;
    // A Receiver is not Sync: the closure below borrows it through a Mutex.
    let rx = std::sync::Mutex::new(rx);
    let wait = || {
        rx.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv_timeout(POLL)
    };
    loop {
        match py.detach(wait) {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "ragdiff: internal error (a panic; see stderr)",
                ));
            }
        }
    }
}

/// The lines under an error's first line, as the command prints them.
fn listed(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| l.strip_prefix("  ").unwrap_or(l).to_string())
        .collect()
}

fn outcome(err: &anyhow::Error) -> Outcome {
    if let Some(invalid) = err.chain().find_map(|e| e.downcast_ref::<InvalidInput>()) {
        let text = invalid.to_string();
        let first = text.lines().next().unwrap_or_default().to_string();
        return ("invalid".into(), first, listed(&text));
    }
    if let Some(refused) = err.chain().find_map(|e| e.downcast_ref::<Refused>()) {
        return (
            "refused".into(),
            format!("refusing {}", refused.what),
            refused.differences.clone(),
        );
    }
    if let Some(usage) = err.chain().find_map(|e| e.downcast_ref::<clap::Error>()) {
        let text = usage.render().to_string();
        let first = text.lines().next().unwrap_or_default().to_string();
        return ("invalid".into(), first.clone(), vec![first]);
    }
    ("error".into(), format!("{err:#}"), Vec::new())
}

/// The `eval` or `compare` command line given (`["ragdiff", "compare", …]`), run
/// as a library call: `("ok", json, [])` with the report as `--format json` prints it.
#[pyfunction]
fn report(py: Python<'_>, argv: Vec<OsString>) -> PyResult<Outcome> {
    detached(py, move || match crate::app::report_json(argv) {
        Ok(json) => ("ok".into(), json, Vec::new()),
        Err(err) => outcome(&err),
    })
}

/// Write a results file and its manifest (see `ragdiff.write_run`): per query its
/// doc ids in rank order, and their scores (all or none).
#[pyfunction]
#[pyo3(signature = (manifest, results, queries, docs, scores, index_version, corpus, depth, filters))]
#[allow(clippy::too_many_arguments)]
fn write_run(
    py: Python<'_>,
    manifest: PathBuf,
    results: PathBuf,
    queries: Vec<String>,
    docs: Vec<Vec<String>>,
    scores: Option<Vec<Vec<f64>>>,
    index_version: String,
    corpus: String,
    depth: Option<u32>,
    filters: BTreeMap<String, String>,
) -> PyResult<Outcome> {
    let run = NewRun {
        manifest,
        results,
        queries,
        docs,
        scores,
        index_version,
        corpus,
        depth,
        filters,
    };
    detached(py, move || match crate::app::write_run::write_run(&run) {
        Ok(()) => ("ok".into(), run.manifest.display().to_string(), Vec::new()),
        Err(invalid) => outcome(&invalid.into()),
    })
}

/// The `ragdiff` command (the console script's entry point): `argv` as `sys.argv`;
/// returns the exit code. It handles signals as the binary does (an interrupted run
/// removes its temporary files and ends the process with 128 + the signal), so it is
/// for the command only, never for a library caller.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(move || {
        let code = crate::app::main(argv);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    })
}

/// The native half of the `ragdiff` package; use the functions of `ragdiff` itself.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(write_run, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("GATE_KEYS", crate::load::policy::GATE_KEYS)?;
    m.add("COMPARE_KEYS", crate::load::policy::COMPARE_KEYS)?;
    m.add("RECORD_KEYS", crate::load::policy::RECORD_KEYS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
