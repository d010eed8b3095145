//! The exact moments of a set of latencies: count, sum, sum of squares, smallest and largest,
//! kept beside each latency histogram so a summary's mean, standard deviation, minimum and
//! maximum are the measured values, not a bucket's (fio's `clat_ns` `min`, `max`, `mean`,
//! `stddev`).

use ssdlab_core::Nanoseconds;

/// Running moments of latencies in nanoseconds, in integers (exact and the same on every
/// machine: no floating point on the hot path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LatencyMoments {
    /// Latencies recorded.
    pub count: u64,
    /// Their sum.
    pub sum_ns: u128,
    /// The sum of their squares (saturating: an hour's latency squared is about 1.3e25, so it
    /// saturates only past 2.6e13 such commands).
    pub sum_sq_ns: u128,
    /// The smallest (`u64::MAX` before the first).
    pub min_ns: Nanoseconds,
    /// The largest.
    pub max_ns: Nanoseconds,
}

impl Default for LatencyMoments {
    fn default() -> Self {
        Self { count: 0, sum_ns: 0, sum_sq_ns: 0, min_ns: Nanoseconds::MAX, max_ns: 0 }
    }
}

impl LatencyMoments {
    /// Add one latency.
    #[inline]
    pub fn record(&mut self, latency_ns: Nanoseconds) {
        let v = latency_ns as u128;
        self.count += 1;
        self.sum_ns += v;
        self.sum_sq_ns = self.sum_sq_ns.saturating_add(v * v);
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// The moments of both sets together.
    pub fn merged(&self, other: &Self) -> Self {
        Self {
            count: self.count + other.count,
            sum_ns: self.sum_ns + other.sum_ns,
            sum_sq_ns: self.sum_sq_ns.saturating_add(other.sum_sq_ns),
            min_ns: self.min_ns.min(other.min_ns),
            max_ns: self.max_ns.max(other.max_ns),
        }
    }

    /// The mean (0 without latencies).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// The smallest (0 without latencies).
    pub fn min_or_zero_ns(&self) -> Nanoseconds {
        if self.count == 0 {
            0
        } else {
            self.min_ns
        }
    }

    /// The sample standard deviation, fio's `sqrt(S / (n - 1))` (0 for fewer than two): from
    /// `n * sum_sq - sum^2`, exact in integers where it fits in 128 bits, else in floating point.
    pub fn stddev_ns(&self) -> f64 {
        let n = self.count;
        if n < 2 {
            return 0.0;
        }
        let n128 = n as u128;
        let exact = n128.checked_mul(self.sum_sq_ns).zip(self.sum_ns.checked_mul(self.sum_ns)).map(|(a, b)| a.saturating_sub(b));
        let variance = match exact {
            Some(numerator) => numerator as f64 / (n as f64 * (n - 1) as f64),
            None => {
                let mean = self.mean_ns();
                ((self.sum_sq_ns as f64 / n as f64 - mean * mean) * n as f64 / (n - 1) as f64).max(0.0)
            }
        };
        variance.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's running statistics (`add_stat_sample`, Welford's method), for comparison.
    fn welford(values: &[u64]) -> (f64, f64) {
        let (mut mean, mut s) = (0.0f64, 0.0f64);
        for (i, &v) in values.iter().enumerate() {
            let delta = v as f64 - mean;
            mean += delta / (i as f64 + 1.0);
            s += delta * (v as f64 - mean);
        }
        let dev = if values.len() > 1 { (s / (values.len() - 1) as f64).sqrt() } else { 0.0 };
        (mean, dev)
    }

    #[test]
    fn moments_agree_with_fios_running_statistics() {
        let values: Vec<u64> = (0..10_000u64).map(|i| 50_000 + (i * 7_919) % 13_001 + if i % 97 == 0 { 4_000_000 } else { 0 }).collect();
        let mut m = LatencyMoments::default();
        for &v in &values {
            m.record(v);
        }
        let (mean, dev) = welford(&values);
        assert_eq!(m.count, 10_000);
        assert_eq!(m.min_or_zero_ns(), *values.iter().min().unwrap());
        assert_eq!(m.max_ns, *values.iter().max().unwrap());
        assert!((m.mean_ns() - mean).abs() < 1e-6 * mean, "{} {mean}", m.mean_ns());
        assert!((m.stddev_ns() - dev).abs() < 1e-9 * dev, "{} {dev}", m.stddev_ns());
    }

    #[test]
    fn merged_moments_are_the_moments_of_all_values() {
        let (a, b) = ([5u64, 9, 1_000], [7u64, 2_000_000]);
        let (mut ma, mut mb, mut all) = (LatencyMoments::default(), LatencyMoments::default(), LatencyMoments::default());
        a.iter().for_each(|&v| ma.record(v));
        b.iter().for_each(|&v| mb.record(v));
        a.iter().chain(&b).for_each(|&v| all.record(v));
        assert_eq!(ma.merged(&mb), all);
        assert_eq!(ma.merged(&LatencyMoments::default()), ma);
    }

    #[test]
    fn no_or_one_latency_has_no_deviation_and_equal_latencies_none_either() {
        let mut m = LatencyMoments::default();
        assert_eq!((m.min_or_zero_ns(), m.mean_ns(), m.stddev_ns()), (0, 0.0, 0.0));
        m.record(42);
        assert_eq!((m.min_or_zero_ns(), m.mean_ns(), m.stddev_ns()), (42, 42.0, 0.0));
        for _ in 0..1_000 {
            m.record(42);
        }
        assert_eq!(m.stddev_ns(), 0.0);
    }

    #[test]
    fn huge_sums_fall_back_to_floating_point() {
        // n * sum_sq overflows 128 bits: the floating-point path still gives the deviation.
        let (lo, hi, half) = (3_000_000_000_000u128, 3_600_000_000_000u128, 100_000_000u128);
        let m =
            LatencyMoments { count: (2 * half) as u64, sum_ns: half * (lo + hi), sum_sq_ns: half * (lo * lo + hi * hi), min_ns: lo as u64, max_ns: hi as u64 };
        assert!((m.count as u128).checked_mul(m.sum_sq_ns).is_none(), "the case must overflow");
        let n = (2 * half) as f64;
        let expected = ((hi - lo) as f64 / 2.0) * (n / (n - 1.0)).sqrt();
        assert!((m.stddev_ns() - expected).abs() < 1e-3 * expected, "{} {expected}", m.stddev_ns());
    }
}
