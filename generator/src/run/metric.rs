//! The metric as the `generate` driver sees it (`UnitSolver`): how a
//! unit is solved, how a level's table is written
//! from its unit files and what the levels above keep of it. Each metric's
//! solver is what it reads of the levels below ([`crate::below`]): DTM the
//! distances ([`DtmBelow`]), DTC their win/draw/loss ([`DtcBelow`]), the
//! small levels held whole and each unit's share of the others decoded
//! from their table files.

use crate::below::{DtcBelow, DtmBelow, WdlBelow};
use crate::files::decode::load_level;
use crate::files::folder::work_dir;
use crate::files::seeds::SeedFiles;
use crate::files::splits::wdl_level;
use crate::files::work::{LevelStream, PartSpool};
use crate::files::write::wdl::SplitStream;
use crate::files::write::{
    write_table_from, Dtc, Dtm, ValueStream, WdlOnly, WriteError, WriteSummary,
};
use crate::run::error::GenerateError;
use crate::run::plan;
use crate::solve::cells::{LevelBuilder, LevelValues, UnitValues};
use crate::solve::dtc::{self, DtcError};
use crate::solve::dtm;
use crate::solve::error::SolveError;
use crate::solve::forward;
use crate::solve::score::WdlLevel;
use crate::solve::unit::{KazanCut, Reach, UnitId};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use togyz_tb::raw::format::{Contents, Section, TableFile};
use togyz_tb::raw::index::Layout;
use togyz_tb::Metric;

/// A solved unit, to be written to its unit file.
pub(crate) enum SolvedUnit {
    /// A unit solved whole: its values, held in memory.
    Values(UnitValues),
    /// A unit cut into kazan parts: the parts' files (never its values
    /// whole), and each configuration with its cell width, for
    /// [`crate::files::work::write_unit_parts`].
    Parts(PartSpool, Vec<(usize, u32)>),
    /// A unit of a WDL table's level: each configuration's draw splits, a
    /// byte a board ([`crate::files::work::write_unit_splits`]).
    Splits(Vec<(usize, Vec<u8>)>),
}

/// What the unit-by-unit driver needs of a metric (its memory and time are
/// the plan's, [`crate::run::plan::Fitted`]): the DTM solver over the
/// distances below ([`DtmBelow`]) or the DTC one over their win/draw/loss
/// ([`DtcBelow`]). Both write the same unit files (packed values); the
/// work folder says which metric its units hold ([`work::claim_metric`]).
pub(crate) trait UnitSolver: Sync {
    /// What a solved level leaves for the levels above, when kept.
    type Kept;
    /// The metric of the tables and units.
    fn metric(&self) -> Metric;
    /// Up to what the levels below are held whole ([`crate::below::held_whole`]):
    /// positions for DTM, boards for DTC.
    fn hold_whole(&self) -> u64;
    /// Solves one unit of level `n`, whose table holds `contents`, in the
    /// kazan parts of `cut`; a unit cut into parts keeps them in files in
    /// its work folder `dir` as they are solved ([`SolvedUnit::Parts`]).
    fn solve_unit(
        &self,
        n: u32,
        u: UnitId,
        contents: Contents,
        cut: KazanCut,
        dir: &Path,
        progress: &AtomicU64,
    ) -> Result<SolvedUnit, GenerateError>;
    /// Writes level `n`'s table of `contents` into `out` from its unit
    /// files; with `keep`, also what the levels above need of it (a WDL
    /// table's levels above read it back from its file).
    fn write_level(
        &self,
        out: &Path,
        n: u32,
        contents: Contents,
        keep: bool,
    ) -> Result<(WriteSummary, Option<Self::Kept>), GenerateError>;
    /// What the levels above need of a level, from its table.
    fn load(&self, table: &TableFile) -> Result<Self::Kept, GenerateError>;
    /// Whether what the levels above need of level `n` is taken from its
    /// solve (else it is read back from its table when needed).
    fn keeps_solved(&self, n: u32) -> bool;
    /// Adds level `n` (the next one) for the levels above, from its table
    /// at `path` or, when given, what its solve or assembly kept.
    fn push(&mut self, path: &Path, kept: Option<Self::Kept>) -> Result<(), GenerateError>;
    /// The words naming a complete table that a run keeps.
    fn kept_table(&self, table: &TableFile) -> String;
}

