//! Depth-first proof-number search (df-pn) for one question: "can player X
//! force a win?".
//!
//! Proof and disproof numbers steer the search to the most forcing lines
//! (the fewest positions left to prove or refute), where depth-first
//! iterative deepening spends its time on every move to the horizon.
//! Positions on the current path are treated as "X does not win" (endless
//! play is a draw); only positions without a tuzdyk can repeat, so only
//! they are tracked on the path. Proofs never rest on such a position, so they are sound;
//! a disproof that does is path-dependent and is flagged *tainted*, and only
//! untainted disproofs are reported as proven.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use hashbrown::HashTable;

use super::table::{aged, Buckets, Slot};
use super::{static_bounds, tick, Halt};
use crate::rules::{Position, Side, HALF};
use crate::tablebase::{Horizon, Tablebase};
use crate::value::Wdl;

/// Slots a key may take in the main table: two 32-byte entries, one cache
/// line. A node looks up every child, and those misses are most of
/// df-pn's time: two slots of 32 bytes instead of four of 48 (three
/// lines) take 8 % less time for the same nodes (docs/performance.md,
/// "Smaller entries in df-pn's tables").
const WAYS: usize = 2;

/// Slots a board may take in the split table: four records of 24 bytes,
/// two cache lines (two slots were no faster: 48 bytes straddle lines).
const SPLIT_WAYS: usize = 4;

/// "Infinite" proof or disproof number. The search counts in 64 bits:
/// when the numbers were sums over the children, 32-bit sums reached the
/// cap within seconds (one 12-stone loss with a table of 2^23 entries:
/// open after 30 s while the root spun at a false "infinity";
/// docs/performance.md). Weak numbers ([`weak`]) grow far slower, so the
/// table keeps them in 32 bits ([`narrow`]), 0 and infinity exactly.
const INF: u64 = u64::MAX / 4;

/// A position as df-pn's tables key it, in 22 bytes (a main entry then
/// fits 32 bytes, two to a cache line, where the whole 24-byte key and
/// 64-bit numbers took 48): holes, kazans, the two
/// tuzdyk indices packed ([`tuzdyk_code`], its low byte), and a byte with
/// the side to move, the side asked about and the code's ninth bit.
type PKey = [u8; 22];

/// One entry of the main table, 32 bytes.
#[derive(Clone, Copy)]
#[repr(C)]
struct Entry {
    key: PKey,
    /// Bit 0: used; bit 1: tainted; bits 2 to 7: the bit length of the
    /// nodes spent below this entry ([`work_code`]): what it would cost to
    /// find again, so what the replacement keeps.
    flags: u8,
    /// The search ([`Table::next_search`]) that stored a tainted entry:
    /// a later search, from another root, must not take its path-bound
    /// refutation as settled.
    search: u8,
    /// The numbers, narrowed to 32 bits ([`narrow`]).
    pn: u32,
    dn: u32,
}

const USED: u8 = 1;
const TAINTED: u8 = 2;

impl Entry {
    fn tainted(&self) -> bool {
        self.flags & TAINTED != 0
    }

    fn work(&self) -> u64 {
        work_of(self.flags >> 2)
    }
}

impl Split {
    fn work(&self) -> u64 {
        work_of(self.flags >> 2)
    }
}

/// The flags byte of a used record ([`Entry::flags`], [`Split::flags`]).
fn flags(tainted: bool, work: u64) -> u8 {
    USED | if tainted { TAINTED } else { 0 } | work_code(work) << 2
}

/// What is proven of one board (holes, tuzdyks, side to move) for the
/// question asked, whatever the kazans: X wins from `win_from` stones in
/// its kazan up, and cannot win (a path-independent refutation) up to
/// `nowin_to - 1`. The value of a board is monotone in the kazan split:
/// with `d` more stones in X's kazan and `d` fewer in the other, the same
/// moves give the same boards, and the game can only end sooner by X
/// passing 81 or later by the opponent passing it, so whatever X's
/// strategy achieved it still achieves ([rules](../../../docs/rules.md),
/// "End of the game"). So one proof settles every split with more for X,
/// and one refutation every split with less: lines that reach one board
/// by different captures share them.
#[derive(Clone, Copy)]
#[repr(C)]
struct Split {
    key: SplitKey,
    /// X's least kazan known to win; [`NONE_WIN`] when none is.
    win_from: u8,
    /// 1 + X's largest kazan known not to win; 0 when none is.
    nowin_to: u8,
    /// The search that last wrote it ([`kept`]).
    search: u8,
    /// Bit 0: used; bits 2 to 7: the bit length of the nodes spent on
    /// the proofs stored here ([`work_code`]): what the replacement keeps.
    flags: u8,
}

