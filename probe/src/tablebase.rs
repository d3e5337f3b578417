//! Lazy, thread-safe probing of a set of table files.
//!
//! [`Tablebase::open`] looks for `togyz-NN.tkb` files in the given folders
//! and validates every header at once (a cheap read of 168 bytes per file).
//! A file whose header is damaged, that is truncated or that holds another
//! stone count than its name says is kept aside with its error
//! ([`Tablebase::damaged`]): the probes that need it report that error,
//! naming the file, and the others are answered. Each file is opened, and its block index read and checked,
//! the first time a probe needs it; a [`OnceLock`] per file makes sure two
//! threads never open the same file twice. Blocks are read through a memory
//! map by default, or with positioned reads (`pread`) on request
//! ([`Backend`]); decompressed blocks are shared by all threads through one
//! byte-weighted, sharded cache.
//!
//! Values are from the side to move's point of view. Their distances are in
//! the [`Metric`] of the table that holds the position: plies to the end of
//! the game (DTM) or to the next conversion (DTC, `docs/dtc.md`);
//! [`Tablebase::value_with_metric`] says which. A folder may hold DTM tables
//! for small stone counts and DTC tables for larger ones.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use quick_cache::sync::Cache;
use quick_cache::Weighter;

use crate::raw::format::{
    self, loss_dtc, read_header, wdl_at, Backend, Contents, Header, Section, Stored, TableError,
    TableFile, TuzdykPairs,
};
use crate::raw::index::{Layout, Slot, MAX_STONES};
use crate::rules::{Move, Position, Side, CYCLE};
use crate::value::{Metric, Value, Wdl};

/// Default size of the block cache: 256 MiB of decompressed blocks.
pub const DEFAULT_CACHE_BYTES: u64 = 256 << 20;

/// The longest drawing line [`Tablebase::principal_variation`] gives.
pub const DRAW_LINE_PLIES: usize = 40;

/// Why a probe could not be answered.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// No table holds positions with this many stones on the board.
    #[error("no table for {stones} stone{} on the board", if *stones == 1 { "" } else { "s" })]
    MissingTable {
        /// Stones on the board of the position that needed the table.
        stones: u32,
    },
    /// A table file could not be read ([`TableError::io_error`] says why)
    /// or is damaged.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A tables folder could not be listed.
    #[error("{}: {source}", .path.display())]
    Directory {
        /// The folder.
        path: PathBuf,
        /// The operating system's error.
        source: Arc<io::Error>,
    },
    /// A position valued in DTM (its table holds DTM, or it has none) has
    /// a move into a DTC table: the distance to the end is not known.
    #[error("the moves of a {stones}-stone position are valued in DTM (its level has a DTM table or none), which needs DTM below it, but the {below}-stone table holds DTC")]
    MixedMetrics {
        /// Stones of the position whose moves were asked for.
        stones: u32,
        /// Stones of the DTC table a move leads into.
        below: u32,
    },
    /// The position's table does not hold what was asked, by design
    /// (`docs/format.md`, "WDL tables"): a distance, of a table of the
    /// win/draw/loss alone, or a position without a tuzdyk, of a table of
    /// the positions with one. The search answers such positions
    /// ([`crate::search::Solver`]).
    #[error("the {stones}-stone table holds the {contents} only")]
    NotHeld {
        /// Stones on the board of the position.
        stones: u32,
        /// What its table holds.
        contents: Contents,
    },
    /// The folders given hold more table files than a tablebase opens.
    #[error("the folders hold more than {most} table files")]
    TooManyTables {
        /// The most a tablebase opens.
        most: u64,
    },
    /// The stored values contradict each other (a position's value does not
    /// follow from its successors'), so the tables are wrong.
    #[error("the tables contradict themselves: {detail}")]
    Inconsistent {
        /// Which position and what is wrong.
        detail: String,
    },
}

