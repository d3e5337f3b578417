//! `togyz-gen stats`: what the tables teach, in the form draughts database
//! authors publish.
//!
//! For each stone count, and for each tuzdyk class within it (no tuzdyk,
//! only the mover's, only the opponent's, both):
//!
//! * positions, wins, draws and losses for the side to move, each position
//!   counted once from its mover's point of view, as in the index;
//! * the longest win: its distance in plies, the first such position in
//!   index order and its line of best play;
//! * the histogram of win distances, and for each limit `L` the wins that
//!   need more than `L` plies;
//! * mutual zugzwangs: physical positions (board, kazans, tuzdyks) where
//!   whichever side is to move loses. A position and its side-swapped twin
//!   are one physical position and count once. Within a class the count is
//!   of physical positions with a view in that class: a zugzwang with one
//!   tuzdyk is seen from the tuzdyk's owner (mover only) and from the other
//!   player (opponent only), so it counts in both of those classes, once in
//!   the stone count's total.
//!
//! The tables are read through the probe crate: each is decoded whole
//! ([`TableFile::decode_all`]); lines come from [`Tablebase`].

use crate::decode::DecodeAll;
use crate::progress::{positions_bar, with_threads};
use crate::verify::{self, thousands, VerifyError};
use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use togyz_probe::raw::format::{self, TableError, TableFile};
use togyz_probe::raw::index::Slot;
use togyz_probe::raw::index::{BoardWalker, Layout, TuzdykClass, TuzdykConfig};
use togyz_probe::rules::{Position, Side, HALF};
use togyz_probe::tablebase::{ProbeError, Tablebase};
use togyz_probe::Value;

/// Arguments of `togyz-gen stats`.
#[derive(clap::Args, Debug, Clone)]
pub struct StatsArgs {
    /// Folder holding the tables (`togyz-NN.tkb`, 1..=N stones).
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Print the report as JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Move-count limits, in plies: for each, the wins that need more.
    #[arg(long, value_delimiter = ',', default_value = "40,60,100")]
    pub limits: Vec<u32>,
    /// Also draw the distribution of win distances per stone count as an
    /// SVG chart into this file.
    #[arg(long)]
    pub chart: Option<PathBuf>,
    /// Mutual zugzwang examples shown per stone count.
    #[arg(long, default_value_t = 3)]
    pub examples: usize,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// Why the statistics could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// The tables folder is unreadable, empty or has a gap.
    #[error(transparent)]
    Folder(VerifyError),
    /// A table file is damaged or unreadable.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A line of best play could not be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The thread pool could not be built.
    #[error("cannot start {0} worker threads")]
    Threads(usize),
    /// The chart could not be drawn or written.
    #[error("cannot write the chart {}: {detail}", .path.display())]
    Chart {
        /// The chart file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The report could not be written to standard output.
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// The JSON report could not be encoded.
    #[error("cannot encode the JSON report: {0}")]
    Json(#[from] serde_json::Error),
}

/// The census of a set of positions (one stone count, or one tuzdyk class
/// within it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Positions (each from its mover's point of view).
    pub positions: u64,
    /// Won by the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost by the side to move.
    pub losses: u64,
    /// The longest win in plies (0 if there is no win).
    pub longest_win: u32,
    /// The smallest table index of a win of that length.
    pub longest_win_index: Option<u64>,
    /// `win_distances[d]`: wins in exactly `d` plies.
    pub win_distances: Vec<u64>,
    /// Mutual zugzwangs (physical positions, see the module docs).
    pub mutual_zugzwangs: u64,
    /// `boards_by_draws[k]`: boards (a tuzdyk configuration and a
    /// distribution of the stones) drawn at exactly `k` of their `n + 1`
    /// kazan splits.
    pub boards_by_draws: Vec<u64>,
}

impl Census {
    /// Wins that need more than `limit` plies.
    pub fn over_limit(&self, limit: u32) -> u64 {
        self.win_distances.iter().skip(limit as usize + 1).sum()
    }

