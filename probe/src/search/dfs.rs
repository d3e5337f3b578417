//! The iterative-deepening prover: "can X force a win within `d` plies?"
//! for the mover and then the opponent, at `d = 1, 2, ...`.
//!
//! The search is one-sided, as alpha-beta with a null window: a line that
//! X has not won by the horizon fails, so one defender's move that is not
//! lost within the depth refutes the attacker's move and the defender's
//! other moves are not searched. The attacker's gains come first and the
//! defender's quietest moves first (captures first, as in the Kalah
//! solvers). A win within `d` plies is a finite tree, so a proof is sound
//! whatever the path; a failure says only "not within `d`", and the table
//! keeps the depth it failed at. It never proves a draw.
//!
//! Where df-pn goes where the proof numbers are smallest, this search goes
//! through every line to the same depth: on real positions of 20 to 24
//! stones it proves positions df-pn leaves open within the same nodes, and
//! the other way round (docs/performance.md, "The last positions of
//! unsettled games").

use std::time::Instant;

use super::table::{Buckets, Slot};
use super::{key_hash, key_of, static_bounds, tick, Halt, Key, Shared, Solver};
use crate::rules::{Move, Position, Side};
use crate::tablebase::ProbeError;
use crate::value::Wdl;

/// One transposition-table entry: a position and the side whose win is
/// asked about (the key's last byte).
#[derive(Clone, Copy)]
struct Entry {
    key: Key,
    /// X wins, at whatever depth.
    won: bool,
    /// The depth to which X was shown not to win (when not `won`).
    failed: u8,
    /// Hole number of X's winning move where X moves (`u8::MAX`: none).
    best: u8,
    used: bool,
}

/// Bytes of one entry of the depth-first prover's table.
pub(super) const DFS_ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// The depth-first table has a quarter of the entries of a df-pn table:
/// its entries are settled or failed at a depth, and a second of search
/// stores about a million of them.
pub(super) const DFS_SHARE: usize = 4;

const _: () = assert!(DFS_ENTRY_BYTES == 28 && DFS_ENTRY_BYTES.is_multiple_of(DFS_SHARE));

impl Entry {
    /// What the entry is worth keeping for: a proof beats any depth.
    fn worth(&self) -> u32 {
        if !self.used {
            0
        } else if self.won {
            u32::MAX
        } else {
            1 + self.failed as u32
        }
    }
}

/// The depth-first prover's transposition table: two-way buckets,
/// growing up to the budget's size ([`Buckets`]).
pub(super) struct Tt {
    buckets: Buckets<Entry, 2>,
}

impl Slot for Entry {
    fn used(&self) -> bool {
        self.used
    }

    fn hash(&self) -> u64 {
        key_hash(&self.key)
    }
}

impl Tt {
    /// A table that may grow to `size` entries; `None` if the system
    /// refuses even a small one.
    fn new(size: usize) -> Option<Tt> {
        // SAFETY: all-zero bytes are an `Entry` (integers and bools), one
        // with `used` false.
        let buckets = unsafe { Buckets::new(super::table_size(size)) }?;
        Some(Tt { buckets })
    }

    /// The bytes the table takes now.
    pub(super) fn bytes(&self) -> u64 {
        self.buckets.bytes()
    }

    fn get(&self, key: &Key) -> Option<&Entry> {
        self.buckets
            .slots(key_hash(key))
            .iter()
            .find(|e| e.used && e.key == *key)
    }

    /// Records what was found of `key`, claiming the less valuable slot of
    /// its bucket when it is new (the table may grow first, until
    /// `deadline`).
    fn put(&mut self, key: &Key, won: bool, depth: u32, best: u8, deadline: Option<Instant>) {
        let hash = key_hash(key);
        let slots = self.buckets.slots(hash);
        let pick = match slots.iter().position(|e| e.used && e.key == *key) {
            Some(i) => i,
            None => usize::from(slots[0].worth() > slots[1].worth()),
        };
        let e = self.buckets.slot_for(hash, pick, deadline);
        if !(e.used && e.key == *key) {
            *e = Entry {
                key: *key,
                won: false,
                failed: 0,
                best: u8::MAX,
                used: true,
            };
        }
        if won {
            e.won = true;
            e.best = best;
        } else {
            e.failed = e.failed.max(depth.min(MAX_DEPTH) as u8);
        }
    }
}

/// The deepest iteration the search runs (depths are stored in a byte).
const MAX_DEPTH: u32 = 250;

/// What the depth-first prover found: the deepest completed iteration and,
/// for each root move, bounds on its value for the mover.
pub(super) struct DfsOutcome {
    pub(super) depth: u32,
    pub(super) moves: Vec<(Move, Wdl, Wdl)>,
}

