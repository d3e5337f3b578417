//! What a level reads of the levels under it, for both metrics: one home
//! for the levels below.
//!
//! * the levels below held in memory, as the solvers read them: DTM's
//!   packed values by level ([`DtmLevels`]) or by configuration
//!   ([`DtmExits`], what one unit's exits read), DTC's draw split of every
//!   board ([`DtcLevels`]) or of what one unit's exits read (the DTC
//!   solver reads either through [`WdlBelow`]); they live in
//!   `solve/held.rs`, under the solvers that read them, and are named here;
//! * [`dtm`]: the distances below as a solve or a check reads them back
//!   from their table files ([`DtmBelow`], one unit's share
//!   [`DtmUnitBelow`]);
//! * [`dtc`]: the same for the win/draw/loss ([`DtcBelow`], one unit's
//!   share [`DtcUnitBelow`]).
//!
//! The small levels are held whole, of the larger ones each unit decodes
//! what its exits reach; this file says which are held whole and what they
//! take. [`dtm`] and [`dtc`] read `files`, which the solvers never do.

pub mod dtc;
pub mod dtm;

pub use crate::solve::held::{DtcLevels, DtmExits, DtmLevels, WdlBelow};
pub use dtc::{DtcBelow, DtcUnitBelow};
pub use dtm::{DtmBelow, DtmUnitBelow};

use crate::solve::unit::{exit_configs, UnitId};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;

/// The smaller levels are held whole while their positions up to and
/// including the level stay within this (levels 1 to 8, 513 M positions):
/// what the default 8-stone set needs is then all in memory, as before,
/// and at 12 stones the whole ones take 0.5 GB. Decoding a unit's share of
/// a level costs about as much as holding it whole saves in memory from
/// level 9 up (docs/performance.md).
pub const WHOLE_POSITIONS: u64 = 600_000_000;

/// What an exit reads of one board of a smaller level, a byte each: every
/// kazan split's distance for DTM (one a position), the board's draw split
/// for DTC (one a board).
fn per_board(metric: Metric, layout: &Layout) -> u64 {
    match metric {
        Metric::Dtm => layout.kazans(),
        Metric::Dtc => 1,
    }
}

/// The smallest level a metric's exits read: DTC's conversions also reach
/// the empty board (level 0, all draws); DTM's game ends are scored
/// without a table.
fn first_level(metric: Metric) -> u32 {
    match metric {
        Metric::Dtm => 1,
        Metric::Dtc => 0,
    }
}

/// Bytes of level `m` as the exits read it, and as it is held whole.
pub fn level_bytes(metric: Metric, m: u32) -> u64 {
    let layout = Layout::new(m);
    layout.boards() * per_board(metric, &layout)
}

/// Whether level `m` is held whole: it and every level below it take at
/// most `limit` bytes between them (for DTM, positions: [`WHOLE_POSITIONS`]
/// unless a test says otherwise; for DTC, boards). Each unit
/// reads the levels not held whole again from their files, so at 13
/// stones, where a unit's exits reach several configurations, decoding
/// them again cost more than holding them.
pub fn held_whole(metric: Metric, m: u32, limit: u64) -> bool {
    whole_limit(metric, m) <= limit
}

/// The least limit that holds levels 1 to `m` whole ([`held_whole`]):
/// their bytes together (0 for `m == 0`: the empty board is always held).
pub fn whole_limit(metric: Metric, m: u32) -> u64 {
    (1..=m).map(|l| level_bytes(metric, l)).sum()
}

/// Bytes held for the exits while level `n` is solved or checked: the
/// levels below it held whole.
pub fn whole_bytes(metric: Metric, n: u32, limit: u64) -> u64 {
    (first_level(metric)..n)
        .filter(|&m| held_whole(metric, m, limit))
        .map(|m| level_bytes(metric, m))
        .sum()
}

/// Bytes one unit of level `n` decodes for its exits from the levels not
/// held whole: the configurations it reaches ([`exit_configs`]).
pub fn unit_exit_bytes(metric: Metric, n: u32, unit: UnitId, limit: u64) -> u64 {
    (1..n)
        .map(|m| unit_level_bytes(metric, m, unit, limit))
        .sum()
}

/// Bytes a unit decodes for its exits of level `m` (none if the level
/// is held whole): the configurations it reaches ([`exit_configs`]).
pub fn unit_level_bytes(metric: Metric, m: u32, unit: UnitId, limit: u64) -> u64 {
    if held_whole(metric, m, limit) {
        return 0;
    }
    exit_configs(unit)
        .iter()
        .map(|&c| config_bytes(metric, m, c))
        .sum()
}

/// Bytes an exit decodes of configuration `config` of level `m` not held
/// whole.
pub fn config_bytes(metric: Metric, m: u32, config: usize) -> u64 {
    let layout = Layout::new(m);
    layout.config_boards(config) * per_board(metric, &layout)
}