    #[inline]
    fn add(&mut self, index: u64, v: Value) {
        self.positions += 1;
        match v {
            Value::Win(d) => {
                self.wins += 1;
                let du = d as usize;
                if self.win_distances.len() <= du {
                    self.win_distances.resize(du + 1, 0);
                }
                self.win_distances[du] += 1;
                if d > self.longest_win || self.longest_win_index.is_none() {
                    self.longest_win = d;
                    self.longest_win_index = Some(index);
                }
            }
            Value::Draw => self.draws += 1,
            Value::Loss(_) => self.losses += 1,
        }
    }

    fn merge(&mut self, o: &Census) {
        self.positions += o.positions;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.mutual_zugzwangs += o.mutual_zugzwangs;
        add_histogram(&mut self.boards_by_draws, &o.boards_by_draws);
        if self.win_distances.len() < o.win_distances.len() {
            self.win_distances.resize(o.win_distances.len(), 0);
        }
        for (a, b) in self.win_distances.iter_mut().zip(&o.win_distances) {
            *a += b;
        }
        let better = match (self.longest_win_index, o.longest_win_index) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(a), Some(b)) => {
                (o.longest_win, std::cmp::Reverse(b)) > (self.longest_win, std::cmp::Reverse(a))
            }
        };
        if better {
            self.longest_win = o.longest_win;
            self.longest_win_index = o.longest_win_index;
        }
    }
}

fn add_histogram(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

fn count_board(c: &mut Census, draws: usize) {
    if c.boards_by_draws.len() <= draws {
        c.boards_by_draws.resize(draws + 1, 0);
    }
    c.boards_by_draws[draws] += 1;
}

/// A mutual zugzwang: the position at `index` (its mover seated South) and
/// its side-swapped twin at `twin` are both lost for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zugzwang {
    /// Index of the representative (the smaller of the two).
    pub index: u64,
    /// Its global board (the index without the kazan split).
    pub board: u64,
    /// Index of the twin (equal for a colour-symmetric position).
    pub twin: u64,
    /// Plies to the end with the representative's mover to move.
    pub distance: u32,
    /// Plies to the end with the other side to move.
    pub twin_distance: u32,
}

impl Zugzwang {
    /// The order of interest: the longest combined fight first, then index.
    fn rank(&self) -> (std::cmp::Reverse<u32>, u64) {
        (
            std::cmp::Reverse(self.distance + self.twin_distance),
            self.index,
        )
    }
}

/// The statistics of one stone count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelStats {
    /// Stones on the board.
    pub stones: u32,
    /// The whole table.
    pub all: Census,
    /// By tuzdyk class, in [`TuzdykClass::ALL`] order.
    pub by_class: [Census; 4],
    /// The mutual zugzwangs with the longest fights, one per board (see
    /// [`Zugzwang`]).
    pub zugzwang_examples: Vec<Zugzwang>,
}

impl LevelStats {
    fn empty(stones: u32) -> LevelStats {
        LevelStats {
            stones,
            all: Census::default(),
            by_class: Default::default(),
            zugzwang_examples: Vec::new(),
        }
    }

    fn merge(mut self, o: LevelStats, examples: usize) -> LevelStats {
        self.all.merge(&o.all);
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            a.merge(b);
        }
        self.zugzwang_examples.extend(o.zugzwang_examples);
        keep_best(&mut self.zugzwang_examples, examples);
        self
    }
}

/// Keeps the `examples` best zugzwangs on distinct boards (the same board
/// with other kazans is usually the same fight).
fn keep_best(v: &mut Vec<Zugzwang>, examples: usize) {
    v.sort_by_key(Zugzwang::rank);
    let mut boards = Vec::with_capacity(examples);
    v.retain(|z| {
        if boards.len() < examples && !boards.contains(&z.board) {
            boards.push(z.board);
            true
        } else {
            false
        }
    });
}

fn class_index(c: TuzdykClass) -> usize {
    TuzdykClass::ALL
        .iter()
        .position(|&x| x == c)
        .expect("ALL lists every class")
}

