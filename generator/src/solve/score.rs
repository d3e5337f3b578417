//! The win/draw/loss of a whole level as one number per board.
//!
//! Along the kazan axis of one board the results run losses, then draws,
//! then wins (`docs/format.md`, WDL section). Every level solved so far has
//! exactly one drawn split per board: the board then behaves like a score
//! game (as in the databases that solved Awari), where the side to move can
//! secure `s` of the `n` stones on the board whatever the kazans, and wins,
//! draws or loses as its kazan offset `j` is above, at or below the *draw
//! split* `j* = n - s`. So one number `j*` in `0..=n` per board gives the
//! result of all `n + 1` splits: loss for `j < j*`, draw at `j = j*`, win
//! for `j > j*`. In the file format's terms these are the thresholds
//! `(draw_from, win_from) = (j*, j* + 1)` ([`WdlLevel::thresholds`]).
//!
//! A level is held as one byte per board ([`WdlLevel`]), which is all a
//! distance-to-conversion solve needs of the levels below it ([`crate::solve::dtc`]).
//! The property is checked on every board ([`draw_split`]); a board that
//! breaks it stops the work with [`ScoreError::NotOneDraw`], naming it.

use togyz_tb::raw::format::wdl_at;
use togyz_tb::raw::format::Contents;
use togyz_tb::raw::index::{Layout, Slot, CONFIG_COUNT};
use togyz_tb::{Position, Value, Wdl};

/// A level whose win/draw/loss is not one draw split per board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    /// A board's results along the kazan axis are not losses, exactly one
    /// draw, then wins.
    #[error(
        "level {n}, board {board}: the results over the kazan splits are {found}, \
         not losses, exactly one draw, then wins (first offending position: {fen})"
    )]
    NotOneDraw {
        /// Stones on the board.
        n: u32,
        /// The global board number (`docs/position-index.md`).
        board: u64,
        /// The board's position at the first offending kazan split, as a FEN.
        fen: String,
        /// The results, one letter per split from `j = 0` (`L`, `D`, `W`).
        found: String,
    },
    /// A level of the wrong size was given.
    #[error("level {n} takes {expected} entries, {got} were given")]
    WrongLength {
        /// Stones on the board.
        n: u32,
        /// Entries the level takes (boards or positions).
        expected: u64,
        /// Values given.
        got: u64,
    },
}

/// The draw split `j*` of one board of level `n`, from its `n + 1` results
/// in kazan order (global board `gb`, for the error).
///
/// # Errors
///
/// [`ScoreError::NotOneDraw`] unless the results are losses for `j < j*`,
/// a draw at `j*` and wins above.
pub fn draw_split(
    n: u32,
    gb: u64,
    board: impl IntoIterator<Item = Wdl>,
) -> Result<u32, ScoreError> {
    let results: Vec<Wdl> = board.into_iter().collect();
    // The draw must be where the losses end, and everything must follow
    // from it.
    let s = losses_end(results.iter().copied());
    let bad = (0..results.len()).find(|&j| results[j] != wdl_at((s, s + 1), j as u32));
    match bad {
        None if results.len() == n as usize + 1 => Ok(s),
        _ => Err(not_one_draw(n, gb, bad.unwrap_or(0) as u32, &results)),
    }
}

/// Where the losses of a board's results in kazan order end (its last
/// split when all are losses): its draw split when it has one, which
/// [`draw_split`] checks.
#[inline]
pub fn losses_end(board: impl ExactSizeIterator<Item = Wdl>) -> u32 {
    let last = board.len().saturating_sub(1);
    let mut board = board;
    board.position(|w| w != Wdl::Loss).unwrap_or(last) as u32
}

/// The error for board `gb` of level `n`, first wrong at split `j`.
fn not_one_draw(n: u32, gb: u64, j: u32, results: &[Wdl]) -> ScoreError {
    let layout = Layout::new(n);
    let fen = layout.slot(layout.index_at(gb, j.min(n))).position().fen();
    ScoreError::NotOneDraw {
        n,
        board: gb,
        fen,
        found: results
            .iter()
            .map(|w| match w {
                Wdl::Loss => 'L',
                Wdl::Draw => 'D',
                Wdl::Win => 'W',
            })
            .collect(),
    }
}

/// The win/draw/loss of one level: the draw split of every board, one byte
/// each, in global board order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WdlLevel {
    n: u32,
    splits: Vec<u8>,
}

impl WdlLevel {
    /// The level with no stones: its one position per board (the empty
    /// board, at 81:81 and each tuzdyk configuration) is a draw.
    pub fn empty_board() -> WdlLevel {
        WdlLevel::from_splits(0, vec![0; Layout::new(0).boards() as usize])
            .expect("the empty board's splits are valid")
    }

    /// A level from its draw splits, one per board in global board order.
    ///
    /// # Errors
    ///
    /// [`ScoreError::WrongLength`] unless there is one split per board of
    /// level `n`; [`ScoreError::NotOneDraw`] for a split above `n`.
    pub fn from_splits(n: u32, splits: Vec<u8>) -> Result<WdlLevel, ScoreError> {
        WdlLevel::from_held_splits(n, splits, Contents::Full)
    }

