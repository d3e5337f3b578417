//! Byte counts as people write them on a command line: `16G`, `500M`.

/// A byte count as a command line takes it (`--max-memory`,
/// `--search-memory`): digits with an optional
/// decimal suffix `K`, `M`, `G` or `T` (powers of 1000, as the plan
/// prints), `B` allowed after it: `16G`, `16GB`, `500M`, `12000000000`.
///
/// # Errors
/// A message for clap when the text is no such count.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim().trim_end_matches(['B', 'b']);
    let (digits, scale) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let scale = match c.to_ascii_uppercase() {
                'K' => 1e3,
                'M' => 1e6,
                'G' => 1e9,
                'T' => 1e12,
                _ => return Err(format!("`{text}`: the suffix is K, M, G or T")),
            };
            (&t[..i], scale)
        }
        _ => (t, 1.0),
    };
    let value: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count such as 16G or 500M"))?;
    let bytes = value * scale;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(format!("`{text}`: the memory must be at least 1 byte"));
    }
    if bytes >= u64::MAX as f64 {
        return Err(format!("`{text}`: more bytes than a 64-bit count holds"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_bytes as parse;

    #[test]
    fn byte_counts_read_with_decimal_suffixes() {
        assert_eq!(parse("16G"), Ok(16_000_000_000));
        assert_eq!(parse("16GB"), Ok(16_000_000_000));
        assert_eq!(parse("1.5g"), Ok(1_500_000_000));
        assert_eq!(parse("500M"), Ok(500_000_000));
        assert_eq!(parse("12000"), Ok(12_000));
        for bad in [
            "", "G", "16Q", "-1G", "0", "many", "0.5", "NaN", "inf", "1e30T",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
