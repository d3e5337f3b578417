//! Checks proof search against real tables: positions with `--stones`
//! stones, sampled from the full table set in `--tables`, are searched with
//! only the tables up to `--below` stones (symbolic links in a temporary
//! folder), and every proven result and proving move is compared with the
//! full tables' value. Prints the counts; exits non-zero on any mismatch.
//!
//! ```text
//! cargo run --release -p togyz-tb --example search_check -- \
//!     --tables /work/tables8 --below 6 --stones 8 --count 300 --seconds 1
//! ```

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use togyz_tb::raw::format::file_name;
use togyz_tb::raw::index::Layout;
use togyz_tb::search::Budget;
use togyz_tb::search::Solver;
use togyz_tb::terminal_value;
use togyz_tb::Tablebase;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut tables = String::from("tables");
    let (mut below, mut stones, mut count, mut seconds) = (6u32, 8u32, 300usize, 1.0f64);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--tables" => tables = v,
            "--below" => below = v.parse()?,
            "--stones" => stones = v.parse()?,
            "--count" => count = v.parse()?,
            "--seconds" => seconds = v.parse()?,
            _ => return Err(format!("unknown option {flag}").into()),
        }
    }
    let full = Tablebase::open([&tables])?;
    let dir = tempfile::tempdir()?;
    for n in 1..=below {
        let name = file_name(n);
        std::os::unix::fs::symlink(
            std::fs::canonicalize(format!("{tables}/{name}"))?,
            dir.path().join(&name),
        )?;
    }
    let small = Tablebase::open([dir.path()])?;
    let mut solver = Solver::new(&small, Budget::time(Duration::from_secs_f64(seconds)));
    let layout = Layout::new(stones);
    let mut rng = SmallRng::seed_from_u64(u64::from(stones));
    let (mut proven, mut by_value, mut open) = (0, [0usize; 3], 0);
    let mut done = 0;
    while done < count {
        let p = layout
            .slot(rng.random_range(0..layout.positions()))
            .position();
        let p = if rng.random_range(0..2) == 0 {
            p
        } else {
            p.mirrored()
        };
        if terminal_value(&p).is_some() {
            continue;
        }
        done += 1;
        let truth = full.wdl(&p)?;
        let r = solver.solve(&p)?;
        if r.lower > truth || truth > r.upper {
            return Err(format!("{p}: truth {truth} outside [{}, {}]", r.lower, r.upper).into());
        }
        match r.proven() {
            Some(v) => {
                let mv = r.best_move.ok_or(format!("{p}: proven without a move"))?;
                let got = full.wdl(&p.after(mv)?)?.flip();
                if got != v {
                    return Err(format!("{p}: move {mv} gives {got}, proven {v}").into());
                }
                proven += 1;
                by_value[v as usize] += 1;
            }
            None => open += 1,
        }
    }
    let [l, d, w] = by_value;
    println!(
        "{stones} stones over tables up to {below}: {count} positions, {proven} proven \
         ({w} wins, {d} draws, {l} losses), {open} open, no mismatch"
    );
    Ok(())
}
