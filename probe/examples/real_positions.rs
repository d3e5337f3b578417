//! Samples positions of real games by band of stones on the board, for the
//! proof-search measurements (`bench/search-real/run.sh`).
//!
//! Every game of a record file (PlayOK's text format) is replayed; from
//! each game at most `--per-game` (2) live positions are drawn at random in
//! each band it passes through (so a long game weighs little more than a
//! short one), and then `--per-band` of those are drawn per band. Games that do not replay are
//! skipped and counted on stderr. The list depends only on the file and
//! `--seed`; it is written one FEN a line, band by band, for
//! `search_measure --fens`.
//!
//! ```text
//! cargo run --release -p togyz-tb --example real_positions -- \
//!     --games ../shared/games/real-games-1000.txt --bands 15-44 --per-band 300 > real.fens
//! ```
//!
//! `--pairs PAIRS` (as `togyz-gen --wdl-pairs` names them: `3-6,4-6`)
//! prints only the sampled positions whose two tuzdyks stand in one of
//! those pairs, the sample itself unchanged.
//!
//! `--last` writes instead, for every game that replays, the two positions
//! that decide whether `togyz-probe annotate` settles a live position of
//! it: the position before the last move and the final one, a line each
//! as `GAME<TAB>before|final<TAB>FEN` (`GAME` counts records from 0, as
//! `bench/search-real/annotate-games.py` does). annotate walks from the end
//! backwards and counts only an unbroken run of evaluated positions, so a
//! game settles a live position exactly when both evaluate (a finished
//! game's final position always does).

use std::collections::BTreeMap;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use togyz_tb::record::parse_records;
use togyz_tb::{terminal_value, Position, Side, TuzdykPairs};

struct Args {
    games: String,
    low: u32,
    high: u32,
    width: u32,
    per_band: usize,
    per_game: usize,
    seed: u64,
    last: bool,
    /// Print only the sampled positions whose tuzdyks stand in these.
    pairs: Option<TuzdykPairs>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        games: String::new(),
        low: 15,
        high: 44,
        width: 5,
        per_band: 300,
        per_game: 2,
        seed: 1,
        last: false,
        pairs: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--last" {
            a.last = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |_: std::num::ParseIntError| format!("bad value for {flag}: {value}");
        match flag.as_str() {
            "--games" => a.games = value,
            "--bands" => {
                let (l, h) = value
                    .split_once('-')
                    .ok_or(format!("bad --bands {value}"))?;
                a.low = l.parse().map_err(bad)?;
                a.high = h.parse().map_err(bad)?;
            }
            "--width" => a.width = value.parse().map_err(bad)?,
            "--per-band" => a.per_band = value.parse().map_err(bad)?,
            "--per-game" => a.per_game = value.parse().map_err(bad)?,
            "--seed" => a.seed = value.parse().map_err(bad)?,
            "--pairs" => {
                let pairs = value
                    .parse()
                    .map_err(|e| format!("bad --pairs {value}: {e}"))?;
                a.pairs = Some(pairs);
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if a.games.is_empty() || a.width == 0 || a.low > a.high {
        return Err(
            "usage: real_positions --games FILE [--bands 15-44] [--width 5] [--per-band 300] [--per-game 2] [--seed 1] [--pairs 1-6,4-7] [--last]"
                .into(),
        );
    }
    Ok(a)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = parse_args()?;
    let text = std::fs::read_to_string(&a.games)?;
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut bands: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let (mut games, mut skipped) = (0, 0);
    for (index, record) in parse_records(&text).into_iter().enumerate() {
        let Ok(replay) = record
            .map_err(|_| ())
            .and_then(|r| r.replay().map_err(|_| ()))
        else {
            skipped += 1;
            continue;
        };
        games += 1;
        if a.last {
            if let [.., before, last] = replay.positions.as_slice() {
                println!("{index}\tbefore\t{}", before.fen());
                println!("{index}\tfinal\t{}", last.fen());
            }
            continue;
        }
        let mut in_band: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for pos in &replay.positions {
            let n = pos.stones_on_board();
            if (a.low..=a.high).contains(&n) && terminal_value(pos).is_none() {
                let band = a.low + (n - a.low) / a.width * a.width;
                in_band.entry(band).or_default().push(pos.fen());
            }
        }
        for (band, mut fens) in in_band {
            let list = bands.entry(band).or_default();
            for _ in 0..a.per_game.min(fens.len()) {
                let pick = rng.random_range(0..fens.len() as u64) as usize;
                list.push(fens.swap_remove(pick));
            }
        }
    }
    for (band, mut fens) in bands {
        // A seeded partial shuffle: the first `per_band` are the sample.
        let take = a.per_band.min(fens.len());
        for i in 0..take {
            let j = i + rng.random_range(0..(fens.len() - i) as u64) as usize;
            fens.swap(i, j);
        }
        eprintln!(
            "band {band}-{}: {} positions drawn from the games, {take} taken",
            band + a.width - 1,
            fens.len()
        );
        for fen in &fens[..take] {
            if a.pairs.is_none_or(|p| in_pairs(fen, p)) {
                println!("{fen}");
            }
        }
    }
    eprintln!("{games} games replayed, {skipped} skipped");
    Ok(())
}

/// Whether both tuzdyks of the position `fen` stand in one of `pairs`.
fn in_pairs(fen: &str, pairs: TuzdykPairs) -> bool {
    let pos: Position = fen.parse().expect("a FEN the position wrote");
    let both = pos.tuzdyk(Side::South).zip(pos.tuzdyk(Side::North));
    both.and_then(|(a, b)| TuzdykPairs::bit(a - 1, b - 1))
        .is_some_and(|bit| pairs.mask() & (1 << bit) != 0)
}