impl ProbeError {
    /// The operating system's error if a table file or folder could not be
    /// read at all (no permission, not found, an I/O failure), as opposed to
    /// a missing table or a damaged one; `None` otherwise.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            ProbeError::Table(e) => e.io_error(),
            ProbeError::Directory { source, .. } => Some(source),
            ProbeError::MissingTable { .. }
            | ProbeError::NotHeld { .. }
            | ProbeError::MixedMetrics { .. }
            | ProbeError::TooManyTables { .. }
            | ProbeError::Inconsistent { .. } => None,
        }
    }
}

/// Up to how many stones the tables answer the win/draw/loss of a
/// position ([`Tablebase::horizon`]): every position, or those with a
/// tuzdyk, or those with both tuzdyks in a given pair of holes (tables of
/// those alone may go further).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Horizon {
    /// Every position with at most this many stones, its value and moves
    /// included ([`Tablebase::complete_up_to`]).
    pub all: u32,
    /// Every position with a tuzdyk and at most this many stones (at least
    /// [`Horizon::all`]).
    pub with_tuzdyk: u32,
    /// By pair of tuzdyk holes ([`TuzdykPairs::bit`]): every position with
    /// both tuzdyks in that pair and at most this many stones (at least
    /// [`Horizon::with_tuzdyk`]).
    pub pairs: [u8; TuzdykPairs::COUNT as usize],
}

impl Horizon {
    /// The horizon of tables that answer every position up to `all`
    /// stones and every one with a tuzdyk up to `with_tuzdyk`.
    pub fn new(all: u32, with_tuzdyk: u32) -> Horizon {
        Horizon {
            all,
            with_tuzdyk,
            pairs: [with_tuzdyk.min(u8::MAX as u32) as u8; TuzdykPairs::COUNT as usize],
        }
    }

    /// The stones up to which the tables answer `pos` and every position
    /// reached from it (a tuzdyk, once made, stays; with both standing, a
    /// game stays in their pair).
    #[inline]
    pub fn of(self, pos: &Position) -> u32 {
        if !pos.has_tuzdyk() {
            return self.all;
        }
        match (pos.tuzdyk(Side::South), pos.tuzdyk(Side::North)) {
            (Some(a), Some(b)) => match TuzdykPairs::bit(a - 1, b - 1) {
                Some(k) => self.pairs[k as usize] as u32,
                None => self.with_tuzdyk,
            },
            _ => self.with_tuzdyk,
        }
    }

    /// The most stones of any position the tables answer.
    pub fn most(self) -> u32 {
        self.pairs
            .iter()
            .map(|&p| p as u32)
            .fold(self.with_tuzdyk, u32::max)
    }
}

/// A legal move with the value it leads to, from the point of view of the
/// player making it, counted in plies from the position before it (the move
/// itself is ply 1), in the metric of the position's table: for DTC, a move
/// that converts counts 1 whatever follows, its result read from the
/// smaller table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value for the mover.
    pub value: Value,
    /// What the value's distance counts: the metric of the position's
    /// table (DTM when it has none).
    pub metric: Metric,
}

/// One table file: its header (read when the tablebase is opened) and the
/// mapping, made on first use.
struct Table {
    /// Its number among the tablebase's tables: its blocks' keys.
    id: u64,
    path: PathBuf,
    header: Header,
    layout: Layout,
    backend: Backend,
    file: OnceLock<Result<TableFile, TableError>>,
}

