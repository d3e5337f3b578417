//! The sowing primitives under [`Position::play`](crate::Position::play), in
//! the cycle-index form the generator works in. Reached through
//! [`crate::raw`]: for the generator, no stability promise.
//!
//! `generator/src/solve/unmove.rs` (the un-move generator) inverts [`sow`],
//! [`landing`] and [`tuzdyk_allowed`]; its test
//! `unmoves_invert_quiet_moves` checks, edge for edge, every un-move against
//! these forward moves.

use super::{Side, CYCLE, ROW};

/// Marker for "no tuzdyk" in the cycle-index form used by [`sow`].
pub const NO_TUZDYK: u8 = u8::MAX;

/// What one sowing did, before any capture is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sown {
    /// Cycle index where the last stone landed (it may be a tuzdyk).
    pub last: usize,
    /// Stones that fell into each side's tuzdyk, by owner (`fed[side]`).
    pub fed: [u8; 2],
}

/// Sows the stones of cycle index `from` (which must be non-empty and not a
/// tuzdyk). `tuzdyks[side]` is the cycle index of the hole that is `side`'s
/// tuzdyk, or [`NO_TUZDYK`]. Stones that land in a tuzdyk are taken out of
/// the board and reported in [`Sown::fed`]; the caller adds them to kazans.
///
/// `c >= 2` stones: one goes back into `from`, the rest into the following
/// holes, lapping the whole cycle (origin included) for 19 or more.
/// `c == 1`: the stone moves to the next hole.
#[inline]
pub fn sow(holes: &mut [u8; CYCLE], from: usize, tuzdyks: [u8; 2]) -> Sown {
    debug_assert!(from < CYCLE && holes[from] > 0);
    let c = holes[from] as usize;
    holes[from] = 0;
    let last;
    if c == 1 {
        last = if from + 1 == CYCLE { 0 } else { from + 1 };
        holes[last] += 1;
    } else {
        let laps = (c / CYCLE) as u8;
        let rest = c % CYCLE;
        if laps > 0 {
            for h in holes.iter_mut() {
                *h += laps;
            }
        }
        // The `rest` holes starting at `from` get one more, wrapping once.
        let first_run = rest.min(CYCLE - from);
        for h in &mut holes[from..from + first_run] {
            *h += 1;
        }
        for h in &mut holes[..rest - first_run] {
            *h += 1;
        }
        last = (from + c - 1) % CYCLE;
    }
    let mut fed = [0u8; 2];
    for (side, &t) in tuzdyks.iter().enumerate() {
        if t != NO_TUZDYK {
            fed[side] = holes[t as usize];
            holes[t as usize] = 0;
        }
    }
    Sown { last, fed }
}

/// What happens at the hole where the last stone landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// No capture: own side, a tuzdyk, or an odd count that makes no tuzdyk.
    Quiet,
    /// An even count in an opponent's hole: the mover takes these stones.
    Capture(u8),
    /// Exactly 3 in an eligible opponent's hole: it becomes the mover's
    /// tuzdyk and the 3 stones go to the mover's kazan.
    Tuzdyk,
}

/// Decides the capture at `last` for `mover`, after [`sow`]. Does not change
/// the board. `tuzdyks` is in the same cycle-index form as for [`sow`].
#[inline]
pub fn landing(holes: &[u8; CYCLE], last: usize, mover: Side, tuzdyks: [u8; 2]) -> Landing {
    let opp = mover.opponent();
    if Side::of_hole(last) != opp || last as u8 == tuzdyks[0] || last as u8 == tuzdyks[1] {
        return Landing::Quiet;
    }
    let count = holes[last];
    if count.is_multiple_of(2) {
        return Landing::Capture(count);
    }
    if count == 3 && tuzdyk_allowed(last, mover, tuzdyks) {
        return Landing::Tuzdyk;
    }
    Landing::Quiet
}

/// Whether `mover` may turn the opponent's hole at cycle index `idx` into a
/// tuzdyk: he has none yet, it is not the opponent's 9th hole, and the
/// opponent's tuzdyk (if any) does not carry the same number.
#[inline]
pub fn tuzdyk_allowed(idx: usize, mover: Side, tuzdyks: [u8; 2]) -> bool {
    let number = idx % ROW;
    let opp_tuz = tuzdyks[mover.opponent().index()];
    tuzdyks[mover.index()] == NO_TUZDYK
        && number != ROW - 1
        && (opp_tuz == NO_TUZDYK || opp_tuz as usize % ROW != number)
}
