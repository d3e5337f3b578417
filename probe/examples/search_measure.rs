//! Measures how many positions above the tables the proof search settles.
//!
//! Positions come from self-play: a two-ply greedy player (it takes the
//! move that gains most after the opponent's best immediate reply, with a
//! few random moves early so the games differ) plays complete games, and
//! the first position of each game at each stone count in the range is
//! kept, until there are `--per-count` per count. The list depends only on
//! `--seed`. Each position is then solved with the given tables and time
//! limit, one at a time, and one CSV line is appended per position (the FEN last, quoted); a run
//! that is interrupted and started again with the same arguments skips the
//! positions already in the file. A summary per stone count goes to stdout.
//!
//! ```text
//! cargo run --release -p togyz-tb --example search_measure -- \
//!     --tables /work/tables8 --stones 12-16 --per-count 100 --seconds 2 --out m.csv
//! ```
//!
//! `--tables` given again reads several folders in order (as
//! `togyz-probe --tables`: a game's tuzdyk pairs' tables beside the
//! complete ones). `--provers dfs,dfpn,graph` picks the provers (the default: those
//! `Budget::default()` runs, as `togyz-probe query` does),
//! `--dfpn-threads N` the threads of df-pn (1: both questions in turn),
//! `--graph N` the positions the retrograde solve may enumerate,
//! `--tt ENTRIES` the transposition-table size, `--nodes N` replaces the
//! time limit by a node limit per prover (reproducible on a busy machine;
//! the CSV's limit column then still shows `--seconds`, so give each node
//! budget its own file). `--fens FILE` measures the positions listed in
//! FILE (one FEN a line) instead of sampling; `--fens -` reads them from
//! standard input one at a time and also prints each position's line to
//! standard output as soon as it is searched (so a driver can ask one after
//! another; no summary, and a position in the file already is searched
//! again). `--keep-solver` searches every position with one solver, as
//! `togyz-probe annotate` and an engine keep one, instead of a fresh
//! one each. `--reuse` copies the line of
//! a position proven under a smaller limit in the file instead of solving it
//! again (a search with a longer deadline runs the same until the shorter
//! one), so a 10 s run only searches what 2 s left open. `--pause-file
//! PATH` waits before each position while PATH exists, so a long run can
//! be held (for a build on the same cores) without measuring a position
//! on a busy machine. `--memory BYTES` (`64M`) sizes the tables and the
//! graph with `Budget::with_memory` after the other options (give each
//! bound its own file). `--cache BYTES` sizes the tables' block cache
//! (default 256M). `--games-out FILE [--games N]` writes the seed's
//! first N (30) self-play games instead, as move lists for `togyz-probe
//! annotate`, and measures nothing.

use std::collections::{BTreeMap, HashSet};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use togyz_tb::search::Budget;
use togyz_tb::search::Solver;
use togyz_tb::{Position, Tablebase};

struct Args {
    /// The folders, in order (`--tables` given again adds one).
    tables: Vec<PathBuf>,
    low: u32,
    high: u32,
    per_count: usize,
    seconds: f64,
    seed: u64,
    out: PathBuf,
    provers: String,
    tt: usize,
    nodes: Option<u64>,
    fens: Option<PathBuf>,
    reuse: bool,
    /// One solver for every position, as `annotate` and an engine keep one.
    keep_solver: bool,
    dfpn_threads: usize,
    graph: usize,
    pause: Option<PathBuf>,
    games_out: Option<PathBuf>,
    games: usize,
    memory: Option<u64>,
    cache: u64,
}

