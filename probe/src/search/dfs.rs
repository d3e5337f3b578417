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
//! keeps the depth it failed at. A failure where no line met the horizon
//! (every line ended in the tables, the end of the game or the kazans'
//! bounds) is "X can never win", also whatever the path: there is no
//! repetition rule, and a line that repeats meets the horizon. Two such
//! answers prove a draw; one, a bound ("cannot lose").
//!
//! Where an entry of the table already answers a node by one of its
//! children (an attacker's child won, a defender's child failed at that
//! depth), the node is settled without searching (enhanced transposition
//! cutoffs); near the horizon the lookups cost more than they save.
//!
//! Where df-pn goes where the proof numbers are smallest, this search goes
//! through every line to the same depth: on real positions of 20 to 24
//! stones it proves positions df-pn leaves open within the same nodes, and
//! the other way round (docs/performance.md, "The last positions of
//! unsettled games").

use std::time::Instant;

use super::table::{aged, Buckets, Slot};
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
    /// The depth to which X was shown not to win (when not `won`);
    /// [`NEVER`]: X cannot win at all.
    failed: u8,
    /// Hole number of X's winning move where X moves, or of the
    /// defender's refutation where the other side moves (`u8::MAX`: none).
    best: u8,
    /// The search that wrote it, counted from 1 ([`Tt::next_search`]); 0:
    /// the slot is unused.
    search: u8,
}

/// Bytes of one entry of the depth-first prover's table.
pub(super) const DFS_ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// The depth-first table has a quarter of the entries of a df-pn table:
/// its entries are settled or failed at a depth, and a second of search
/// stores about a million of them.
pub(super) const DFS_SHARE: usize = 4;

const _: () = assert!(DFS_ENTRY_BYTES == 28 && DFS_ENTRY_BYTES.is_multiple_of(DFS_SHARE));

impl Entry {
    /// What the entry answers of a search to `depth`: won, never, or
    /// failed at that depth or deeper.
    fn answer(&self, depth: u32) -> Option<Found> {
        if self.won {
            Some(Found::Won)
        } else if self.failed == NEVER {
            Some(Found::Never)
        } else if self.failed as u32 >= depth {
            Some(Found::Failed)
        } else {
            None
        }
    }

    /// What the entry is worth keeping for in search `now`: a proof beats
    /// any depth, [`aged`] by the searches since it was written; an unused
    /// slot, nothing.
    fn worth(&self, now: u8) -> u64 {
        if self.search == 0 {
            return 0;
        }
        let base = if self.won || self.failed == NEVER {
            u64::from(u32::MAX)
        } else {
            1 + u64::from(self.failed)
        };
        // Searches count round 1..=255.
        let age = (i32::from(now) - i32::from(self.search)).rem_euclid(255) as u32;
        aged(base, age)
    }
}

/// The depth-first prover's transposition table: two-way buckets,
/// growing up to the budget's size ([`Buckets`]).
pub(super) struct Tt {
    buckets: Buckets<Entry, 2>,
    /// The current search, from 1 (0 marks an unused slot).
    search: u8,
}

impl Slot for Entry {
    fn used(&self) -> bool {
        self.search != 0
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
        // with `search` 0, unused.
        let buckets = unsafe { Buckets::new(super::table_size(size)) }?;
        Some(Tt { buckets, search: 1 })
    }

    /// Starts a new search (the count skips 0, which marks unused slots).
    fn next_search(&mut self) {
        self.search = self.search % u8::MAX + 1;
    }

    /// The bytes the table takes now.
    pub(super) fn bytes(&self) -> u64 {
        self.buckets.bytes()
    }

    /// The entry of `key`, whose hash is `hash`.
    fn get(&self, key: &Key, hash: u64) -> Option<&Entry> {
        self.buckets
            .slots(hash)
            .iter()
            .find(|e| e.used() && e.key == *key)
    }

    /// Records what was found of `key` (hashed to `hash`), claiming the
    /// less valuable slot of its bucket when it is new (the table may grow
    /// first, until `deadline`).
    fn put(
        &mut self,
        key: &Key,
        hash: u64,
        found: Found,
        depth: u32,
        best: u8,
        deadline: Option<Instant>,
    ) {
        let slots = self.buckets.slots(hash);
        let now = self.search;
        let pick = match slots.iter().position(|e| e.used() && e.key == *key) {
            Some(i) => i,
            None => usize::from(slots[0].worth(now) > slots[1].worth(now)),
        };
        let e = self.buckets.slot_for(hash, pick, deadline);
        if !(e.used() && e.key == *key) {
            *e = Entry {
                key: *key,
                won: false,
                failed: 0,
                best: u8::MAX,
                search: now,
            };
        }
        e.search = now;
        match found {
            Found::Won => e.won = true,
            Found::Never => e.failed = NEVER,
            Found::Failed => e.failed = e.failed.max(depth.min(MAX_DEPTH) as u8),
        }
        if best != u8::MAX {
            e.best = best;
        }
    }
}