/// A board as [`Split`] keys it: holes, the tuzdyk code's low byte, and a
/// byte with the side to move, the side asked about and the code's ninth
/// bit (as [`PKey`], without the kazans).
type SplitKey = [u8; 20];

/// No kazan is known to win (kazans hold at most 162 stones).
const NONE_WIN: u8 = u8::MAX;

/// One [`Split`] slot for this many entries of the main table: a board's
/// record is written only when a position of it is settled.
const SPLIT_SHARE: usize = 4;

/// Bytes of one entry, what [`super::Budget::memory`] counts: the main
/// table's entry and its share of the split table.
pub(crate) const ENTRY_BYTES: usize =
    std::mem::size_of::<Entry>() + std::mem::size_of::<Split>() / SPLIT_SHARE;

// The sizes `Budget::tt_entries` documents: 32 bytes a main entry, 24 a
// split record.
const _: () = assert!(std::mem::size_of::<Entry>() == 32 && std::mem::size_of::<Split>() == 24);

/// A df-pn transposition table, kept between the searches of one
/// [`crate::Solver`]: proofs and untainted refutations hold for any root,
/// and the other numbers only steer, so a position searched again (the
/// next position of a game, say) starts from what was found before.
pub(crate) struct Table {
    entries: Buckets<Entry, WAYS>,
    splits: Buckets<Split, SPLIT_WAYS>,
    search: u8,
    asked: usize,
}

impl Slot for Entry {
    fn used(&self) -> bool {
        self.flags & USED != 0
    }

    fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.key)
    }
}

impl Slot for Split {
    fn used(&self) -> bool {
        self.flags & USED != 0
    }

    fn hash(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.key)
    }
}

impl Table {
    /// A table that may grow to `entries` entries (rounded up to a power of
    /// two); `None` if the system refuses even a small one.
    pub(crate) fn new(entries: usize) -> Option<Table> {
        let size = super::table_size(entries).max(WAYS);
        // SAFETY: all-zero bytes are an `Entry` (integers and byte arrays),
        // one whose flags say unused.
        let table = unsafe { Buckets::new(size) }?;
        // SAFETY: all-zero bytes are a `Split` (integers and byte arrays),
        // one whose flags say unused.
        let splits = unsafe { Buckets::new((size / SPLIT_SHARE).max(SPLIT_WAYS)) }?;
        Some(Table {
            entries: table,
            splits,
            search: 0,
            asked: entries,
        })
    }

    /// The bytes the table takes now.
    pub(crate) fn bytes(&self) -> u64 {
        self.entries.bytes() + self.splits.bytes()
    }

    /// The entries the table may grow to, as asked.
    pub(crate) fn asked(&self) -> usize {
        self.asked
    }

    /// Starts a new search. A tainted entry of an earlier one reads as
    /// absent. (After 256 searches a stale tainted entry may read as
    /// current again: still sound, as taint spreads to whatever rests on
    /// it and a tainted refutation is never reported.)
    pub(crate) fn next_search(&mut self) {
        self.search = self.search.wrapping_add(1);
    }
}

/// The answer of one df-pn run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// X wins.
    Proven,
    /// X cannot win (no path-dependent step in the refutation).
    Disproven,
    /// Not settled within the budget: asking again goes on.
    Open,
    /// Refuted only through cycles: asking again cannot settle it.
    Cyclic,
}