/// The provers `Budget::default()` runs (what `togyz-probe query` uses).
fn default_provers() -> String {
    let b = Budget::default();
    [
        ("dfs", b.dfs),
        ("dfpn", b.dfpn),
        ("graph", b.graph_positions > 0),
    ]
    .iter()
    .filter(|p| p.1)
    .map(|p| p.0)
    .collect::<Vec<_>>()
    .join(",")
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        tables: Vec::new(),
        low: 12,
        high: 16,
        per_count: 100,
        seconds: 2.0,
        seed: 1,
        out: "search-measure.csv".into(),
        provers: default_provers(),
        tt: Budget::default().tt_entries,
        nodes: None,
        fens: None,
        reuse: false,
        keep_solver: false,
        dfpn_threads: Budget::default().dfpn_threads,
        graph: Budget::default().graph_positions,
        pause: None,
        games_out: None,
        games: 30,
        memory: None,
        cache: togyz_tb::DEFAULT_CACHE_BYTES,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--reuse" {
            a.reuse = true;
            continue;
        }
        if flag == "--keep-solver" {
            a.keep_solver = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |_: std::num::ParseIntError| format!("bad value for {flag}: {value}");
        match flag.as_str() {
            "--tables" => a.tables.push(value.into()),
            "--stones" => {
                let (l, h) = value.split_once('-').unwrap_or((&value, &value));
                a.low = l.parse().map_err(bad)?;
                a.high = h.parse().map_err(bad)?;
            }
            "--per-count" => a.per_count = value.parse().map_err(bad)?,
            "--seconds" => {
                a.seconds = value
                    .parse()
                    .map_err(|_| format!("bad value for {flag}: {value}"))?
            }
            "--seed" => a.seed = value.parse().map_err(bad)?,
            "--out" => a.out = value.into(),
            "--provers" => a.provers = value,
            "--tt" => a.tt = value.parse().map_err(bad)?,
            "--nodes" => a.nodes = Some(value.parse().map_err(bad)?),
            "--fens" => a.fens = Some(value.into()),
            "--dfpn-threads" => a.dfpn_threads = value.parse().map_err(bad)?,
            "--graph" => a.graph = value.parse().map_err(bad)?,
            "--pause-file" => a.pause = Some(value.into()),
            "--games-out" => a.games_out = Some(value.into()),
            "--games" => a.games = value.parse().map_err(bad)?,
            "--memory" => a.memory = Some(togyz_answer::parse_bytes(&value)?),
            "--cache" => a.cache = togyz_answer::parse_bytes(&value)?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(a)
}

/// The mover's kazan gain of `mv` minus the opponent's best immediate
/// reply gain.
fn greedy_score(pos: &Position, mv: togyz_tb::Move) -> i32 {
    let me = pos.side_to_move();
    let after = pos.after_unchecked(mv);
    let gain = after.kazan(me) as i32 - pos.kazan(me) as i32;
    if after.outcome().is_some() {
        return gain + 1000 * (after.outcome().unwrap().winner == Some(me)) as i32;
    }
    let opp = me.opponent();
    let reply = after
        .legal_moves()
        .map(|r| after.after_unchecked(r).kazan(opp) as i32 - after.kazan(opp) as i32)
        .max()
        .unwrap_or(0);
    gain - reply
}

/// One self-play game from the start, at most 400 plies: each position
/// with the move played from it (none for the last).
fn play_game(rng: &mut SmallRng) -> Vec<(Position, Option<togyz_tb::Move>)> {
    let mut pos = Position::start();
    let mut game = Vec::new();
    for ply in 0..400 {
        if pos.outcome().is_some() {
            break;
        }
        let moves: Vec<_> = pos.legal_moves().collect();
        let mv = if ply < 6 || rng.random_range(0..10) == 0 {
            moves[rng.random_range(0..moves.len() as u64) as usize]
        } else {
            let best = moves.iter().map(|&m| greedy_score(&pos, m)).max().unwrap();
            let top: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&m| greedy_score(&pos, m) == best)
                .collect();
            top[rng.random_range(0..top.len() as u64) as usize]
        };
        game.push((pos, Some(mv)));
        pos.play_unchecked(mv);
    }
    game.push((pos, None));
    game
}

/// Positions from self-play, `per_count` for each stone count in range.
fn sample(a: &Args) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut by_count: BTreeMap<u32, Vec<Position>> = BTreeMap::new();
    let mut seen = HashSet::new();
    let want = (a.high - a.low + 1) as usize * a.per_count;
    let mut games = 0;
    while by_count.values().map(Vec::len).sum::<usize>() < want && games < 1_000_000 {
        games += 1;
        let mut taken = HashSet::new();
        // Every position a move was played from: the last one is not taken.
        for (pos, _) in play_game(&mut rng).iter().filter(|p| p.1.is_some()) {
            let n = pos.stones_on_board();
            if (a.low..=a.high).contains(&n) && taken.insert(n) {
                let list = by_count.entry(n).or_default();
                if list.len() < a.per_count && seen.insert(pos.fen()) {
                    list.push(*pos);
                }
            }
        }
    }
    by_count.into_values().flatten().collect()
}