/// Boards per work item.
const CHUNK_BOARDS: u64 = 4096;

/// The statistics of the `n`-stone table, given its packed values in index
/// order; keeps `examples` mutual zugzwangs. Runs in the current rayon pool;
/// `bar` is advanced by positions.
pub fn level_stats(n: u32, values: &[u16], examples: usize, bar: &ProgressBar) -> LevelStats {
    let layout = Layout::new(n);
    assert_eq!(
        values.len() as u64,
        layout.positions(),
        "the {n}-stone table has the wrong size"
    );
    let work = layout.board_chunks(CHUNK_BOARDS);
    work.par_iter()
        .map(|&(id, start, end)| {
            let s = chunk_stats(n, &layout, values, id, start, end, examples);
            bar.inc((end - start) * layout.kazans());
            s
        })
        .reduce(|| LevelStats::empty(n), |a, b| a.merge(b, examples))
}

/// The live position of a board (mover seated South) at kazan offset `j`.
fn position_at(n: u32, config: TuzdykConfig, board: &[u8; 18], j: u32) -> Position {
    Position::new(
        *board,
        [(HALF as u32 - n + j) as u8, (HALF as u32 - j) as u8],
        config.hole_numbers(),
        Side::South,
        1,
    )
    .expect("every board of the index is a valid position")
}

fn chunk_stats(
    n: u32,
    layout: &Layout,
    values: &[u16],
    id: usize,
    start: u64,
    end: u64,
    examples: usize,
) -> LevelStats {
    let config = TuzdykConfig::from_id(id);
    let class = class_index(config.class());
    let mut out = LevelStats::empty(n);
    let mut walker = BoardWalker::new(n, config, start, end);
    while let Some((rank, board)) = walker.current() {
        let gb = layout.global_board(id, rank);
        // The twin's (config, board) does not depend on the kazans.
        let mut twin_slot: Option<(u64, TuzdykClass)> = None;
        let mut draws = 0;
        for j in 0..=n {
            let index = layout.index_at(gb, j);
            let v = Value::unpack(values[index as usize]);
            draws += (v == Value::Draw) as usize;
            out.all.add(index, v);
            out.by_class[class].add(index, v);
            let Value::Loss(d) = v else { continue };
            // The same physical position with the other side to move.
            let (twin_gb, twin_class) = *twin_slot.get_or_insert_with(|| {
                let twin = position_at(n, config, board, j).with_side_to_move(Side::North);
                let slot = Slot::of(&twin).expect("a live position has a slot");
                (
                    layout.global_board(slot.config.id(), slot.board),
                    slot.config.class(),
                )
            });
            // The twin's mover (North) has kazan 81 - j: offset n - j.
            let twin = layout.index_at(twin_gb, n - j);
            debug_assert_eq!(
                Slot::of(&position_at(n, config, board, j).with_side_to_move(Side::North))
                    .map(|s| layout.index(&s)),
                Some(twin)
            );
            let Value::Loss(td) = Value::unpack(values[twin as usize]) else {
                continue;
            };
            // Each pair once, from its smaller index.
            if twin < index {
                continue;
            }
            out.all.mutual_zugzwangs += 1;
            out.by_class[class].mutual_zugzwangs += 1;
            let tc = class_index(twin_class);
            if tc != class {
                out.by_class[tc].mutual_zugzwangs += 1;
            }
            out.zugzwang_examples.push(Zugzwang {
                index,
                board: gb,
                twin,
                distance: d,
                twin_distance: td,
            });
            if out.zugzwang_examples.len() >= 2 * examples.max(8) {
                keep_best(&mut out.zugzwang_examples, examples);
            }
        }
        count_board(&mut out.all, draws);
        count_board(&mut out.by_class[class], draws);
        walker.advance();
    }
    keep_best(&mut out.zugzwang_examples, examples);
    out
}

