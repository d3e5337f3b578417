//! The progress bar shared by the long-running commands.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar over `len` positions labelled `prefix` (e.g. `"verify  8"`), or a
/// hidden one when `show` is false. indicatif draws nothing when standard
/// error is not a terminal, so logs stay clean.
pub fn positions_bar(len: u64, prefix: String, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions, {per_sec}, eta {eta}",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    bar.set_prefix(prefix);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
