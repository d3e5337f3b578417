//! Conversions between the library's types and the C structs: positions
//! checked on the way in, values, root moves and search results on the way
//! out, the search budget.

use std::ffi::c_char;

use togyz_tb::notation::{self, NotationError};
use togyz_tb::search::{Budget, SearchResult, Source};
use togyz_tb::{Metric, MoveValue, Position, PositionError, Side, Value, Wdl};

use crate::error::Failure;
use crate::{TogyzMetric, TogyzPosition, TogyzRootMove, TogyzSearchResult, TogyzSource};
use crate::{TogyzStatus, TogyzValue, TogyzWdl, TOGYZ_NORTH, TOGYZ_SOUTH};

/// A NUL-terminated copy of `s` into a fixed array (`s` is short ASCII).
pub(crate) fn fixed_text<const N: usize>(s: &str) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    for (o, b) in out.iter_mut().zip(s.bytes().take(N - 1)) {
        *o = b as c_char;
    }
    out
}

/// Converts the C struct to a checked [`Position`] and hands it to `f`.
// Inlined, with the failures out of line, and `f` borrows the position
// where `Position::new` wrote it: moving it into another `Result` cost a
// store-forwarding stall on every probe.
#[inline(always)]
pub(crate) fn with_position<T>(
    p: &TogyzPosition,
    f: impl FnOnce(&Position) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let side = match p.side_to_move {
        TOGYZ_SOUTH => Side::South,
        TOGYZ_NORTH => Side::North,
        s => return Err(bad_side(s)),
    };
    // 0 is "none"; `Position::new` checks the other numbers.
    let tuzdyk = |number: u8| (number != 0).then_some(number);
    let tuzdyks = [tuzdyk(p.tuzdyks[0]), tuzdyk(p.tuzdyks[1])];
    match Position::new(p.holes, p.kazans, tuzdyks, side, p.move_number) {
        Ok(ref pos) => f(pos),
        Err(e) => Err(bad_position(e)),
    }
}

/// Converts the C struct to a checked [`Position`].
pub(crate) fn position_from_c(p: &TogyzPosition) -> Result<Position, Failure> {
    with_position(p, |pos| Ok(*pos))
}

#[cold]
pub(crate) fn bad_side(s: u8) -> Failure {
    Failure::new(
        TogyzStatus::BadArgument,
        format!("side_to_move is {s}: it must be 0 (South) or 1 (North)"),
    )
}

#[cold]
pub(crate) fn bad_position(e: PositionError) -> Failure {
    Failure::new(TogyzStatus::BadPosition, e.to_string())
}

/// Converts a [`Position`] to the C struct.
pub(crate) fn position_to_c(pos: &Position) -> TogyzPosition {
    let number = |side| pos.tuzdyk(side).unwrap_or(0);
    TogyzPosition {
        holes: *pos.holes(),
        kazans: pos.kazans(),
        tuzdyks: [number(Side::South), number(Side::North)],
        side_to_move: pos.side_to_move().index() as u8,
        move_number: pos.move_number(),
    }
}

pub(crate) fn wdl_to_c(wdl: Wdl) -> TogyzWdl {
    match wdl {
        Wdl::Loss => TogyzWdl::Loss,
        Wdl::Draw => TogyzWdl::Draw,
        Wdl::Win => TogyzWdl::Win,
    }
}

pub(crate) fn value_to_c(value: Value, metric: Metric) -> TogyzValue {
    match value.distance() {
        Some(d) => TogyzValue {
            wdl: wdl_to_c(value.wdl()),
            metric: match metric {
                Metric::Dtm => TogyzMetric::Dtm,
                Metric::Dtc => TogyzMetric::Dtc,
            },
            distance: d,
        },
        None => TogyzValue {
            wdl: wdl_to_c(value.wdl()),
            metric: TogyzMetric::None,
            distance: 0,
        },
    }
}

pub(crate) fn root_move_to_c(pos: &Position, m: &MoveValue) -> Result<TogyzRootMove, Failure> {
    let notation_failure = |e: NotationError| Failure::new(TogyzStatus::Internal, e.to_string());
    Ok(TogyzRootMove {
        hole: m.mv.hole(),
        traditional: fixed_text(&notation::traditional(pos, m.mv).map_err(notation_failure)?),
        uci: fixed_text(&notation::uci(pos, m.mv).map_err(notation_failure)?),
        value: value_to_c(m.value, m.metric),
    })
}

/// The budget a caller passed, checked.
pub(crate) fn budget_of(max_seconds: f64, max_nodes: u64) -> Result<Budget, Failure> {
    Budget::limits(max_seconds, max_nodes).map_err(|e| {
        Failure::new(
            TogyzStatus::BadArgument,
            format!("max_seconds {max_seconds}, max_nodes {max_nodes}: {e}"),
        )
    })
}

pub(crate) fn search_result_to_c(
    pos: &Position,
    r: &SearchResult,
) -> Result<TogyzSearchResult, Failure> {
    let best = r.proven().and(r.best_move);
    let best_text = match best {
        Some(mv) => notation::traditional(pos, mv)
            .map_err(|e| Failure::new(TogyzStatus::Internal, e.to_string()))?,
        None => String::new(),
    };
    Ok(TogyzSearchResult {
        lower: wdl_to_c(r.lower),
        upper: wdl_to_c(r.upper),
        proven: u8::from(r.proven().is_some()),
        best_hole: best.map_or(0, |mv| mv.hole()),
        best_traditional: fixed_text(&best_text),
        source: match r.source {
            Source::Rules => TogyzSource::Rules,
            Source::Tables => TogyzSource::Tables,
            Source::Search => TogyzSource::Search,
        },
        table_stones: r.table_stones,
        nodes: r.nodes,
        graph_positions: r.graph_positions,
        seconds: r.elapsed.as_secs_f64(),
    })
}