/// A df-pn searcher for "can `x` force a win?".
pub(crate) struct Pns<'a> {
    tb: &'a Tablebase,
    horizon: Horizon,
    x: Side,
    entries: &'a mut Buckets<Entry, WAYS>,
    splits: &'a mut Buckets<Split, SPLIT_WAYS>,
    search: u8,
    /// The hashes of the keys on the current path, of the positions
    /// without a tuzdyk (only those can repeat). Two keys with one hash
    /// would only mark a position off the path as on it, which taints a
    /// refutation and never makes a proof.
    path: HashTable<u64>,
    pub(crate) nodes: u64,
    /// The node count at which [`Pns::run`] returns (raised between runs
    /// to share the time with the other question).
    pub(crate) node_limit: u64,
    deadline: Option<Instant>,
    stop: &'a AtomicBool,
}

/// What is known of one child: numbers and taint.
#[derive(Clone, Copy)]
struct Numbers {
    pn: u64,
    dn: u64,
    tainted: bool,
}

impl Numbers {
    /// X wins, whatever the path.
    const PROVEN: Numbers = Numbers {
        pn: 0,
        dn: INF,
        tainted: false,
    };
    /// X cannot win, whatever the path.
    const REFUTED: Numbers = Numbers {
        pn: INF,
        dn: 0,
        tainted: false,
    };
}

