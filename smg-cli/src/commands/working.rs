//! What long work shows on stderr: a spinner when it reports no steps, a bar when it
//! does. Drawn only when stderr is a terminal (scripts and pipes see nothing); cleared
//! when dropped.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use smg_engine::ingest::Progress;

pub(super) struct Working(ProgressBar);

impl Working {
    /// A spinner saying `message` (a 100 MB delta or a large curation takes seconds).
    pub(super) fn new(message: String) -> Self {
        let bar = Self::drawn(ProgressBar::new_spinner());
        bar.set_message(message);
        bar.enable_steady_tick(Duration::from_millis(120));
        Working(bar)
    }

    /// A bar whose length and position [`Working::set`] gives.
    pub(super) fn bar() -> Self {
        Working(Self::drawn(ProgressBar::new(0)))
    }

    pub(super) fn set(&self, done: usize, total: usize) {
        self.0.set_length(total as u64);
        self.0.set_position(done as u64);
    }

    fn drawn(bar: ProgressBar) -> ProgressBar {
        if std::io::stderr().is_terminal() {
            bar
        } else {
            ProgressBar::hidden()
        }
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal and not `--quiet`.
pub(super) struct Bar(ProgressBar);

impl Bar {
    pub(super) fn new(quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        bar.set_style(
            ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Bar(bar)
    }

    pub(super) fn done(&self) {
        self.0.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, stage: &str, total: u64) {
        self.0.set_message(stage.to_string());
        self.0.set_length(total);
        self.0.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}
