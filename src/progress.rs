//! The progress bar on stderr: bytes of input read, documents per second and an ETA over the total
//! input size. Hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the bar redraws: often enough to look alive, rarely enough to cost nothing.
const PROGRESS_REFRESH: Duration = Duration::from_millis(200);

/// A progress bar over `total` input bytes.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar over `total` bytes; hidden when `quiet` or stderr is not a terminal.
    pub fn new(total: u64, quiet: bool) -> Self {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
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
        };
        Progress { bar }
    }

    /// Sets the bytes done so far and the documents-per-second figure.
    pub fn update(&self, bytes_done: u64, docs: u64) {
        self.bar.set_position(bytes_done);
        let secs = self.bar.elapsed().as_secs_f64();
        if secs > 0.0 {
            self.bar
                .set_message(format!("{docs} docs, {:.0} docs/s", docs as f64 / secs));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