impl<'a> Pns<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        tb: &'a Tablebase,
        horizon: Horizon,
        x: Side,
        table: &'a mut Table,
        node_limit: u64,
        deadline: Option<Instant>,
        stop: &'a AtomicBool,
    ) -> Pns<'a> {
        Pns {
            tb,
            horizon,
            x,
            search: table.search,
            entries: &mut table.entries,
            splits: &mut table.splits,
            path: HashTable::new(),
            nodes: 0,
            node_limit,
            deadline,
            stop,
        }
    }

    /// Turns to the question "can `x` force a win?". Both questions share
    /// the table: the side asked about is part of each key.
    pub(crate) fn ask(&mut self, x: Side) {
        self.x = x;
    }

    /// The key of `pos` for the question asked ([`PKey`]), and its hash.
    fn key(&self, pos: &Position) -> (PKey, u64) {
        let t = tuzdyk_code(pos.tuzdyk_indices());
        let mut k = [0u8; 22];
        k[..18].copy_from_slice(pos.holes());
        k[18..20].copy_from_slice(&pos.kazans());
        k[20] = t as u8;
        k[21] =
            pos.side_to_move().index() as u8 | (self.x.index() as u8) << 1 | ((t >> 8) as u8) << 2;
        (k, xxhash_rust::xxh3::xxh3_64(&k))
    }

    /// Runs df-pn from `root` until the question is settled or the budget
    /// runs out.
    pub(crate) fn run(&mut self, root: &Position) -> Result<Verdict, crate::ProbeError> {
        if let Some(n) = self.leaf(root)? {
            return Ok(verdict(n));
        }
        if let Some(n) = self.split_of(root).0 {
            return Ok(verdict(n));
        }
        match self.mid(root, INF, INF) {
            Ok(n) => Ok(verdict(n)),
            Err(Halt::Budget) => Ok(Verdict::Open),
            Err(Halt::Probe(e)) => Err(e),
        }
    }

    fn lookup(&self, pos: &Position) -> Option<Numbers> {
        let (k, h) = self.key(pos);
        self.lookup_in(h, &k)
    }

    /// The [`Split`] key of `pos` for the question asked, and its hash.
    fn split_key(&self, pos: &Position) -> (SplitKey, u64) {
        split_key_of(&self.key(pos).0)
    }

    /// What the split table settles of `pos` (`None`: nothing), with its
    /// key and hash.
    fn split_of(&self, pos: &Position) -> (Option<Numbers>, SplitKey, u64) {
        let (k, h) = self.split_key(pos);
        (self.split_in(pos, &k, h), k, h)
    }

    fn split_in(&self, pos: &Position, key: &SplitKey, hash: u64) -> Option<Numbers> {
        let e = self
            .splits
            .slots(hash)
            .iter()
            .find(|e| e.used() && e.key == *key)?;
        let kx = pos.kazan(self.x);
        if kx >= e.win_from {
            Some(Numbers::PROVEN)
        } else if kx < e.nowin_to {
            Some(Numbers::REFUTED)
        } else {
            None
        }
    }

    /// Records a settled, path-independent result of `pos` (a proof or an
    /// untainted refutation) for every kazan split it implies.
    fn split_record(&mut self, pos: &Position, n: Numbers, work: u64) {
        let win = n.pn == 0;
        if !win && (n.dn != 0 || n.tainted) {
            return;
        }
        let (key, hash) = self.split_key(pos);
        let kx = pos.kazan(self.x);
        let slots = self.splits.slots(hash);
        let (pick, mut e) = match slots.iter().position(|e| e.used() && e.key == key) {
            Some(i) => (i, slots[i]),
            None => {
                let now = self.search;
                let cost = |e: &Split| kept(e.used(), e.work(), e.search, now);
                let (i, _) = (slots.iter().enumerate())
                    .min_by_key(|(_, e)| cost(e))
                    .expect("a bucket has slots");
                let fresh = Split {
                    key,
                    win_from: NONE_WIN,
                    nowin_to: 0,
                    search: self.search,
                    flags: USED,
                };
                (i, fresh)
            }
        };
        if win {
            e.win_from = e.win_from.min(kx);
        } else {
            e.nowin_to = e.nowin_to.max(kx + 1);
        }
        debug_assert!(
            e.nowin_to <= e.win_from,
            "a board both won and not won at one kazan: {}",
            pos.fen()
        );
        e.flags = flags(false, e.work().saturating_add(work));
        e.search = self.search;
        *self.splits.slot_for(hash, pick, self.deadline) = e;
    }

    fn on_path(&self, hash: u64) -> bool {
        self.path.find(hash, |&h| h == hash).is_some()
    }

    /// The numbers stored for `key`, hashed to `hash`.
    fn lookup_in(&self, hash: u64, key: &PKey) -> Option<Numbers> {
        self.entries
            .slots(hash)
            .iter()
            .find(|e| e.used() && e.key == *key && !(e.tainted() && e.search != self.search))
            .map(|e| Numbers {
                pn: widen_number(e.pn),
                dn: widen_number(e.dn),
                tainted: e.tainted(),
            })
    }

    /// Stores `n` for `key`, found with `work` nodes; a new key takes the
    /// bucket's slot that cost less to find (an unused one first).
    fn store(&mut self, key: &PKey, hash: u64, n: Numbers, work: u64) {
        let now = self.search;
        let cost = |e: &Entry| kept(e.used(), e.work(), e.search, now);
        let slots = self.entries.slots(hash);
        let found = slots.iter().position(|e| e.used() && e.key == *key);
        // A key searched again adds to what it has cost so far.
        let (pick, before) = match found {
            Some(i) => (i, slots[i].work()),
            None => {
                let (i, _) = (slots.iter().enumerate())
                    .min_by_key(|(_, e)| cost(e))
                    .expect("a bucket has slots");
                (i, 0)
            }
        };
        *self.entries.slot_for(hash, pick, self.deadline) = Entry {
            key: *key,
            flags: flags(n.tainted, before.saturating_add(work)),
            search: self.search,
            pn: narrow(n.pn),
            dn: narrow(n.dn),
        };
    }

    /// Settled numbers for a finished game, a table-covered position, or a
    /// position the kazans settle; `None` otherwise.
    fn leaf(&self, pos: &Position) -> Result<Option<Numbers>, crate::ProbeError> {
        let (lo, hi) = static_bounds(self.tb, self.horizon, pos)?;
        // Bounds for X.
        let (lo, hi) = if pos.side_to_move() == self.x {
            (lo, hi)
        } else {
            (hi.flip(), lo.flip())
        };
        Ok(if lo == Wdl::Win {
            Some(Numbers::PROVEN)
        } else if hi < Wdl::Win {
            Some(Numbers::REFUTED)
        } else {
            None
        })
    }

    /// The numbers of a position not searched yet (df-pn+ style): the
    /// side to move needs one good move among its moves, the other side
    /// must be answered on every one, so the more moves a side has, the
    /// harder the position is to prove against it: the other side's
    /// number is multiplied by the square of those moves, so that lines
    /// leaving few replies, the forcing ones, come first (against the
    /// moves themselves, on real positions at 1 s: 78.4 -> 81.7 % proven
    /// at 20-24 stones, 37.7 -> 40.8 % at 25-29; their cube proved
    /// fewer, no mobility far fewer: docs/performance.md, "The square of
    /// the mobility"). Each side's number
    /// grows with the stones left to capture before a table answers plus
    /// the stones its kazan still needs: X to pass 81, the other side to
    /// reach 81, which X's win then can no longer pass. (The distance
    /// alone, with the thresholds four times wide ([`widen`]), proved 108
    /// of 198 real positions of 20 to 24 stones at 1 M nodes on one
    /// thread; the sum proves 122, and the same with the needs halved or
    /// doubled or the distance doubled; the smaller of the two proves
    /// 99, the larger 114, their product 102: docs/performance.md, "The
    /// stones a kazan needs, added to the distance". Before that the
    /// cube of the distance, then the distance itself, had proved most:
    /// "Distance to the tables", "A wider 1 + epsilon"; a second search
    /// guided by the needs alone, given half of each budget, proved
    /// fewer in all: "One guide".)
    fn fresh(&self, pos: &Position) -> Numbers {
        let moves = pos.legal_moves().count().max(1) as u64;
        let mobility = moves * moves;
        let above = pos
            .stones_on_board()
            .saturating_sub(self.horizon.of(pos))
            .max(1);
        let d = u64::from(above);
        // X wins with HALF + 1; the other side stops that with HALF.
        let need = |side: Side, goal: u8| u64::from(goal.saturating_sub(pos.kazan(side)).max(1));
        let dx = d + need(self.x, HALF + 1);
        let dy = d + need(self.x.opponent(), HALF);
        let (pn, dn) = if pos.side_to_move() == self.x {
            (dx, mobility * dy)
        } else {
            (mobility * dx, dy)
        };
        Numbers {
            pn,
            dn,
            tainted: false,
        }
    }

    fn count_node(&mut self) -> Result<(), Halt> {
        tick(&mut self.nodes, self.node_limit, self.deadline, self.stop)
    }

    /// Multiple iterative deepening at `pos` (not a leaf): searches until
    /// its proof number reaches `th_pn` or its disproof number `th_dn`.
    fn mid(&mut self, pos: &Position, th_pn: u64, th_dn: u64) -> Result<Numbers, Halt> {
        self.count_node()?;
        let start = self.nodes;
        let (key, h) = self.key(pos);
        let or = pos.side_to_move() == self.x;
        // Each child's numbers are looked up once: looking them up again
        // on every turn of the loop cost more than half the time in cache
        // misses. Only the child just searched changes (what a transposition
        // did to a sibling meanwhile is seen the next time this node is
        // entered; numbers only steer, and a proof or refutation, the only
        // thing reported, stays true).
        let mut kids = [*pos; 9];
        let mut numbers = [Numbers {
            pn: 0,
            dn: 0,
            tainted: false,
        }; 9];
        // Children that are no leaf: their key and bucket, fetched first.
        let mut open: [Option<(PKey, u64, SplitKey, u64)>; 9] = [None; 9];
        let mut count = 0;
        // From the last hole down, so that among children whose numbers tie
        // (moves that capture nothing) the one chosen sows furthest into
        // the opponent's row, where captures and tuzdyks are made. On real
        // positions at 1 s, against hole 1 first: 68.8 -> 79.2 % proven at
        // 20-24 stones, 30.1 -> 37.2 % at 25-29; a random order among ties
        // did no better than hole 1 (docs/performance.md, "The last hole
        // first among ties").
        for mv in pos.legal_moves().rev() {
            let child = pos.after_unchecked(mv);
            match self.leaf(&child)? {
                Some(n) => numbers[count] = n,
                None => {
                    let (k, kh) = self.key(&child);
                    self.entries.prefetch(kh);
                    let (sk, sh) = split_key_of(&k);
                    self.splits.prefetch(sh);
                    open[count] = Some((k, kh, sk, sh));
                }
            }
            kids[count] = child;
            count += 1;
        }
        for i in 0..count {
            let Some((k, kh, sk, sh)) = open[i] else {
                continue;
            };
            numbers[i] = if !kids[i].has_tuzdyk() && self.on_path(kh) {
                Numbers {
                    pn: INF,
                    dn: 0,
                    tainted: true,
                }
            } else {
                match self.lookup_in(kh, &k) {
                    Some(n) if n.pn == 0 || (n.dn == 0 && !n.tainted) => n,
                    stored => match self.split_in(&kids[i], &sk, sh) {
                        Some(n) => n,
                        None => stored.unwrap_or_else(|| self.fresh(&kids[i])),
                    },
                }
            };
        }
        let numbers = &mut numbers[..count];
        // With a tuzdyk on the board no position repeats
        // (`Position::has_tuzdyk`): such a position is never met again
        // below itself, so the path need not hold it.
        let tracked = !pos.has_tuzdyk();
        if tracked {
            self.path.insert_unique(h, h, |&h| h);
        }
        let result = loop {
            let mut best = 0;
            let (mut first, mut second) = (INF + 1, INF + 1);
            // The largest of the other numbers, and how many are not 0.
            let (mut most, mut unsettled) = (0u64, 0u64);
            let mut any_tainted = false;
            for (i, &n) in numbers.iter().enumerate() {
                // OR: the child with the least proof number; AND: the least
                // disproof number. The other number is the weak sum.
                let (m, s) = if or { (n.pn, n.dn) } else { (n.dn, n.pn) };
                if s > 0 {
                    most = most.max(s);
                    unsettled += 1;
                }
                if m < first || (m == first && !n.tainted && numbers[best].tainted) {
                    second = first;
                    first = m;
                    best = i;
                } else if m < second {
                    second = m;
                }
                any_tainted |= n.tainted;
            }
            let other = weak(most, unsettled);
            let (pn, dn) = if or { (first, other) } else { (other, first) };
            let disproven = pn >= INF || dn == 0;
            let here = Numbers {
                pn: pn.min(INF),
                dn: dn.min(INF),
                // A refutation is tainted when it rests on a tainted child:
                // every child at an OR node, the refuting one at an AND node.
                tainted: disproven
                    && if or {
                        any_tainted
                    } else {
                        numbers[best].tainted
                    },
            };
            if here.pn >= th_pn || here.dn >= th_dn || here.pn == 0 || here.dn == 0 {
                break Ok(here);
            }
            let b = numbers[best];
            let (c_pn, c_dn) = if or {
                (
                    th_pn.min(widen(second)),
                    (th_dn - here.dn).saturating_add(b.dn).min(INF),
                )
            } else {
                (
                    (th_pn - here.pn).saturating_add(b.pn).min(INF),
                    th_dn.min(widen(second)),
                )
            };
            let child = kids[best];
            match self.mid(&child, c_pn, c_dn) {
                Ok(n) => numbers[best] = n,
                Err(e) => break Err(e),
            }
        };
        if tracked {
            self.leave(h);
        }
        let result = result?;
        let work = self.nodes - start;
        self.store(&key, h, result, work);
        self.split_record(pos, result, work);
        Ok(result)
    }
}

