//! Byte sizes: constants and parsing of human-written sizes (`4k`, `128KiB`, `8g`, `240GB`).
//!
//! Parsing follows fio: a bare suffix `k`, `m`, `g`, `t` is a power of 1024; `KiB`-style suffixes
//! are powers of 1024 and `KB`/`kB`-style suffixes are powers of 1000 (fio's `kb_base=1000`
//! reading of an explicit `B`).

/// Bytes in one kibibyte.
pub const KIB: u64 = 1024;
/// Bytes in one mebibyte.
pub const MIB: u64 = 1024 * KIB;
/// Bytes in one gibibyte.
pub const GIB: u64 = 1024 * MIB;
/// Bytes in one (decimal) gigabyte, the unit drives are sold in.
pub const GB: u64 = 1_000_000_000;
/// Bytes in one (decimal) megabyte; throughput is reported in MB/s.
pub const MB: u64 = 1_000_000;

/// Parse a size such as `4096`, `4k`, `512b`, `1.5m`, `128KiB`, `240GB` or `8g` into bytes.
///
/// Returns a message describing the expected form on failure.
pub fn parse_size_bytes(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(trimmed.len());
    let (number_text, suffix) = trimmed.split_at(split);
    let number_text = number_text.replace('_', "");
    if number_text.is_empty() {
        return Err(format!("`{text}` is not a size (expected a number with an optional k/m/g/t suffix, e.g. 4k)"));
    }
    let number: f64 = number_text.parse().map_err(|_| format!("`{text}` is not a size (expected a number with an optional k/m/g/t suffix)"))?;
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => KIB,
        "m" | "mib" => MIB,
        "g" | "gib" => GIB,
        "t" | "tib" => 1024 * GIB,
        "kb" => 1000,
        "mb" => MB,
        "gb" => GB,
        "tb" => 1000 * GB,
        _ => return Err(format!("`{text}` has an unknown size suffix `{suffix}` (expected k, m, g, t, KiB, MB, ...)")),
    };
    let bytes = number * multiplier as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is out of range"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_like_fio() {
        assert_eq!(parse_size_bytes("4k"), Ok(4096));
        assert_eq!(parse_size_bytes("512"), Ok(512));
        assert_eq!(parse_size_bytes("512b"), Ok(512));
        assert_eq!(parse_size_bytes("128KiB"), Ok(131072));
        assert_eq!(parse_size_bytes("8g"), Ok(8 * GIB));
        assert_eq!(parse_size_bytes("240GB"), Ok(240 * GB));
        assert_eq!(parse_size_bytes("1.5m"), Ok(3 * MIB / 2));
        assert!(parse_size_bytes("abc").is_err());
        assert!(parse_size_bytes("4q").is_err());
        assert!(parse_size_bytes("").is_err());
    }
}
