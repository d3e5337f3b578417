//! # togyz-gen
//!
//! The heavy half of togyz-tb: retrograde analysis of every position with up
//! to N stones on the board ([`retro`]), compression and atomic writing of the
//! tables ([`write`](mod@write)), the `generate` driver with progress and resuming
//! ([`generate`]), an independent verification pass over written tables
//! ([`verify`]) and endgame statistics ([`stats`]).

/// `println!` that never panics: when standard output is closed or fails
/// (`togyz-gen generate | head -1`), the line is lost and the work goes on
/// (`println!` would panic on the closed pipe).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!("warning: ...")` that never panics (see `say!`).
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "warning: {}", format_args!($($arg)*));
    }};
}

pub mod decode;
pub mod decode_dtc;
pub mod dtc;
pub mod generate;
pub mod generate_dtc;
pub mod lock;
pub mod lower;
pub mod lower_wdl;
pub mod plan;
pub mod progress;
pub mod retro;
pub mod score;
pub mod stats;
pub mod verify;
pub mod verify_dtc;
pub mod work;
pub mod write;
pub mod write_dtc;
