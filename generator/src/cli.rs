//! The command line over the library: clap's arguments turned into the
//! library's options, and what a run reports printed (lines on standard
//! output, warnings on standard error, progress bars).

pub mod generate;
pub mod plan;
pub mod reblock;
pub mod stats;
pub mod verify;

use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write as _;
use std::sync::Mutex;
use std::time::Duration;
use togyz_answer::text::{stones, thousands};
use togyz_gen::event::{DamagedUnit, Event};
use togyz_tb::Metric;

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

/// Parses `--threads`: a whole number of at least 1.
pub fn threads_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave --threads out for one per core)".into()),
        Ok(t) => Ok(t),
        Err(_) => Err(format!("`{s}` is not a number of threads")),
    }
}

/// Parses `--metric`: `dtm` or `dtc`.
pub fn metric_arg(s: &str) -> Result<Metric, String> {
    match s.to_ascii_lowercase().as_str() {
        "dtm" => Ok(Metric::Dtm),
        "dtc" => Ok(Metric::Dtc),
        _ => Err(format!(
            "`{s}` is not a metric: dtm (distance to the end) or dtc (distance to conversion)"
        )),
    }
}

/// Prints a run's events; draws the bar of a level's first batch of units
/// unless `quiet`.
pub struct Printer {
    quiet: bool,
    /// The first failure to write a line that must not be lost.
    failed: Mutex<Option<std::io::Error>>,
    bar: Mutex<Option<ProgressBar>>,
}

impl Printer {
    /// A printer that draws no bars when `quiet`.
    pub fn new(quiet: bool) -> Printer {
        Printer {
            quiet,
            failed: Mutex::new(None),
            bar: Mutex::new(None),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new bar of `len` positions labelled `prefix` in place of the
    /// last, drawn if `show` and not quiet (else no bar).
    fn start_bar(&self, show: bool, len: u64, prefix: String) {
        *self.bar() = (show && !self.quiet).then(|| positions_bar(len, prefix, true));
    }

    /// Prints `event` (or starts, moves or ends its bar: one at a time).
    pub fn event(&self, event: Event<'_>) {
        match event {
            Event::Removed { path } => {
                say!("removed {}, left by an interrupted run", path.display())
            }
            Event::Planned { line } => say!("{line}"),
            Event::Kept {
                stones: n,
                table,
                path,
            } => say!("{:>9}: {table} found in {}, kept", stones(n), path.display()),
            Event::UnitsResumed {
                stones: n,
                resumed,
                units,
                dir,
            } => say!(
                "{:>9}: {resumed} of {units} units already solved in {}, kept",
                stones(n),
                dir.display()
            ),
            Event::ChecksResumed {
                stones: n,
                resumed,
                units,
                path,
            } => say!(
                "{:>9}: {resumed} of {units} units already checked ({}), kept",
                stones(n),
                path.display()
            ),
            Event::NoJournal { path, error } => warn!(
                "cannot keep the journal {} ({error}): an interrupted check will start its level again",
                path.display()
            ),
            Event::UnitsStarted {
                stones: n,
                positions,
                first,
            } => self.start_bar(first && positions > 0, positions, stones(n)),
            Event::Checking {
                stones: n,
                positions,
            } => self.start_bar(true, positions, format!("verify {n:2}")),
            Event::Counting {
                stones: n,
                positions,
            } => self.start_bar(true, positions, format!("stats {n:2}")),
            Event::UnitsProgress { solved: done, .. }
            | Event::CheckProgress { checked: done, .. }
            | Event::CountProgress { counted: done, .. } => {
                if let Some(bar) = self.bar().as_ref() {
                    bar.set_position(done);
                }
            }
            Event::UnitsEnded { .. } | Event::Checked { .. } | Event::Counted { .. } => {
                if let Some(bar) = self.bar().take() {
                    bar.finish_and_clear();
                }
            }
            Event::UnitsSolved {
                stones: n,
                positions,
                units,
                seconds,
                dir,
            } => say!(
                "{:>9}: {positions} positions in {units} units solved in {seconds:.1}s into {}",
                stones(n),
                dir.display()
            ),
            Event::MoreUnitsSolved {
                stones: n,
                positions,
                units,
            } => say!(
                "{:>9}: {positions} positions in {units} more units solved",
                stones(n)
            ),
            Event::Waiting {
                stones: n,
                missing,
                units,
                path,
                waited,
                timeout,
            } => say!(
                "{:>9}: waiting for the other shards: {missing} of {units} units unsolved, {} not yet written (waited {waited:.0} s, giving up after {timeout} s)",
                stones(n),
                path.display()
            ),
            Event::Assembled {
                stones: n,
                seconds,
                path,
                bytes,
                positions,
            } => say!(
                "{:>9}: table assembled in {seconds:.1}s: {} ({bytes} bytes, {:.2} bits/position)",
                stones(n),
                path.display(),
                bytes as f64 * 8.0 / positions as f64
            ),
            Event::Damaged {
                path,
                reason,
                action,
            } => {
                let done = match action {
                    DamagedUnit::Removed => "removed, the unit is solved again",
                    DamagedUnit::Replaced => "replaced by the unit just solved",
                    DamagedUnit::Left => "`togyz-gen generate` solves the unit again",
                };
                warn!("{}: damaged unit file ({reason}): {done}", path.display())
            }
            Event::NotAssembled {
                stones: n,
                missing,
                units,
                dir,
            } => say!(
                "{:>9}: {missing} of {units} units not solved yet in {}, not assembled",
                stones(n),
                dir.display()
            ),
            Event::AssembledElsewhere { stones: n, holder } => say!(
                "{:>9}: being assembled by another run ({holder}), not assembled here",
                stones(n)
            ),
            Event::NothingToAssemble { out } => {
                say!("nothing to assemble in {}", out.display())
            }
            Event::Verified {
                stones: n,
                positions,
                seconds,
                path,
            } => {
                let written = writeln!(
                    std::io::stdout().lock(),
                    "{:>9}: {:>13} positions ok in {:7.2} s ({} positions/s), {}",
                    stones(n),
                    thousands(positions),
                    seconds,
                    thousands((positions as f64 / seconds.max(1e-9)) as u64),
                    path.display(),
                );
                if let Err(e) = written {
                    self.failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                }
            }
        }
    }

    /// The first failure to write a line that must not be lost (a
    /// `verify` line), if any.
    pub fn failed(self) -> Option<std::io::Error> {
        self.failed.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}
