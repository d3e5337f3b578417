//! Fixed random live positions of one table, and the tables to probe them
//! in, shared by the probe bench, the backend measurement
//! (`probe/examples/backends.rs`) and the C ABI bench (`capi/benches/wdl.rs`).

#![allow(dead_code)] // each user takes part of it

use std::path::PathBuf;

use togyz_tb::raw::index::Layout;
use togyz_tb::Position;
use togyz_tb::{terminal_value, Tablebase};

/// splitmix64.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `count` random live positions with `n` stones, half with North to move.
pub fn positions(n: u32, count: usize) -> Vec<Position> {
    let layout = Layout::new(n);
    let mut out = Vec::with_capacity(count);
    let mut i = 0u64;
    while out.len() < count {
        i += 1;
        let r = mix(i);
        let p = layout.slot(r % layout.positions()).position();
        if terminal_value(&p).is_some() {
            continue;
        }
        out.push(if r >> 63 == 1 { p.mirrored() } else { p });
    }
    out
}

/// The tables folder, the stone count benchmarked, and a temporary folder
/// to keep alive if the tables had to be made.
pub fn tables() -> (PathBuf, u32, Option<tempfile::TempDir>) {
    let dir = std::env::var_os("TOGYZ_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables"));
    if let Ok(tb) = Tablebase::open([&dir]) {
        let n = tb.complete_up_to();
        if n > 0 {
            eprintln!("probing the {n}-stone table in {}", dir.display());
            return (dir, n, None);
        }
    }
    let tmp = togyz_gen::fixture::dtm_tables(5);
    eprintln!(
        "no tables in {}: probing a 5-stone table solved into {}",
        dir.display(),
        tmp.path().display()
    );
    (tmp.path().to_path_buf(), 5, Some(tmp))
}
