//! What the machine has: memory available and resident, disk free, and
//! the memory a run may use.

use std::path::{Path, PathBuf};

/// The memory a run may use: what the kernel says is available
/// ([`memory_available`]), or `max_memory` (`--max-memory`) if that is
/// less; `None` when neither is known.
pub fn memory_limit(max_memory: Option<u64>) -> Option<u64> {
    match (memory_available(), max_memory) {
        (Some(a), Some(m)) => Some(a.min(m)),
        (a, m) => a.or(m),
    }
}

/// What units may take while a level is solved: 90% of what is available
/// now (the smaller levels already loaded), and no more than
/// `max_memory` less what the process already holds.
pub fn units_budget(max_memory: Option<u64>) -> u64 {
    let free = memory_available().map_or(u64::MAX, |a| a / 10 * 9);
    match max_memory {
        Some(m) => free.min(m.saturating_sub(resident_bytes().unwrap_or(0))),
        None => free,
    }
}

/// The resident memory of this process (`VmRSS` of `/proc/self/status`),
/// in bytes.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the kernel says is available for new work (`MemAvailable` of
/// `/proc/meminfo`), in bytes; `None` where there is no such file.
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes free for an unprivileged user on the file system of `path`
/// (`statvfs`).
pub fn disk_available(path: &Path) -> std::io::Result<u64> {
    fs4::available_space(path)
}

/// `path`, or the nearest folder above it that exists (a relative path's
/// last resort being `.`): where a folder still to be made takes its disk.
pub fn nearest_existing(path: &Path) -> PathBuf {
    path.ancestors()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| Path::new("."))
        .to_path_buf()
}

/// The disk free for an output folder `out`, or for the nearest existing
/// folder above it when it does not exist yet, and where that was
/// measured.
pub fn disk_free(out: &Path) -> (std::io::Result<u64>, PathBuf) {
    let at = nearest_existing(out);
    (disk_available(&at), at)
}
