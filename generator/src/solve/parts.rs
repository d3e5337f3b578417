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