impl Table {
    /// The mapped file, opening it on first use (once, whichever thread
    /// gets here first; the others wait for it).
    fn file(&self) -> Result<&TableFile, TableError> {
        self.file
            .get_or_init(|| {
                let f = TableFile::open_with(&self.path, self.backend)?;
                // The file was replaced since the header was read.
                if *f.header() != self.header {
                    return Err(TableError::InconsistentHeader {
                        path: self.path.clone(),
                        detail: "the file changed after the tablebase was opened".into(),
                    });
                }
                Ok(f)
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The most tables a tablebase opens (over all levels and folders): a
/// table's number takes 15 bits of its blocks' cache keys.
const MAX_TABLES: u64 = 1 << 15;

/// The cache key of block `block` of `section` of `table`.
#[inline]
fn block_key(table: &Table, section: Section, block: u64) -> u64 {
    block << 16 | table.id << 1 | section.id() as u64
}

/// Weighs a cached block by its size plus the bookkeeping around it.
#[derive(Clone, Copy, Debug, Default)]
struct BlockWeighter;

impl Weighter<u64, Arc<[u8]>> for BlockWeighter {
    fn weight(&self, _key: &u64, block: &Arc<[u8]>) -> u64 {
        block.len() as u64 + 64
    }
}

/// A set of tables, one per stone count, probed lazily from any number of
/// threads.
pub struct Tablebase {
    /// `tables[n]`: the files found for `n` stones, in the order of the
    /// folders: each one's table, or why it could not be opened. A position
    /// is answered by the first that holds its tuzdyk configuration.
    tables: Vec<Vec<Result<Table, TableError>>>,
    cache: Cache<u64, Arc<[u8]>, BlockWeighter>,
    /// [`TableFile::split_sums`] of the DTC blocks probed (2 KiB a block),
    /// keyed as the blocks: a warm DTC probe then adds a few splits, not
    /// a block's worth.
    split_sums: Cache<u64, Arc<[u32]>>,
}

impl fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebase")
            .field("stones", &self.stones().collect::<Vec<_>>())
            .field("cache_bytes", &self.cache.capacity())
            .finish()
    }
}

/// The terminal value of a finished game for its side to move, or `None`
/// while the game goes on.
pub fn terminal_value(pos: &Position) -> Option<Value> {
    pos.outcome().map(|o| match o.winner {
        None => Value::Draw,
        Some(w) if w == pos.side_to_move() => Value::Win(0),
        Some(_) => Value::Loss(0),
    })
}

impl Tablebase {
    /// Opens the tables in `dirs` with a block cache of
    /// [`DEFAULT_CACHE_BYTES`] and the default [`Backend`] (a memory map).
    ///
    /// Every `togyz-NN.tkb` file is found and its header validated now.
    /// When two folders hold a table for the same stone count, the first
    /// folder's answers the positions it holds: all of them, for a table of
    /// every position (the later folders' tables of that count are then
    /// not opened); for a table of some positions (a WDL table, or one of
    /// some tuzdyk pairs: `docs/format.md`), a later folder's table answers
    /// those it does not hold, and the distances of those it holds without
    /// them, when the later table has them. So folders of one tuzdyk pair
    /// each are opened together, in any order with the full tables. Other
    /// files are ignored. Finding no table at all is not an error: probes
    /// then answer [`ProbeError::MissingTable`]. Nor is a
    /// damaged file (its header unreadable or damaged, the file truncated,
    /// or another stone count than its name says): it is listed by
    /// [`Tablebase::damaged`], and the probes that need it answer its
    /// error, while the others are answered from the other tables.
    ///
    /// **Table files must not change while the tablebase lives.** Each file
    /// is memory-mapped when first probed, and a file that another program
    /// changes or truncates under a live map is *undefined behaviour*: in
    /// practice a `SIGBUS` crash or wrong answers. `togyz-gen` never
    /// rewrites a table in place (it renames a new file over the name,
    /// which leaves a live map intact), so regenerating tables next to a
    /// running engine is safe; copying over them in place is not. Where
    /// that cannot be ruled out, open with [`Backend::Pread`]
    /// ([`Tablebase::open_with`]): a changed file then gives errors, never
    /// undefined behaviour, at some cost in speed (`docs/performance.md`).
    ///
    /// # Errors
    ///
    /// [`ProbeError::Directory`] if a folder cannot be listed;
    /// [`ProbeError::TooManyTables`] past 32,768 table files.
    pub fn open<P: AsRef<Path>>(
        dirs: impl IntoIterator<Item = P>,
    ) -> Result<Tablebase, ProbeError> {
        Tablebase::open_with(dirs, DEFAULT_CACHE_BYTES, Backend::default())
    }

    /// [`Tablebase::open`] with a block cache of `cache_bytes` of
    /// decompressed blocks (0 disables the cache).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::open`].
    pub fn open_with_cache<P: AsRef<Path>>(
        dirs: impl IntoIterator<Item = P>,
        cache_bytes: u64,
    ) -> Result<Tablebase, ProbeError> {
        Tablebase::open_with(dirs, cache_bytes, Backend::default())
    }

    /// [`Tablebase::open`] with a block cache of `cache_bytes` and the
    /// given way of reading the files. [`Backend::Mmap`] (the default) maps
    /// each file, and changing or truncating a mapped file is undefined
    /// behaviour (see [`Tablebase::open`]); [`Backend::Pread`] reads blocks
    /// with positioned reads and has no such hazard.
    /// `docs/performance.md` measures both.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::open`].
    pub fn open_with<P: AsRef<Path>>(
        dirs: impl IntoIterator<Item = P>,
        cache_bytes: u64,
        backend: Backend,
    ) -> Result<Tablebase, ProbeError> {
        let mut tables: Vec<Vec<Result<Table, TableError>>> =
            (0..=MAX_STONES).map(|_| Vec::new()).collect();
        let mut ids = 0..MAX_TABLES;
        for dir in dirs {
            let dir = dir.as_ref();
            let dir_err = |e: io::Error| ProbeError::Directory {
                path: dir.to_path_buf(),
                source: Arc::new(e),
            };
            let mut found = Vec::new();
            for entry in std::fs::read_dir(dir).map_err(dir_err)? {
                let entry = entry.map_err(dir_err)?;
                let name = entry.file_name();
                if let Some(n) = name.to_str().and_then(format::parse_file_name) {
                    found.push((n, entry.path()));
                }
            }
            // Listing order is the file system's: the same files, the same
            // tables, whatever it is.
            found.sort();
            for (n, path) in found {
                let n_us = n as usize;
                // A table of every position answers all of its level; a
                // table of some positions (a WDL table, of some tuzdyk
                // pairs) leaves the others to the folders after it.
                let whole = |t: &Result<Table, TableError>| {
                    t.as_ref()
                        .map_or(true, |t| t.header.contents == Contents::Full)
                };
                if n > MAX_STONES || tables[n_us].iter().any(whole) {
                    continue;
                }
                let Some(id) = ids.next() else {
                    return Err(ProbeError::TooManyTables { most: MAX_TABLES });
                };
                let header = read_header(&path).and_then(|header| {
                    if header.stones == n {
                        Ok(header)
                    } else {
                        Err(TableError::InconsistentHeader {
                            path: path.clone(),
                            detail: format!("holds {} stones, its name says {n}", header.stones),
                        })
                    }
                });
                tables[n_us].push(header.map(|header| Table {
                    id,
                    path,
                    layout: Layout::new(n),
                    header,
                    backend,
                    file: OnceLock::new(),
                }));
            }
        }
        // The cache tracks recently evicted blocks by number, so it is told
        // how many blocks it holds: of the smallest WDL blocks open (small
        // blocks: `togyz-gen reblock`).
        let smallest = (tables.iter().flatten().flatten())
            .map(|t| u64::from(t.header.wdl_block_boards) * u64::from(t.header.wdl_width))
            .min()
            .unwrap_or(16384)
            .clamp(1024, 16384);
        let estimated_blocks = (cache_bytes / smallest).clamp(16, 1 << 22) as usize;
        Ok(Tablebase {
            tables,
            cache: Cache::with_weighter(estimated_blocks, cache_bytes, BlockWeighter),
            split_sums: Cache::new(estimated_blocks),
        })
    }

    /// The stone counts that have a table, ascending (damaged ones
    /// included: see [`Tablebase::damaged`]).
    pub fn stones(&self) -> impl Iterator<Item = u32> + '_ {
        (0..=MAX_STONES).filter(|&n| self.present(n))
    }

    /// The table files found that could not be opened, with why: their
    /// stone counts are answered with that error.
    pub fn damaged(&self) -> impl Iterator<Item = (u32, &TableError)> + '_ {
        self.tables.iter().enumerate().flat_map(|(n, level)| {
            level
                .iter()
                .filter_map(move |t| Some((n as u32, t.as_ref().err()?)))
        })
    }