impl Pns<'_> {
    /// Takes the position hashed to `hash` off the path.
    fn leave(&mut self, hash: u64) {
        let found = self.path.find_entry(hash, |&h| h == hash);
        debug_assert!(found.is_ok(), "a position leaves the path it entered");
        if let Ok(e) = found {
            e.remove();
        }
    }

    /// After a settled run: a root move that carries the verdict (a proven
    /// child at an OR root, an untainted refuted child at an AND root).
    pub(crate) fn witness(
        &self,
        root: &Position,
    ) -> Result<Option<crate::Move>, crate::ProbeError> {
        let or = root.side_to_move() == self.x;
        for mv in root.legal_moves() {
            let child = root.after_unchecked(mv);
            let n = match self.leaf(&child)? {
                Some(n) => Some(n),
                None => self.split_of(&child).0.or(self.lookup(&child)),
            };
            if let Some(n) = n {
                if (or && n.pn == 0) || (!or && n.dn == 0 && !n.tainted) {
                    return Ok(Some(mv));
                }
            }
        }
        Ok(None)
    }
}

/// What an entry is worth keeping: the nodes it cost (`work`), [`aged`]
/// by the searches since it was written; an unused slot, nothing. (The
/// search count wraps after 256 searches, so an entry that old may read as
/// new: it only steers the replacement.)
fn kept(used: bool, work: u64, search: u8, now: u8) -> u64 {
    if !used {
        return 0;
    }
    aged(work.saturating_add(1), u32::from(now.wrapping_sub(search)))
}

