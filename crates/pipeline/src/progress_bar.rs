//! The command line's progress bar on stderr: bytes of input read, documents per second and an ETA over the total
//! input size. Hidden when stderr is not a terminal or with `--quiet`. It is the library's
//! progress hook ([`crate::run::Progress`]): the run says when reading starts.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the bar redraws: often enough to look alive, rarely enough to cost nothing.
const PROGRESS_REFRESH: Duration = Duration::from_millis(200);

/// A progress bar over input bytes, drawn from the first [`start`](Self::start).
pub struct TerminalProgress {
    bar: OnceLock<ProgressBar>,
    quiet: bool,
}

impl TerminalProgress {
    /// A bar not yet drawn; hidden when `quiet` or stderr is not a terminal.
    pub fn hidden_if(quiet: bool) -> Self {
        TerminalProgress {
            bar: OnceLock::new(),
            quiet,
        }
    }

    fn make(&self, total: u64) -> ProgressBar {
        if self.quiet || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, ETA {eta}) {msg}",
            )
            .expect("the template is a constant")
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(PROGRESS_REFRESH);
        bar
    }
}

impl crate::run::Progress for TerminalProgress {
    fn start(&self, total: u64) {
        self.bar.get_or_init(|| self.make(total));
    }

    /// Sets the bytes done so far and the documents-per-second figure.
    fn update(&self, bytes_done: u64, docs: u64) {
        let Some(bar) = self.bar.get() else { return };
        bar.set_position(bytes_done);
        let secs = bar.elapsed().as_secs_f64();
        if secs > 0.0 {
            bar.set_message(format!("{docs} docs, {:.0} docs/s", docs as f64 / secs));
        }
    }

    /// Removes the bar.
    fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}
