//! Where the values of a unit cut into kazan parts go as each part is
//! solved ([`PartSink`]), so that a cut unit never holds its values
//! whole: the generator spools them to its work folder
//! ([`crate::files::work::PartSpool`]) and merges them into the unit's
//! file when the unit ends. A unit solved whole keeps its values in
//! memory, as before.

use crate::solve::error::SolveError;

/// Values a part's side is handed over in at most (whole boards).
const CHUNK_VALUES: usize = 1 << 16;

/// Takes the solved values of a unit's kazan parts, part after part.
pub trait PartSink {
    /// Takes the packed values of side `side` (the unit's configurations
    /// in order) for kazan part `part` (a mask of kazan offsets),
    /// board-major, a board's splits of the part in ascending offset:
    /// `fill` replaces the contents of its buffer with the next values
    /// and returns false when there are none left. A side and part
    /// handed over again (a solve started over in wider cells) replaces
    /// what was taken before.
    ///
    /// # Errors
    ///
    /// [`SolveError::Part`] when the values cannot be kept (the sink
    /// keeps why); what `fill` returns.
    fn put(
        &mut self,
        side: usize,
        part: u64,
        fill: &mut dyn FnMut(&mut Vec<u16>) -> Result<bool, SolveError>,
    ) -> Result<(), SolveError>;
}

/// Hands the states of one side of a part just solved (`states`, `kp` a
/// board) to `sink` as packed values (`packed` of each state); returns
/// the largest packed value.
pub(crate) fn put_side<S: Copy>(
    sink: &mut dyn PartSink,
    side: usize,
    part: u64,
    states: &[S],
    packed: impl Fn(S) -> u16,
) -> Result<u16, SolveError> {
    let kp = part.count_ones() as usize;
    // Whole boards a chunk, so that a chunk never splits a board.
    let step = (CHUNK_VALUES / kp).max(1) * kp;
    let mut at = 0;
    let mut max = 0u16;
    sink.put(side, part, &mut |buf| {
        buf.clear();
        if at == states.len() {
            return Ok(false);
        }
        let end = (at + step).min(states.len());
        buf.extend(states[at..end].iter().map(|&s| {
            let v = packed(s);
            max = max.max(v);
            v
        }));
        at = end;
        Ok(true)
    })?;
    Ok(max)
}

/// What a kazan part's seeds are kept under between the seeding of a unit
/// cut into parts and its solve ([`SeedStore`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedKey {
    /// The best exit of every kazan split of every board, as pass `0`
    /// over the levels below carries it to the next (a word a split).
    Carry(u32),
    /// The seeded states of kazan part `mask` (its splits of every
    /// board, board-major), read back when the part is solved.
    Part(u64),
}

/// Where a unit cut into kazan parts keeps its seeds: every part is
/// seeded first, while the exits are decoded, and solved after they are
/// freed (`crate::solve::dtm::seed_pass`, `crate::solve::dtm::solve_seeded`),
/// so that a unit never holds its exits and its quiet-move graph at once.
/// A key written again replaces what was kept under it; a key read is
/// gone once read to its end.
pub trait SeedStore {
    /// Starts keeping words under `key`.
    ///
    /// # Errors
    ///
    /// [`SolveError::Part`] when the words cannot be kept (the store keeps
    /// why).
    fn create(&mut self, key: SeedKey) -> Result<(), SolveError>;
    /// Adds `words` to what `key` keeps (after [`SeedStore::create`]).
    ///
    /// # Errors
    ///
    /// As [`SeedStore::create`].
    fn write(&mut self, key: SeedKey, words: &[u32]) -> Result<(), SolveError>;
    /// Ends the writing of `key`.
    ///
    /// # Errors
    ///
    /// As [`SeedStore::create`].
    fn finish(&mut self, key: SeedKey) -> Result<(), SolveError>;
    /// Fills `words` with the next words `key` keeps, in the order
    /// written; with `last`, checks that none is left and forgets `key`.
    ///
    /// # Errors
    ///
    /// [`SolveError::Part`] when they cannot be read back whole (the
    /// store keeps why).
    fn read(&mut self, key: SeedKey, words: &mut [u32], last: bool) -> Result<(), SolveError>;
}

/// Words a seeder hands to its [`SeedStore`], or takes from it, a call:
/// a board's few words a call cost more in the calls than in the work.
pub(crate) const SEED_BATCH: usize = 1 << 16;

/// The words a seeder writes under several keys at once (each kazan part
/// of a unit, or the best exits carried to the next pass), handed to the
/// store [`SEED_BATCH`] at a time.
pub(crate) struct SeedBatches {
    keys: Vec<SeedKey>,
    bufs: Vec<Vec<u32>>,
}

impl SeedBatches {
    /// Starts keeping words under `keys` in `store`; `extra` is the most
    /// words one [`SeedBatches::extend`] adds.
    ///
    /// # Errors
    ///
    /// What the store returns.
    pub(crate) fn create(
        store: &mut dyn SeedStore,
        keys: Vec<SeedKey>,
        extra: usize,
    ) -> Result<SeedBatches, SolveError> {
        for &key in &keys {
            store.create(key)?;
        }
        let bufs = keys
            .iter()
            .map(|_| Vec::with_capacity(SEED_BATCH + extra))
            .collect();
        Ok(SeedBatches { keys, bufs })
    }

    /// Adds `words` under the `i`-th key.
    ///
    /// # Errors
    ///
    /// What the store returns.
    #[inline]
    pub(crate) fn extend(
        &mut self,
        store: &mut dyn SeedStore,
        i: usize,
        words: impl IntoIterator<Item = u32>,
    ) -> Result<(), SolveError> {
        let buf = &mut self.bufs[i];
        buf.extend(words);
        if buf.len() >= SEED_BATCH {
            store.write(self.keys[i], buf)?;
            buf.clear();
        }
        Ok(())
    }

    /// Hands the rest to the store and ends every key.
    ///
    /// # Errors
    ///
    /// What the store returns.
    pub(crate) fn finish(self, store: &mut dyn SeedStore) -> Result<(), SolveError> {
        for (key, buf) in self.keys.into_iter().zip(self.bufs) {
            store.write(key, &buf)?;
            store.finish(key)?;
        }
        Ok(())
    }
}