    /// Whether a file for `n` stones was found, damaged or not.
    fn present(&self, n: u32) -> bool {
        self.tables.get(n as usize).is_some_and(|t| !t.is_empty())
    }

    /// The largest `N` such that tables for 1..=N stones are all present
    /// and hold every position's value (0 if the 1-stone table is
    /// missing): every position with at most `N` stones can be probed,
    /// distance and moves included. A damaged table counts as present:
    /// the positions that need it answer its error, not a search around
    /// it. Tables of the win/draw/loss alone do not count
    /// ([`Tablebase::horizon`] does).
    pub fn complete_up_to(&self) -> u32 {
        self.up_to(|c| c == Contents::Full)
    }

    /// Up to how many stones [`Tablebase::wdl`] answers every position,
    /// every position with a tuzdyk, and those of each pair of tuzdyk
    /// holes: the levels whose tables are all present, counting those of
    /// the win/draw/loss alone ("WDL tables", `docs/format.md`). The search
    /// stops at these.
    pub fn horizon(&self) -> Horizon {
        let mut h = Horizon::new(
            self.complete_up_to(),
            self.up_to(|c| matches!(c, Contents::Full | Contents::Wdl)),
        );
        for (k, p) in h.pairs.iter_mut().enumerate() {
            let up = self.up_to(|c| match c {
                Contents::Pairs(p) => p.mask() >> k & 1 == 1,
                _ => true,
            });
            *p = up.min(u8::MAX as u32) as u8;
        }
        h
    }

