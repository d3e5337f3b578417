//! The tables folder as the commands meet it: where it is, what it holds,
//! and every probe error turned into a [`Failure`] that says what to do.

use std::io;
use std::path::{Path, PathBuf};

use togyz_answer::text::{stones, thousands};
use togyz_tb::{
    max_solver_stones, positions_for, ProbeError, Tablebase, TuzdykPairs, DEFAULT_CACHE_BYTES,
    MAX_STONES,
};

use crate::common::failure::{Failure, Kind};

/// The folder used when neither `--tables` nor `$TOGYZ_TABLES` is given.
const DEFAULT_TABLES: &str = "tables";

/// The `--tables` option, shared by the commands that probe.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArg {
    /// Folder of the table files (default: $TOGYZ_TABLES, else ./tables).
    /// Given again, the folders are read in order: a later one adds the
    /// positions the earlier ones' tables leave out, as a folder of one
    /// tuzdyk pair's tables does, and the distances of WDL tables.
    /// $TOGYZ_TABLES takes a list of folders as PATH does.
    #[arg(long, value_name = "DIR")]
    tables: Vec<PathBuf>,
}

impl TablesArg {
    /// The folders: `--tables`, else `$TOGYZ_TABLES`, else `./tables`.
    fn dirs(&self) -> Vec<PathBuf> {
        if !self.tables.is_empty() {
            return self.tables.clone();
        }
        let env: Vec<PathBuf> = std::env::var_os("TOGYZ_TABLES")
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if env.is_empty() {
            vec![PathBuf::from(DEFAULT_TABLES)]
        } else {
            env
        }
    }

    /// Whether `--tables` was given (not the environment or the default).
    pub fn given(&self) -> bool {
        !self.tables.is_empty()
    }

    /// Opens the tables of the folders (see [`Tables::open_all`]).
    pub fn open(&self) -> Tables {
        Tables::open_all(self.dirs())
    }
}

/// The tables of one folder or several. Folders that cannot be opened give
/// an empty tablebase, so finished games are still answered; probes that
/// need a table then report why the folder could not be opened.
pub struct Tables {
    /// The folders, the first being where missing tables would go.
    dirs: Vec<PathBuf>,
    /// The first folder.
    dir: PathBuf,
    /// Why the folder could not be opened, if it could not.
    open_error: Option<ProbeError>,
    /// The tables (empty if the folder could not be opened).
    pub tb: Tablebase,
}

/// The block cache the command line opens its tables with: an eighth of
/// the machine's memory, at least the library's 256 MiB and at most 2 GiB.
/// A search over tables of 17 and 18 stones decompresses far more blocks
/// than 256 MiB keep: 2 GiB proved 90.4 % of 394 real positions of 20-24
/// stones at 1 s where 256 MiB proved 87.8 % (+10 / -0;
/// docs/performance.md, "The next five pairs, to 18 stones"). The cache is
/// a ceiling: it holds only the blocks read.
fn block_cache_bytes() -> u64 {
    cache_for(togyz_tb::search::machine_memory())
}

fn cache_for(machine: Option<u64>) -> u64 {
    const MOST: u64 = 2 << 30;
    machine.map_or(DEFAULT_CACHE_BYTES, |m| {
        (m / 8).clamp(DEFAULT_CACHE_BYTES, MOST)
    })
}

