//! Units of work and the per-configuration constants the solvers share.
//!
//! Within one stone count, a quiet move links configuration `c` to
//! `c.swapped()`, so a level splits into independent *units*, one per pair
//! `{c, c.swapped()}` ([`UnitId`]); the exits of a unit reach only the
//! configurations of the smaller levels that [`exit_configs`] names.

use rayon::prelude::*;
use togyz_tb::raw::format::{Contents, TuzdykPairs};
use togyz_tb::raw::index::{board_count, TuzdykConfig, CONFIG_COUNT};
use togyz_tb::raw::tuzdyk_allowed;
use togyz_tb::{Side, CYCLE, ROW};

/// What one pass over the levels below reads: a seeding pass
/// ([`crate::solve::dtm::seed_pass`]) or a pass of a unit's check
/// (`verify`). Whole levels (a mask of stone counts, bit 0 the empty
/// board) and, when one level's share is more than a pass may hold, some
/// configurations of one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reach {
    levels: u64,
    /// A level read in part, and its configurations read (bit `id`).
    part: Option<(u32, u128)>,
}

impl Reach {
    /// Every level below.
    pub const ALL: Reach = Reach {
        levels: u64::MAX,
        part: None,
    };

    /// The levels of `mask`, whole.
    pub fn levels(mask: u64) -> Reach {
        Reach {
            levels: mask,
            part: None,
        }
    }

    /// The configurations of `configs` (bit `id`) of level `m`.
    pub fn configs(m: u32, configs: u128) -> Reach {
        Reach {
            levels: 0,
            part: Some((m, configs)),
        }
    }

    /// Whether the pass reads configuration `config` of level `m`.
    #[inline]
    pub fn reads(&self, m: u32, config: usize) -> bool {
        self.levels >> m & 1 == 1
            || matches!(self.part, Some((l, c)) if l == m && c >> config & 1 == 1)
    }

    /// Whether the pass reads some of level `m`.
    #[inline]
    pub fn reads_level(&self, m: u32) -> bool {
        self.levels >> m & 1 == 1 || matches!(self.part, Some((l, _)) if l == m)
    }

    /// Whether the pass reads all of level `m` or none of it, so that a
    /// move's stone count alone says whether it reads it.
    #[inline]
    pub fn whole_levels(&self) -> bool {
        self.part.is_none()
    }
}

