//! Exact decimal timestamps: `1456135200.013118000` seconds or `1577808000000626`
//! microseconds to integer nanoseconds, without floating point (epoch timestamps carry more
//! digits than an `f64` keeps).

/// `text`, a non-negative decimal number of units of `unit_ns` nanoseconds each, in whole
/// nanoseconds (digits below a nanosecond are rounded half up). `what` names the field in
/// messages.
pub(crate) fn decimal_ns(text: &str, unit_ns: u64, what: &str) -> Result<u64, String> {
    let t = text.trim();
    let not_a_number = || format!("{what}: `{t}` is not a non-negative decimal number");
    let (whole, fraction) = match t.split_once('.') {
        Some((w, f)) => (w, f),
        None => (t, ""),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return Err(not_a_number());
    }
    let too_large = || format!("{what}: `{t}` is too large a time");
    let whole_value: u128 = if whole.is_empty() { 0 } else { whole.parse::<u128>().map_err(|_| too_large())? };
    // Nanoseconds from the fraction: only the first 30 digits can matter (a unit is at most
    // 10^9 ns, and rounding looks at one digit past a nanosecond).
    let kept = &fraction[..fraction.len().min(30)];
    let fraction_ns: u128 = if kept.is_empty() {
        0
    } else {
        let numerator = kept.parse::<u128>().map_err(|_| not_a_number())? * unit_ns as u128;
        let denominator = 10u128.pow(kept.len() as u32);
        (numerator + denominator / 2) / denominator
    };
    let ns = whole_value.checked_mul(unit_ns as u128).and_then(|n| n.checked_add(fraction_ns)).ok_or_else(too_large)?;
    u64::try_from(ns).map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::decimal_ns;

    #[test]
    fn epoch_seconds_with_nine_fraction_digits_are_exact() {
        assert_eq!(decimal_ns("1456135200.013118000", 1_000_000_000, "t"), Ok(1_456_135_200_013_118_000));
        assert_eq!(decimal_ns("1577808000000626", 1_000, "t"), Ok(1_577_808_000_000_626_000));
        assert_eq!(decimal_ns("0.0000000005", 1_000_000_000, "t"), Ok(1));
        assert_eq!(decimal_ns(".5", 1_000, "t"), Ok(500));
        assert_eq!(decimal_ns("7.", 1, "t"), Ok(7));
    }

    #[test]
    fn garbage_and_overflow_are_refused() {
        for bad in ["", ".", "-1", "1e9", "0x10", "1.2.3", " ", "nan"] {
            assert!(decimal_ns(bad, 1, "t").is_err(), "{bad}");
        }
        assert!(decimal_ns("99999999999999999999", 1_000_000_000, "t").unwrap_err().contains("too large"));
    }
}
