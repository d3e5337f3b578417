//! The command line over the library: clap's arguments turned into the
//! library's options, and what a run reports printed (lines on standard
//! output, warnings on standard error, progress bars).

pub mod generate;
