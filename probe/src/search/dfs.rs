//! The iterative-deepening depth-first prover (off by default): the two
//! questions "is it at least a draw?" and "is it a win?" at increasing
//! depths, with a transposition table keyed by the whole position that
//! stores proven bounds (path-independent: there is no repetition rule)
//! and, for unresolved entries, the depth already searched for each
//! question. It proves forcing lines but never a draw by endless play.

use std::time::Instant;

use super::table::{Buckets, Slot};
use super::{
    kazan_bounds, key_hash, key_of, num, static_bounds, table_size, tick, wdl_of, Halt, Key,
    Shared, Solver,
};
use crate::rules::{Move, Position};
use crate::tablebase::ProbeError;
use crate::value::Wdl;

/// One transposition-table entry. `lower`/`upper` are proven bounds;
/// `searched[q]` is the depth to which question `q` (0: at least a draw,
/// 1: a win) was searched without an answer.
#[derive(Clone, Copy)]
struct Entry {
    key: Key,
    lower: i8,
    upper: i8,
    searched: [u8; 2],
    /// Hole number of the move that proved the lower bound (`u8::MAX`: none).
    best: u8,
    used: bool,
}

/// Bytes of one entry of the depth-first prover's table.
pub(super) const DFS_ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

const EMPTY: Entry = Entry {
    key: [0; 24],
    lower: -1,
    upper: 1,
    searched: [0; 2],
    best: u8::MAX,
    used: false,
};

impl Entry {
    /// What the entry is worth keeping for: a proof beats any depth.
    fn worth(&self) -> u32 {
        if !self.used {
            0
        } else if self.lower == self.upper {
            u32::MAX
        } else {
            1 + self.searched[0].max(self.searched[1]) as u32
        }
    }
}

/// The depth-first prover's transposition table: two-way buckets,
/// growing up to the budget's size ([`table::Buckets`]).
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
        let buckets = unsafe { Buckets::new(table_size(size)) }?;
        Some(Tt { buckets })
    }

    /// The bytes the table takes now.
    pub(super) fn bytes(&self) -> u64 {
        self.buckets.bytes()
    }

    /// Brings the bucket of `key` into the cache ahead of [`Tt::get`].
    fn prefetch(&self, key: &Key) {
        self.buckets.prefetch(key_hash(key));
    }

    fn get(&self, key: &Key) -> Option<&Entry> {
        self.buckets
            .slots(key_hash(key))
            .iter()
            .find(|e| e.used && e.key == *key)
    }

    /// The entry for `key`, claiming the less valuable slot of its bucket
    /// when it is new (the table may grow first, until `deadline`).
    fn entry(&mut self, key: &Key, deadline: Option<Instant>) -> &mut Entry {
        let hash = key_hash(key);
        let slots = self.buckets.slots(hash);
        if let Some(i) = slots.iter().position(|e| e.used && e.key == *key) {
            return self.buckets.slot_for(hash, i, deadline);
        }
        let pick = usize::from(slots[0].worth() > slots[1].worth());
        let e = self.buckets.slot_for(hash, pick, deadline);
        *e = Entry {
            key: *key,
            used: true,
            ..EMPTY
        };
        e
    }
}

/// The answer to one question about one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Yes,
    No,
    Unknown,
}

/// The deepest iteration the depth-first search runs (depths are stored in
/// a byte).
const MAX_DEPTH: u32 = 250;