    /// The largest `N` such that for each of 1..=N stones a table is
    /// present whose contents pass `ok` (a damaged table passes).
    fn up_to(&self, ok: impl Fn(Contents) -> bool) -> u32 {
        (1..=MAX_STONES)
            .take_while(|&n| {
                self.tables[n as usize]
                    .iter()
                    .any(|t| t.as_ref().map_or(true, |t| ok(t.header.contents)))
            })
            .last()
            .unwrap_or(0)
    }

    /// The path of the (first) table for `n` stones, if present.
    pub fn path(&self, n: u32) -> Option<&Path> {
        self.table(n).map(|t| t.path.as_path())
    }

    /// The first table for `n` stones that could be opened.
    fn table(&self, n: u32) -> Option<&Table> {
        self.tables
            .get(n as usize)?
            .iter()
            .find_map(|t| t.as_ref().ok())
    }

    /// A decompressed block, from the cache or read and inserted (one
    /// thread reads a missing block; others asking for it wait).
    #[inline]
    fn block(
        &self,
        table: &Table,
        file: &TableFile,
        section: Section,
        block: u64,
    ) -> Result<Arc<[u8]>, TableError> {
        let key = block_key(table, section, block);
        self.cache
            .get_or_insert_with(&key, || file.read_block_shared(section, block))
    }

