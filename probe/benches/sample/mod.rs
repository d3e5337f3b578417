//! Fixed random live positions of one table, shared by the probe bench and
//! the backend measurement (`probe/examples/backends.rs`).

use togyz_probe::raw::index::Layout;
use togyz_probe::tablebase::terminal_value;
use togyz_probe::Position;

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