impl UnitSolver for DtmBelow {
    type Kept = LevelValues;
    fn metric(&self) -> Metric {
        Metric::Dtm
    }
    fn hold_whole(&self) -> u64 {
        self.limit()
    }
    fn solve_unit(
        &self,
        n: u32,
        u: UnitId,
        contents: Contents,
        cut: KazanCut,
        dir: &Path,
        progress: &AtomicU64,
    ) -> Result<SolvedUnit, GenerateError> {
        if contents != Contents::Full {
            return Err(GenerateError::WdlNeedsDtc);
        }
        if cut.is_whole(n) {
            let exits = self.for_unit(n, u)?;
            // A unit with a tuzdyk has no quiet cycle: each board once,
            // from its moves, in less memory than the retrograde solve.
            let values = if forward::solves(u) {
                forward::solve_dtm_unit(n, &exits.exits(), u, progress)?
            } else {
                dtm::solve_unit(n, &exits.exits(), u, cut, progress)?
            };
            return Ok(SolvedUnit::Values(values));
        }
        let groups = plan::seed_groups(n, u, self.limit(), cut);
        solve_seeded_unit(self, n, u, cut, dir, progress, &groups)
    }

    fn write_level(
        &self,
        out: &Path,
        n: u32,
        contents: Contents,
        keep: bool,
    ) -> Result<(WriteSummary, Option<LevelValues>), GenerateError> {
        if contents != Contents::Full {
            return Err(GenerateError::WdlNeedsDtc);
        }
        let mut builder =
            keep.then(|| LevelBuilder::with_capacity(Layout::new(n).positions() as usize));
        let written = write_level(out, n, builder.as_mut())?;
        Ok((written, builder.map(LevelBuilder::finish)))
    }
    fn load(&self, table: &TableFile) -> Result<LevelValues, GenerateError> {
        Ok(load_level(table)?)
    }
    fn keeps_solved(&self, n: u32) -> bool {
        self.holds_whole(n)
    }
    fn push(&mut self, path: &Path, kept: Option<LevelValues>) -> Result<(), GenerateError> {
        Ok(DtmBelow::push(self, open_below(path)?, kept)?)
    }
    fn kept_table(&self, _table: &TableFile) -> String {
        "complete table".into()
    }
}

/// Solves DTM unit `u` of level `n` cut as `cut` (not whole) seeded
/// apart: every part seeded first into seed files in work folder `dir`,
/// pass by pass over the levels below (`groups`, as
/// [`plan::seed_groups`] makes them), each pass's exits freed before the
/// next is decoded; the graph is built only once the last is freed
/// ([`plan::unit_memory`]).
fn solve_seeded_unit(
    below: &DtmBelow,
    n: u32,
    u: UnitId,
    cut: KazanCut,
    dir: &Path,
    progress: &AtomicU64,
    groups: &[Reach],
) -> Result<SolvedUnit, GenerateError> {
    let mut seeds = SeedFiles::new(dir, u);
    let parts = cut.parts(n);
    for (pass, &reach) in groups.iter().enumerate() {
        let exits = below.for_unit_levels(n, u, reach)?;
        let last = (pass + 1 == groups.len()).then_some(&parts[..]);
        dtm::seed_pass(n, &exits.exits(), u, reach, pass as u32, last, &mut seeds)
            .map_err(|e| failed(e, &mut seeds, None))?;
    }
    let mut spool = PartSpool::new(dir, u);
    match dtm::solve_seeded(n, u, cut, progress, &mut seeds, &mut spool) {
        Ok(widths) => Ok(SolvedUnit::Parts(spool, widths)),
        Err(e) => Err(failed(e, &mut seeds, Some(&mut spool))),
    }
}

