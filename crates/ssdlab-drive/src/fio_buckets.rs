//! fio's latency histogram buckets (`stat.h`'s `FIO_IO_U_PLAT_*`): 1,856 buckets of
//! nanoseconds, exact below 128 ns, then 64 buckets per power of two (each about 1.6% wide),
//! the last holding everything from about 17.2 s up. fio's `--output-format=json+` lists each
//! latency's non-empty buckets (`bins`) by the value fio gives the bucket (`plat_idx_to_val`:
//! the middle of its range).

use hdrhistogram::Histogram;
use std::collections::BTreeMap;

/// Bits of a latency kept within a power of two (`FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Buckets per power of two (`FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Buckets in all (`FIO_IO_U_PLAT_NR`: 29 groups of 64).
pub(crate) const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// The bucket of a latency of `ns` nanoseconds (fio's `plat_val_to_idx`).
pub(crate) fn bucket_of(ns: u64) -> usize {
    let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
    if msb <= PLAT_BITS {
        return ns as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (ns >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// The value fio gives bucket `index`, ns (`plat_idx_to_val`: exact below 128, else the middle
/// of the bucket's range, cut to an integer).
pub(crate) fn bucket_value(index: usize) -> u64 {
    debug_assert!(index < PLAT_NR);
    if index < (PLAT_VAL << 1) as usize {
        return index as u64;
    }
    let error_bits = (index as u64 >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = index as u64 % PLAT_VAL;
    // fio: base + ((k + 0.5) * (1 << error_bits)), in floating point, then cut.
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// The latencies of `h` in fio's buckets: (the bucket's value, commands), ascending, non-empty
/// buckets only. Each of the histogram's own buckets (3 significant figures, far narrower than
/// fio's above 2 us) counts in fio's bucket of its middle value, so a latency within 0.1% of
/// the edge of one of fio's buckets may count in its neighbour.
pub(crate) fn fio_bins(h: &Histogram<u64>) -> Vec<(u64, u64)> {
    let mut counts: BTreeMap<usize, u64> = BTreeMap::new();
    for v in h.iter_recorded() {
        *counts.entry(bucket_of(h.median_equivalent(v.value_iterated_to()))).or_default() += v.count_at_value();
    }
    counts.into_iter().map(|(index, n)| (bucket_value(index), n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::histogram;

    #[test]
    fn buckets_are_fios() {
        // Exact up to 127 ns; then 64 per power of two.
        assert_eq!((bucket_of(0), bucket_of(100), bucket_of(127)), (0, 100, 127));
        assert_eq!((bucket_of(128), bucket_of(129), bucket_of(130)), (128, 128, 129));
        assert_eq!((bucket_value(128), bucket_value(129)), (129, 131));
        // 1 ms: msb 19, 13 error bits, base 14 * 64 = 896, offset (1e6 >> 13) & 63 = 122 & 63.
        assert_eq!(bucket_of(1_000_000), 896 + (122 & 63));
        // Every bucket's value falls in that bucket, and buckets rise with their values.
        for index in 0..PLAT_NR - 1 {
            assert_eq!(bucket_of(bucket_value(index)), index, "bucket {index}");
            assert!(bucket_value(index + 1) > bucket_value(index));
        }
        // Everything past about 17.2 s is the last bucket.
        assert_eq!(bucket_of(3_600_000_000_000), PLAT_NR - 1);
        assert_eq!(bucket_of(u64::MAX), PLAT_NR - 1);
    }

    #[test]
    fn bins_count_every_latency_once_in_its_bucket() {
        let mut h = histogram();
        let latencies = [90u64, 90, 1_000, 1_003, 50_000, 50_500, 2_000_000];
        for ns in latencies {
            h.record(ns).unwrap();
        }
        let bins = fio_bins(&h);
        assert_eq!(bins.iter().map(|(_, n)| n).sum::<u64>(), latencies.len() as u64);
        assert!(bins.windows(2).all(|w| w[0].0 < w[1].0), "{bins:?}");
        assert_eq!(bins[0], (90, 2));
        // 1,000 and 1,003 ns share one of fio's buckets (16 ns wide there).
        assert_eq!(bins[1], (bucket_value(bucket_of(1_000)), 2));
        for ns in [50_000, 50_500, 2_000_000] {
            assert!(bins.iter().any(|&(v, _)| v == bucket_value(bucket_of(ns))), "{ns} {bins:?}");
        }
    }
}
