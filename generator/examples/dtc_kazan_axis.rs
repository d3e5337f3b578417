//! What coding a DTC table's distances along the kazan axis would save:
//! `cargo run --release -p togyz-gen --example dtc_kazan_axis -- <tables> <n>`.
//!
//! The DTC section as format version 1 wrote it (blocks of 32,768 boards,
//! each block's losses board by board, then its wins, one byte an entry,
//! zstd 15) against the same blocks with
//!
//! * **delta**: within each board's run of losses (and of wins), every
//!   entry after the first stored as the zigzag difference from the
//!   neighbouring kazan split's;
//! * **fill 1**: the entries one ply of search recovers (a win in 1 has a
//!   converting move that wins; a loss in 1 has only converting moves)
//!   stored as the entry before them, so a probe that searches one ply
//!   first never reads them, and the runs grow;
//! * **drop 1**: those entries left out altogether (a lower bound: a probe
//!   would have to search every position before its own in the block to
//!   find its entry);
//! * **by distance from the split**: the block's losses ordered by their
//!   distance from the board's draw split (every board's loss next to its
//!   draw, then every board's second, ...), then its wins the same way,
//!   so entries with the same relation to the draw lie together (a probe
//!   finds its entry from the block's splits, which it reads anyway);
//! * **wins only**: the losses left out (one ply over the wins recovers
//!   them), what version 2 writes (less its few bytes of zero padding);
//!
//! and the combinations. Prints bits a position of the level.
use rayon::prelude::*;
use togyz_gen::files::decode::DecodeAll;
use togyz_tb::raw::format::{file_name, TableFile};
use togyz_tb::Value;

/// Boards a DTC block, as written (`KAZAN_AXIS_BLOCK` sets another).
const BLOCK_BOARDS: usize = 32768;
/// zstd level, as written.
const LEVEL: i32 = 15;

/// How the entries of one run (a board's losses or its wins, in kazan
/// order) are stored.
#[derive(Clone, Copy)]
struct Coding {
    delta: bool,
    fill: bool,
    drop: bool,
    by_distance: bool,
    /// The losses left out (one ply over the wins recovers them).
    wins_only: bool,
}

/// The block's losses (`runs[i].0`, kazan order) and wins (`.1`) ordered
/// by their distance from the draw split, a recovered entry (DTC 1) taking
/// the value before it in that order if `fill`.
fn by_distance(runs: &[(Vec<u8>, Vec<u8>)], fill: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let longest = runs
        .iter()
        .map(|(l, w)| l.len().max(w.len()))
        .max()
        .unwrap_or(0);
    for side in 0..2 {
        for t in 0..longest {
            for (l, w) in runs {
                // The t-th entry away from the draw: losses count down
                // from the split, wins up from it.
                let v = if side == 0 {
                    l.len().checked_sub(t + 1).map(|i| l[i])
                } else {
                    w.get(t).copied()
                };
                if let Some(v) = v {
                    let v = match out.last() {
                        Some(&p) if fill && v == 1 => p,
                        _ => v,
                    };
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Appends the run `run` (DTC values) to `out` as `c` codes it.
fn code_run(run: &[u8], c: Coding, out: &mut Vec<u8>) {
    let mut prev: Option<u8> = None;
    for &v in run {
        let recovered = v == 1;
        if recovered && c.drop {
            continue;
        }
        // A recovered entry takes the value before it (or its own if first).
        let v = if recovered && c.fill {
            prev.unwrap_or(v)
        } else {
            v
        };
        let stored = match (c.delta, prev) {
            (true, Some(p)) => {
                let d = v as i16 - p as i16;
                ((d << 1) ^ (d >> 15)) as u8
            }
            _ => v,
        };
        out.push(stored);
        prev = Some(v);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: dtc_kazan_axis <tables> <n>";
    let dir = std::path::PathBuf::from(args.get(1).expect(usage));
    let n: u32 = args.get(2).expect(usage).parse().expect(usage);
    let file = TableFile::open(dir.join(file_name(n))).expect("open");
    let h = file.header().clone();
    let positions = h.positions as f64;
    println!(
        "n={n} ({}): DTC section as written (version 2) {:.4} bits a position",
        h.metric,
        (h.wdl_index_offset - h.distance_data_offset) as f64 * 8.0 / positions
    );
    let values = file.decode_all().expect("decode");
    let k = n as usize + 1;
    let (mut ones, mut decisive) = (0u64, 0u64);
    for &v in &values {
        match Value::unpack(v) {
            Value::Win(d) | Value::Loss(d) => {
                decisive += 1;
                ones += (d == 1) as u64;
            }
            Value::Draw => {}
        }
    }
    println!(
        "  decisive entries {decisive}, of which DTC 1 (one ply recovers): {ones} ({:.1}%)",
        ones as f64 * 100.0 / decisive as f64
    );
    let only: Option<String> = std::env::var("KAZAN_AXIS_ONLY").ok();
    let codings = [
        ("version 1", false, false, false, false),
        ("delta", true, false, false, false),
        ("fill 1", false, true, false, false),
        ("delta + fill 1", true, true, false, false),
        ("drop 1", false, false, true, false),
        ("delta + drop 1", true, false, true, false),
        ("by distance", false, false, false, true),
        ("by distance + fill 1", false, true, false, true),
        ("wins only", false, false, false, false),
    ];
    let block_boards: usize = std::env::var("KAZAN_AXIS_BLOCK")
        .ok()
        .map_or(BLOCK_BOARDS, |b| b.parse().expect("KAZAN_AXIS_BLOCK"));
    for (name, delta, fill, drop, by_dist) in codings {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|x| x == name))
        {
            continue;
        }
        let c = Coding {
            delta,
            fill,
            drop,
            by_distance: by_dist,
            wins_only: name == "wins only",
        };
        let bytes: u64 = values
            .par_chunks(block_boards * k)
            .map(|block| {
                let (mut losses, mut wins) = (Vec::new(), Vec::new());
                let mut runs = Vec::new();
                for board in block.chunks(k) {
                    let dtc =
                        |v: &u16| Value::unpack(*v).distance().map_or(0, |d| d.min(255) as u8);
                    let s = board
                        .iter()
                        .position(|&v| Value::unpack(v) == Value::Draw)
                        .expect("one draw a board");
                    let l: Vec<u8> = board[..s].iter().map(dtc).collect();
                    let w: Vec<u8> = board[s + 1..].iter().map(dtc).collect();
                    if c.by_distance {
                        runs.push((l, w));
                        continue;
                    }
                    if !c.wins_only {
                        code_run(&l, c, &mut losses);
                    }
                    code_run(&w, c, &mut wins);
                }
                if c.by_distance {
                    losses = by_distance(&runs, c.fill);
                }
                losses.extend(wins);
                zstd::bulk::compress(&losses, LEVEL).expect("zstd").len() as u64
            })
            .sum();
        println!(
            "  {name:>15}: {:.4} bits a position",
            bytes as f64 * 8.0 / positions
        );
    }
}
