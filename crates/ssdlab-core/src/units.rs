//! Sizes and times as fio writes them: the one parser for every size and duration a user types
//! (command line, job files, presets), and byte constants.
//!
//! Sizes (`4k`, `128KiB`, `8g`, `240GB`, `0x1000`): a decimal prefix letter (`k`, `m`, `g`, `t`,
//! `p`, any case, with or without a trailing `b`/`B`) is a power of 1024 under fio's default
//! `kb_base=1024` and a power of 1000 under `kb_base=1000`. A binary prefix (`Ki`, `KiB`, `Mi`,
//! ...) is always a power of 1024. fio itself reads `KiB` as 1000 under its default (its
//! "compatibility mode"); ssdlab departs from fio there on purpose, so that an IEC unit never
//! means a power of ten. Decimals are accepted when the result is a whole number of bytes (fio
//! truncates `1.5k` to 1).
//!
//! Times (`180`, `500ms`, `3m`, `2h`, `1d`, `250us`): suffixes `d`, `h`, `m`, `s`, `ms`/`msec`,
//! `us`/`usec`, `ns`/`nsec`; a bare number is in the option's own default unit (seconds for
//! `runtime`, microseconds for `thinktime`, as fio). Anything else is refused rather than read the
//! way fio reads it (fio takes `10min` as 10 microseconds).

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

/// How decimal prefix letters (`k`, `m`, `kb`, `MB`) are read: fio's `kb_base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KbBase {
    /// `k` = 1024 (fio's default, `kb_base=1024`).
    #[default]
    Binary,
    /// `k` = 1000 (`kb_base=1000`).
    Decimal,
}

impl KbBase {
    /// Read fio's `kb_base` value (`1024` or `1000`).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "1024" => Ok(Self::Binary),
            "1000" => Ok(Self::Decimal),
            other => Err(format!("`{other}` is not a kb_base (expected 1024 or 1000)")),
        }
    }

    fn base(self) -> u64 {
        match self {
            Self::Binary => 1024,
            Self::Decimal => 1000,
        }
    }
}

/// The power of a prefix letter (`k` = 1, `m` = 2, ...).
fn prefix_power(letter: char) -> Option<u32> {
    Some(match letter.to_ascii_lowercase() {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        _ => return None,
    })
}

/// The multiplier of a size suffix, or `None` when it is not one.
fn size_multiplier(suffix: &str, kb_base: KbBase) -> Option<u64> {
    let lower = suffix.to_ascii_lowercase();
    if lower.is_empty() || lower == "b" {
        return Some(1);
    }
    let mut chars = suffix.chars();
    let power = prefix_power(chars.next()?)?;
    let rest = chars.as_str().to_ascii_lowercase();
    let base = match rest.as_str() {
        "" | "b" => kb_base.base(),
        "i" | "ib" => 1024,
        _ => return None,
    };
    Some(base.pow(power))
}

/// Parse a size such as `4096`, `4k`, `512b`, `1.5m`, `128KiB`, `240GB`, `0x1000` or `8g` into
/// bytes under fio's default `kb_base=1024`.
///
/// Returns a message describing the expected form on failure.
pub fn parse_size_bytes(text: &str) -> Result<u64, String> {
    parse_size_bytes_with(text, KbBase::Binary)
}

/// Parse a size as [`parse_size_bytes`] does, reading decimal prefixes with `kb_base`.
pub fn parse_size_bytes_with(text: &str, kb_base: KbBase) -> Result<u64, String> {
    let trimmed = text.trim();
    if let Some(hex) = trimmed.strip_prefix("0x").or_else(|| trimmed.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| format!("`{text}` is not a hexadecimal size"));
    }
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(trimmed.len());
    let (number_text, suffix) = trimmed.split_at(split);
    let number_text = number_text.replace('_', "");
    if number_text.is_empty() {
        return Err(format!("`{text}` is not a size (expected a number with an optional k/m/g/t suffix, e.g. 4k)"));
    }
    if suffix.trim().eq_ignore_ascii_case("z") {
        return Err(format!("`{text}` counts zones (fio's `z` unit), which needs fio's zonemode=zbd: zoned devices are not simulated"));
    }
    let multiplier = size_multiplier(suffix.trim(), kb_base)
        .ok_or_else(|| format!("`{text}` has an unknown size suffix `{suffix}` (expected k, m, g, t, p, with an optional b, or KiB, MiB, ...)"))?;
    let bytes = match number_text.parse::<u64>() {
        Ok(whole) => whole.checked_mul(multiplier).ok_or_else(|| format!("`{text}` is out of range (at most 2^64-1 bytes)"))?,
        Err(_) => {
            let number: f64 = number_text.parse().map_err(|_| format!("`{text}` is not a size (expected a number with an optional k/m/g/t suffix)"))?;
            let bytes = number * multiplier as f64;
            if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
                return Err(format!("`{text}` is out of range (at most 2^64-1 bytes)"));
            }
            if bytes.fract() != 0.0 {
                return Err(format!("`{text}` is not a whole number of bytes"));
            }
            bytes as u64
        }
    };
    Ok(bytes)
}

