//! Numbers for people, written the same way by every front end and by
//! `togyz-gen`: counts with their nouns, digits in groups, bytes, seconds.

/// `1 stone`, `4 stones`: a count with its noun, singular or plural.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `1 ply`, `7 plies`.
pub fn plies(n: u32) -> String {
    count(n.into(), "ply", "plies")
}

/// `1 stone`, `9 stones`.
pub fn stones(n: u32) -> String {
    count(n.into(), "stone", "stones")
}

/// `1234567` as `1,234,567`.
pub fn thousands(x: u64) -> String {
    let s = x.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A large count in few characters: 1234 → `1234`, 12_345 → `12.3k`,
/// 944_012 → `944k`, 1_234_567 → `1.2M`.
pub fn compact(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=99_999 => format!("{:.1}k", n as f64 / 1e3),
        100_000..=999_999 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// `bytes` for people: `1.23 GB`, `12 MB` (powers of 1000, as
/// [`parse_bytes`](crate::parse_bytes) reads them).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else {
        format!("{:.0} MB", (b / 1e6).max(1.0))
    }
}

/// `seconds` for people: `45 s`, `12 min`, `3.5 h`.
pub fn human_seconds(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{:.0} s", seconds.max(1.0))
    } else if seconds < 5400.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_numbers() {
        assert_eq!(stones(1), "1 stone");
        assert_eq!(stones(0), "0 stones");
        assert_eq!(plies(1), "1 ply");
        assert_eq!(plies(2), "2 plies");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(512_753_762), "512,753,762");
    }
}
