//! A progress bar of bytes read, shown only when stderr is a terminal and the input
//! is large enough to take a while; never in pipes or CI logs.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Below this many bytes reading takes well under a second: no bar.
const MIN_BYTES: u64 = 256 << 20;

/// Set by [`hide`]: no bar in this process (a library caller's, src/python.rs).
static HIDDEN: AtomicBool = AtomicBool::new(false);

/// Never show a bar in this process from now on.
pub fn hide() {
    HIDDEN.store(true, Ordering::Relaxed);
}

pub struct Bytes {
    bar: Option<ProgressBar>,
}

impl Bytes {
    pub fn new(paths: &[&std::path::Path]) -> Self {
        let total: u64 = paths
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        let show = !HIDDEN.load(Ordering::Relaxed)
            && total >= MIN_BYTES
            && std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none();
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("reading runs {bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Self { bar }
    }

    pub fn inc(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `record`'s bar: queries done, their rate and the time left; only on a terminal,
/// never under `--quiet` or in CI.
pub struct Queries {
    bar: Option<ProgressBar>,
}

impl Queries {
    pub fn new(total: u64, quiet: bool) -> Self {
        let show = !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "recording {bar:40} {pos}/{len} queries {per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Self { bar }
    }

    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
