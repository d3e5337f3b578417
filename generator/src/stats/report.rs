//! The report: every census with the lines of best play that illustrate it.

use super::*;

/// A position with its line of best play.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// Plies to the end of the game (to the next conversion in a DTC
    /// table, the level's `metric`).
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
    /// What the level's distances count: `DTM` or `DTC`.
    pub metric: &'static str,
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
        dtm: value.distance().unwrap_or(0),
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
        win_distances: nonzero(&c.win_distances),
        boards_by_drawn_splits: nonzero(&c.boards_by_draws),
    })
}

/// The non-zero entries of a histogram, by their index.
fn nonzero(histogram: &[u64]) -> BTreeMap<u32, u64> {
    histogram
        .iter()
        .enumerate()
        .filter(|(_, &k)| k > 0)
        .map(|(d, &k)| (d as u32, k))
        .collect()
}

/// Builds the report: the census of every table in `dir` with lines of
/// best play read through the library.
///
/// # Errors
///
/// As [`collect`], and [`StatsError::Probe`] when a line of best play
/// cannot be read.
pub fn report(
    dir: &Path,
    limits: &[u32],
    examples: usize,
    events: Events<'_>,
) -> Result<Report, StatsError> {
    let mut limits = limits.to_vec();
    limits.sort_unstable();
    limits.dedup();
    let levels = collect(dir, examples, events)?;
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
            metric: tb.metric(s.stones).unwrap_or(Metric::Dtm).name(),
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