/// A level below, as the levels above read it for the rest of the run:
/// by positioned reads, not a map, whose pages, once read, would stay in
/// the resident set (every level's read, over the run: memory the plan
/// does not count, and `--max-memory` does not allow).
fn open_below(path: &Path) -> Result<TableFile, togyz_tb::TableError> {
    TableFile::open_with(path, togyz_tb::Backend::Pread)
}

/// The error of a unit cut into parts: what its seed files or part files
/// could not do (they keep why), else the solver's.
fn failed(e: SolveError, seeds: &mut SeedFiles, spool: Option<&mut PartSpool>) -> GenerateError {
    match seeds
        .failure()
        .or_else(|| spool.and_then(PartSpool::failure))
    {
        Some(f) => f.into(),
        None => e.into(),
    }
}

/// Streams level `n`'s unit files into its table file, collecting the
/// values into `into` on the way.
fn write_level(
    out: &Path,
    n: u32,
    mut into: Option<&mut LevelBuilder>,
) -> Result<WriteSummary, WriteError> {
    let dir = work_dir(out, n);
    let (written, _) = write_table_from::<Dtm, _>(
        out,
        n,
        Contents::Full,
        |section| {
            Ok(Collect {
                inner: LevelStream::new(&dir, n),
                // The DTM pass reads every value once, in order.
                into: if section == Section::Distance {
                    into.take()
                } else {
                    None
                },
            })
        },
        None,
        false,
    )?;
    Ok(written)
}

/// A [`ValueStream`] that also collects what it reads.
struct Collect<'a, S> {
    inner: S,
    into: Option<&'a mut LevelBuilder>,
}

impl<S: ValueStream> ValueStream for Collect<'_, S> {
    fn read(&mut self, count: usize, out: &mut Vec<u16>) -> Result<(), WriteError> {
        let from = out.len();
        self.inner.read(count, out)?;
        if let Some(b) = &mut self.into {
            b.extend(&out[from..]);
        }
        Ok(())
    }
}

impl UnitSolver for DtcBelow {
    type Kept = WdlLevel;
    fn metric(&self) -> Metric {
        Metric::Dtc
    }
    fn hold_whole(&self) -> u64 {
        self.limit()
    }
    fn solve_unit(
        &self,
        n: u32,
        u: UnitId,
        contents: Contents,
        cut: KazanCut,
        dir: &Path,
        progress: &AtomicU64,
    ) -> Result<SolvedUnit, GenerateError> {
        if plan::splits_only(contents, u) {
            // The table keeps a draw split a board: no distance, no
            // kazan axis.
            let solved = if self.holds_all_below(n) {
                forward::solve_unit(n, self.whole(), u, progress)
            } else {
                forward::solve_unit(n, &self.for_unit(n, u)?, u, progress)
            };
            return Ok(SolvedUnit::Splits(solved?));
        }
        if plan::solved_forward(n, u, self.limit(), cut) {
            // No position of the unit repeats: each board once, from its
            // moves, instead of the retrograde passes.
            let solved = if self.holds_all_below(n) {
                forward::solve_dtc_unit(n, self.whole(), u, progress)
            } else {
                forward::solve_dtc_unit(n, &self.for_unit(n, u)?, u, progress)
            };
            return Ok(SolvedUnit::Values(solved?.values));
        }
        solve_dtc_retrograde(self, n, u, cut, dir, progress)
    }
    fn write_level(
        &self,
        out: &Path,
        n: u32,
        contents: Contents,
        keep: bool,
    ) -> Result<(WriteSummary, Option<WdlLevel>), GenerateError> {
        let dir = work_dir(out, n);
        Ok(match contents {
            Contents::Full => {
                let open = |_| Ok(LevelStream::new(&dir, n));
                write_table_from::<Dtc, _>(out, n, contents, open, None, keep)?
            }
            Contents::Wdl | Contents::Pairs(_) => {
                let open = |_| Ok(SplitStream::new(&dir, n, contents));
                (
                    write_table_from::<WdlOnly, _>(out, n, contents, open, None, false)?.0,
                    None,
                )
            }
        })
    }
    fn load(&self, table: &TableFile) -> Result<WdlLevel, GenerateError> {
        Ok(wdl_level(table)?)
    }
    fn keeps_solved(&self, n: u32) -> bool {
        self.holds_whole(n)
    }
    fn push(&mut self, path: &Path, kept: Option<WdlLevel>) -> Result<(), GenerateError> {
        Ok(DtcBelow::push(self, open_below(path)?, kept)?)
    }
    fn kept_table(&self, table: &TableFile) -> String {
        // A folder may hold DTM tables below DTC ones: say which is kept.
        match table.header().contents {
            Contents::Full => format!("complete {} table", table.metric()),
            c => format!("table of the {c}"),
        }
    }
}

