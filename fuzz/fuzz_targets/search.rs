//! The search on arbitrary positions within a small node budget, over the
//! tables for 1..=4 stones: never a panic; the bounds are ordered and
//! contain every value the tables know (the position's own when it has
//! at most 4 stones; a proven best move's when it leads into them).
#![no_main]

use libfuzzer_sys::fuzz_target;
use togyz_fuzz::{small_tables, SMALL_TABLES};
use togyz_tb::search::{Budget, Solver};
use togyz_tb::terminal_value;
use togyz_tb::Wdl;

fuzz_target!(|data: &[u8]| {
    let tb = small_tables();
    let Some((pos, rest)) = togyz_fuzz::position(data) else {
        return;
    };
    // A few nodes, one df-pn thread (reproducible), memory at 4 MB.
    let nodes = 1 + rest.first().copied().unwrap_or(0) as u64 * 4;
    let mut budget = Budget::nodes(nodes).with_memory(4_000_000).unwrap();
    budget.dfpn_threads = 1;
    budget.dfs = rest.get(1).is_some_and(|b| b & 1 == 1);
    let r = Solver::new(tb, budget).solve(&pos).expect("sound tables");
    assert!(r.lower <= r.upper, "{pos}: {r:?}");
    let known = |p: &togyz_tb::Position| -> Option<Wdl> {
        if let Some(v) = terminal_value(p) {
            return Some(v.wdl());
        }
        (p.stones_on_board() <= SMALL_TABLES).then(|| tb.wdl(p).expect("within the tables"))
    };
    if let Some(t) = known(&pos) {
        assert!(r.lower <= t && t <= r.upper, "{pos}: truth {t}, {r:?}");
    }
    if let Some(v) = r.proven() {
        if terminal_value(&pos).is_none() {
            let mv = r
                .best_move
                .unwrap_or_else(|| panic!("{pos}: proven without a move"));
            let after = pos.after(mv).expect("the proving move is legal");
            if let Some(t) = known(&after) {
                assert_eq!(t.flip(), v, "{pos}: {mv} leads to {t}");
            }
        }
    }
});