impl Tables {
    /// Opens the tables in `dirs` (at least one), in order, with a block
    /// cache of [`block_cache_bytes`] ([`Tablebase::open`]).
    pub fn open_all(dirs: Vec<PathBuf>) -> Tables {
        let dir = dirs
            .first()
            .cloned()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_TABLES));
        let (tb, open_error) = match Tablebase::open_with_cache(&dirs, block_cache_bytes()) {
            Ok(tb) => (tb, None),
            Err(e) => (
                Tablebase::open(std::iter::empty::<&Path>()).expect("no folder, nothing to fail"),
                Some(e),
            ),
        };
        // Said once, up front: the probes that need such a file fail with
        // its error, the others are answered.
        for (n, e) in tb.damaged() {
            eprintln!("warning: {e} (positions with {n} stones cannot be answered)");
        }
        Tables {
            dirs,
            dir,
            open_error,
            tb,
        }
    }

    /// Why the tables could not be opened, as a failure; `None` if they
    /// were (even if the folder holds none).
    pub fn open_failure(&self) -> Option<Failure> {
        match &self.open_error {
            Some(ProbeError::Directory { source, .. })
                if source.kind() == io::ErrorKind::NotFound =>
            {
                None
            }
            Some(e) => Some(self.failure(e.clone())),
            None => None,
        }
    }

    /// What the folder holds, for messages: "the tables in DIR cover 1 to 8
    /// stones", "DIR holds no tables", "the tables folder DIR does not
    /// exist (...)".
    pub fn coverage(&self) -> String {
        let dir = self.shown_dir();
        if let Some(ProbeError::Directory { source, path }) = &self.open_error {
            if source.kind() == io::ErrorKind::NotFound {
                let missing = if self.dirs.len() > 1 {
                    path.display().to_string()
                } else {
                    dir
                };
                return format!(
                    "the tables folder {missing} does not exist (choose the folder with --tables \
                     DIR or $TOGYZ_TABLES)"
                );
            }
        }
        let present: Vec<u32> = self.tb.stones().collect();
        let complete = self.tb.complete_up_to();
        let horizon = self.tb.horizon();
        if horizon.most() > complete {
            let mut text = match complete {
                0 => format!("the tables in {dir} hold"),
                1 => format!("the tables in {dir} cover 1 stone,"),
                _ => format!("the tables in {dir} cover 1 to {complete} stones,"),
            };
            if horizon.with_tuzdyk > complete {
                text += &format!(
                    " the win/draw/loss of the positions with a tuzdyk up to {} stones,",
                    horizon.with_tuzdyk
                );
            }
            // The pairs of tuzdyk holes (a mask) by how far their tables go.
            let mut by_stones = std::collections::BTreeMap::<u32, u32>::new();
            for (k, &up) in horizon.pairs.iter().enumerate() {
                if up as u32 > horizon.with_tuzdyk {
                    *by_stones.entry(up as u32).or_default() |= 1 << k;
                }
            }
            for (up, pairs) in by_stones {
                if let Some(pairs) = TuzdykPairs::from_mask(pairs) {
                    text += &format!(" those with tuzdyks in holes {pairs} up to {up} stones,");
                }
            }
            return text.trim_end_matches(',').to_string() + " (WDL tables)";
        }
        match present.as_slice() {
            [] => format!("{dir} holds no tables"),
            [_] if complete == 1 => format!("the tables in {dir} cover 1 stone"),
            _ if present.len() == complete as usize => {
                format!("the tables in {dir} cover 1 to {complete} stones")
            }
            _ => format!("{dir} holds the tables for {} stones", ranges(&present)),
        }
    }

    /// The folders as messages name them: `./tables`, not `tables`, so
    /// that a relative folder reads as one; several joined with "and".
    fn shown_dir(&self) -> String {
        let shown: Vec<String> = self
            .dirs
            .iter()
            .map(|d| {
                if d.is_relative() && !d.starts_with(".") && !d.starts_with("..") {
                    format!("./{}", d.display())
                } else {
                    d.display().to_string()
                }
            })
            .collect();
        shown.join(" and ")
    }

    /// The failure for a probe error.
    pub fn failure(&self, e: ProbeError) -> Failure {
        match e {
            // The folder could not be opened: that is the reason, whichever
            // table the position needed.
            ProbeError::MissingTable { stones: n } => match &self.open_error {
                Some(ProbeError::Directory { source, .. })
                    if source.kind() == io::ErrorKind::NotFound =>
                {
                    self.no_table(n)
                }
                Some(open) => self.failure(open.clone()),
                None => self.no_table(n),
            },
            // Not damaged: a WDL table holds no distance, a table of some
            // positions not the others.
            ProbeError::NotHeld { .. } => {
                Failure::new(Kind::NoTable, format!("{e}; {}", self.coverage()))
            }
            e if Kind::of_probe(&e) == Kind::UnreadableTable => {
                let head = match e {
                    ProbeError::Directory { .. } => format!("cannot list the tables folder {e}"),
                    _ => e.to_string(),
                };
                let fix = match e.io_error().map(io::Error::kind) {
                    Some(io::ErrorKind::PermissionDenied) => {
                        "; give your user permission to read it, then try again"
                    }
                    _ => "",
                };
                Failure::new(Kind::UnreadableTable, format!("{head}{fix}"))
            }
            e => Failure::new(
                Kind::DamagedTable,
                format!(
                    "{e}; check the tables with `togyz-gen verify --tables {}`, or delete the \
                     damaged file and generate it again",
                    self.dir.display()
                ),
            ),
        }
    }

    /// No table for `n` stones: what the folder holds, and what a table for
    /// `n` stones would take, or that none can exist.
    fn no_table(&self, n: u32) -> Failure {
        let held = self.coverage();
        if n > MAX_STONES {
            return Failure::new(
                Kind::NoTable,
                format!(
                    "no table can exist for {} on the board: tables go up to {MAX_STONES} \
                     stones; {held}",
                    stones(n)
                ),
            );
        }
        let limit = max_solver_stones();
        if n > limit {
            return Failure::new(
                Kind::NoTable,
                format!(
                    "no table for {} on the board: {held}. The {n}-stone table would hold {} \
                     positions; `togyz-gen` solves at most {limit} stones",
                    stones(n),
                    thousands(positions_for(n)),
                ),
            );
        }
        let out = if self.dir == Path::new(DEFAULT_TABLES) {
            String::new()
        } else {
            format!(" --out {}", self.dir.display())
        };
        Failure::new(
            Kind::NoTable,
            format!(
                "no table for {} on the board: {held}. The {n}-stone table holds {} positions; \
                 `togyz-gen generate --max-stones {n}{out}` makes the missing tables up to it, \
                 checking first that this machine can hold them",
                stones(n),
                thousands(positions_for(n)),
            ),
        )
    }
}

/// `1-4, 6, 9` for `[1, 2, 3, 4, 6, 9]` (ascending input).
fn ranges(ns: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ns.len() {
        let mut j = i;
        while j + 1 < ns.len() && ns[j + 1] == ns[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ns[i].to_string()
        } else {
            format!("{}-{}", ns[i], ns[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_join_runs() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(ranges(&[1, 2, 3, 4, 6, 9, 10]), "1-4, 6, 9-10");
    }

    #[test]
    fn the_block_cache_follows_the_machine_within_bounds() {
        assert_eq!(cache_for(None), DEFAULT_CACHE_BYTES);
        assert_eq!(cache_for(Some(1 << 30)), DEFAULT_CACHE_BYTES);
        assert_eq!(cache_for(Some(8 << 30)), 1 << 30);
        assert_eq!(cache_for(Some(24 << 30)), 2 << 30);
        assert!(block_cache_bytes() >= DEFAULT_CACHE_BYTES);
    }
}