    /// [`WdlLevel::from_splits`] of a level whose table holds `contents`:
    /// the bytes of the boards it does not hold (a WDL table's without a
    /// tuzdyk, or those of other tuzdyk pairs) are kept as they are and
    /// never read, since no position of a board held reaches them and a
    /// level that would is refused above such a table.
    ///
    /// # Errors
    ///
    /// As [`WdlLevel::from_splits`], for the boards held.
    pub fn from_held_splits(
        n: u32,
        splits: Vec<u8>,
        contents: Contents,
    ) -> Result<WdlLevel, ScoreError> {
        let layout = Layout::new(n);
        if splits.len() as u64 != layout.boards() {
            return Err(ScoreError::WrongLength {
                n,
                expected: layout.boards(),
                got: splits.len() as u64,
            });
        }
        for config in (0..CONFIG_COUNT).filter(|&c| contents.holds_config(c)) {
            let first = layout.global_board(config, 0) as usize;
            let held = &splits[first..first + layout.config_boards(config) as usize];
            if let Some(at) = held.iter().position(|&s| s as u32 > n) {
                // A split past the last kazan offset: all losses, no draw.
                let all_lost = vec![Wdl::Loss; n as usize + 1];
                return Err(not_one_draw(n, (first + at) as u64, n, &all_lost));
            }
        }
        Ok(WdlLevel { n, splits })
    }

    /// The level of packed [`Value`]s `packed` (any metric: only the
    /// win/draw/loss is read), in index order.
    ///
    /// # Errors
    ///
    /// [`ScoreError::WrongLength`] if `packed` is not one value per
    /// position of level `n`, [`ScoreError::NotOneDraw`] naming the first
    /// board that is not one draw split.
    pub fn from_packed(n: u32, packed: &[u16]) -> Result<WdlLevel, ScoreError> {
        let layout = Layout::new(n);
        if packed.len() as u64 != layout.positions() {
            return Err(ScoreError::WrongLength {
                n,
                expected: layout.positions(),
                got: packed.len() as u64,
            });
        }
        let k = layout.kazans() as usize;
        let splits = packed
            .chunks(k)
            .enumerate()
            .map(|(gb, board)| {
                let wdl = board.iter().map(|&v| Value::unpack(v).wdl());
                draw_split(n, gb as u64, wdl).map(|s| s as u8)
            })
            .collect::<Result<Vec<u8>, ScoreError>>()?;
        Ok(WdlLevel { n, splits })
    }

    /// Stones on the board.
    pub fn stones(&self) -> u32 {
        self.n
    }

    /// Boards in the level.
    pub fn boards(&self) -> u64 {
        self.splits.len() as u64
    }

    /// The draw splits, one byte per board in global board order.
    pub fn splits(&self) -> &[u8] {
        &self.splits
    }

    /// The draw split `j*` of global board `gb`.
    #[inline]
    pub fn split(&self, gb: u64) -> u32 {
        self.splits[gb as usize] as u32
    }

    /// Asks the processor to bring in the draw split of global board `gb`.
    #[inline]
    pub fn prefetch(&self, gb: u64) {
        crate::solve::prefetch::prefetch_byte(&self.splits, gb as usize);
    }

    /// The file format's thresholds `(draw_from, win_from)` of board `gb`.
    #[inline]
    pub fn thresholds(&self, gb: u64) -> (u32, u32) {
        let s = self.split(gb);
        (s, s + 1)
    }

    /// The result at position `index` of the level.
    #[inline]
    pub fn wdl(&self, index: u64) -> Wdl {
        let k = self.n as u64 + 1;
        wdl_at(self.thresholds(index / k), (index % k) as u32)
    }

    /// The result of a live position with this level's stone count, or
    /// `None` if it has another count or a kazan over 81.
    pub fn wdl_of(&self, pos: &Position) -> Option<Wdl> {
        let slot = Slot::of(pos)?;
        (slot.stones == self.n).then(|| self.wdl(Layout::new(self.n).index(&slot)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Wdl::{Draw as D, Loss as L, Win as W};

    #[test]
    fn one_draw_gives_the_split() {
        assert_eq!(draw_split(3, 0, [L, L, D, W]), Ok(2));
        assert_eq!(draw_split(3, 0, [D, W, W, W]), Ok(0));
        assert_eq!(draw_split(3, 0, [L, L, L, D]), Ok(3));
    }

    #[test]
    fn boards_that_break_the_property_are_named() {
        for (bad, j) in [
            (vec![L, D, D, W], 2),
            (vec![L, L, W, W], 2),
            (vec![L, D, L, W], 2),
            (vec![W, D, W, W], 0),
        ] {
            match draw_split(3, 5, bad.clone()) {
                Err(ScoreError::NotOneDraw {
                    n,
                    board,
                    fen,
                    found,
                }) => {
                    assert_eq!((n, board), (3, 5));
                    let layout = Layout::new(3);
                    let want = layout.slot(layout.index_at(5, j)).position().fen();
                    assert_eq!(fen, want, "{bad:?}");
                    assert_eq!(found.len(), 4);
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        // The wrong number of splits is refused too.
        assert!(draw_split(3, 0, [L, D, W]).is_err());
    }

    #[test]
    fn levels_round_trip_their_results() {
        let n = 2;
        let layout = Layout::new(n);
        let splits: Vec<u8> = (0..layout.boards()).map(|gb| (gb % 3) as u8).collect();
        let level = WdlLevel::from_splits(n, splits.clone()).unwrap();
        let packed: Vec<u16> = (0..layout.positions())
            .map(|i| match level.wdl(i) {
                Wdl::Win => Value::Win(1),
                Wdl::Draw => Value::Draw,
                Wdl::Loss => Value::Loss(2),
            })
            .map(|v| v.pack().unwrap())
            .collect();
        assert_eq!(WdlLevel::from_packed(n, &packed).unwrap(), level);
        assert!(matches!(
            WdlLevel::from_splits(n, vec![3; layout.boards() as usize]),
            Err(ScoreError::NotOneDraw { .. })
        ));
        assert!(matches!(
            WdlLevel::from_packed(n, &packed[1..]),
            Err(ScoreError::WrongLength { .. })
        ));
        assert_eq!(WdlLevel::empty_board().boards(), Layout::new(0).boards());
    }
}