/// The deepest iteration the search runs (depths are stored in a byte).
const MAX_DEPTH: u32 = 250;

/// [`Entry::failed`] of a position from which X cannot win at all.
const NEVER: u8 = u8::MAX;

const _: () = assert!(MAX_DEPTH < NEVER as u32);

/// What "can X win within `d` plies?" found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    /// X wins, within `d` plies.
    Won,
    /// X does not win within `d` plies; some line was cut at the horizon.
    Failed,
    /// X cannot win at all: every line was followed to the end of the game,
    /// the tables or the kazans' bounds, none to the horizon.
    Never,
}

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
        match self.tt.as_mut() {
            Some(tt) => tt.next_search(),
            // No memory even for a small table: this prover proves nothing.
            None => return Ok(out),
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
                    Ok((Found::Failed, _)) => {}
                    Ok((Found::Won, mv)) => {
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
                    Ok((Found::Never, mv)) => {
                        if x == me {
                            // No move of the mover's wins.
                            shared.narrow(Wdl::Loss, Wdl::Draw);
                            for m in &mut out.moves {
                                m.2 = m.2.min(Wdl::Draw);
                            }
                        } else {
                            // After the refutation the opponent cannot win.
                            shared.narrow(Wdl::Draw, Wdl::Win);
                            if let Some(m) = out.moves.iter_mut().find(|m| Some(m.0) == mv) {
                                m.1 = m.1.max(Wdl::Draw);
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

    /// Whether `x` wins from the root within `depth` plies, with the move
    /// that shows it: `x`'s winning move where `x` moves, the refutation
    /// where the other side moves and `x` can never win (`None` when there
    /// is no such move or it is not known).
    fn root_win(
        &mut self,
        pos: &Position,
        x: Side,
        depth: u32,
    ) -> Result<(Found, Option<Move>), Halt> {
        let found = self.win(pos, x, depth, None)?;
        let (key, hash) = keyed(pos, x);
        let best = self.tt_ref().get(&key, hash).map(|e| e.best);
        let mv = pos.legal_moves().find(|m| Some(m.hole()) == best);
        let x_moves = pos.side_to_move() == x;
        match found {
            Found::Failed => Ok((found, None)),
            Found::Never => Ok((found, if x_moves { None } else { mv })),
            Found::Won if !x_moves || mv.is_some() => Ok((found, mv.filter(|_| x_moves))),
            Found::Won => {
                // The winning move's entry was replaced: the first child
                // won one ply sooner.
                for mv in pos.legal_moves() {
                    if self.win(&pos.after_unchecked(mv), x, depth - 1, None)? == Found::Won {
                        return Ok((found, Some(mv)));
                    }
                }
                Ok((found, None))
            }
        }
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

    /// Can `x` force a win from `pos` within `depth` plies? `known`: the
    /// table's key of `pos` and `x` and its hash, when the parent made them.
    fn win(
        &mut self,
        pos: &Position,
        x: Side,
        depth: u32,
        known: Option<(Key, u64)>,
    ) -> Result<Found, Halt> {
        self.count_node()?;
        let (lo, hi) = static_bounds(self.tb, self.horizon, pos)?;
        let attacker = pos.side_to_move() == x;
        // The bounds for X.
        let (lo, hi) = if attacker {
            (lo, hi)
        } else {
            (hi.flip(), lo.flip())
        };
        if lo == Wdl::Win {
            return Ok(Found::Won);
        }
        if hi < Wdl::Win {
            return Ok(Found::Never);
        }
        if depth == 0 {
            return Ok(Found::Failed);
        }
        let (key, hash) = known.unwrap_or_else(|| keyed(pos, x));
        let mut hint = u8::MAX;
        if let Some(e) = self.tt_ref().get(&key, hash) {
            if let Some(found) = e.answer(depth) {
                return Ok(found);
            }
            hint = e.best;
        }
        // Where the children are looked up first, their keys are made once,
        // for the lookups and for their own searches.
        let etc = depth >= ETC_FROM;
        // Children with plies left look themselves up: their keys are made
        // here, and their entries fetched while the others are searched.
        let ahead = depth >= PREFETCH_FROM;
        let mut kids: [Kid; 9] = [(Move::new(1).expect("hole 1"), *pos, None); 9];
        let mut count = 0;
        for mv in pos.legal_moves() {
            let child = pos.after_unchecked(mv);
            kids[count] = (mv, child, ahead.then(|| keyed(&child, x)));
            count += 1;
        }
        let kids = &mut kids[..count];
        if ahead && !etc {
            let tt = self.tt_ref();
            for (_, hash) in kids.iter().filter_map(|k| k.2) {
                tt.buckets.prefetch(hash);
            }
        }
        if etc {
            if let Some(found) = self.cutoff(kids, attacker, depth - 1) {
                let deadline = self.deadline;
                self.tt().put(&key, hash, found.0, depth, found.1, deadline);
                return Ok(found.0);
            }
        }
        // The refutation of a shallower search first; then the attacker's
        // gains first, the defender's quietest moves first.
        kids.sort_unstable_by_key(|k| {
            let gain = k.1.kazan(x);
            let order = if attacker { u8::MAX - gain } else { gain };
            (k.0.hole() != hint, order)
        });
        let deadline = self.deadline;
        // Whether every attacker's move so far can never win.
        let mut never = true;
        for (mv, child, known) in kids.iter() {
            let found = self.win(child, x, depth - 1, *known)?;
            match (attacker, found) {
                (true, Found::Won) | (false, Found::Failed | Found::Never) => {
                    self.tt().put(&key, hash, found, depth, mv.hole(), deadline);
                    return Ok(found);
                }
                (true, Found::Failed) => never = false,
                (true, Found::Never) | (false, Found::Won) => {}
            }
        }
        // Every attacker's move failed, or every defender's move lost.
        let found = match (attacker, never) {
            (false, _) => Found::Won,
            (true, true) => Found::Never,
            (true, false) => Found::Failed,
        };
        self.tt().put(&key, hash, found, depth, u8::MAX, deadline);
        Ok(found)
    }
}

/// The least depth left at which a node first looks its children up
/// ([`Solver::cutoff`]): on real 20-24-stone positions, from 3 proved as
/// much as from 1 in 0.5 s with a quarter more nodes a second
/// (docs/performance.md, "Exact failures and transposition cutoffs").
const ETC_FROM: u32 = 3;

/// The least depth left at which a node fetches its children's entries
/// ahead (from [`ETC_FROM`] on, [`Solver::cutoff`] does): a child with a
/// ply left looks its entry up.
const PREFETCH_FROM: u32 = 2;

impl Solver<'_> {
    /// Settles a node from its children's entries alone, when one of them
    /// already answers it (enhanced transposition cutoff): an attacker's
    /// child won, or a defender's child failed at `depth` or can never be
    /// won. With the move that shows it.
    fn cutoff(&self, kids: &[Kid], attacker: bool, depth: u32) -> Option<(Found, u8)> {
        let tt = self.tt_ref();
        let keys = || kids.iter().filter_map(|(mv, _, k)| Some((mv, (*k)?)));
        for (_, (_, hash)) in keys() {
            tt.buckets.prefetch(hash);
        }
        let mut failed = None;
        for (mv, (key, hash)) in keys() {
            match (attacker, tt.get(&key, hash).and_then(|e| e.answer(depth))) {
                (true, Some(Found::Won)) => return Some((Found::Won, mv.hole())),
                (false, Some(Found::Never)) => return Some((Found::Never, mv.hole())),
                (false, Some(Found::Failed)) if failed.is_none() => {
                    failed = Some((Found::Failed, mv.hole()));
                }
                _ => {}
            }
        }
        failed
    }
}

/// A child of a node: its move, the position, and its key and hash when
/// made ([`ETC_FROM`]).
type Kid = (Move, Position, Option<(Key, u64)>);

/// [`dfs_key`] with its hash.
fn keyed(pos: &Position, x: Side) -> (Key, u64) {
    let key = dfs_key(pos, x);
    (key, key_hash(&key))
}

/// The table's key: the position, and the side asked about in its last
/// byte (as df-pn keys its questions).
fn dfs_key(pos: &Position, x: Side) -> Key {
    let mut k = key_of(pos);
    k[23] = 1 + x.index() as u8;
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(won: bool, failed: u8, search: u8) -> Entry {
        Entry {
            key: [0; 24],
            won,
            failed,
            best: u8::MAX,
            search,
        }
    }

    #[test]
    fn older_entries_are_worth_less_and_an_unused_slot_nothing() {
        assert_eq!(entry(true, 0, 0).worth(5), 0);
        // In the current search: a proof beats any depth.
        assert!(entry(true, 0, 5).worth(5) > entry(false, 200, 5).worth(5));
        assert_eq!(entry(false, 7, 5).worth(5), 9);
        // A search later, a quarter; a used slot is worth at least 1.
        assert_eq!(entry(false, 7, 4).worth(5), 3);
        assert_eq!(entry(false, 7, 5).worth(40), 1);
        // Searches count round 1..=255: 255 is the one before 1.
        assert_eq!(entry(false, 7, 255).worth(1), 3);
        let mut tt = Tt::new(16).unwrap();
        tt.search = 255;
        tt.next_search();
        assert_eq!(tt.search, 1);
    }
}
