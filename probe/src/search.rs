//! Proof search above the tables: exact results for positions with more
//! stones than any table holds.
//!
//! A result is an interval over loss < draw < win for the side to move, and
//! it is *proven* only when the interval closes. Leaves are positions the
//! tables cover (probed by win/draw/loss), finished games, and positions the
//! kazans settle ([`kazan_bounds`]). Three provers run side by side on
//! their own threads, and their intervals are intersected ([`Budget`] says
//! which; by default all three, df-pn on two threads):
//!
//! * df-pn, depth-first proof-number search (`pns`), on "does the mover
//!   win?" and "does the opponent win?", one thread each or both in turn on
//!   one: it follows the narrow forcing lines, and two refutations that
//!   need no cycle prove a draw. What it proves of a board holds for every
//!   kazan split with more for the winner (a split table), so lines that
//!   reach one board by different captures share their proofs;
//! * an iterative-deepening depth-first search (`dfs`) on "can the mover
//!   win within `d` plies?" and "can the opponent?", one-sided as alpha-beta
//!   with a null window (a line not won by the horizon fails, so the
//!   defender's other moves are not searched), captures first, with a
//!   transposition table keyed by the whole position and the side asked
//!   about that stores proven wins and the depth each search failed at
//!   (path-independent: there is no repetition rule), and "cannot win"
//!   where a failure met no horizon. It proves wins and losses that df-pn
//!   leaves open and the other way round, and draws whose lines all end
//!   within its depth;
//! * a bounded retrograde solve (`graph`) of the positions reachable from
//!   the root above the tables: if the enumeration closes, the finite graph
//!   (cycles included) is solved exactly, and positions unresolved at the
//!   fixed point are draws; if it does not, two passes with the frontier set
//!   to its worst and best values still bound the root.

mod budget;
mod dfs;
mod driver;
mod graph;
mod keys;
mod pns;
mod result;
mod shared;
mod solver;
mod table;

pub use budget::{machine_memory, Budget, LimitError, MIN_SEARCH_MEMORY};
pub use keys::kazan_bounds;
pub use result::{SearchResult, Source};
pub use solver::Solver;

use budget::table_size;
use keys::{key_hash, key_of, static_bounds, Key};
use shared::{num, tick, wdl_of, Halt, Shared};