/// The [`Split`] key of the position keyed `k` (its key without the
/// kazans), and its hash.
fn split_key_of(k: &PKey) -> (SplitKey, u64) {
    let mut s = [0u8; 20];
    s[..18].copy_from_slice(&k[..18]);
    s[18..].copy_from_slice(&k[20..]);
    (s, xxhash_rust::xxh3::xxh3_64(&s))
}

/// The two tuzdyk indices (`u8::MAX` for none) as one number below 361:
/// each index plus one (none: 0) in base 19.
fn tuzdyk_code(t: [u8; 2]) -> u16 {
    let digit = |i: u8| u16::from(i.wrapping_add(1));
    debug_assert!(digit(t[0]) < 19 && digit(t[1]) < 19);
    digit(t[0]) * 19 + digit(t[1])
}

/// Nodes as the tables keep them, in six bits: their bit length (at
/// most 63). Only the replacement reads it, where a factor of two is
/// close enough.
fn work_code(work: u64) -> u8 {
    (64 - work.leading_zeros()).min(63) as u8
}

/// The least number of nodes with bit length `code`.
fn work_of(code: u8) -> u64 {
    match code {
        0 => 0,
        c => 1 << (c - 1),
    }
}

/// A number as the main table keeps it, in 32 bits: [`INF`] as
/// `u32::MAX`, any other above that as the largest finite value. Only 0
/// and infinity settle anything, and both are kept exactly; a larger
/// number only steers.
fn narrow(n: u64) -> u32 {
    if n >= INF {
        u32::MAX
    } else {
        n.min(u64::from(u32::MAX - 1)) as u32
    }
}