    /// Finds the table, global board and kazan offset of a live position:
    /// the first table of its level that holds it, or with `distances`
    /// the first that holds it with distances, when one does (a folder of
    /// WDL tables given before the full tables of the same levels must
    /// not hide their distances).
    #[inline]
    fn locate(
        &self,
        pos: &Position,
        distances: bool,
    ) -> Result<(u32, &Table, u64, u32), ProbeError> {
        let n = pos.stones_on_board();
        let missing = ProbeError::MissingTable { stones: n };
        let level = match self.tables.get(n as usize) {
            Some(level) if !level.is_empty() => level,
            _ => return Err(missing),
        };
        // `None` only for a kazan over 81, which the callers have answered.
        let slot = Slot::of(pos).ok_or(missing)?;
        let config = slot.config.id();
        let (mut first, mut chosen) = (None, None);
        for t in level {
            match t {
                Ok(table) if table.header.contents.holds_config(config) => {
                    first = first.or(Some(table));
                    if !distances || table.header.contents.has_distances() {
                        chosen = Some(table);
                        break;
                    }
                }
                Ok(_) => {}
                Err(e) => return Err(ProbeError::Table(e.clone())),
            }
        }
        // Held without distances only: `stored` says so.
        if let Some(table) = chosen.or(first) {
            let gb = table.layout.global_board(config, slot.board);
            return Ok((n, table, gb, slot.kazan));
        }
        // What the level holds: the pairs of all its tables, when they are
        // tables of pairs.
        let held = level.iter().flatten().map(|t| t.header.contents);
        let pairs = held.clone().try_fold(0, |mask, c| match c {
            Contents::Pairs(p) => Some(mask | p.mask()),
            _ => None,
        });
        let contents = match pairs.and_then(TuzdykPairs::from_mask) {
            Some(p) => Contents::Pairs(p),
            None => held.last().unwrap_or(Contents::Full),
        };
        Err(ProbeError::NotHeld {
            stones: n,
            contents,
        })
    }