/// Reads every table in `dir` (1..=N, none missing) through the probe
/// crate and computes each stone count's statistics.
pub fn collect(dir: &Path, examples: usize, progress: bool) -> Result<Vec<LevelStats>, StatsError> {
    let max = verify::table_levels(dir).map_err(StatsError::Folder)?;
    let mut out = Vec::new();
    for n in 1..=max {
        let file = TableFile::open(dir.join(format::file_name(n)))?;
        let values = file.decode_all()?;
        let bar = positions_bar(values.len() as u64, format!("stats {n:2}"), progress);
        out.push(level_stats(n, &values, examples, &bar));
        bar.finish_and_clear();
    }
    Ok(out)
}

/// A position with its line of best play.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// Plies to the end of the game.
    pub dtm: u32,
    /// The position (PlayStrategy FEN).
    pub fen: String,
    /// The line, in traditional notation (`91`, `36x`).
    pub pv: Vec<String>,
}

/// A mutual zugzwang in the report: one physical position, lost for
/// whichever side is to move.
#[derive(Clone, Debug, Serialize)]
pub struct ZugzwangReport {
    /// With the index's mover (seated South) to move.
    pub south_to_move: Line,
    /// The same position with North to move.
    pub north_to_move: Line,
}

/// One census in the report.
#[derive(Clone, Debug, Serialize)]
pub struct CensusReport {
    /// Positions.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The longest win (`None` without wins).
    pub longest_win: Option<Line>,
    /// Mutual zugzwangs (physical positions).
    pub mutual_zugzwangs: u64,
    /// For each limit, the wins that need more plies.
    pub over_limit: BTreeMap<u32, u64>,
    /// Wins by distance in plies (distances with no win left out).
    pub win_distances: BTreeMap<u32, u64>,
    /// Boards by the number of kazan splits at which they are drawn
    /// (numbers with no board left out).
    pub boards_by_drawn_splits: BTreeMap<u32, u64>,
}

/// The census by tuzdyk class.
#[derive(Clone, Debug, Serialize)]
pub struct ByClass {
    /// Neither player has a tuzdyk.
    pub none: CensusReport,
    /// Only the side to move has one.
    pub mover_only: CensusReport,
    /// Only the opponent has one.
    pub opponent_only: CensusReport,
    /// Both have one.
    pub both: CensusReport,
}

/// One stone count in the report.
#[derive(Clone, Debug, Serialize)]
pub struct LevelReport {
    /// Stones on the board.
    pub stones: u32,
    /// The whole table.
    #[serde(flatten)]
    pub all: CensusReport,
    /// Examples of mutual zugzwangs, the longest fights first.
    pub mutual_zugzwang_examples: Vec<ZugzwangReport>,
    /// The census by tuzdyk class.
    pub by_tuzdyk_class: ByClass,
}

/// The whole report (`--json` prints it as is).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The tables folder.
    pub tables: String,
    /// The move-count limits.
    pub limits: Vec<u32>,
    /// One entry per stone count, ascending.
    pub per_stones: Vec<LevelReport>,
}

/// The moves of a line in traditional notation.
fn line(tb: &Tablebase, pos: &Position) -> Result<Line, StatsError> {
    let value = tb.value(pos)?;
    let mut cur = *pos;
    let mut pv = Vec::new();
    for mv in tb.principal_variation(pos)? {
        pv.push(cur.play_unchecked(mv).traditional());
    }
    Ok(Line {
        dtm: value.dtm().unwrap_or(0),
        fen: pos.fen(),
        pv,
    })
}

fn census_report(
    tb: &Tablebase,
    layout: &Layout,
    c: &Census,
    limits: &[u32],
) -> Result<CensusReport, StatsError> {
    let longest_win = match c.longest_win_index {
        Some(i) => Some(line(tb, &layout.slot(i).position())?),
        None => None,
    };
    Ok(CensusReport {
        positions: c.positions,
        wins: c.wins,
        draws: c.draws,
        losses: c.losses,
        longest_win,
        mutual_zugzwangs: c.mutual_zugzwangs,
        over_limit: limits.iter().map(|&l| (l, c.over_limit(l))).collect(),
        win_distances: c
            .win_distances
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .map(|(d, &k)| (d as u32, k))
            .collect(),
        boards_by_drawn_splits: c
            .boards_by_draws
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .map(|(d, &k)| (d as u32, k))
            .collect(),
    })
}