/// Solves DTC unit `u` of level `n` by the retrograde solver, cut as
/// `cut`: over the levels below held whole, seeded apart
/// ([`plan::seeds_apart`]), or over the unit's share of them.
fn solve_dtc_retrograde(
    below: &DtcBelow,
    n: u32,
    u: UnitId,
    cut: KazanCut,
    dir: &Path,
    progress: &AtomicU64,
) -> Result<SolvedUnit, GenerateError> {
    if below.holds_all_below(n) {
        return solve_dtc_unit(below.whole(), n, u, cut, dir, progress);
    }
    if plan::seeds_apart(Metric::Dtc, n, cut, below.limit()) {
        return solve_seeded_dtc_unit(below, n, u, cut, dir, progress);
    }
    // A whole unit holds its share beside its graph.
    let share = below.for_unit(n, u)?;
    solve_dtc_unit(&share, n, u, cut, dir, progress)
}

/// Solves DTC unit `u` of level `n` cut as `cut` (not whole) seeded
/// apart: every part seeded first into seed files in work folder `dir`
/// from the unit's share of the levels below, which is freed before the
/// graph is built ([`plan::unit_memory`]); a solve that needs two-byte
/// cells seeds again.
fn solve_seeded_dtc_unit(
    below: &DtcBelow,
    n: u32,
    u: UnitId,
    cut: KazanCut,
    dir: &Path,
    progress: &AtomicU64,
) -> Result<SolvedUnit, GenerateError> {
    let mut seeds = SeedFiles::new(dir, u);
    let mut spool = PartSpool::new(dir, u);
    for wide in [false, true] {
        let share = below.for_unit(n, u)?;
        let seeded = dtc::seed_parts(n, &share, u, cut, &mut seeds);
        drop(share);
        seeded.map_err(|e| failed_dtc(e, &mut seeds, None))?;
        match dtc::solve_seeded(n, u, cut, wide, progress, &mut seeds, &mut spool) {
            Ok(widths) => return Ok(SolvedUnit::Parts(spool, widths)),
            Err(DtcError::Solve(SolveError::CellTooNarrow)) if !wide => {}
            Err(e) => return Err(failed_dtc(e, &mut seeds, Some(&mut spool))),
        }
    }
    unreachable!("a solve in two-byte cells never asks for wider ones")
}

/// [`failed`] for the DTC solver's errors.
fn failed_dtc(e: DtcError, seeds: &mut SeedFiles, spool: Option<&mut PartSpool>) -> GenerateError {
    match e {
        DtcError::Solve(e) => failed(e, seeds, spool),
        e => e.into(),
    }
}