/// The configurations of the smaller levels that the exits of `unit` reach,
/// seen by the player who moves next: each side's swap (a capture or a
/// stone sown into a tuzdyk keeps the tuzdyks), and the swap of each
/// configuration a tuzdyk made from it leads to. The same at every level.
pub fn exit_configs(unit: UnitId) -> Vec<usize> {
    let mut out = Vec::new();
    for id in unit.configs() {
        let config = TuzdykConfig::from_id(id);
        out.push(config.swapped().id());
        let tz = config.cycle_indices();
        for h in 0..ROW {
            if tuzdyk_allowed(ROW + h, Side::South, tz) {
                let made = TuzdykConfig {
                    mover: Some(h as u8),
                    ..config
                };
                out.push(made.swapped().id());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Per-configuration constants for ranking and sowing.
#[derive(Clone, Copy)]
pub(crate) struct ConfigInfo {
    pub(crate) config: TuzdykConfig,
    /// Free holes, mover seated South.
    pub(crate) free: [u8; CYCLE],
    /// The same holes as seen from the other player's seat (for ranking a
    /// child board without rotating it).
    pub(crate) free_rotated: [u8; CYCLE],
    pub(crate) m: usize,
    pub(crate) tz: [u8; 2],
}

impl ConfigInfo {
    pub(crate) fn new(config: TuzdykConfig) -> ConfigInfo {
        let free = config.free_indices();
        let mut free_rotated = [0u8; CYCLE];
        for (r, &f) in free_rotated.iter_mut().zip(free.iter()) {
            *r = (f + ROW as u8) % CYCLE as u8;
        }
        ConfigInfo {
            config,
            free,
            free_rotated,
            m: config.free_holes(),
            tz: config.cycle_indices(),
        }
    }
}

pub(crate) fn config_infos() -> Vec<ConfigInfo> {
    TuzdykConfig::all().map(ConfigInfo::new).collect()
}

#[inline]
pub(crate) fn rotate(b: &[u8; CYCLE]) -> [u8; CYCLE] {
    let mut r = [0u8; CYCLE];
    r[..ROW].copy_from_slice(&b[ROW..]);
    r[ROW..].copy_from_slice(&b[..ROW]);
    r
}

/// One unit of work within a level: a tuzdyk configuration and its swap
/// (the same configuration when it is its own swap). Units of one level are
/// independent given the levels below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnitId {
    /// The smaller configuration id.
    pub first: usize,
    /// `first`'s swap (equal to `first` when it is its own swap).
    pub second: usize,
}

impl UnitId {
    /// The unit holding configuration `id`.
    pub fn of(id: usize) -> UnitId {
        let twin = TuzdykConfig::from_id(id).swapped().id();
        UnitId {
            first: id.min(twin),
            second: id.max(twin),
        }
    }

    /// The unit's configurations (one or two).
    pub fn configs(&self) -> Vec<usize> {
        if self.first == self.second {
            vec![self.first]
        } else {
            vec![self.first, self.second]
        }
    }

    /// Boards of the unit at `n` stones (its node count).
    pub fn boards(&self, n: u32) -> u64 {
        self.configs()
            .iter()
            .map(|&id| board_count(n, TuzdykConfig::from_id(id).free_holes()))
            .sum()
    }

    /// Positions of the unit at `n` stones.
    pub fn positions(&self, n: u32) -> u64 {
        self.boards(n) * (n as u64 + 1)
    }

    /// Whether the solver handles the unit at `n` stones: its boards fit
    /// 32-bit node ids and a board's `n + 1` kazan splits a 32-bit
    /// frontier mask. Every unit fits up to [`togyz_tb::max_solver_stones`] (17),
    /// those of two tuzdyks (16 free holes) up to 19.
    pub fn fits_solver(&self, n: u32) -> bool {
        (1..=31).contains(&n) && self.boards(n) < u64::from(u32::MAX)
    }
}

/// The largest `m` for which every unit of every level up to `m` fits the
/// solver ([`UnitId::fits_solver`]), level `n` holding `contents(n)`: 17
/// for complete tables, 19 for those of tuzdyk pairs.
pub fn max_stones_of(contents: impl Fn(u32) -> Contents) -> u32 {
    (1..=31)
        .take_while(|&n| held_units(n, contents(n)).iter().all(|u| u.fits_solver(n)))
        .last()
        .unwrap_or(0)
}

/// [`max_stones_of`] the tables of every tuzdyk pair: the most stones of
/// any run, above which no work folder is ever made.
pub fn max_pair_stones() -> u32 {
    max_stones_of(|_| Contents::Pairs(TuzdykPairs::ALL))
}

/// The units of level `n`, by their first configuration (37 with the 73
/// configurations: the empty one, 8 one-tuzdyk pairs, 28 two-tuzdyk pairs).
pub fn level_units(_n: u32) -> Vec<UnitId> {
    (0..CONFIG_COUNT)
        .filter(|&id| UnitId::of(id).first == id)
        .map(UnitId::of)
        .collect()
}

/// The units of level `n` whose configurations a table of `contents`
/// holds: every unit for a full table, all but the configuration without
/// a tuzdyk for a WDL table (`docs/format.md`, "WDL tables"), which is
/// then never solved.
pub fn held_units(n: u32, contents: Contents) -> Vec<UnitId> {
    level_units(n)
        .into_iter()
        .filter(|u| u.configs().iter().all(|&c| contents.holds_config(c)))
        .collect()
}

/// Solves every unit of level `n` in parallel, big units first for better
/// load balance, and returns what `solve` gives each configuration, in
/// configuration order: how a level is solved whole in memory, whatever
/// the metric.
pub(crate) fn solve_by_config<T: Send, E: Send>(
    n: u32,
    solve: impl Fn(UnitId) -> Result<Vec<(usize, T)>, E> + Sync,
) -> Result<Vec<T>, E> {
    let mut units = level_units(n);
    units.sort_by_key(|u| std::cmp::Reverse(u.positions(n)));
    let solved: Vec<Vec<(usize, T)>> = units
        .into_par_iter()
        .map(&solve)
        .collect::<Result<_, _>>()?;
    let mut by_config: Vec<Option<T>> = (0..CONFIG_COUNT).map(|_| None).collect();
    for (id, part) in solved.into_iter().flatten() {
        by_config[id] = Some(part);
    }
    Ok(by_config
        .into_iter()
        .map(|p| p.expect("every configuration is in one unit"))
        .collect())
}

/// How a unit is cut along the kazan axis: into *kazan parts* of at most
/// `pairs` pairs of kazan offsets `{j, n - j}` each (the middle offset of
/// an even `n` is a pair of one). A quiet move takes offset `j` to
/// `n - j`, so the parts of a unit are solved one after the other, each
/// holding the states of its own splits only ([`crate::solve::core`]);
/// the values are the same whatever the cut. A cut also says whether the
/// unit's quiet-move graph, the same for every part, is stored (the
/// default) or generated again as each board is propagated: less memory
/// (none a board for the graph) for more time, when even parts of one
/// pair would not fit beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KazanCut {
    pairs: u32,
    stored_graph: bool,
}

impl KazanCut {
    /// No cut: one part holds every split, as the unit was always solved.
    pub const WHOLE: KazanCut = KazanCut {
        pairs: u32::MAX,
        stored_graph: true,
    };

    /// Parts of at most `pairs` pairs (`None` for 0).
    pub fn pairs(pairs: u32) -> Option<KazanCut> {
        (pairs > 0).then_some(KazanCut {
            pairs,
            stored_graph: true,
        })
    }

    /// The same parts, the quiet-move graph generated again as each board
    /// is propagated instead of stored.
    pub fn without_graph(self) -> KazanCut {
        KazanCut {
            stored_graph: false,
            ..self
        }
    }

    /// Whether the unit's quiet-move graph is stored.
    pub fn stores_graph(self) -> bool {
        self.stored_graph
    }

    /// Pairs of kazan offsets at `n` stones: `n / 2 + 1`.
    pub fn pair_count(n: u32) -> u32 {
        n / 2 + 1
    }

    /// The largest number of pairs a part holds at `n` stones.
    pub fn pairs_per_part(self, n: u32) -> u32 {
        self.pairs.min(Self::pair_count(n))
    }

    /// Whether a unit of level `n` is solved in one part.
    pub fn is_whole(self, n: u32) -> bool {
        self.pairs >= Self::pair_count(n)
    }

    /// The kazan splits of the largest part at `n` stones.
    pub fn part_splits(self, n: u32) -> u64 {
        let pairs = self.pairs_per_part(n) as u64;
        (2 * pairs).min(n as u64 + 1)
    }

    /// The parts of a unit of level `n`, as masks of kazan offsets, the
    /// pairs in order of their smaller offset.
    pub fn parts(self, n: u32) -> Vec<u64> {
        let per = self.pairs_per_part(n);
        let mut parts = Vec::new();
        let mut i = 0;
        while i < Self::pair_count(n) {
            let mut mask = 0u64;
            for p in i..(i + per).min(Self::pair_count(n)) {
                mask |= 1 << p | 1 << (n - p);
            }
            parts.push(mask);
            i += per;
        }
        parts
    }
}

impl std::fmt::Display for KazanCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pairs == KazanCut::WHOLE.pairs {
            write!(f, "whole units")?;
        } else {
            write!(f, "kazan parts of at most {} pairs", self.pairs)?;
        }
        if !self.stored_graph {
            write!(f, ", the quiet-move graph not stored")?;
        }
        Ok(())
    }
}

