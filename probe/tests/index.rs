//! Property tests of the position index: rank/unrank and slot round trips.

use proptest::prelude::*;
use togyz_tb::raw::index::{
    board_count, rank_board, unrank_board, Layout, Slot, TuzdykConfig, CONFIG_COUNT, MAX_STONES,
};
use togyz_tb::{Position, Side, CYCLE, HALF};

/// A random live position: `n` stones spread over the free holes of
/// `config` (mover seated South), kazan offset `j`, then turned to `side`.
fn position(config_id: usize, n: u32, weights: &[u32; CYCLE], j: u32, side: Side) -> Position {
    let config = TuzdykConfig::from_id(config_id);
    let free = config.free_indices();
    let m = config.free_holes();
    let mut board = [0u8; CYCLE];
    // Spread n stones by the weights, deterministic and covering empty holes.
    let total: u32 = weights[..m].iter().sum::<u32>().max(1);
    let mut left = n;
    for i in 0..m {
        let share = (n * weights[i] / total).min(left);
        board[free[i] as usize] += share as u8;
        left -= share;
    }
    board[free[(weights[17] as usize) % m] as usize] += left as u8;
    let mover = (HALF as u32 - n + j) as u8;
    let opp = (162 - n - mover as u32) as u8;
    let pos = Position::new(board, [mover, opp], config.hole_numbers(), Side::South, 1).unwrap();
    match side {
        Side::South => pos,
        Side::North => pos.mirrored(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rank_unrank_round_trip(config_id in 0..CONFIG_COUNT, n in 0..=MAX_STONES, r in any::<u64>()) {
        let config = TuzdykConfig::from_id(config_id);
        let (free, m) = (config.free_indices(), config.free_holes());
        let rank = r % board_count(n, m);
        let board = unrank_board(rank, n, &free, m);
        prop_assert_eq!(board.iter().map(|&x| x as u32).sum::<u32>(), n);
        let tz = config.cycle_indices();
        for t in tz {
            if t != u8::MAX {
                prop_assert_eq!(board[t as usize], 0);
            }
        }
        prop_assert_eq!(rank_board(&board, &free, m), rank);
    }

    #[test]
    fn slot_round_trip(config_id in 0..CONFIG_COUNT, n in 1..=MAX_STONES, w in any::<[u32; CYCLE]>(), j in any::<u32>(), north in any::<bool>()) {
        let w = w.map(|x| x % 1000);
        let j = j % (n + 1);
        let side = if north { Side::North } else { Side::South };
        let pos = position(config_id, n, &w, j, side);
        let slot = Slot::of(&pos).expect("live position");
        prop_assert_eq!(slot.stones, n);
        prop_assert_eq!(slot.kazan, j);
        let layout = Layout::new(n);
        let index = layout.index(&slot);
        prop_assert!(index < layout.positions());
        prop_assert_eq!(layout.slot(index), slot);
        // The slot's position is the South-to-move form of `pos`.
        let back = slot.position();
        let south = if north { pos.mirrored() } else { pos };
        prop_assert_eq!(back.holes(), south.holes());
        prop_assert_eq!(back.kazans(), south.kazans());
        prop_assert_eq!(Slot::of(&pos.mirrored()), Some(slot));
    }
}

#[test]
fn every_index_of_small_tables_round_trips() {
    for n in 1..=3 {
        let layout = Layout::new(n);
        for index in 0..layout.positions() {
            let slot = layout.slot(index);
            let pos = slot.position();
            assert_eq!(Slot::of(&pos), Some(slot));
            assert_eq!(layout.index(&slot), index);
        }
    }
}

#[test]
fn dead_positions_have_no_slot() {
    let mut holes = [0u8; CYCLE];
    holes[0] = 2;
    let pos = Position::new(holes, [82, 78], [None, None], Side::South, 1).unwrap();
    assert_eq!(Slot::of(&pos), None);
}