/// The number [`narrow`] kept.
fn widen_number(n: u32) -> u64 {
    if n == u32::MAX {
        INF
    } else {
        u64::from(n)
    }
}

/// The number that all of a node's children must bring down (the proof
/// number where the opponent moves, the disproof number where X moves),
/// from the largest of theirs, `most`, and how many are not 0: that
/// largest plus one for each other unsettled child, instead of the sum
/// (weak proof numbers: Ueda, Hashimoto, Hashimoto and Iida, "Weak
/// Proof-Number Search", 2008). A sum counts a position reached by several
/// moves once per move, and tempo endgames transpose all the time, so sums
/// sent the search away from lines that were nearly proven. On 164
/// 18-stone positions the sums left open within 1 s: 96 proven within 2 s
/// with weak numbers on both sides, 86 with them on the proof side only;
/// the slowest 12-stone loss, 2.6 s with sums, 1.6 s (medians of 5)
/// (docs/performance.md, "Weak proof numbers").
///
/// It is 0 only when every child is settled the same way and infinite only
/// when one is settled the other way, like a sum, so proofs and
/// refutations are the same; only the order of the search changes. A large
/// number never reads as settled: a root at "infinity" without a proof
/// would return at once, again and again, until the budget ran out.
fn weak(most: u64, unsettled: u64) -> u64 {
    if most >= INF {
        INF
    } else {
        most.saturating_add(unsettled.saturating_sub(1))
            .min(INF - 1)
    }
}

fn verdict(n: Numbers) -> Verdict {
    if n.pn == 0 {
        Verdict::Proven
    } else if n.dn == 0 && !n.tainted {
        Verdict::Disproven
    } else if n.dn == 0 {
        Verdict::Cyclic
    } else {
        Verdict::Open
    }
}

/// The threshold a best child gets from the second best's number `second`:
/// the "1 + epsilon" trick (Pawlewicz and Lew), [`EPSILON`] times more than
/// the second best instead of one more, so the search stays in one
/// subtree until it is clearly worse than the next instead of switching
/// back and forth between two close ones.
fn widen(second: u64) -> u64 {
    second.saturating_add(second.saturating_mul(EPSILON).max(1))
}

