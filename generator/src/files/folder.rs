//! Names in an output folder and the temporaries written there: a level's
//! work folder and its unit files ([`crate::files::work`]), the
//! temporary every file is written into before its atomic rename, which a
//! killed run leaves behind ([`remove_stale_temporaries`]), and the table
//! files a folder holds ([`table_levels`], which `verify` and `stats` read).

use crate::solve::unit::UnitId;
use std::path::{Path, PathBuf};
use togyz_tb::raw::format;
use togyz_tb::raw::index::CONFIG_COUNT;

/// This machine's host name (`/proc/sys/kernel/hostname`), or `localhost`.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains(['/', '\0']))
        .unwrap_or_else(|| "localhost".to_string())
}

/// The work folder of level `n` in output folder `out`.
pub fn work_dir(out: &Path, n: u32) -> PathBuf {
    out.join(format!("togyz-{n:02}.work"))
}

/// The file name of a unit's values: `unit-AA-BB.tkv`.
pub fn unit_file_name(unit: UnitId) -> String {
    format!("unit-{:02}-{:02}.tkv", unit.first, unit.second)
}

/// The lock a process holds while it solves a unit: `.unit-AA-BB.lock`.
pub fn unit_lock_name(unit: UnitId) -> String {
    format!(".unit-{:02}-{:02}.lock", unit.first, unit.second)
}

/// Whether `name` is a unit file's name.
pub fn is_unit_file_name(name: &str) -> bool {
    (0..CONFIG_COUNT).any(|id| name == unit_file_name(UnitId::of(id)))
}

/// The temporary file this process writes `dir/final_name` into:
/// `.NAME.HOST.PID.tmp`. The host is in the name because shards on several
/// machines may share the folder: only the host that made a temporary can
/// tell whether its process is gone.
pub(crate) fn temporary_path(dir: &Path, final_name: &str) -> PathBuf {
    dir.join(format!(
        ".{final_name}.{}.{}.tmp",
        hostname(),
        std::process::id()
    ))
}

/// The file that side `side` of kazan part `part` of `unit`, being
/// solved by this process, is kept in until the unit's file is written
/// ([`crate::files::work::PartSpool`]):
/// `.unit-AA-BB.tkv.part-MASK-SIDE.HOST.PID.tmp`, a temporary's name, so
/// that a killed run's are removed as stale (and never taken for a
/// finished unit).
pub(crate) fn part_file_path(dir: &Path, unit: UnitId, side: usize, part: u64) -> PathBuf {
    dir.join(format!(
        ".{}.part-{part:x}-{side}.{}.{}.tmp",
        unit_file_name(unit),
        hostname(),
        std::process::id()
    ))
}

/// The file that the seeds `name` (`seed-MASK` or `carry-PASS`) of
/// `unit`, being solved by this process, are kept in between its seeding
/// and its solve ([`crate::files::seeds::SeedFiles`]):
/// `.unit-AA-BB.tkv.part-NAME.HOST.PID.tmp`, named as a kazan part's file
/// ([`part_file_path`]) and so removed as stale as those are.
pub(crate) fn seed_file_path(dir: &Path, unit: UnitId, name: &str) -> PathBuf {
    dir.join(format!(
        ".{}.part-{name}.{}.{}.tmp",
        unit_file_name(unit),
        hostname(),
        std::process::id()
    ))
}

/// Whether `name` is a kazan part's file ([`part_file_path`]), of any
/// host or process.
pub(crate) fn is_part_file_name(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|r| r.split_once(".part-"))
        .is_some_and(|(unit, _)| is_unit_file_name(unit))
        && name.ends_with(".tmp")
}

