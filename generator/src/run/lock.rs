//! Advisory locks on the output folder (`flock` through the `fs4` crate),
//! so that two runs never work on one folder unknowingly: the holder writes
//! its process id, host and start time into the lock file, and a run that
//! finds the lock taken says who holds it.
//!
//! A lock is released when its [`Lock`] is dropped or the process ends
//! (killed included): the operating system drops `flock` locks with the
//! file descriptor, so a killed run never leaves a stale lock. On a network
//! file system the locks are as good as its `flock` support (NFSv4 and
//! Lustre with `flock` mounts have it; see docs/cluster.md).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::files::folder::hostname;

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error("{} is locked by another togyz-gen run ({holder}); wait for it to finish, or stop it, and run again", .path.display())]
    Held {
        /// The lock file.
        path: PathBuf,
        /// What the holder wrote into it.
        holder: String,
    },
    /// The lock file could not be opened or locked.
    #[error("cannot lock {}: {source}", .path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
}

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn open(path: &Path) -> Result<File, LockError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|source| LockError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// What the holder of `path` wrote into it.
pub fn holder(path: &Path) -> String {
    let mut text = String::new();
    let _ = File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    let text = text.trim();
    if text.is_empty() {
        "holder unknown".to_string()
    } else {
        text.to_string()
    }
}

fn held(path: &Path, e: fs4::TryLockError) -> LockError {
    match e {
        fs4::TryLockError::WouldBlock => LockError::Held {
            path: path.to_path_buf(),
            holder: holder(path),
        },
        fs4::TryLockError::Error(source) => LockError::Io {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// `unix` seconds as a UTC date and time: `2026-12-01 14:21:08 UTC`.
pub fn utc_date(unix: u64) -> String {
    let (days, secs) = (unix / 86400, unix % 86400);
    // Days since 1970-01-01 to a proleptic Gregorian date, counting in
    // 400-year eras that start on March 1st (so that a leap day ends a
    // year).
    let days = days + 719_468;
    let era = days / 146_097;
    let doe = days % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Writes this process's identity and `what` into the held lock file.
fn sign(lock: &Lock, what: &str) -> Result<(), LockError> {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let text = format!(
        "pid {} on {}, since {}: {what}\n",
        std::process::id(),
        hostname(),
        utc_date(since)
    );
    let mut f = &lock.file;
    f.set_len(0)
        .and_then(|()| f.write_all(text.as_bytes()))
        .map_err(|source| LockError::Io {
            path: lock.path.clone(),
            source,
        })
}

/// Takes the exclusive lock `path` without waiting, and writes who holds it
/// (`what`: the command) into it; [`LockError::Held`] names the holder.
pub fn try_exclusive(path: &Path, what: &str) -> Result<Lock, LockError> {
    let file = open(path)?;
    fs4::FileExt::try_lock(&file).map_err(|e| held(path, e))?;
    let lock = Lock {
        file,
        path: path.to_path_buf(),
    };
    sign(&lock, what)?;
    Ok(lock)
}

/// Takes a shared lock on `path` without waiting (many holders may share
/// it; an exclusive holder keeps them out).
pub fn try_shared(path: &Path) -> Result<Lock, LockError> {
    let file = open(path)?;
    fs4::FileExt::try_lock_shared(&file).map_err(|e| held(path, e))?;
    Ok(Lock {
        file,
        path: path.to_path_buf(),
    })
}

/// Takes the exclusive lock `path`, waiting for the holder to release it.
pub fn exclusive(path: &Path, what: &str) -> Result<Lock, LockError> {
    let file = open(path)?;
    fs4::FileExt::lock(&file).map_err(|source| LockError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let lock = Lock {
        file,
        path: path.to_path_buf(),
    };
    sign(&lock, what)?;
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(utc_date(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_date(1_796_134_868), "2026-12-01 14:21:08 UTC");
        assert_eq!(utc_date(4_102_444_799), "2099-12-31 23:59:59 UTC");
    }

    #[test]
    fn a_second_holder_is_refused_and_told_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = try_exclusive(&path, "generate --max-stones 3").unwrap();
        match try_exclusive(&path, "other") {
            Err(LockError::Held { holder, .. }) => {
                assert!(
                    holder.contains(&format!("pid {}", std::process::id())),
                    "{holder}"
                );
                assert!(holder.contains("generate --max-stones 3"), "{holder}");
                assert!(holder.contains(" UTC: ") && !holder.contains("unix"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(try_shared(&path), Err(LockError::Held { .. })));
        drop(first);
        let a = try_shared(&path).unwrap();
        let b = try_shared(&path).unwrap();
        assert!(matches!(
            try_exclusive(&path, "x"),
            Err(LockError::Held { .. })
        ));
        drop((a, b));
        assert!(try_exclusive(&path, "x").is_ok());
    }
}