/// Writes the first `count` self-play games of the seed as move lists in
/// traditional notation, a blank line between games (what `togyz-probe
/// annotate` reads).
fn write_games(a: &Args, count: usize, path: &std::path::Path) -> std::io::Result<()> {
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut text = String::new();
    for _ in 0..count {
        let moves: Vec<String> = play_game(&mut rng)
            .iter()
            .filter_map(|(pos, mv)| Some(togyz_tb::notation::traditional(pos, (*mv)?).unwrap()))
            .collect();
        text += &moves.join(" ");
        text += "\n\n";
    }
    std::fs::write(path, text)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut a = parse_args()?;
    if let Some(path) = &a.games_out {
        if path.exists() {
            return Err(format!("{} exists: not overwritten", path.display()).into());
        }
        write_games(&a, a.games, path)?;
        return Ok(());
    }
    if a.tables.is_empty() {
        a.tables.push("tables".into());
    }
    let tb = Tablebase::open_with_cache(&a.tables, a.cache)?;
    // `--fens -` reads standard input a line at a time, so that a driver
    // can ask one position after another of a process that keeps its
    // solver.
    let streamed = a.fens.as_deref() == Some(std::path::Path::new("-"));
    let positions: Box<dyn Iterator<Item = Result<Position, String>>> = match &a.fens {
        Some(_) if streamed => Box::new(
            std::io::stdin()
                .lines()
                .map_while(Result::ok)
                .filter(|l| !l.trim().is_empty())
                .map(|l| togyz_tb::notation::parse_fen(l.trim()).map_err(|e| e.to_string())),
        ),
        Some(path) => Box::new(
            std::fs::read_to_string(path)?
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| togyz_tb::notation::parse_fen(l.trim()).map_err(|e| e.to_string()))
                .collect::<Vec<_>>()
                .into_iter(),
        ),
        None => Box::new(sample(&a).into_iter().map(Ok)),
    };
    // The lines already in the file, by (time limit, FEN), so one file can
    // hold runs with several limits.
    let mut lines: Vec<(f64, String, String)> = Vec::new();
    if let Ok(f) = std::fs::File::open(&a.out) {
        for l in BufReader::new(f).lines().map_while(Result::ok).skip(1) {
            let Some((head, fen)) = l.split_once(",\"") else {
                continue;
            };
            let Some(Ok(limit)) = head.split(',').nth(2).map(str::parse::<f64>) else {
                continue;
            };
            lines.push((limit, fen.trim_end_matches('"').to_owned(), l.clone()));
        }
    }
    let done: HashSet<(String, String)> = lines
        .iter()
        .map(|(limit, fen, _)| (limit.to_string(), fen.clone()))
        .collect();
    let fresh = !a.out.exists();
    let mut out = OpenOptions::new().create(true).append(true).open(&a.out)?;
    if fresh {
        writeln!(
            out,
            "stones,tables,seconds_limit,result,lower,upper,nodes,depth,graph_positions,graph_closed,seconds,fen"
        )?;
    }
    let mut budget = Budget::time(Duration::from_secs_f64(a.seconds));
    let on = |name| a.provers.split(',').any(|p| p == name);
    budget.dfs = on("dfs");
    budget.tt_entries = a.tt;
    if let Some(n) = a.nodes {
        // A node budget instead of the clock: the same answers on a busy
        // machine as on an idle one.
        budget.time = None;
        budget.nodes = Some(n);
    }
    budget.dfpn = on("dfpn");
    budget.dfpn_threads = a.dfpn_threads;
    budget.graph_positions = if on("graph") { a.graph } else { 0 };
    if let Some(bytes) = a.memory {
        budget = budget.with_memory(bytes).map_err(|e| e.to_string())?;
    }
    let mut kept = Solver::new(&tb, budget);
    for pos in positions {
        let pos = &pos?;
        let fen = pos.fen();
        if done.contains(&(a.seconds.to_string(), fen.clone())) && !streamed {
            continue;
        }
        if a.reuse {
            // Proven under a smaller limit: the same search, stopped earlier,
            // so proven under this one too; its line is copied.
            let earlier = lines.iter().find(|(limit, f, l)| {
                *limit < a.seconds && *f == fen && l.split(',').nth(3) != Some("unknown")
            });
            if let Some((_, _, l)) = earlier {
                let mut c: Vec<&str> = l.splitn(4, ',').collect();
                let limit = a.seconds.to_string();
                c[2] = &limit;
                writeln!(out, "{}", c.join(","))?;
                continue;
            }
        }
        while a.pause.as_ref().is_some_and(|p| p.exists()) {
            std::thread::sleep(Duration::from_secs(1));
        }
        // A fresh table per position, each measured on its own, unless
        // asked to keep one.
        let r = if a.keep_solver {
            kept.solve(pos)?
        } else {
            Solver::new(&tb, budget).solve(pos)?
        };
        let line = format!(
            "{},{},{},{},{},{},{},{},{},{},{:.4},\"{fen}\"",
            pos.stones_on_board(),
            r.table_stones,
            a.seconds,
            r.proven().map_or("unknown", |v| v.name()),
            r.lower,
            r.upper,
            r.nodes,
            r.depth,
            r.graph_positions,
            r.graph_closed,
            r.elapsed.as_secs_f64()
        );
        writeln!(out, "{line}")?;
        out.flush()?;
        if streamed {
            println!("{line}");
            std::io::stdout().flush()?;
        }
    }
    if streamed {
        return Ok(());
    }
    summarize(&a)
}

/// Share proven per stone count, from the whole CSV file.
fn summarize(a: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let f = std::fs::File::open(&a.out)?;
    let mut stats: BTreeMap<(u32, String), (usize, usize, Vec<f64>)> = BTreeMap::new();
    for line in BufReader::new(f).lines().skip(1) {
        let line = line?;
        let c: Vec<&str> = line.split(',').collect();
        let key = (c[0].parse()?, c[2].to_owned());
        let e = stats.entry(key).or_default();
        e.0 += 1;
        if c[3] != "unknown" {
            e.1 += 1;
            e.2.push(c[10].parse()?);
        }
    }
    println!("stones  limit_s  positions  proven  share  median_proof_s");
    for ((n, limit), (count, proven, mut times)) in stats {
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
        println!(
            "{n:>6}  {limit:>7}  {count:>9}  {proven:>6}  {:>4.0}%  {median:.3}",
            100.0 * proven as f64 / count as f64
        );
    }
    Ok(())
}