/// Nanoseconds in one unit of a bare time number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Bare numbers are seconds (`runtime`, `ramp_time`).
    Seconds,
    /// Bare numbers are milliseconds (`log_avg_msec`).
    Milliseconds,
    /// Bare numbers are microseconds (`thinktime`).
    Microseconds,
}

impl TimeUnit {
    fn ns(self) -> u128 {
        match self {
            Self::Seconds => 1_000_000_000,
            Self::Milliseconds => 1_000_000,
            Self::Microseconds => 1_000,
        }
    }
}

/// Longest time accepted, in nanoseconds (about 584 years: what fits a `u64` of nanoseconds).
pub const MAX_TIME_NS: u64 = u64::MAX;

/// Parse a time such as `180`, `180s`, `3m`, `500ms`, `250us`, `2h` or `1d` into nanoseconds;
/// a bare number is in `bare`.
pub fn parse_time_ns(text: &str, bare: TimeUnit) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(trimmed.len());
    let (number_text, suffix) = trimmed.split_at(split);
    let number_text = number_text.replace('_', "");
    if number_text.is_empty() {
        return Err(format!("`{text}` is not a time (expected a number with an optional unit: d, h, m, s, ms, us, ns)"));
    }
    let unit_ns: u128 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" => bare.ns(),
        "d" => 86_400_000_000_000,
        "h" => 3_600_000_000_000,
        "m" => 60_000_000_000,
        "s" => 1_000_000_000,
        "ms" | "msec" => 1_000_000,
        "us" | "usec" => 1_000,
        "ns" | "nsec" => 1,
        other => return Err(format!("`{text}` has an unknown time unit `{other}` (expected d, h, m, s, ms, us or ns)")),
    };
    let ns: u128 = match number_text.parse::<u128>() {
        Ok(whole) => whole.checked_mul(unit_ns).ok_or_else(|| format!("`{text}` is out of range"))?,
        Err(_) => {
            let number: f64 = number_text.parse().map_err(|_| format!("`{text}` is not a time"))?;
            let ns = (number * unit_ns as f64).round();
            if !ns.is_finite() || ns >= u64::MAX as f64 {
                return Err(format!("`{text}` is out of range"));
            }
            ns as u128
        }
    };
    u64::try_from(ns).map_err(|_| format!("`{text}` is out of range (at most {} days)", u64::MAX / 86_400_000_000_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_like_fio() {
        assert_eq!(parse_size_bytes("4k"), Ok(4096));
        assert_eq!(parse_size_bytes("4kb"), Ok(4096));
        assert_eq!(parse_size_bytes("4KB"), Ok(4096));
        assert_eq!(parse_size_bytes("4Ki"), Ok(4096));
        assert_eq!(parse_size_bytes("512"), Ok(512));
        assert_eq!(parse_size_bytes("512b"), Ok(512));
        assert_eq!(parse_size_bytes("128KiB"), Ok(131072));
        assert_eq!(parse_size_bytes("8g"), Ok(8 * GIB));
        assert_eq!(parse_size_bytes("10GB"), Ok(10 * GIB));
        assert_eq!(parse_size_bytes("1p"), Ok(1 << 50));
        assert_eq!(parse_size_bytes("0x1000"), Ok(4096));
        assert_eq!(parse_size_bytes("1.5m"), Ok(3 * MIB / 2));
        assert_eq!(parse_size_bytes_with("240GB", KbBase::Decimal), Ok(240 * GB));
        assert_eq!(parse_size_bytes_with("4k", KbBase::Decimal), Ok(4000));
        assert_eq!(parse_size_bytes_with("4KiB", KbBase::Decimal), Ok(4096));
        assert!(parse_size_bytes("abc").is_err());
        assert!(parse_size_bytes("4q").is_err());
        assert!(parse_size_bytes("").is_err());
        assert!(parse_size_bytes("20000000p").is_err());
        assert!(parse_size_bytes("0.3").is_err());
    }

    #[test]
    fn times_parse_like_fio() {
        assert_eq!(parse_time_ns("10", TimeUnit::Seconds), Ok(10_000_000_000));
        assert_eq!(parse_time_ns("10", TimeUnit::Microseconds), Ok(10_000));
        assert_eq!(parse_time_ns("3m", TimeUnit::Microseconds), Ok(180_000_000_000));
        assert_eq!(parse_time_ns("500msec", TimeUnit::Seconds), Ok(500_000_000));
        assert_eq!(parse_time_ns("2d", TimeUnit::Seconds), Ok(172_800_000_000_000));
        assert_eq!(parse_time_ns("1.5s", TimeUnit::Seconds), Ok(1_500_000_000));
        assert!(parse_time_ns("10min", TimeUnit::Seconds).is_err());
        assert!(parse_time_ns("999999999999d", TimeUnit::Seconds).is_err());
        assert!(parse_time_ns("", TimeUnit::Seconds).is_err());
    }
}