    /// Win, draw or loss for the side to move. On a cache hit this
    /// allocates nothing and reads no distance data.
    ///
    /// # Errors
    ///
    /// [`ProbeError::MissingTable`] when no table holds the position's stone
    /// count; [`ProbeError::Table`] when its table cannot be read or is
    /// damaged.
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        if let Some(v) = terminal_value(pos) {
            return Ok(v.wdl());
        }
        let (_, table, gb, j) = self.locate(pos, false)?;
        let file = table.file()?;
        Ok(self.wdl_in(table, file, gb, j)?)
    }

    #[inline]
    fn wdl_in(&self, table: &Table, file: &TableFile, gb: u64, j: u32) -> Result<Wdl, TableError> {
        let (block, at) = file.wdl_location(gb);
        let data = self.block(table, file, Section::Wdl, block)?;
        Ok(wdl_at(file.thresholds_in(&data, block, at)?, j))
    }

    /// The exact value for the side to move: result and distance, in
    /// plies to the end (DTM tables) or to the next conversion (DTC
    /// tables); [`Tablebase::value_with_metric`] says which.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::wdl`].
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        Ok(self.value_with_metric(pos)?.0)
    }

    /// [`Tablebase::value`] and the metric of its distance: that of the
    /// table holding the position ([`Metric::Dtm`] for a finished game,
    /// whose distance 0 is both).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::wdl`].
    pub fn value_with_metric(&self, pos: &Position) -> Result<(Value, Metric), ProbeError> {
        if let Some(v) = terminal_value(pos) {
            return Ok((v, Metric::Dtm));
        }
        let (n, table, gb, j) = self.locate(pos, true)?;
        let metric = table.header.metric;
        match self.stored(n, table, gb, j)? {
            Some(v) => Ok((v, metric)),
            None => {
                // A loss of a DTC table: one ply over the stored wins,
                // which never recovers again (a successor that is not a
                // stored win ends the search as a contradiction).
                let d = loss_dtc(pos, |child| {
                    let (n, table, gb, j) = self.locate(child, true)?;
                    match self.stored(n, table, gb, j)? {
                        Some(Value::Win(d)) => Ok::<_, ProbeError>(Some(d)),
                        _ => Ok(None),
                    }
                })?;
                Ok((table.file()?.recovered_loss(d, gb, j)?, metric))
            }
        }
    }

    /// The stored value of the live position at global board `gb`, kazan
    /// offset `j` of `table` ([`Tablebase::locate`]), `None` for a loss of
    /// a DTC table (which stores no distance for it).
    fn stored(&self, n: u32, table: &Table, gb: u64, j: u32) -> Result<Option<Value>, ProbeError> {
        let contents = table.header.contents;
        if !contents.has_distances() {
            return Err(ProbeError::NotHeld {
                stones: n,
                contents,
            });
        }
        let file = table.file()?;
        let (wb, at) = file.wdl_location(gb);
        let wdl = self.block(table, file, Section::Wdl, wb)?;
        let t = file.thresholds_in(&wdl, wb, at)?;
        let metric = table.header.metric;
        let sums = match (metric, wdl_at(t, j)) {
            (Metric::Dtc, Wdl::Win) => {
                let block = gb / table.header.distance_block_positions as u64;
                let key = block_key(table, Section::Distance, block);
                Some(self.split_sums.get_or_insert_with(&key, || {
                    Ok::<_, TableError>(Arc::from(file.split_sums(&wdl, block)))
                })?)
            }
            _ => None,
        };
        let (block, at) = match file.distance_location_with(&wdl, sums.as_deref(), gb, j, t)? {
            Stored::At(block, at) => (block, at),
            Stored::Draw => return Ok(Some(Value::Draw)),
            Stored::Loss => return Ok(None),
        };
        let data = self.block(table, file, Section::Distance, block)?;
        let d = file.distance_in(&data, block, at)?;
        Ok(Some(file.combine(wdl_at(t, j), d, block)?))
    }

    /// The metric of the distances for `n` stones, if a table is present:
    /// that of the first table with distances, else of the first table.
    pub fn metric(&self, n: u32) -> Option<Metric> {
        let opened = || self.tables.get(n as usize).into_iter().flatten().flatten();
        (opened().find(|t| t.header.contents.has_distances()))
            .or_else(|| opened().next())
            .map(|t| t.header.metric)
    }

    /// Every legal move with its value for the mover, best first (faster
    /// wins, then draws, then slower losses; equal values in hole order).
    /// Empty when the game is over.
    ///
    /// The values are in the metric of the position's table (DTM when it
    /// has none). In a DTC table a move that converts is worth a win, draw
    /// or loss in 1 by the smaller table's result, and one that does not
    /// is worth one more than the DTC it leads to: so the best move of a
    /// won position keeps the win and lowers the DTC or converts into a win,
    /// and following such moves wins the game (`docs/dtc.md`).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::wdl`], for any position a move leads to;
    /// [`ProbeError::MixedMetrics`] when a DTM position's move leads into
    /// a DTC table.
    pub fn moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let n = pos.stones_on_board();
        let metric = self.metric(n).unwrap_or(Metric::Dtm);
        let mut out: Vec<MoveValue> = Vec::with_capacity(9);
        for mv in pos.legal_moves() {
            let child = pos.after_unchecked(mv);
            let m = child.stones_on_board();
            let value = match metric {
                Metric::Dtc if m < n => match self.wdl(&child)? {
                    Wdl::Win => Value::Loss(1),
                    Wdl::Draw => Value::Draw,
                    Wdl::Loss => Value::Win(1),
                },
                Metric::Dtc => self.value(&child)?.back(),
                Metric::Dtm => {
                    let (v, child_metric) = self.value_with_metric(&child)?;
                    if child_metric != Metric::Dtm {
                        return Err(ProbeError::MixedMetrics {
                            stones: n,
                            below: m,
                        });
                    }
                    v.back()
                }
            };
            out.push(MoveValue { mv, value, metric });
        }
        // Stable: equal values keep hole order.
        out.sort_by_key(|m| std::cmp::Reverse(m.value));
        Ok(out)
    }

    /// Every legal move with its result for the mover, best first (wins,
    /// draws, losses; equal results in hole order): what the tables of the
    /// win/draw/loss alone say of a position's moves. Empty when the game
    /// is over.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::wdl`], for any position a move leads to.
    pub fn wdl_moves(&self, pos: &Position) -> Result<Vec<(Move, Wdl)>, ProbeError> {
        let mut out = Vec::with_capacity(9);
        for mv in pos.legal_moves() {
            out.push((mv, self.wdl(&pos.after_unchecked(mv))?.flip()));
        }
        out.sort_by_key(|&(_, w)| std::cmp::Reverse(w));
        Ok(out)
    }

    /// The best move and its value for the mover, `None` when the game is
    /// over.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::moves`].
    pub fn best_move(&self, pos: &Position) -> Result<Option<MoveValue>, ProbeError> {
        Ok(self.moves(pos)?.into_iter().next())
    }

    /// A line of best play from `pos`.
    ///
    /// For a won or lost position: the winner's fastest and the loser's
    /// slowest moves to the end of the game, exactly as many plies as the
    /// distance (equal choices in hole order), where the tables hold DTM.
    /// Where they hold DTC, the winner's move that keeps the win with the
    /// fewest plies to a conversion and the loser's that puts it off
    /// longest, through the smaller tables to the end of the game. Each
    /// step is checked against the stored values; a contradiction is
    /// [`ProbeError::Inconsistent`].
    ///
    /// For a drawn position: a line in which both sides keep the draw
    /// (first drawing move in hole order). It stops when the game ends
    /// 81:81, when a position repeats (the line then shows the cycle of
    /// endless play), or after [`DRAW_LINE_PLIES`] plies.
    ///
    /// Empty when the game is over. [`crate::notation::line`] writes it
    /// in traditional notation (`91 12 91 12`).
    ///
    /// # Errors
    ///
    /// As [`Tablebase::moves`], and [`ProbeError::Inconsistent`] when the
    /// stored values contradict each other along the line.
    pub fn principal_variation(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut cur = *pos;
        let mut value = self.value(&cur)?;
        let mut line = Vec::new();
        if value == Value::Draw {
            return self.drawing_line(pos);
        }
        while terminal_value(&cur).is_none() {
            let best = self.best_move(&cur)?.ok_or_else(|| no_move(&cur))?;
            if best.value != value {
                return Err(inconsistent(&cur, value, best));
            }
            line.push(best.mv);
            cur.play_unchecked(best.mv);
            value = self.value(&cur)?;
        }
        Ok(line)
    }

    fn drawing_line(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut cur = *pos;
        let mut seen = vec![key(&cur)];
        let mut line = Vec::new();
        while terminal_value(&cur).is_none() && line.len() < DRAW_LINE_PLIES {
            let moves = self.moves(&cur)?;
            let best = moves.first().copied().ok_or_else(|| no_move(&cur))?;
            if best.value != Value::Draw {
                return Err(inconsistent(&cur, Value::Draw, best));
            }
            line.push(best.mv);
            cur.play_unchecked(best.mv);
            let k = key(&cur);
            if seen.contains(&k) {
                break;
            }
            seen.push(k);
        }
        Ok(line)
    }
}

/// What makes two positions the same for repetition (the move number is
/// not part of it).
fn key(pos: &Position) -> ([u8; CYCLE], [u8; 2], [u8; 2], bool) {
    (
        *pos.holes(),
        pos.kazans(),
        pos.tuzdyk_indices(),
        pos.side_to_move() == crate::rules::Side::South,
    )
}

/// A live position always has a move; this is unreachable unless the rules
/// code and `outcome()` disagree.
fn no_move(pos: &Position) -> ProbeError {
    ProbeError::Inconsistent {
        detail: format!("{} is not over but has no legal move", pos.fen()),
    }
}

fn inconsistent(pos: &Position, stored: Value, best: MoveValue) -> ProbeError {
    ProbeError::Inconsistent {
        detail: format!(
            "{} is stored as a {stored}, but its best move (hole {}) gives a {}",
            pos.fen(),
            best.mv,
            best.value
        ),
    }
}