impl Solver<'_> {
    /// Iterative deepening over the two questions at the root, until both
    /// are settled (here or by the other provers) or the budget runs out.
    pub(super) fn deepen(
        &mut self,
        pos: &Position,
        shared: &Shared,
    ) -> Result<DfsOutcome, ProbeError> {
        // The root's kazan bounds hold after every move as well (not the
        // shared bounds: the other provers may have narrowed those).
        let (lo, hi) = super::kazan_bounds(pos);
        let mut out = DfsOutcome {
            depth: 0,
            moves: pos.legal_moves().map(|mv| (mv, lo, hi)).collect(),
        };
        if self.tt.is_none() {
            self.tt = Tt::new((self.budget.tt_entries / DFS_SHARE).max(2));
        }
        if self.tt.is_none() {
            // No memory even for a small table: this prover proves nothing.
            return Ok(out);
        }
        let me = pos.side_to_move();
        for depth in 1..=MAX_DEPTH {
            for x in [me, me.opponent()] {
                let (lo, hi) = shared.bounds();
                // The question is moot once the root's interval answers it.
                let moot = if x == me {
                    lo == Wdl::Win || hi < Wdl::Win
                } else {
                    lo > Wdl::Loss || hi == Wdl::Loss
                };
                if moot {
                    continue;
                }
                match self.root_win(pos, x, depth) {
                    Ok(None) => {}
                    Ok(Some(mv)) => {
                        if x == me {
                            shared.narrow(Wdl::Win, Wdl::Win);
                            if let Some(m) = out.moves.iter_mut().find(|m| Some(m.0) == mv) {
                                m.1 = Wdl::Win;
                            }
                        } else {
                            shared.narrow(Wdl::Loss, Wdl::Loss);
                            for m in &mut out.moves {
                                m.2 = Wdl::Loss;
                            }
                        }
                    }
                    Err(Halt::Budget) => return Ok(out),
                    Err(Halt::Probe(e)) => return Err(e),
                }
            }
            out.depth = depth;
            let (lo, hi) = shared.bounds();
            if lo == hi || shared.stopped() {
                break;
            }
        }
        Ok(out)
    }

    /// Whether `x` wins from the root within `depth` plies: `Some(mv)`
    /// with the winning root move where `x` moves (`Some(None)` where the
    /// opponent does), `None` if not shown.
    fn root_win(
        &mut self,
        pos: &Position,
        x: Side,
        depth: u32,
    ) -> Result<Option<Option<Move>>, Halt> {
        if !self.win(pos, x, depth)? {
            return Ok(None);
        }
        if pos.side_to_move() != x {
            return Ok(Some(None));
        }
        // The winning move: the table's, else the first child won one
        // ply sooner (in the table, or searched again).
        let best = self.tt_ref().get(&dfs_key(pos, x)).map(|e| e.best);
        let mv = pos.legal_moves().find(|m| Some(m.hole()) == best);
        if mv.is_some() {
            return Ok(Some(mv));
        }
        for mv in pos.legal_moves() {
            if self.win(&pos.after_unchecked(mv), x, depth - 1)? {
                return Ok(Some(Some(mv)));
            }
        }
        Ok(Some(None))
    }

    fn count_node(&mut self) -> Result<(), Halt> {
        tick(&mut self.nodes, self.node_limit, self.deadline, &self.stop)
    }

    /// The depth-first table, which [`Solver::deepen`] makes before it
    /// proves anything.
    fn tt(&mut self) -> &mut Tt {
        self.tt.as_mut().expect("deepen makes the table first")
    }

    fn tt_ref(&self) -> &Tt {
        self.tt.as_ref().expect("deepen makes the table first")
    }

    /// Can `x` force a win from `pos` within `depth` plies?
    fn win(&mut self, pos: &Position, x: Side, depth: u32) -> Result<bool, Halt> {
        self.count_node()?;
        let (lo, hi) = static_bounds(self.tb, self.table_stones, pos)?;
        let attacker = pos.side_to_move() == x;
        // The bounds for X.
        let (lo, hi) = if attacker {
            (lo, hi)
        } else {
            (hi.flip(), lo.flip())
        };
        if lo == Wdl::Win {
            return Ok(true);
        }
        if hi < Wdl::Win || depth == 0 {
            return Ok(false);
        }
        let key = dfs_key(pos, x);
        if let Some(e) = self.tt_ref().get(&key) {
            if e.won || e.failed as u32 >= depth {
                return Ok(e.won);
            }
        }
        let mut kids: [(Move, Position); 9] = [(Move::new(1).expect("hole 1"), *pos); 9];
        let mut count = 0;
        for mv in pos.legal_moves() {
            kids[count] = (mv, pos.after_unchecked(mv));
            count += 1;
        }
        let kids = &mut kids[..count];
        // The attacker's gains first, the defender's quietest moves first.
        kids.sort_unstable_by_key(|k| {
            let gain = k.1.kazan(x);
            if attacker {
                u8::MAX - gain
            } else {
                gain
            }
        });
        let deadline = self.deadline;
        for (mv, child) in kids.iter() {
            let won = self.win(child, x, depth - 1)?;
            if attacker && won {
                self.tt().put(&key, true, depth, mv.hole(), deadline);
                return Ok(true);
            }
            if !attacker && !won {
                self.tt().put(&key, false, depth, u8::MAX, deadline);
                return Ok(false);
            }
        }
        // Every attacker's move failed, or every defender's move lost.
        self.tt().put(&key, !attacker, depth, u8::MAX, deadline);
        Ok(!attacker)
    }
}

/// The table's key: the position, and the side asked about in its last
/// byte (as df-pn keys its questions).
fn dfs_key(pos: &Position, x: Side) -> Key {
    let mut k = key_of(pos);
    k[23] = 1 + x.index() as u8;
    k
}
