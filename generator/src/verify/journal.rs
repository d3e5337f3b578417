//! A level's verification journal, so that a long check resumes by unit.
//!
//! While level `n` is checked, `togyz-NN.verify` beside its table records
//! each unit that passed with the census of its entries. A run that
//! finds the journal of the same table (the file's length and both its
//! checksums) skips those units and adds their censuses; the level's
//! census is still held to its header, so a journal that misstates a unit
//! fails the check. The journal is removed when the level passes; one of
//! another table (rewritten since) is replaced. Where the folder cannot
//! be written (read-only tables), the check runs without a journal.
//!
//! Each unit is one line, appended with one `write` and flushed to the
//! disk, so a run killed mid-line leaves a torn last line, which reads as
//! not written: that unit is checked again. Two runs on one folder append
//! the same lines for the same units (a duplicate is harmless).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use togyz_tb::raw::format::TableFile;

use crate::files::write::Census;
use crate::solve::unit::UnitId;

/// The first line of a journal (its format).
const MAGIC: &str = "togyz-gen verify journal 1";

/// The journal of level `n`'s table in `dir`.
pub fn journal_path(dir: &Path, n: u32) -> PathBuf {
    dir.join(format!("togyz-{n:02}.verify"))
}

/// The journal of one level being checked.
pub(crate) struct Journal {
    path: PathBuf,
    /// Open for appending; `None` when the folder cannot be written.
    file: Option<File>,
    /// The units already checked, by their first configuration.
    done: HashMap<usize, Census>,
}

/// What opening a journal found.
pub(crate) enum Opened {
    /// A journal of this table: its units are kept.
    Resumed,
    /// None, or one of another table (replaced): every unit is checked.
    Fresh,
    /// The folder cannot be written: the check runs without a journal.
    Unwritable(io::Error),
}

impl Journal {
    /// Opens (or starts) the journal of `file`, level `n`'s table in `dir`.
    pub(crate) fn open(dir: &Path, n: u32, file: &TableFile) -> (Journal, Opened) {
        let path = journal_path(dir, n);
        let identity = identity(file);
        let done = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| read(&text, &identity));
        let resumed = done.is_some();
        let opened = if resumed {
            OpenOptions::new().append(true).open(&path)
        } else {
            start(&path, &identity)
        };
        let (file, said) = match opened {
            Ok(f) if resumed => (Some(f), Opened::Resumed),
            Ok(f) => (Some(f), Opened::Fresh),
            Err(e) => (None, Opened::Unwritable(e)),
        };
        let journal = Journal {
            path,
            file,
            done: done.unwrap_or_default(),
        };
        (journal, said)
    }

    /// The census recorded for `unit`, if it was checked before.
    pub(crate) fn checked(&self, unit: UnitId) -> Option<&Census> {
        self.done.get(&unit.first)
    }

    /// How many of `units` were checked before.
    pub(crate) fn count(&self, units: &[UnitId]) -> usize {
        units.iter().filter(|u| self.checked(**u).is_some()).count()
    }

    /// Records that `unit` passed with census `c`. A journal that cannot
    /// be written to any more is dropped: the check goes on without it.
    pub(crate) fn record(&mut self, unit: UnitId, c: &Census) {
        let Some(f) = self.file.as_mut() else { return };
        let line = format!(
            "unit {} {} {} {} {} {}\n",
            unit.first, c.wins, c.draws, c.losses, c.longest_win, c.longest_loss
        );
        if f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .is_err()
        {
            self.file = None;
        }
    }

    /// The journal's file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the journal: its level passed, or the units it gave were
    /// found wrong. (Where it could not be written, any old one there
    /// cannot be removed either.)
    pub(crate) fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The line that names the table a journal belongs to.
fn identity(file: &TableFile) -> String {
    let h = file.header();
    format!(
        "table {} {} {:016x} {:016x}",
        h.stones, h.file_length, h.index_checksum, h.body_checksum
    )
}

/// Writes a new journal for the table `identity` names, over any other.
fn start(path: &Path, identity: &str) -> io::Result<File> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    f.write_all(format!("{MAGIC}\n{identity}\n").as_bytes())?;
    f.sync_data()?;
    Ok(f)
}

/// The units a journal's `text` records, or `None` when it is not a
/// journal of the table `identity` names. Reading stops at the first
/// line that is not a whole unit line (a torn last line).
fn read(text: &str, identity: &str) -> Option<HashMap<usize, Census>> {
    let mut lines = text.split_inclusive('\n');
    if lines.next()? != format!("{MAGIC}\n") || lines.next()? != format!("{identity}\n") {
        return None;
    }
    let mut done = HashMap::new();
    for line in lines {
        let Some((first, c)) = line.strip_suffix('\n').and_then(unit_line) else {
            break;
        };
        done.insert(first, c);
    }
    Some(done)
}

/// A unit line: its first configuration and census.
fn unit_line(line: &str) -> Option<(usize, Census)> {
    let mut words = line.strip_prefix("unit ")?.split(' ');
    let mut next = || words.next()?.parse::<u64>().ok();
    let first = usize::try_from(next()?).ok()?;
    let (wins, draws, losses) = (next()?, next()?, next()?);
    let longest_win = u32::try_from(next()?).ok()?;
    let longest_loss = u32::try_from(next()?).ok()?;
    if words.next().is_some() {
        return None;
    }
    let c = Census {
        wins,
        draws,
        losses,
        longest_win,
        longest_loss,
    };
    Some((first, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "table 4 100 0000000000000001 0000000000000002";

    #[test]
    fn a_journal_reads_its_whole_unit_lines_only() {
        let text = format!("{MAGIC}\n{ID}\nunit 3 1 2 3 4 5\nunit 7 9 0 1 2 0\nunit 8 1");
        let done = read(&text, ID).expect("a journal of this table");
        assert_eq!(done.len(), 2, "the torn last line is not a unit");
        let c = &done[&3];
        assert_eq!((c.wins, c.draws, c.losses), (1, 2, 3));
        assert_eq!((c.longest_win, c.longest_loss), (4, 5));
        // The last line whole, but without its end: still torn.
        assert_eq!(
            read(&format!("{MAGIC}\n{ID}\nunit 3 1 2 3 4 5"), ID)
                .unwrap()
                .len(),
            0
        );
        // Anything after a bad line is not read either.
        let text = format!("{MAGIC}\n{ID}\nunit x\nunit 3 1 2 3 4 5\n");
        assert!(read(&text, ID).unwrap().is_empty());
    }

    #[test]
    fn a_journal_of_another_table_or_format_is_not_read() {
        let other = "table 4 100 0000000000000001 0000000000000003";
        assert!(read(&format!("{MAGIC}\n{other}\nunit 3 1 2 3 4 5\n"), ID).is_none());
        assert!(read(&format!("togyz-gen verify journal 0\n{ID}\n"), ID).is_none());
        assert!(read("", ID).is_none());
        assert!(unit_line("unit 3 1 2 3 4 5 6").is_none());
        assert!(unit_line("unit 3 1 2 3 4 99999999999").is_none());
    }
}