impl Solver<'_> {
    /// Iterative deepening over the two questions at the root, until the
    /// root interval closes or the budget runs out.
    pub(super) fn deepen(
        &mut self,
        pos: &Position,
        shared: &Shared,
    ) -> Result<DfsOutcome, ProbeError> {
        // The root's kazan bounds hold after every move as well (not the
        // shared bounds: the other prover may have narrowed those already).
        let (lo, hi) = kazan_bounds(pos);
        let mut out = DfsOutcome {
            depth: 0,
            moves: pos.legal_moves().map(|mv| (mv, lo, hi)).collect(),
        };
        if self.tt.is_none() {
            self.tt = Tt::new(self.budget.tt_entries);
        }
        if self.tt.is_none() {
            // No memory even for a small table: this prover proves nothing.
            return Ok(out);
        }
        for depth in 1..=MAX_DEPTH {
            for t in [Wdl::Win, Wdl::Draw] {
                let (lo, hi) = shared.bounds();
                if lo >= t || hi < t {
                    continue;
                }
                match self.root_question(pos, depth, t, &mut out) {
                    Ok(Answer::Yes) => shared.narrow(t, Wdl::Win),
                    Ok(Answer::No) => shared.narrow(Wdl::Loss, below(t)),
                    Ok(Answer::Unknown) => {}
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

    /// One question at the root, recording what each move was shown to be
    /// worth for the mover.
    fn root_question(
        &mut self,
        pos: &Position,
        depth: u32,
        t: Wdl,
        out: &mut DfsOutcome,
    ) -> Result<Answer, Halt> {
        let ct = child_question(t);
        let mut all_yes = true;
        for m in out.moves.iter_mut() {
            if m.1 >= t {
                return Ok(Answer::Yes);
            }
            if m.2 < t {
                continue;
            }
            let child = pos.after_unchecked(m.0);
            match self.prove(&child, depth - 1, ct)? {
                // The child is below `ct` for its mover: this move is at
                // least `t` for us.
                Answer::No => {
                    m.1 = m.1.max(t);
                    return Ok(Answer::Yes);
                }
                Answer::Yes => m.2 = m.2.min(below(t)),
                Answer::Unknown => all_yes = false,
            }
        }
        Ok(if all_yes { Answer::No } else { Answer::Unknown })
    }

    fn count_node(&mut self) -> Result<(), Halt> {
        tick(&mut self.nodes, self.node_limit, self.deadline, &self.stop)
    }

    /// The depth-first table, which [`Solver::deepen`] makes before it
    /// proves anything.
    fn tt(&mut self) -> &mut Tt {
        self.tt.as_mut().expect("deepen makes the table first")
    }

    /// Is the value of `pos` for its side to move at least `t`, searching
    /// `depth` plies? Only proofs give `Yes`/`No`; the horizon gives
    /// `Unknown`.
    fn prove(&mut self, pos: &Position, depth: u32, t: Wdl) -> Result<Answer, Halt> {
        self.count_node()?;
        let (mut lo, mut hi) = static_bounds(self.tb, self.table_stones, pos)?;
        if let Some(decided) = decide(lo, hi, t) {
            return Ok(decided);
        }
        let key = key_of(pos);
        let q = question_index(t);
        let mut first = u8::MAX;
        if let Some(e) = self.tt().get(&key) {
            lo = lo.max(wdl_of(e.lower));
            hi = hi.min(wdl_of(e.upper));
            if let Some(decided) = decide(lo, hi, t) {
                return Ok(decided);
            }
            if e.searched[q] as u32 >= depth {
                return Ok(Answer::Unknown);
            }
            first = e.best;
        }
        if depth == 0 {
            return Ok(Answer::Unknown);
        }
        let ct = child_question(t);
        // Children, the table's best move first; a first pass settles what
        // the children's static bounds settle before any recursion (looking
        // each child up in the table here as well costs more in cache
        // misses than it saves).
        let mut children: [(Move, Position); 9] = [(Move::new(1).expect("hole 1"), *pos); 9];
        let mut count = 0;
        for mv in pos.legal_moves() {
            children[count] = (mv, pos.after_unchecked(mv));
            count += 1;
        }
        let children = &mut children[..count];
        if let Some(i) = children.iter().position(|c| c.0.hole() == first) {
            children.swap(0, i);
        }
        let mut open = [true; 9];
        let mut all_yes = true;
        for (i, (mv, child)) in children.iter().enumerate() {
            let (clo, chi) = static_bounds(self.tb, self.table_stones, child)?;
            match decide(clo, chi, ct) {
                Some(Answer::No) => return Ok(self.proved(&key, t, true, mv.hole())),
                Some(Answer::Yes) => open[i] = false,
                _ => {
                    all_yes = false;
                    // Searched next: its entry is on the way meanwhile.
                    self.tt().prefetch(&key_of(child));
                }
            }
        }
        if all_yes {
            return Ok(self.proved(&key, t, false, u8::MAX));
        }
        all_yes = true;
        for (i, (mv, child)) in children.iter().enumerate() {
            if !open[i] {
                continue;
            }
            match self.prove(child, depth - 1, ct)? {
                Answer::No => return Ok(self.proved(&key, t, true, mv.hole())),
                Answer::Yes => {}
                Answer::Unknown => all_yes = false,
            }
        }
        if all_yes {
            return Ok(self.proved(&key, t, false, u8::MAX));
        }
        let deadline = self.deadline;
        let e = self.tt().entry(&key, deadline);
        e.searched[q] = e.searched[q].max(depth as u8);
        Ok(Answer::Unknown)
    }

    /// Stores a proven answer to question `t` and returns it.
    fn proved(&mut self, key: &Key, t: Wdl, yes: bool, best: u8) -> Answer {
        let deadline = self.deadline;
        let e = self.tt().entry(key, deadline);
        if yes {
            e.lower = e.lower.max(num(t));
            e.best = best;
            Answer::Yes
        } else {
            e.upper = e.upper.min(num(below(t)));
            Answer::No
        }
    }
}

/// What the depth-first prover found: the deepest completed iteration and,
/// for each root move, bounds on its value for the mover.
pub(super) struct DfsOutcome {
    pub(super) depth: u32,
    pub(super) moves: Vec<(Move, Wdl, Wdl)>,
}

/// The question a child must answer: the mover's value is at least a win
/// when some child is not at least a draw, and at least a draw when some
/// child is not a win.
fn child_question(t: Wdl) -> Wdl {
    if t == Wdl::Win {
        Wdl::Draw
    } else {
        Wdl::Win
    }
}

fn question_index(t: Wdl) -> usize {
    (t == Wdl::Win) as usize
}

/// The value just below `t` (`t` is a draw or a win).
fn below(t: Wdl) -> Wdl {
    wdl_of(num(t) - 1)
}

/// Whether the interval answers "at least `t`?".
fn decide(lo: Wdl, hi: Wdl, t: Wdl) -> Option<Answer> {
    if lo >= t {
        Some(Answer::Yes)
    } else if hi < t {
        Some(Answer::No)
    } else {
        None
    }
}