/// Epsilon of [`widen`]. On the real positions of 15 to 29 stones
/// (`bench/search-real/real-200.fens`, DTC tables up to 10, 1 M nodes a
/// question), 1/4 proved 175, 91 and 26 of 196, 198 and 120; 4 proves
/// 189, 99 and 28 (+25 / -1) with a fifth fewer nodes where both prove;
/// 1/2 and 1 proved 97 and 98 at 20-24, 2 to 64 98 or 99 (the new nodes'
/// numbers then grew with the cube of the distance to the tables, now
/// with the distance: [`Pns::fresh`]; docs/performance.md, "A wider
/// 1 + epsilon").
const EPSILON: u64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widened_thresholds_always_move_and_saturate() {
        assert_eq!(widen(0), 1);
        assert_eq!(widen(1), 1 + EPSILON);
        assert_eq!(widen(10), 10 * (1 + EPSILON));
        // No second child: the parent's threshold is the bound.
        assert!(widen(INF + 1) > INF);
        assert_eq!(widen(u64::MAX), u64::MAX);
    }

    #[test]
    fn older_entries_are_kept_less_and_an_unused_slot_least() {
        assert_eq!(kept(false, 1000, 3, 3), 0);
        assert_eq!(kept(true, 0, 3, 3), 2);
        assert_eq!(kept(true, 99, 3, 3), 101);
        // A search later, a quarter; long past, the least a used slot is.
        assert_eq!(kept(true, 99, 2, 3), 26);
        assert_eq!(kept(true, u64::from(u32::MAX), 0, 40), 1);
        // Across the wrap of the search count.
        assert_eq!(kept(true, 99, 255, 0), 26);
    }

    #[test]
    fn tuzdyk_codes_tell_every_pair_apart() {
        let indices = (0..18).chain([u8::MAX]);
        let mut seen = std::collections::HashSet::new();
        for a in indices.clone() {
            for b in indices.clone() {
                let c = tuzdyk_code([a, b]);
                assert!(c < 512, "nine bits");
                assert!(seen.insert(c), "{a} {b}");
            }
        }
    }

    #[test]
    fn a_split_key_is_the_key_without_the_kazans() {
        let mut k: PKey = std::array::from_fn(|i| i as u8);
        let (a, ha) = split_key_of(&k);
        assert_eq!(&a[..18], &k[..18]);
        assert_eq!(&a[18..], &k[20..]);
        // Other kazans: the same board record.
        k[18] = 70;
        k[19] = 11;
        assert_eq!(split_key_of(&k), (a, ha));
        // Another side asked about: another record.
        k[21] ^= 2;
        assert_ne!(split_key_of(&k).0, a);
    }

    #[test]
    fn narrowed_numbers_keep_zero_and_infinity() {
        for n in [0, 1, 7, u64::from(u32::MAX) - 2] {
            assert_eq!(widen_number(narrow(n)), n);
        }
        assert_eq!(widen_number(narrow(INF)), INF);
        // Large but finite stays finite.
        let big = widen_number(narrow(INF - 1));
        assert!(big > 0 && big < INF);
        assert_eq!(widen_number(narrow(u64::from(u32::MAX))), big);
    }

    #[test]
    fn work_codes_keep_the_bit_length() {
        assert_eq!(work_of(work_code(0)), 0);
        assert_eq!(work_of(work_code(1)), 1);
        assert_eq!(work_of(work_code(1000)), 512);
        assert_eq!(work_of(work_code(1024)), 1024);
        assert_eq!(work_code(u64::MAX), 63);
        // Codes fit the six bits above the flags.
        assert!(u32::from(work_code(u64::MAX)) << 2 <= u32::from(u8::MAX));
    }

    #[test]
    fn weak_numbers_settle_only_through_settled_children() {
        // Every child settled: 0.
        assert_eq!(weak(0, 0), 0);
        // The largest, plus one for each other open child.
        assert_eq!(weak(7, 1), 7);
        assert_eq!(weak(7, 3), 9);
        // Infinite only through a child settled the other way.
        assert_eq!(weak(INF, 2), INF);
        assert_eq!(weak(INF - 1, 9), INF - 1);
        assert_eq!(weak(INF - 3, 9), INF - 1);
    }
}
