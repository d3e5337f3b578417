//! `cargo run -p togyz-probe` lands here: the package `togyz-probe` is the
//! library, and the `togyz-probe` program lives in the package `togyz-cli`
//! (two packages of one workspace cannot share a name). Rather than Cargo's
//! "a bin target must be available", the user gets the command to type.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shown: Vec<String> = args.iter().map(|a| quote(a)).collect();
    let rest = if shown.is_empty() {
        String::new()
    } else {
        format!(" {}", shown.join(" "))
    };
    eprintln!(
        "error: the package togyz-probe is the library; the togyz-probe program is in the package togyz-cli:\n\
         \n    cargo run --release -p togyz-cli --{rest}\n\
         \nor install it once with `cargo install --path cli` and run `togyz-probe{rest}`."
    );
    ExitCode::from(2)
}

/// `arg` as a shell word: quoted when it holds anything but plain
/// characters.
fn quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}