/// Solves DTC unit `u` of level `n` cut as `cut` over `lower` (the levels
/// below held whole, or the unit's share of them): in memory when whole,
/// else kazan part by kazan part into part files in work folder `dir`.
fn solve_dtc_unit<L: WdlBelow>(
    lower: &L,
    n: u32,
    u: UnitId,
    cut: KazanCut,
    dir: &Path,
    progress: &AtomicU64,
) -> Result<SolvedUnit, GenerateError> {
    // The draw splits are checked here (or, for a cut unit, as its parts
    // are merged) and found again at assembly.
    if cut.is_whole(n) {
        return dtc::solve_unit(n, lower, u, cut, progress)
            .map(|unit| SolvedUnit::Values(unit.values))
            .map_err(GenerateError::from);
    }
    let mut spool = PartSpool::new(dir, u);
    match dtc::solve_unit_parts(n, lower, u, cut, progress, &mut spool) {
        Ok(widths) => Ok(SolvedUnit::Parts(spool, widths)),
        Err(e) => Err(spool
            .failure()
            .map_or_else(|| e.into(), GenerateError::from)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::work;
    use crate::solve::unit::level_units;
    use togyz_tb::raw::format::file_name;

    /// Asserts that unit `u` of level `n`, `solved` in kazan parts into
    /// work folder `dir` (`dtc`: of a DTC level), writes the bytes of the
    /// unit file `whole` and leaves no part or seed file (`what`: the
    /// case, for the message).
    fn assert_writes_whole(
        solved: SolvedUnit,
        dir: &Path,
        (n, u): (u32, UnitId),
        dtc: bool,
        whole: &Path,
        what: &str,
    ) {
        let SolvedUnit::Parts(spool, widths) = solved else {
            panic!("a cut unit is spooled");
        };
        let (parts, _) = work::write_unit_parts(dir, n, u, spool, &widths, dtc).unwrap();
        let (got, want) = (
            std::fs::read(&parts).unwrap(),
            std::fs::read(whole).unwrap(),
        );
        assert!(got == want, "{what}: not the whole unit's bytes");
        let left: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|name| name.to_string_lossy().contains(".part-"))
            .collect();
        assert!(left.is_empty(), "{what}: {left:?}");
    }

    /// A DTM unit cut into kazan parts and seeded apart from table files
    /// none of which is held whole, in one pass a level below or with the
    /// top level's configurations over three passes, its graph stored or
    /// not, writes the bytes of the whole unit's file, and leaves no seed
    /// or part file.
    #[test]
    fn units_seeded_in_passes_from_files_write_the_whole_units_bytes() {
        let n = 6;
        let tables = tempfile::tempdir().unwrap();
        let levels = dtm::solve_all(n - 1).unwrap();
        crate::files::write::write_levels(tables.path(), &levels).unwrap();
        let mut below = DtmBelow::new(0);
        for m in 1..n {
            UnitSolver::push(&mut below, &tables.path().join(file_name(m)), None).unwrap();
        }
        let progress = AtomicU64::new(0);
        let one_a_level: Vec<Reach> = (0..n).map(|m| Reach::levels(1 << m)).collect();
        let third = |r| {
            Reach::configs(
                n - 1,
                (0..73).filter(|c| c % 3 == r).fold(0, |a, c| a | 1 << c),
            )
        };
        let by_config = vec![
            third(0),
            Reach::levels((1 << (n - 1)) - 1),
            third(1),
            third(2),
        ];
        for u in level_units(n).into_iter().filter(|u| u.first % 4 == 0) {
            let whole_dir = tempfile::tempdir().unwrap();
            let SolvedUnit::Values(values) = below
                .solve_unit(
                    n,
                    u,
                    Contents::Full,
                    KazanCut::WHOLE,
                    whole_dir.path(),
                    &progress,
                )
                .unwrap()
            else {
                panic!("a whole unit is solved in memory");
            };
            let (whole, _) = work::write_unit(whole_dir.path(), n, u, &values).unwrap();
            let one = KazanCut::pairs(1).unwrap();
            for (cut, groups) in [(one, &one_a_level), (one.without_graph(), &by_config)] {
                let cut_dir = tempfile::tempdir().unwrap();
                let solved =
                    solve_seeded_unit(&below, n, u, cut, cut_dir.path(), &progress, groups)
                        .unwrap();
                assert_writes_whole(
                    solved,
                    cut_dir.path(),
                    (n, u),
                    false,
                    &whole,
                    &format!("{u:?} {cut}"),
                );
            }
        }
    }

    /// Collects the values a solve in kazan parts hands over, by side,
    /// board-major with every split of a board (as a whole unit's).
    struct Collect {
        k: usize,
        sides: Vec<Vec<u16>>,
    }

    impl crate::solve::parts::PartSink for Collect {
        fn put(
            &mut self,
            side: usize,
            part: u64,
            fill: &mut dyn FnMut(&mut Vec<u16>) -> Result<bool, SolveError>,
        ) -> Result<(), SolveError> {
            let offsets: Vec<usize> = crate::solve::unit::bits(part).collect();
            let mut buf = Vec::new();
            let mut board = 0;
            while fill(&mut buf)? {
                for cells in buf.chunks(offsets.len()) {
                    let at = board * self.k;
                    if self.sides[side].len() < at + self.k {
                        self.sides[side].resize(at + self.k, u16::MAX);
                    }
                    for (&j, &v) in offsets.iter().zip(cells) {
                        self.sides[side][at + j] = v;
                    }
                    board += 1;
                }
            }
            Ok(())
        }
    }

    /// A DTC unit cut into kazan parts and seeded apart from table files
    /// none of which is held whole writes the bytes of the whole unit's
    /// file and leaves no seed or part file; solved from its seeds in
    /// two-byte cells, the same values.
    #[test]
    fn dtc_units_seeded_apart_from_files_write_the_whole_units_bytes() {
        let n = 6;
        let tables = tempfile::tempdir().unwrap();
        let (values, _) = dtc::solve_all(n - 1).unwrap();
        let mut below = DtcBelow::new(0);
        for m in 1..n {
            let v = values[m as usize].widened();
            crate::files::write::write_table(tables.path(), Metric::Dtc, m, &v).unwrap();
            UnitSolver::push(&mut below, &tables.path().join(file_name(m)), None).unwrap();
        }
        let progress = AtomicU64::new(0);
        let cut = KazanCut::pairs(1).unwrap();
        assert!(plan::seeds_apart(Metric::Dtc, n, cut, below.limit()));
        for u in level_units(n).into_iter().filter(|u| u.first % 4 == 0) {
            let (whole_dir, cut_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let SolvedUnit::Values(values) = below
                .solve_unit(
                    n,
                    u,
                    Contents::Full,
                    KazanCut::WHOLE,
                    whole_dir.path(),
                    &progress,
                )
                .unwrap()
            else {
                panic!("a whole unit is solved in memory");
            };
            let (whole, _) = work::write_unit(whole_dir.path(), n, u, &values).unwrap();
            // The retrograde path, which a unit with a tuzdyk this small
            // would not take.
            let solved =
                solve_dtc_retrograde(&below, n, u, cut, cut_dir.path(), &progress).unwrap();
            assert_writes_whole(
                solved,
                cut_dir.path(),
                (n, u),
                true,
                &whole,
                &format!("{u:?}"),
            );

            // In two-byte cells, from seeds made again.
            let share = below.for_unit(n, u).unwrap();
            let mut seeds = SeedFiles::new(cut_dir.path(), u);
            dtc::seed_parts(n, &share, u, cut, &mut seeds).unwrap();
            let mut wide = Collect {
                k: n as usize + 1,
                sides: vec![Vec::new(); 2],
            };
            let widths =
                dtc::solve_seeded(n, u, cut, true, &progress, &mut seeds, &mut wide).unwrap();
            assert!(widths.iter().all(|&(_, w)| w == 2), "{widths:?}");
            for (side, (_, v)) in values.iter().enumerate() {
                assert_eq!(wide.sides[side], v.widened().into_owned(), "{u:?}");
            }
        }
    }
}
