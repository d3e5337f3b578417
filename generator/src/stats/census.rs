//! The census: counts, longest wins, distance histograms and mutual
//! zugzwangs of each table, in parallel over boards.

use super::*;
use crate::files::decode::UnitValues;
use crate::solve::moves::position_at;
use crate::solve::unit::level_units;
use togyz_tb::Backend;

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
    /// The distance (plies to the end, or to the next conversion in a
    /// DTC table) with the representative's mover to move.
    pub distance: u32,
    /// The distance with the other side to move.
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
/// `counted` is advanced by positions.
pub fn level_stats(n: u32, values: &[u16], examples: usize, counted: &AtomicU64) -> LevelStats {
    let layout = Layout::new(n);
    assert_eq!(
        values.len() as u64,
        layout.positions(),
        "the {n}-stone table has the wrong size"
    );
    stats_of(n, &layout, values, None, examples, counted)
}

/// [`level_stats`] over the configurations `only` (all if `None`).
fn stats_of<V: Values + ?Sized>(
    n: u32,
    layout: &Layout,
    values: &V,
    only: Option<&[usize]>,
    examples: usize,
    counted: &AtomicU64,
) -> LevelStats {
    let work: Vec<_> = layout
        .board_chunks(CHUNK_BOARDS)
        .into_iter()
        .filter(|w| only.is_none_or(|o| o.contains(&w.0)))
        .collect();
    work.par_iter()
        .map(|&(id, start, end)| {
            let s = chunk_stats(n, layout, values, id, start, end, examples);
            counted.fetch_add((end - start) * layout.kazans(), Ordering::Relaxed);
            s
        })
        .reduce(|| LevelStats::empty(n), |a, b| a.merge(b, examples))
}

/// Packed values of a level looked up by index: the whole level, or the
/// configurations of one unit (a position's side-swapped twin lies in the
/// same unit).
trait Values: Sync {
    fn packed(&self, index: u64) -> u16;
}

impl Values for [u16] {
    #[inline]
    fn packed(&self, index: u64) -> u16 {
        self[index as usize]
    }
}

/// One unit's configurations: (first index, values).
struct UnitParts(Vec<(u64, UnitValues)>);

impl Values for UnitParts {
    #[inline]
    fn packed(&self, index: u64) -> u16 {
        let (first, values) = self
            .0
            .iter()
            .find(|(first, v)| (*first..*first + v.len() as u64).contains(&index))
            .expect("a twin lies in its position's unit");
        values.get((index - first) as usize)
    }
}

fn chunk_stats<V: Values + ?Sized>(
    n: u32,
    layout: &Layout,
    values: &V,
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
            let v = Value::unpack(values.packed(index));
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
            let Value::Loss(td) = Value::unpack(values.packed(twin)) else {
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

/// Reads every table in `dir` (1..=N, none missing) through the library
/// and computes each stone count's statistics, each level's
/// progress to `events`.
///
/// # Errors
///
/// [`StatsError::Folder`] for a folder without a complete set of tables;
/// [`StatsError::Table`] for a damaged one.
pub fn collect(
    dir: &Path,
    examples: usize,
    events: Events<'_>,
) -> Result<Vec<LevelStats>, StatsError> {
    let max = crate::files::folder::table_levels(dir)?;
    let mut out = Vec::new();
    for n in 1..=max {
        // Positioned reads, not a map: a map's pages, once read, stay in
        // the resident set (the whole table's by the level's end), and
        // stats holds only the unit being counted (as verify does).
        let file = TableFile::open_with(dir.join(format::file_name(n)), Backend::Pread)?;
        let layout = file.layout();
        let positions = layout.positions();
        events(Event::Counting {
            stones: n,
            positions,
        });
        let counted = AtomicU64::new(0);
        let tick = |c: u64| {
            events(Event::CountProgress {
                stones: n,
                counted: c.min(positions),
                positions,
            })
        };
        // Unit by unit (either metric), so that a level never needs to fit
        // in memory.
        let level = polled(&counted, tick, || {
            let mut level = LevelStats::empty(n);
            for unit in level_units(n) {
                let parts = file
                    .decode_unit(unit)?
                    .into_iter()
                    .map(|(id, values)| (layout.index_at(layout.global_board(id, 0), 0), values))
                    .collect();
                let configs = unit.configs();
                let s = stats_of(
                    n,
                    layout,
                    &UnitParts(parts),
                    Some(&configs),
                    examples,
                    &counted,
                );
                level = level.merge(s, examples);
            }
            Ok::<_, StatsError>(level)
        });
        events(Event::Counted { stones: n });
        out.push(level?);
    }
    Ok(out)
}
