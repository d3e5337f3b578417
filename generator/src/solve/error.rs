//! Why a level or unit could not be solved, and the solver's distance bound.

use crate::solve::unit::{max_pair_stones, UnitId};
use togyz_tb::raw::index::max_solver_stones;
use togyz_tb::MAX_PACKED_DISTANCE;

/// Why a level could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A distance outgrew the in-memory encoding.
    #[error("a distance of {0} plies exceeds the solver's limit of {MAX_DIST}")]
    DistanceOverflow(u32),
    /// Levels must be solved in ascending order.
    #[error("level {wanted} needs all levels below it, but only {have} are solved")]
    MissingLevel {
        /// The level asked for.
        wanted: u32,
        /// Levels available (highest).
        have: u32,
    },
    /// A unit's exits reach a configuration of a smaller level that was
    /// not given to the solver.
    #[error("the values of tuzdyk configuration {config} at {stones} stones, which the unit's exits reach, were not given")]
    MissingExits {
        /// The smaller level.
        stones: u32,
        /// The configuration.
        config: usize,
    },
    /// More stones than the solver supports for the unit
    /// ([`UnitId::fits_solver`]).
    #[error("{0} stones is beyond what the solver supports for this unit (its boards are numbered with 32-bit ids: every unit fits up to {max} stones, those of two tuzdyks up to {pairs})", max = max_solver_stones(), pairs = max_pair_stones())]
    TooManyStones(u32),
    /// A unit that is not a tuzdyk configuration and its swap.
    #[error("configurations {0} and {1} do not form a unit")]
    BadUnit(usize, usize),
    /// A value does not fit a one-byte cell; [`solve_unit`](crate::solve::dtm::solve_unit) then keeps the
    /// configuration's values in two-byte cells.
    #[error("a distance does not fit a one-byte cell")]
    CellTooNarrow,
    /// The values of a solved kazan part could not be kept: the
    /// [`PartSink`](crate::solve::parts::PartSink) holds why. (No payload:
    /// the solver's hot loops pass this type around, and an error that
    /// owns memory made them call its drop, 1.6% more instructions.)
    #[error("a solved kazan part could not be kept")]
    Part,
    /// The forward solve ([`crate::solve::forward`]) was given the unit
    /// without a tuzdyk, whose positions can repeat.
    #[error("the unit without a tuzdyk cannot be solved forward: its positions can repeat")]
    NoTuzdyk,
    /// Quiet moves led back to a board in the forward solve, which the
    /// rules exclude once a tuzdyk stands (a bug, named so it can be found).
    #[error("quiet moves lead back to board {board} of tuzdyk configuration {config} at {stones} stones")]
    QuietCycle {
        /// Stones on the board.
        stones: u32,
        /// The configuration id.
        config: usize,
        /// The board's rank.
        board: u64,
    },
}

/// Largest distance the solver handles: what a packed [`Value`](togyz_tb::Value) holds.
pub const MAX_DIST: u32 = MAX_PACKED_DISTANCE;

/// Whether unit `unit` of level `n` can be solved: a unit ([`UnitId::of`]
/// its first configuration) that the solver handles at `n` stones
/// ([`UnitId::fits_solver`]).
pub(crate) fn check_unit(n: u32, unit: UnitId) -> Result<(), SolveError> {
    if UnitId::of(unit.first) != unit {
        return Err(SolveError::BadUnit(unit.first, unit.second));
    }
    if !unit.fits_solver(n) {
        return Err(SolveError::TooManyStones(n));
    }
    Ok(())
}

/// Whether level `n` can be solved whole on the levels up to `have`:
/// every unit within the solver's limit ([`max_solver_stones`]), every
/// smaller level there.
pub(crate) fn check_level(n: u32, have: u32) -> Result<(), SolveError> {
    if n == 0 || n > max_solver_stones() {
        return Err(SolveError::TooManyStones(n));
    }
    check_below(n, have)
}

/// Whether a unit of level `n` has the levels it needs, those up to
/// `have`: every smaller level there (the unit's own limit is
/// [`check_unit`]'s).
pub(crate) fn check_below(n: u32, have: u32) -> Result<(), SolveError> {
    if have + 1 < n {
        return Err(SolveError::MissingLevel { wanted: n, have });
    }
    Ok(())
}
