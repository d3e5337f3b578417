//! Quiet moves a board, level by level, sampled: what a unit's stored
//! quiet-move graph holds an edge for (the plan's `QUIET_MOVES`,
//! generator/src/run/plan/model.rs):
//! `cargo run --release -p togyz-gen --example quiet_moves [samples]`.
//! A move is quiet when it captures nothing, makes no tuzdyk and sows
//! nothing into a tuzdyk: it keeps the stones and the kazans.
use togyz_tb::raw::index::{board_count, unrank_board, Layout, TuzdykConfig, CONFIG_COUNT};
use togyz_tb::raw::{landing, sow, Landing};
use togyz_tb::{Side, ROW};

fn main() {
    let samples: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3000);
    // A fixed xorshift: the same figures every run.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    println!("stones  all configurations  without tuzdyks");
    for n in 9u32..=17 {
        let layout = Layout::new(n);
        let (mut total, mut boards, mut bare) = (0f64, 0f64, 0f64);
        for id in 0..CONFIG_COUNT {
            let config = TuzdykConfig::from_id(id);
            let (free, m) = (config.free_indices(), config.free_holes());
            let count = board_count(n, m);
            let tz = config.cycle_indices();
            let mut quiet = 0u64;
            for _ in 0..samples {
                let board = unrank_board(next() % count, n, &free, m);
                for h in (0..ROW).filter(|&h| board[h] > 0) {
                    let mut b = board;
                    let sown = sow(&mut b, h, tz);
                    let quietly = landing(&b, sown.last, Side::South, tz) == Landing::Quiet;
                    if quietly && sown.fed == [0, 0] {
                        quiet += 1;
                    }
                }
            }
            let mean = quiet as f64 / samples as f64;
            if config.free_holes() == 18 {
                bare = mean;
            }
            total += mean * layout.config_boards(id) as f64;
            boards += layout.config_boards(id) as f64;
        }
        println!("{n:6}  {:18.2}  {bare:15.2}", total / boards);
    }
}
