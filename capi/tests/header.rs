//! The committed header `include/togyz_tb.h` is what cbindgen makes of
//! `src/` today. Regenerate it with
//! `TOGYZ_BLESS=1 cargo test -p togyz-tb-capi --test header`.

use std::path::Path;

#[test]
fn header_is_up_to_date() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("capi/cbindgen.toml reads");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads capi/src/");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("the header is UTF-8");
    let path = crate_dir.join("include/togyz_tb.h");
    if std::env::var_os("TOGYZ_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).expect("the header writes");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale (the C ABI in capi/src/ changed): regenerate it with\n    \
         TOGYZ_BLESS=1 cargo test -p togyz-tb-capi --test header\nand commit it",
        path.display()
    );
}
