//! Quiet un-moves: the boards from which one quiet move reaches a board.

use crate::solve::unit::ConfigInfo;
use togyz_tb::raw::{tuzdyk_allowed, NO_TUZDYK};
use togyz_tb::{Side, CYCLE, ROW};

/// The most quiet un-moves a board can have, [`ROW`] times [`CYCLE`]: an
/// un-move is an origin hole `h` of the mover's row and the number `c` of
/// stones sown from it, and for a given board after the move, `c` is
/// confined to one lap of [`CYCLE`] values by the stones left in `h` (the
/// origin keeps one stone per full lap: `a` stones there allow only
/// `c` in `18(a-1)+1 ..= 18a`, and an empty origin only `c = 1`). With `n`
/// stones it is also at most `ROW * n`. (A fixed buffer of 64 once
/// overflowed at 13 stones, where 13 single stones give 72.)
pub const MAX_UNMOVES: usize = ROW * CYCLE;

/// Generates the quiet un-moves: every board from which the mover (seated
/// South, configuration `info`) reaches `after` by one quiet move (no
/// capture, no tuzdyk made, nothing sown into a tuzdyk). Calls `emit` with
/// each and returns how many (at most [`MAX_UNMOVES`]).
///
/// This re-encodes, backwards, the rules that `togyz_tb::raw::sow`,
/// `landing` and `tuzdyk_allowed` (`probe/src/rules/sowing.rs`) own going
/// forwards: a change to either side must change the other. The test
/// `unmoves_invert_quiet_moves` below checks them against each other edge
/// for edge (and `unmoves_match_forward_moves_on_sampled_boards` at 13, 19
/// and 30 stones).
// The core's expansion loop (another module) calls this once a board;
// without the hint it stayed a call (see `Policy`, solve/core.rs).
#[inline]
pub(crate) fn unmoves(
    after: &[u8; CYCLE],
    n: u32,
    info: &ConfigInfo,
    mut emit: impl FnMut(&[u8; CYCLE]),
) -> usize {
    let tz = info.tz;
    let is_tz = |i: usize| i as u8 == tz[0] || i as u8 == tz[1];
    // The last stone's hole: quiet unless it is an opponent's hole left even
    // or left at 3 where a tuzdyk may be made.
    let quiet_landing = |l: usize| {
        l < ROW || {
            let c = after[l];
            c % 2 == 1 && !(c == 3 && tuzdyk_allowed(l, Side::South, tz))
        }
    };
    let mut count = 0;
    for h in 0..ROW {
        if is_tz(h) {
            continue;
        }
        let a = after[h];
        if a == 0 {
            // One stone moved to the next hole.
            let l = h + 1;
            if !is_tz(l) && after[l] >= 1 && quiet_landing(l) {
                let mut pre = *after;
                pre[h] = 1;
                pre[l] -= 1;
                emit(&pre);
                count += 1;
            }
        } else if a == 1 {
            // 2..=18 stones: the origin keeps one, each following hole one.
            let mut pre = *after;
            for c in 2..=(CYCLE as u32).min(n) {
                let l = (h + c as usize - 1) % CYCLE;
                if is_tz(l) || after[l] == 0 {
                    break;
                }
                pre[l] -= 1;
                if quiet_landing(l) {
                    let mut p = pre;
                    p[h] = c as u8;
                    emit(&p);
                    count += 1;
                }
            }
        } else if tz == [NO_TUZDYK; 2] {
            // Laps: c in 18(a-1)+1 ..= 18a stones, origin gets a stone per lap.
            let lo = 18 * (a as u32 - 1) + 1;
            let hi = (18 * a as u32).min(n);
            for c in lo.max(2)..=hi {
                let mut pre = *after;
                let mut ok = true;
                for o in 1..CYCLE as u32 {
                    let inc = if c > o {
                        (c - o).div_ceil(CYCLE as u32)
                    } else {
                        0
                    };
                    let x = (h + o as usize) % CYCLE;
                    if (pre[x] as u32) < inc {
                        ok = false;
                        break;
                    }
                    pre[x] -= inc as u8;
                }
                let l = (h + c as usize - 1) % CYCLE;
                if ok && quiet_landing(l) {
                    pre[h] = c as u8;
                    emit(&pre);
                    count += 1;
                }
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::unit::rotate;
    use togyz_tb::raw::index::{rank_board, BoardWalker, TuzdykConfig};
    use togyz_tb::raw::{landing, sow, Landing};

    /// Forward quiet moves and un-moves describe the same edges.
    #[test]
    fn unmoves_invert_quiet_moves() {
        for n in 1..=6u32 {
            for id in [0usize, 1, 5, 9, 13, 17, 50, 72] {
                let info = ConfigInfo::new(TuzdykConfig::from_id(id));
                let child = ConfigInfo::new(info.config.swapped());
                let mut forward: Vec<(u64, u64)> = Vec::new();
                let mut w = BoardWalker::new(n, info.config, 0, u64::MAX);
                while let Some((rank, board)) = w.current() {
                    for h in 0..ROW {
                        if board[h] == 0 {
                            continue;
                        }
                        let mut b = *board;
                        let s = sow(&mut b, h, info.tz);
                        if s.fed == [0, 0]
                            && landing(&b, s.last, Side::South, info.tz) == Landing::Quiet
                        {
                            let cr = rank_board(&b, &child.free_rotated, child.m);
                            forward.push((rank, cr));
                        }
                    }
                    w.advance();
                }
                let mut backward: Vec<(u64, u64)> = Vec::new();
                let mut w = BoardWalker::new(n, child.config, 0, u64::MAX);
                while let Some((rank, board)) = w.current() {
                    unmoves(&rotate(board), n, &info, |p| {
                        backward.push((rank_board(p, &info.free, info.m), rank))
                    });
                    w.advance();
                }
                forward.sort_unstable();
                backward.sort_unstable();
                assert_eq!(forward, backward, "n={n} config={id}");
            }
        }
    }

    /// Un-moves against forward moves on sampled boards of 13, 19 and 30
    /// stones (beyond the levels the exhaustive test reaches, laps of 19
    /// and more stones included): every quiet move's origin board is among
    /// the un-moves of the board it leads to, every un-move leads back by a
    /// quiet move, and the count stays within the bound.
    #[test]
    fn unmoves_match_forward_moves_on_sampled_boards() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut laps = 0;
        for n in [13u32, 19, 30] {
            for id in [0usize, 0, 0, 3, 12, 40] {
                let info = ConfigInfo::new(TuzdykConfig::from_id(id));
                for _ in 0..400 {
                    let mut pre = [0u8; CYCLE];
                    let mut left = n;
                    if rand(2) == 0 {
                        // A big pile in one of the mover's holes: laps.
                        let h = info.free[rand(
                            ROW as u64
                                - info.tz.iter().filter(|&&t| (t as usize) < ROW).count() as u64,
                        ) as usize];
                        let pile = (n / 2 + rand(n as u64 / 2 + 1) as u32).min(n);
                        pre[h as usize] = pile as u8;
                        left -= pile;
                    }
                    while left > 0 {
                        let f = info.free[rand(info.m as u64) as usize] as usize;
                        pre[f] += 1;
                        left -= 1;
                    }
                    for h in 0..ROW {
                        if pre[h] == 0 || info.tz.contains(&(h as u8)) {
                            continue;
                        }
                        let mut after = pre;
                        let sown = sow(&mut after, h, info.tz);
                        if sown.fed != [0, 0]
                            || landing(&after, sown.last, Side::South, info.tz) != Landing::Quiet
                        {
                            continue;
                        }
                        laps += usize::from(pre[h] as usize > CYCLE);
                        let mut found = Vec::new();
                        let count = unmoves(&after, n, &info, |p| found.push(*p));
                        assert_eq!(count, found.len());
                        assert!(count <= ROW * (n as usize).min(CYCLE), "n={n}: {count}");
                        assert!(
                            found.contains(&pre),
                            "n={n} config={id}: {pre:?} -> {after:?}"
                        );
                        for p in &found {
                            let back = (0..ROW).any(|g| {
                                let mut b = *p;
                                p[g] > 0 && {
                                    let s = sow(&mut b, g, info.tz);
                                    s.fed == [0, 0]
                                        && landing(&b, s.last, Side::South, info.tz)
                                            == Landing::Quiet
                                        && b == after
                                }
                            });
                            assert!(back, "n={n} config={id}: {p:?} does not lead to {after:?}");
                        }
                    }
                }
            }
        }
        assert!(laps > 100, "laps of 19+ stones sampled: {laps}");
        // 13 single stones from the mover's hole 1 on: 72 un-moves, which
        // overflowed the old 64-entry buffer.
        let info = ConfigInfo::new(TuzdykConfig::from_id(0));
        let mut after = [0u8; CYCLE];
        after[..13].fill(1);
        assert_eq!(unmoves(&after, 13, &info, |_| {}), 72);
    }
}