/// Builds the report: the census of every table in `dir` with lines of
/// best play read through the probe crate.
pub fn report(
    dir: &Path,
    limits: &[u32],
    examples: usize,
    progress: bool,
) -> Result<Report, StatsError> {
    let mut limits = limits.to_vec();
    limits.sort_unstable();
    limits.dedup();
    let levels = collect(dir, examples, progress)?;
    let tb = Tablebase::open([dir])?;
    let mut per_stones = Vec::new();
    for s in &levels {
        let layout = Layout::new(s.stones);
        let cr = |c: &Census| census_report(&tb, &layout, c, &limits);
        let mut zz = Vec::new();
        for z in &s.zugzwang_examples {
            let pos = layout.slot(z.index).position();
            zz.push(ZugzwangReport {
                south_to_move: line(&tb, &pos)?,
                north_to_move: line(&tb, &pos.with_side_to_move(Side::North))?,
            });
        }
        per_stones.push(LevelReport {
            stones: s.stones,
            all: cr(&s.all)?,
            mutual_zugzwang_examples: zz,
            by_tuzdyk_class: ByClass {
                none: cr(&s.by_class[0])?,
                mover_only: cr(&s.by_class[1])?,
                opponent_only: cr(&s.by_class[2])?,
                both: cr(&s.by_class[3])?,
            },
        });
    }
    Ok(Report {
        tables: dir.display().to_string(),
        limits,
        per_stones,
    })
}

/// Runs `togyz-gen stats`.
pub fn run(args: &StatsArgs) -> Result<(), StatsError> {
    let report = with_threads(args.threads, || {
        report(&args.tables, &args.limits, args.examples, !args.quiet)
    })
    .map_err(StatsError::Threads)??;
    if let Some(path) = &args.chart {
        chart(&report, path)?;
    }
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        markdown(&report, args.chart.as_deref())
    };
    std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())
        .map_err(StatsError::Stdout)?;
    Ok(())
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn pv_text(l: &Line) -> String {
    if l.pv.is_empty() {
        "(game over)".into()
    } else {
        l.pv.join(" ")
    }
}

