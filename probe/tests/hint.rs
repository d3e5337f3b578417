//! `cargo run -p togyz-probe` answers with the command that runs the
//! program of that name, arguments kept (issue 28: the natural command
//! failed with "a bin target must be available").

use std::process::Command;

#[test]
fn the_library_package_names_the_program_package() {
    let out = Command::new(env!("CARGO_BIN_EXE_togyz-probe-hint"))
        .args(["query", "7,2S,1/8,2S 79 79 S 1", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("cargo run --release -p togyz-cli -- query '7,2S,1/8,2S 79 79 S 1' --json"),
        "{err}"
    );
    assert!(err.contains("cargo install --path cli"), "{err}");
    assert!(out.stdout.is_empty());
}
