//! The DTC of a lost position, which a DTC table leaves out of its
//! distance section: one ply of search over the wins it stores.

use crate::rules::Position;

/// The DTC of `pos`, a lost position of a DTC table (`docs/dtc.md`): the
/// loser puts the next conversion off as long as it can, so it is the
/// largest of its moves' values, each 1 for a move that converts (leaves
/// the stone count or ends the game) and one more than the successor's
/// stored win for a quiet move; 0 when the game is over (the side to move
/// has no stones).
///
/// `win_dtc(child)` gives a quiet move's successor's stored DTC, or `None`
/// when the table does not hold that successor as a win: then the table
/// contradicts itself (a loss with a move that does not lose) and so this
/// answers `None` too. `docs/format.md` ("DTC tables") explains why the
/// losses are left out; the generator recovers a whole unit's losses the
/// same way (`togyz_gen::files::recover`), with its successors' slots computed
/// once a board.
///
/// # Errors
///
/// Whatever `win_dtc` returns.
pub fn loss_dtc<E>(
    pos: &Position,
    mut win_dtc: impl FnMut(&Position) -> Result<Option<u32>, E>,
) -> Result<Option<u32>, E> {
    if let Some(o) = pos.outcome() {
        // Over and lost: the side to move has no stones and the opponent
        // ends ahead.
        let lost = o.winner.is_some_and(|w| w != pos.side_to_move());
        return Ok(lost.then_some(0));
    }
    let n = pos.stones_on_board();
    let mut longest = 0;
    for mv in pos.legal_moves() {
        let child = pos.after_unchecked(mv);
        let d = if child.outcome().is_some() || child.stones_on_board() != n {
            1
        } else {
            match win_dtc(&child)? {
                Some(d) => d + 1,
                None => return Ok(None),
            }
        };
        longest = longest.max(d);
    }
    Ok(Some(longest))
}