/// The report as Markdown (what `docs/statistics.md` holds).
pub fn markdown(r: &Report, chart: Option<&Path>) -> String {
    let mut o = String::new();
    let max = r.per_stones.last().map_or(0, |l| l.stones);
    let _ = writeln!(o, "# Endgame statistics, 1 to {max} stones on the board\n");
    let _ = writeln!(
        o,
        "Tables: `{}`. Each position is counted once, from the side to move's point of view (as in the index); \
         distances are plies to the end of the game with the winner hurrying and the loser delaying. \
         A mutual zugzwang is a physical position (board, kazans, tuzdyks) lost for whichever side is to move; \
         it counts once.\n",
        r.tables
    );
    let limit_heads: String = r.limits.iter().map(|l| format!(" wins > {l} |")).collect();
    let limit_rule: String = r.limits.iter().map(|_| "---:|").collect();
    let _ = writeln!(o, "## Summary\n");
    let _ = writeln!(
        o,
        "| stones | positions | wins | draws | losses | longest win |{limit_heads} mutual zugzwangs |"
    );
    let _ = writeln!(o, "|---:|---:|---:|---:|---:|---:|{limit_rule}---:|");
    let mut tot = [0u64; 5];
    let mut tot_over = vec![0u64; r.limits.len()];
    let mut longest = 0;
    for l in &r.per_stones {
        let a = &l.all;
        let over: String = r
            .limits
            .iter()
            .map(|x| format!(" {} |", thousands(a.over_limit[x])))
            .collect();
        let lw = a.longest_win.as_ref().map_or(0, |x| x.dtm);
        let _ = writeln!(
            o,
            "| {} | {} | {} ({}) | {} ({}) | {} ({}) | {} |{over} {} |",
            l.stones,
            thousands(a.positions),
            thousands(a.wins),
            pct(a.wins, a.positions),
            thousands(a.draws),
            pct(a.draws, a.positions),
            thousands(a.losses),
            pct(a.losses, a.positions),
            lw,
            thousands(a.mutual_zugzwangs),
        );
        for (t, x) in
            tot.iter_mut()
                .zip([a.positions, a.wins, a.draws, a.losses, a.mutual_zugzwangs])
        {
            *t += x;
        }
        for (t, x) in tot_over.iter_mut().zip(&r.limits) {
            *t += a.over_limit[x];
        }
        longest = longest.max(lw);
    }
    let over: String = tot_over
        .iter()
        .map(|&x| format!(" {} |", thousands(x)))
        .collect();
    let _ = writeln!(
        o,
        "| all | {} | {} ({}) | {} ({}) | {} ({}) | {} |{over} {} |\n",
        thousands(tot[0]),
        thousands(tot[1]),
        pct(tot[1], tot[0]),
        thousands(tot[2]),
        pct(tot[2], tot[0]),
        thousands(tot[3]),
        pct(tot[3], tot[0]),
        longest,
        thousands(tot[4]),
    );
    if let Some(c) = chart {
        let name = c.file_name().map_or_else(
            || c.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        let _ = writeln!(
            o,
            "![Distribution of win distances per stone count]({name})\n"
        );
    }

    for l in &r.per_stones {
        let _ = writeln!(
            o,
            "## {} stone{}\n",
            l.stones,
            if l.stones == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            o,
            "| tuzdyks | positions | wins | draws | losses | longest win |{limit_heads} mutual zugzwangs |"
        );
        let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|{limit_rule}---:|");
        let b = &l.by_tuzdyk_class;
        for (name, c) in [
            ("none", &b.none),
            ("mover only", &b.mover_only),
            ("opponent only", &b.opponent_only),
            ("both", &b.both),
            ("all", &l.all),
        ] {
            let over: String = r
                .limits
                .iter()
                .map(|x| format!(" {} |", thousands(c.over_limit[x])))
                .collect();
            let _ = writeln!(
                o,
                "| {name} | {} | {} | {} | {} | {} |{over} {} |",
                thousands(c.positions),
                thousands(c.wins),
                thousands(c.draws),
                thousands(c.losses),
                c.longest_win.as_ref().map_or(0, |x| x.dtm),
                thousands(c.mutual_zugzwangs),
            );
        }
        let _ = writeln!(o);
        let widths: Vec<String> = l
            .all
            .boards_by_drawn_splits
            .iter()
            .map(|(k, b)| format!("{} at {k}", thousands(*b)))
            .collect();
        let _ = writeln!(
            o,
            "Boards (tuzdyks and stones) by the number of their {} kazan splits that are drawn: {}.\n",
            l.stones + 1,
            widths.join(", ")
        );
        let _ = writeln!(
            o,
            "Longest wins (first in index order), with the line of best play:\n"
        );
        for (name, c) in [
            ("all", &l.all),
            ("none", &b.none),
            ("mover only", &b.mover_only),
            ("opponent only", &b.opponent_only),
            ("both", &b.both),
        ] {
            if let Some(w) = &c.longest_win {
                let _ = writeln!(
                    o,
                    "- {name}: win in {}: `{}`  \n  {}",
                    w.dtm,
                    w.fen,
                    pv_text(w)
                );
            }
        }
        let _ = writeln!(o);
        if !l.mutual_zugzwang_examples.is_empty() {
            let _ = writeln!(
                o,
                "Mutual zugzwangs with the longest fights ({} in all):\n",
                thousands(l.all.mutual_zugzwangs)
            );
            for z in &l.mutual_zugzwang_examples {
                let _ = writeln!(
                    o,
                    "- `{}`: South to move loses in {} ({}); North to move loses in {} ({})",
                    z.south_to_move.fen,
                    z.south_to_move.dtm,
                    pv_text(&z.south_to_move),
                    z.north_to_move.dtm,
                    pv_text(&z.north_to_move),
                );
            }
            let _ = writeln!(o);
        }
    }

    let _ = writeln!(o, "## Win distances\n");
    let _ = writeln!(
        o,
        "Wins for the side to move by distance in plies, per stone count.\n"
    );
    let heads: String = r
        .per_stones
        .iter()
        .map(|l| format!(" {} |", l.stones))
        .collect();
    let rule: String = r.per_stones.iter().map(|_| "---:|").collect();
    let _ = writeln!(o, "| plies |{heads}");
    let _ = writeln!(o, "|---:|{rule}");
    for d in 1..=longest {
        let row: String = r
            .per_stones
            .iter()
            .map(|l| match l.all.win_distances.get(&d) {
                Some(&k) => format!(" {} |", thousands(k)),
                None => " |".into(),
            })
            .collect();
        let _ = writeln!(o, "| {d} |{row}");
    }
    o
}

/// Draws the distribution of each stone count's win distances as an SVG
/// chart: above, the share of wins in exactly `d` plies; below, the share
/// of wins needing more than `d` plies (what a move-count limit of `d`
/// would cut). Both on a log scale, so the long tails show.
pub fn chart(r: &Report, path: &Path) -> Result<(), StatsError> {
    use plotters::prelude::*;
    let err = |detail: String| StatsError::Chart {
        path: path.to_path_buf(),
        detail,
    };
    // (stones, exactly d, more than d), shares in percent, zeros left out.
    type Series = (u32, Vec<(u32, f64)>, Vec<(u32, f64)>);
    let series: Vec<Series> = r
        .per_stones
        .iter()
        .filter(|l| l.all.wins > 0)
        .map(|l| {
            let total = l.all.wins as f64;
            let exact = l
                .all
                .win_distances
                .iter()
                .map(|(&d, &k)| (d, 100.0 * k as f64 / total))
                .collect();
            let mut left = l.all.wins;
            let mut tail = Vec::new();
            for (&d, &k) in &l.all.win_distances {
                left -= k;
                if left > 0 {
                    tail.push((d, 100.0 * left as f64 / total));
                }
            }
            (l.stones, exact, tail)
        })
        .collect();
    let max_d = series
        .iter()
        .flat_map(|s| s.1.iter().map(|x| x.0))
        .max()
        .unwrap_or(1);
    let min_y = series
        .iter()
        .flat_map(|s| s.1.iter().chain(&s.2).map(|x| x.1))
        .fold(100.0f64, f64::min);
    let floor = 10f64.powf(min_y.log10().floor());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 900)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let root = root
            .titled(
                "Distances of wins, per stones on the board",
                ("sans-serif", 22),
            )
            .map_err(|e| err(e.to_string()))?;
        let (upper, lower) = root.split_vertically(430);
        for (area, tail, desc) in [
            (&upper, false, "wins in exactly d plies (% of wins)"),
            (&lower, true, "wins needing more than d plies (% of wins)"),
        ] {
            let mut chart = ChartBuilder::on(area)
                .margin(16)
                .x_label_area_size(44)
                .y_label_area_size(70)
                .build_cartesian_2d(0u32..max_d + 1, (floor..100.0f64).log_scale())
                .map_err(|e| err(e.to_string()))?;
            chart
                .configure_mesh()
                .x_desc("d: plies to the end of the game")
                .y_desc(desc)
                .y_label_formatter(&|y| {
                    if *y >= 1.0 {
                        format!("{y:.0}")
                    } else {
                        format!("{y:.0e}")
                    }
                })
                .draw()
                .map_err(|e| err(e.to_string()))?;
            for (i, (n, exact, more)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let pts = if tail { more } else { exact };
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(|e| err(e.to_string()))?
                    .label(format!("{n} stone{}", if *n == 1 { "" } else { "s" }))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    std::fs::write(path, svg).map_err(|e| err(e.to_string()))
}
