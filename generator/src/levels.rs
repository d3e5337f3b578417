//! The smaller levels as a solve or a check reads them back from their
//! table files: the distances for DTM ([`lower`]), the win/draw/loss for
//! DTC ([`lower_wdl`]); the small levels whole, of the larger ones what a
//! unit's exits reach.

pub mod lower;
pub mod lower_wdl;

use crate::solve::unit::{exit_configs, UnitId};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;

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
/// most `limit` bytes between them (for DTM, positions: `WHOLE_POSITIONS`
/// of [`lower`] unless a test says otherwise; for DTC, boards). Each unit
/// reads the levels not held whole again from their files, so at 13
/// stones, where a unit's exits reach several configurations, decoding
/// them again cost more than holding them.
pub fn held_whole(metric: Metric, m: u32, limit: u64) -> bool {
    (1..=m).map(|l| level_bytes(metric, l)).sum::<u64>() <= limit
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
    let configs = exit_configs(unit);
    (1..n)
        .filter(|&m| !held_whole(metric, m, limit))
        .map(|m| {
            let layout = Layout::new(m);
            configs
                .iter()
                .map(|&c| layout.config_boards(c) * per_board(metric, &layout))
                .sum::<u64>()
        })
        .sum()
}