/// The set bits of `mask` (kazan offsets), lowest first.
#[inline]
pub(crate) fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            j
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use togyz_tb::raw::index::BoardWalker;
    use togyz_tb::raw::{landing, sow, Landing};

    fn unit_swap(unit: UnitId) -> usize {
        TuzdykConfig::from_id(unit.first).swapped().id()
    }

    #[test]
    fn a_reach_reads_its_levels_whole_and_its_configurations_of_one() {
        let r = Reach::levels(0b1010);
        assert!(r.reads(1, 5) && r.reads(3, 72) && !r.reads(2, 0) && !r.reads(0, 0));
        assert!(r.reads_level(3) && !r.reads_level(2) && r.whole_levels());
        let c = Reach::configs(7, 1 << 72 | 1 << 3);
        assert!(c.reads(7, 72) && c.reads(7, 3) && !c.reads(7, 4) && !c.reads(6, 3));
        assert!(c.reads_level(7) && !c.reads_level(6) && !c.whole_levels());
        assert!((0..64).all(|m| Reach::ALL.reads(m, 0) && Reach::ALL.reads_level(m)));
    }

    #[test]
    fn kazan_parts_hold_every_split_once_closed_under_the_mirror() {
        for n in 1..=20u32 {
            let all = (1u64 << (n + 1)) - 1;
            assert_eq!(KazanCut::WHOLE.parts(n), vec![all]);
            for pairs in 1..=KazanCut::pair_count(n) + 1 {
                let cut = KazanCut::pairs(pairs).unwrap();
                let parts = cut.parts(n);
                let want = KazanCut::pair_count(n).div_ceil(pairs) as usize;
                assert_eq!(parts.len(), want, "n={n} pairs={pairs}");
                assert_eq!(parts.iter().fold(0, |a, p| a | p), all);
                assert_eq!(parts.iter().map(|p| p.count_ones()).sum::<u32>(), n + 1);
                for &p in &parts {
                    let mirrored = p.reverse_bits() >> (63 - n);
                    assert_eq!(mirrored, p, "n={n} part {p:#b}");
                    assert!(p.count_ones() as u64 <= cut.part_splits(n));
                }
                assert_eq!(cut.is_whole(n), parts.len() == 1);
            }
        }
        assert_eq!(KazanCut::pairs(0), None);
        assert_eq!(
            KazanCut::pairs(1).unwrap().parts(4),
            vec![0b10001, 0b01010, 0b00100]
        );
    }

    /// `exit_configs` names every configuration that exits reach (with few
    /// stones some tuzdyks cannot be made yet, so it may name more).
    #[test]
    fn exit_configs_hold_those_the_exits_reach() {
        let n = 5;
        for unit in level_units(n) {
            let mut reached = std::collections::BTreeSet::new();
            for id in unit.configs() {
                let config = TuzdykConfig::from_id(id);
                let tz = config.cycle_indices();
                let mut w = BoardWalker::new(n, config, 0, u64::MAX);
                while let Some((_, board)) = w.current() {
                    for h in (0..ROW).filter(|&h| board[h] > 0) {
                        let mut b = *board;
                        let sown = sow(&mut b, h, tz);
                        let mut child = config;
                        let landing = landing(&b, sown.last, Side::South, tz);
                        if landing == Landing::Tuzdyk {
                            child.mover = Some((sown.last - ROW) as u8);
                        }
                        if landing != Landing::Quiet || sown.fed != [0, 0] {
                            reached.insert(child.swapped().id());
                        }
                    }
                    w.advance();
                }
            }
            let named: std::collections::BTreeSet<usize> = exit_configs(unit).into_iter().collect();
            assert!(reached.is_subset(&named), "{unit:?}: {reached:?} {named:?}");
            assert!(reached.contains(&unit_swap(unit)), "{unit:?}");
        }
    }
}