/// Whether `name` is a temporary made by [`temporary_path`] on this host
/// (or by an older version, `.NAME.PID.tmp`, without the host) for a table
/// or a unit file, and its process is gone.
fn is_stale_temporary(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|r| r.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((rest, pid)) = rest.rsplit_once('.') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    // The final name ends at its extension; a host may follow.
    let Some(end) = [".tkb", ".tkv"]
        .iter()
        .filter_map(|ext| rest.find(ext).map(|i| i + ext.len()))
        .min()
    else {
        return false;
    };
    let (target, host) = rest.split_at(end);
    // A kazan part's file names its part before the host.
    let host = match host.strip_prefix(".part-") {
        Some(part) => match part.split_once('.') {
            Some((_, host)) => host,
            None => return false,
        },
        None if host.is_empty() => host,
        None => match host.strip_prefix('.') {
            Some(host) => host,
            None => return false,
        },
    };
    let ours = format::parse_file_name(target).is_some() || is_unit_file_name(target);
    let here = host.is_empty() || host == hostname();
    let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
    ours && here && !alive
}

/// Removes the temporary files that killed runs on this host left in `dir`
/// (named by `temporary_path`; never complete, they only take space) and
/// returns their paths. A file whose process still runs is left alone, and
/// so is every file of another name or another host.
pub fn remove_stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let stale = entry.file_name().to_str().is_some_and(is_stale_temporary);
        if stale && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

/// Removes the temporary file unless the write completed.
pub(crate) struct TempFile {
    path: PathBuf,
    done: bool,
}

impl TempFile {
    /// Guards `path`: removed when dropped, unless [`TempFile::keep`].
    pub(crate) fn new(path: PathBuf) -> TempFile {
        TempFile { path, done: false }
    }

    /// The file was renamed into place: nothing to remove.
    pub(crate) fn keep(&mut self) {
        self.done = true;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Why a folder holds no complete set of tables `1..=N`.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// The tables folder could not be listed.
    #[error("cannot list the tables folder {}: {source}", .path.display())]
    Directory {
        /// The folder.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// No table file in the folder.
    #[error("no table files (togyz-NN.tkb) in {}", .path.display())]
    NoTables {
        /// The folder.
        path: PathBuf,
    },
    /// A table below the largest present is missing: its positions are the
    /// successors the larger tables are checked against.
    #[error("{} is missing: the tables up to {max} stones need every smaller table", .path.display())]
    MissingTable {
        /// The missing file.
        path: PathBuf,
        /// The largest stone count present.
        max: u32,
    },
}

/// The stone counts of the table files in `dir`, ascending, checked to be
/// exactly `1..=N` (`N >= 1`).
///
/// # Errors
///
/// [`FolderError`]: the folder cannot be listed, holds no table, or lacks
/// one below the largest.
pub fn table_levels(dir: &Path) -> Result<u32, FolderError> {
    let dir_err = |source| FolderError::Directory {
        path: dir.to_path_buf(),
        source,
    };
    let mut present = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(dir_err)? {
        let entry = entry.map_err(dir_err)?;
        if let Some(n) = entry.file_name().to_str().and_then(format::parse_file_name) {
            present.push(n);
        }
    }
    let max = present
        .iter()
        .copied()
        .max()
        .ok_or_else(|| FolderError::NoTables {
            path: dir.to_path_buf(),
        })?;
    for n in 1..=max {
        if !present.contains(&n) {
            return Err(FolderError::MissingTable {
                path: dir.join(format::file_name(n)),
                max,
            });
        }
    }
    Ok(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kazan part's file is a temporary: stale once its process is
    /// gone on this host, and never a unit file.
    #[test]
    fn part_files_are_temporaries_of_their_process() {
        let dir = Path::new("/w");
        let unit = UnitId::of(3);
        let name = |p: PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
        let mine = name(part_file_path(dir, unit, 1, 0x1f));
        assert!(is_part_file_name(&mine), "{mine}");
        assert!(!is_unit_file_name(&mine));
        assert!(!is_stale_temporary(&mine), "this process runs");
        let (host, file) = (hostname(), unit_file_name(unit));
        let dead = format!(".{file}.part-1f-1.{host}.4000000000.tmp");
        assert!(is_stale_temporary(&dead) && is_part_file_name(&dead));
        let elsewhere = format!(".{file}.part-1f-1.another-host.4000000000.tmp");
        assert!(!is_stale_temporary(&elsewhere) && is_part_file_name(&elsewhere));
        assert!(!is_part_file_name(".notes.part-1.tmp"));
        let no_host = format!(".{file}.part-1f-1.4000000000.tmp");
        assert!(!is_stale_temporary(&no_host));
    }
}
