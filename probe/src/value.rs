//! Game-theoretic values: win, draw or loss for the side to move, with the
//! distance to the end of the game in plies.

use std::cmp::Ordering;
use std::fmt;

/// Win, draw or loss for the side to move.
///
/// Ordered from the side to move's view: `Loss < Draw < Win`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win (an 81:81 finish or endless play).
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The result for the other player.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the distance of a [`Value`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Distance to mate: plies to the end of the game, the winner hurrying
    /// and the loser delaying.
    Dtm,
    /// Distance to conversion: plies to the next move that leaves the stone
    /// count (a capture, a tuzdyk made or fed) or ends the game, the winner
    /// heading for a conversion that keeps the win (`docs/dtc.md`).
    Dtc,
}

impl Metric {
    /// `"DTM"` or `"DTC"`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtm => "DTM",
            Metric::Dtc => "DTC",
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An exact value: the winner hurries, the loser delays, and the distance is
/// counted in plies to the moment the game ends.
///
/// Ordered from the side to move's view, better is greater: every win is
/// greater than a draw, which is greater than every loss; a faster win is
/// greater than a slower one (`Win(1) > Win(3)`) and a slower loss greater
/// than a faster one (`Loss(9) > Loss(2)`). So the best move is the one
/// with the greatest value ([`Value::score`] gives the same order as a
/// number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins; the game ends after this many plies.
    Win(u32),
    /// Neither side can force a win.
    Draw,
    /// The side to move loses; the game ends after this many plies.
    Loss(u32),
}

/// Largest distance that [`Value::pack`] can hold.
pub const MAX_PACKED_DISTANCE: u32 = (u16::MAX as u32 - 2) / 2;

impl Value {
    /// Win, draw or loss.
    pub fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to the end, `None` for a draw.
    pub fn distance(self) -> Option<u32> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// One ply back: the value, for the player who moved, of a move into a
    /// position whose side to move has this value. The result flips (the
    /// opponent's loss is the mover's win) and the distance grows by the
    /// move itself: `Loss(3).back() == Win(4)`, `Draw.back() == Draw`.
    #[inline]
    pub fn back(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// A total order from the side to move's view: faster wins first, then
    /// draws, then slower losses.
    #[inline]
    pub fn score(self) -> i64 {
        match self {
            Value::Win(d) => i64::MAX / 2 - d as i64,
            Value::Draw => 0,
            Value::Loss(d) => -(i64::MAX / 2) + d as i64,
        }
    }

    /// Packs into 16 bits: 0 draw, `2d + 1` a win in `d`, `2d + 2` a loss
    /// in `d`. `None` if `d` exceeds [`MAX_PACKED_DISTANCE`].
    #[inline]
    pub fn pack(self) -> Option<u16> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if d <= MAX_PACKED_DISTANCE => Some((2 * d + 1) as u16),
            Value::Loss(d) if d <= MAX_PACKED_DISTANCE => Some((2 * d + 2) as u16),
            _ => None,
        }
    }

    /// Inverse of [`Value::pack`].
    #[inline]
    pub fn unpack(v: u16) -> Value {
        match v {
            0 => Value::Draw,
            v if v % 2 == 1 => Value::Win((v as u32 - 1) / 2),
            v => Value::Loss((v as u32 - 2) / 2),
        }
    }
}

impl PartialOrd for Value {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.score().cmp(&other.score())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(d) => write!(f, "loss in {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip_and_order() {
        for v in [
            Value::Draw,
            Value::Win(1),
            Value::Win(7),
            Value::Loss(0),
            Value::Loss(300),
        ] {
            assert_eq!(Value::unpack(v.pack().unwrap()), v);
        }
        assert!(Value::Win(1) > Value::Win(3));
        assert!(Value::Win(300) > Value::Draw);
        assert!(Value::Draw > Value::Loss(300));
        assert!(Value::Loss(9) > Value::Loss(2));
        assert_eq!(Value::Loss(3).back(), Value::Win(4));
        assert_eq!(Value::Win(MAX_PACKED_DISTANCE + 1).pack(), None);
    }
}
