//! Every catchable signal whose default action ends the process ([`FATAL`]: SIGINT,
//! SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE sent with `kill`, SIGALRM, …):
//! remove every temporary export file, then exit 128 + the signal's number (130 after
//! SIGINT, 143 after SIGTERM), as shells report a process the signal ended. An interrupted run leaves no temporary file and no mixed set of
//! exports.
//!
//! The signals are blocked in every thread from the start of `main` and taken by one
//! thread that waits for them (`sigwait`), so the cleanup is ordinary code, not a signal
//! handler. That thread acts only while it holds the lock [`hold`] returns; writers hold
//! it to create and register a temporary file (so none exists unregistered) and across
//! the renames that put a set of exports in place (so a set is all old or all new). A
//! signal that arrives inside such a step takes effect right after it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
#[cfg(feature = "test-hooks")]
use std::time::{Duration, Instant};

use nix::sys::signal::{SigSet, Signal};

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Process groups a signal ends too: `record`'s retriever (docs/contract.md §4.8).
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// End `group` (SIGTERM) if a fatal signal arrives before [`forget_group`].
pub fn end_group_on_signal(group: i32) {
    GROUPS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(group);
}

/// `group` was ended by its owner.
pub fn forget_group(group: i32) {
    GROUPS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|g| *g != group);
}

/// SIGTERM to every registered group, just before the process exits.
fn end_groups() {
    let groups = GROUPS.lock().unwrap_or_else(PoisonError::into_inner);
    for &g in groups.iter() {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(g), Signal::SIGTERM);
    }
}

/// `record` is asking (docs/contract.md §4.8): a signal first stops new requests and
/// waits up to [`DRAIN`] for those in flight.
static ASKING: AtomicBool = AtomicBool::new(false);
/// A signal arrived while asking: send no new request.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// Requests sent and not yet answered.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// How long a signal waits for the requests in flight.
pub const DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// `record` starts (`true`) or ends (`false`) asking.
pub fn asking(on: bool) {
    ASKING.store(on, Ordering::SeqCst);
}

/// Whether a signal asked to stop sending requests.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// How many requests are in flight now.
pub fn in_flight(n: usize) {
    IN_FLIGHT.store(n, Ordering::SeqCst);
}

/// One request more (`+1`) or fewer in flight, for askers on many threads.
pub fn in_flight_add(up: bool) {
    if up {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    } else {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// While `record` asks: stop new requests and wait up to [`DRAIN`] for the answers
/// in flight (they are dropped: nothing is written after a signal).
fn drain() {
    if !ASKING.load(Ordering::SeqCst) {
        return;
    }
    STOPPING.store(true, Ordering::SeqCst);
    let deadline = std::time::Instant::now() + DRAIN;
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The number of the signal received, 0 before any.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// The catchable signals whose default action ends the process. SIGKILL and SIGSTOP
/// cannot be caught; SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and SIGABRT are raised by
/// the faulting thread itself and are left to their default. A SIGPIPE from a write to
/// a closed pipe is directed at the writing thread, so it stays pending there (the
/// write fails with `EPIPE`, which is not an error: docs/contract.md §9.1); only a
/// SIGPIPE sent to the process (`kill -PIPE`) reaches the signal thread.
pub const FATAL: [Signal; 12] = [
    Signal::SIGHUP,
    Signal::SIGINT,
    Signal::SIGQUIT,
    Signal::SIGUSR1,
    Signal::SIGUSR2,
    Signal::SIGPIPE,
    Signal::SIGALRM,
    Signal::SIGTERM,
    Signal::SIGXCPU,
    Signal::SIGXFSZ,
    Signal::SIGVTALRM,
    Signal::SIGPROF,
];

/// Block the signals and start the thread that takes them. Call first in `main`,
/// before any other thread exists (threads inherit the blocked set).
pub fn install() {
    let mut set = SigSet::empty();
    for signal in FATAL {
        set.add(signal);
    }
    if set.thread_block().is_err() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            loop {
                let Ok(signal) = set.wait() else { continue };
                RECEIVED.store(signal as i32, Ordering::SeqCst);
                drain();
                // Waits for a step in progress to finish; never released.
                let pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
                for path in pending.iter() {
                    let _ = std::fs::remove_file(path);
                }
                end_groups();
                // `_exit`: no other thread runs on after the cleanup and nothing
                // half-written is flushed.
                // SAFETY: `_exit` ends the process at once; it has no preconditions.
                unsafe { nix::libc::_exit(crate::exit::signalled(signal as i32)) }
            }
        });
    if spawned.is_err() {
        // Without the thread, the default action (end the process) is better than
        // signals that are never taken.
        let _ = set.thread_unblock();
    }
}

/// The lock of one step that an interruption must not split (see the module doc).
pub struct Guard(MutexGuard<'static, Vec<PathBuf>>);

/// Take the lock; an interruption waits until the guard is dropped.
pub fn hold() -> Guard {
    Guard(PENDING.lock().unwrap_or_else(PoisonError::into_inner))
}

impl Guard {
    /// A temporary file that must not outlive an interruption.
    pub fn register(&mut self, path: &Path) {
        self.0.push(path.to_path_buf());
    }

    /// The temporary file was renamed into place or removed.
    pub fn unregister(&mut self, path: &Path) {
        self.0.retain(|p| p != path);
    }
}

impl Drop for Guard {
    /// A signal that arrived during the step takes effect here, while the lock is
    /// still held: the step's own thread cleans up and exits, so the run cannot go on
    /// to finish (and exit with the gate's code) before the signal thread gets the
    /// lock.
    fn drop(&mut self) {
        let signal = RECEIVED.load(Ordering::SeqCst);
        if signal != 0 {
            for path in self.0.iter() {
                let _ = std::fs::remove_file(path);
            }
            end_groups();
            // SAFETY: `_exit` ends the process at once; it has no preconditions.
            unsafe { nix::libc::_exit(crate::exit::signalled(signal)) }
        }
    }
}

/// Test hook: with `RAGDIFF_TEST_PAUSE_AT=<point>`, write `ragdiff: paused at <point>`
/// to stderr at that point and wait for a signal, so a test can interrupt the run at
/// a known step. Inside a held step (`resume`), the run goes on once the signal has
/// arrived (the signal takes effect when the step ends); outside one it waits for the
/// signal's cleanup to end the process. At most 60 seconds either way. Compiled only
/// with the cargo feature `test-hooks` (`.ci/run` tests with it); without it this does
/// nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn pause_at(_point: &str, _resume: bool) {}

/// See the other `pause_at`: this one is compiled with the feature `test-hooks`.
#[cfg(feature = "test-hooks")]
pub fn pause_at(point: &str, resume: bool) {
    if std::env::var_os("RAGDIFF_TEST_PAUSE_AT").is_none_or(|v| v != point) {
        return;
    }
    crate::text::eprintln(&format!("ragdiff: paused at {point}"));
    // `RAGDIFF_TEST_RESUME_FILE`: the run also goes on once that file exists (a test
    // changes an input while the run waits, then creates it).
    let resume_file = std::env::var_os("RAGDIFF_TEST_RESUME_FILE").map(std::path::PathBuf::from);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if resume_file.as_ref().is_some_and(|f| f.exists()) {
            return;
        }
        if resume && RECEIVED.load(Ordering::SeqCst) != 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
