//! Latency histograms and the per-second series of a run.

use crate::fio_buckets::fio_bins;
use crate::latency_moments::LatencyMoments;
use hdrhistogram::Histogram;
use serde::Serialize;
use ssdlab_core::time::NS_PER_S;
use ssdlab_core::Nanoseconds;
use ssdlab_workload::Op;

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LatencySummary {
    /// Mean: the measured one, exact.
    pub mean: f64,
    /// Smallest: the exact latency measured.
    pub min: f64,
    /// Sample standard deviation, as fio's (`sqrt(S / (n - 1))`, 0 for one command): of the
    /// exact latencies, not of the histogram's buckets.
    pub stddev: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest: the exact latency measured (the percentiles are a histogram's, to 3
    /// significant figures).
    pub max: f64,
    /// The percentiles the job asked for (fio's `percentile_list`, by default fio's own list:
    /// 1, 5, 10, ..., 99.99), each as (percentile, microseconds), ascending.
    pub percentiles: Vec<(f64, f64)>,
    /// How the latencies fall in fio's ranges (its JSON's `latency_ns`, `latency_us`,
    /// `latency_ms`).
    pub shares: LatencyShares,
    /// The latencies in fio's histogram buckets (its `--output-format=json+` `bins`), each as
    /// (the bucket's value as fio names it, ns; commands), ascending; only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fio_bins: Option<Vec<(u64, u64)>>,
}

/// fio's latency distribution: the share (%) of the commands whose latency falls in each of
/// fio's ranges, as its JSON's `latency_ns`, `latency_us` and `latency_ms` give it. Each unit
/// has the ranges fio's `io_u_mark_latency` counts, keyed by their upper ends: under 2, 2 to 3,
/// 4 to 9, 10 to 19, 20 to 49, 50 to 99, 100 to 249, 250 to 499, 500 to 749, 750 to 999 (of
/// ns below 1 us, of whole us below 1 ms, of whole ms above), and for ms also 1,000 to 1,999
/// and 2,000 or more. From the latency histogram: exact below 2,048 ns, to its 3 significant
/// figures above (a latency within 0.1% of a range's edge may count in its neighbour). A range
/// with any command in it shows at least 0.01, as fio's.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencyShares {
    /// Shares of the ns ranges (keys `"2"` ... `"1000"`).
    pub ns: [f64; 10],
    /// Shares of the us ranges (keys `"2"` ... `"1000"`).
    pub us: [f64; 10],
    /// Shares of the ms ranges (keys `"2"` ... `"2000"`, `">=2000"`).
    pub ms: [f64; 12],
}

impl LatencyShares {
    /// The shares of the latencies recorded in `h`.
    fn of(h: &Histogram<u64>) -> Self {
        let mut counts = [[0u64; 12]; 3];
        for v in h.iter_recorded() {
            let (unit, range) = fio_latency_range(h.median_equivalent(v.value_iterated_to()));
            counts[unit][range] += v.count_at_value();
        }
        let total = h.len().max(1) as f64;
        // fio shows a range with commands in it as at least 0.01% (its `stat_calc_lat`).
        let share = |c: u64| if c > 0 { (c as f64 * 100.0 / total).max(0.01) } else { 0.0 };
        let mut out = Self::default();
        for (i, c) in counts[0].iter().take(10).enumerate() {
            out.ns[i] = share(*c);
        }
        for (i, c) in counts[1].iter().take(10).enumerate() {
            out.us[i] = share(*c);
        }
        for (i, c) in counts[2].iter().enumerate() {
            out.ms[i] = share(*c);
        }
        out
    }
}

/// fio's range of a latency of `ns` nanoseconds: its unit (0 ns, 1 us, 2 ms) and the range in
/// that unit, as fio's `io_u_mark_lat_nsec`/`_usec`/`_msec` split them.
pub(crate) fn fio_latency_range(ns: u64) -> (usize, usize) {
    let (unit, value) = if ns < 1_000 {
        (0, ns)
    } else if ns < 1_000_000 {
        (1, ns / 1_000)
    } else {
        (2, ns / 1_000_000)
    };
    let range = match value {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        750..=999 => 9,
        1_000..=1_999 => 10,
        _ => 11,
    };
    (unit, range)
}

/// One second of a run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SeriesRow {
    /// Second since the run started (completions in `[second, second + 1)`).
    pub second: u64,
    /// Simulated seconds the row covers: 1, except for the run's last row, which ends at the
    /// last completion; its rates are per second of that span.
    pub span_seconds: f64,
    /// Commands completed per second.
    pub iops: f64,
    /// MB/s read (10^6 bytes).
    pub read_mbps: f64,
    /// MB/s written (10^6 bytes).
    pub write_mbps: f64,
    /// Mean latency of the commands completed, microseconds.
    pub mean_latency_us: f64,
    /// Largest latency of the commands completed, microseconds.
    pub max_latency_us: f64,
    /// Free blocks over the whole array at the end of the second.
    pub free_blocks: u64,
    /// NAND bytes programmed / host bytes written since the run started.
    pub write_amplification: f64,
    /// Controller temperature at the end of the second, degrees Celsius (drives with a thermal
    /// model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_c: Option<f64>,
    /// NAND temperature at the end of the second, degrees Celsius (thermal model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nand_c: Option<f64>,
    /// Throttling step engaged at the end of the second (0: none; thermal model only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttle_step: Option<u32>,
}

/// Most rows a per-second series keeps (about 46 days); a longer run stops adding rows (and
/// says so) rather than growing without bound.
pub const MAX_SERIES_ROWS: usize = 4_000_000;

/// Snapshot of drive state taken when a second closes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Snapshot {
    pub free_blocks: u64,
    pub write_amplification: f64,
    pub thermal: Option<crate::ThermalState>,
}

#[derive(Debug, Clone, Default)]
struct Bucket {
    ios: u64,
    read_bytes: u64,
    write_bytes: u64,
    latency_sum_ns: u128,
    latency_max_ns: u64,
}

/// Latencies of completed commands by kind, their exact sum and each kind's exact largest: a
/// run's (in [`Metrics`]) and each job's of a group (`run/job_tally.rs`). The histograms give
/// the percentiles (3 significant figures); every mean and every maximum is the measured value
/// (from each kind's exact sum and largest), not a bucket's. The histogram of all commands is
/// the kinds' sum, made when asked for (one histogram recorded per command instead of two: the
/// same counts, so the same figures).
#[derive(Debug, Clone)]
pub(crate) struct Latencies {
    reads: Histogram<u64>,
    writes: Histogram<u64>,
    trims: Histogram<u64>,
    /// Each kind's exact moments (sum, sum of squares, smallest, largest), by `Op::index`.
    moments: [LatencyMoments; 3],
}

impl Latencies {
    pub fn new() -> Self {
        Self { reads: histogram(), writes: histogram(), trims: histogram(), moments: [LatencyMoments::default(); 3] }
    }

    /// Record one completed command's latency.
    #[inline]
    pub fn record(&mut self, op: Op, latency_ns: Nanoseconds) {
        let value = latency_ns.clamp(1, 3_600 * NS_PER_S);
        match op {
            Op::Read => self.reads.saturating_record(value),
            Op::Write => self.writes.saturating_record(value),
            Op::Trim => self.trims.saturating_record(value),
        }
        self.moments[op.index()].record(latency_ns);
    }

    /// Commands recorded of kind `op`.
    pub fn count(&self, op: Op) -> u64 {
        self.of(op).len()
    }

    fn of(&self, op: Op) -> &Histogram<u64> {
        match op {
            Op::Read => &self.reads,
            Op::Write => &self.writes,
            Op::Trim => &self.trims,
        }
    }

    /// Every command's latency (the mean exact, from the sum), with the percentiles `list` (and
    /// fio's buckets when `bins`).
    pub fn all(&self, list: &[f64], bins: bool) -> Option<LatencySummary> {
        let mut all = self.reads.clone();
        all.add(&self.writes).expect("histograms of the same bounds");
        all.add(&self.trims).expect("histograms of the same bounds");
        let moments = self.moments[0].merged(&self.moments[1]).merged(&self.moments[2]);
        Metrics::summarize(&all, &moments, list, bins)
    }

    /// The latency of the commands of kind `op`, with the percentiles `list` (and fio's
    /// buckets when `bins`).
    pub fn of_kind(&self, op: Op, list: &[f64], bins: bool) -> Option<LatencySummary> {
        Metrics::summarize(self.of(op), &self.moments[op.index()], list, bins)
    }
}

/// Collects per-command results.
#[derive(Debug, Clone)]
pub(crate) struct Metrics {
    latencies: Latencies,
    start_ns: Nanoseconds,
    second: u64,
    bucket: Bucket,
    pub series: Vec<SeriesRow>,
    truncated: bool,
}

pub(crate) fn histogram() -> Histogram<u64> {
    // 1 ns to one hour, 3 significant figures.
    Histogram::new_with_bounds(1, 3_600 * NS_PER_S, 3).expect("valid histogram bounds")
}

impl Metrics {
    pub fn new(start_ns: Nanoseconds) -> Self {
        Self { latencies: Latencies::new(), start_ns, second: 0, bucket: Bucket::default(), series: Vec::new(), truncated: false }
    }

    /// The second a completion at `at_ns` falls in.
    #[inline]
    pub fn second_of(&self, at_ns: Nanoseconds) -> u64 {
        (at_ns - self.start_ns) / NS_PER_S
    }

    /// Whether a completion at `at_ns` closes the current second.
    #[inline]
    pub fn closes_second(&self, at_ns: Nanoseconds) -> bool {
        self.second_of(at_ns) > self.second
    }

    /// Close every second before the one `at_ns` falls in, using `snapshot` for drive state.
    pub fn close_seconds_before(&mut self, at_ns: Nanoseconds, snapshot: Snapshot) {
        let target = self.second_of(at_ns);
        while self.second < target {
            if self.series.len() >= MAX_SERIES_ROWS {
                // Full: the rest of the run is in the summary only.
                self.bucket = Bucket::default();
                self.second = target;
                self.truncated = true;
                return;
            }
            self.close_current(snapshot);
        }
    }

    /// Close the seconds before `at_ns` when the host has nothing in flight until then (a
    /// trace's idle gap): the current second as usual, then the whole idle seconds as one row
    /// spanning them (zero rates, `span_seconds` = their count). A trace with days of idle
    /// between requests so keeps a few rows per gap, not one per idle second.
    pub fn close_idle_before(&mut self, at_ns: Nanoseconds, snapshot: Snapshot) {
        let target = self.second_of(at_ns);
        if target <= self.second + 1 || self.series.len() + 2 > MAX_SERIES_ROWS {
            self.close_seconds_before(at_ns, snapshot);
            return;
        }
        self.close_current(snapshot);
        let idle_seconds = target - self.second;
        self.close_current_spanning(snapshot, idle_seconds as f64);
        self.second = target;
    }

    /// Whether the series stopped at [`MAX_SERIES_ROWS`].
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn close_current(&mut self, snapshot: Snapshot) {
        self.close_current_spanning(snapshot, 1.0);
    }

    fn close_current_spanning(&mut self, snapshot: Snapshot, span_seconds: f64) {
        let b = std::mem::take(&mut self.bucket);
        self.series.push(SeriesRow {
            second: self.second,
            span_seconds,
            iops: b.ios as f64 / span_seconds,
            read_mbps: b.read_bytes as f64 / 1e6 / span_seconds,
            write_mbps: b.write_bytes as f64 / 1e6 / span_seconds,
            mean_latency_us: if b.ios > 0 { b.latency_sum_ns as f64 / b.ios as f64 / 1e3 } else { 0.0 },
            max_latency_us: b.latency_max_ns as f64 / 1e3,
            free_blocks: snapshot.free_blocks,
            write_amplification: snapshot.write_amplification,
            controller_c: snapshot.thermal.map(|t| t.controller_c),
            nand_c: snapshot.thermal.map(|t| t.nand_c),
            throttle_step: snapshot.thermal.map(|t| t.throttle_step),
        });
        self.second += 1;
    }

    /// Record one completed command.
    #[inline]
    pub fn record(&mut self, op: Op, bytes: u64, latency_ns: Nanoseconds) {
        self.latencies.record(op, latency_ns);
        match op {
            Op::Read => self.bucket.read_bytes += bytes,
            Op::Write => self.bucket.write_bytes += bytes,
            Op::Trim => {}
        }
        self.bucket.ios += 1;
        self.bucket.latency_sum_ns += latency_ns as u128;
        self.bucket.latency_max_ns = self.bucket.latency_max_ns.max(latency_ns);
    }

    /// Close the last, partial second (when anything completed in it), which ends at `end_ns`:
    /// its rates are per second of the span it covers. A second that starts at or after
    /// `end_ns` (only the drain of a time-based run, after its runtime) gets no row: those
    /// completions count in the summary, not as a spuriously low last point.
    pub fn finish(&mut self, snapshot: Snapshot, end_ns: Nanoseconds) {
        let second_start = self.start_ns + self.second * NS_PER_S;
        if self.bucket.ios > 0 && end_ns > second_start && self.series.len() < MAX_SERIES_ROWS {
            let span_ns = (end_ns - second_start).min(NS_PER_S);
            self.close_current_spanning(snapshot, span_ns as f64 / NS_PER_S as f64);
        }
    }

    /// The figures of the latencies in `h`: percentiles from the histogram (p50, p99, p99.9
    /// and those of `list`); the mean, standard deviation, smallest and largest from the same
    /// latencies' exact `moments` (the values recorded, not their buckets'); with `bins`, the
    /// latencies in fio's buckets.
    pub(crate) fn summarize(h: &Histogram<u64>, moments: &LatencyMoments, list: &[f64], bins: bool) -> Option<LatencySummary> {
        if h.is_empty() {
            return None;
        }
        // A percentile is its histogram bucket's highest value, which may lie above the largest
        // latency measured: never shown above it.
        let max_ns = moments.max_ns;
        let at = |quantile: f64| h.value_at_quantile(quantile).min(max_ns.max(1)) as f64 / 1e3;
        Some(LatencySummary {
            mean: moments.mean_ns() / 1e3,
            min: moments.min_or_zero_ns() as f64 / 1e3,
            stddev: moments.stddev_ns() / 1e3,
            p50: at(0.5),
            p99: at(0.99),
            p999: at(0.999),
            max: max_ns as f64 / 1e3,
            percentiles: list.iter().map(|&p| (p, at(p / 100.0))).collect(),
            shares: LatencyShares::of(h),
            fio_bins: bins.then(|| fio_bins(h)),
        })
    }

    pub fn latency_all(&self, list: &[f64], bins: bool) -> Option<LatencySummary> {
        self.latencies.all(list, bins)
    }

    pub fn latency_reads(&self, list: &[f64], bins: bool) -> Option<LatencySummary> {
        self.latencies.of_kind(Op::Read, list, bins)
    }

    pub fn latency_writes(&self, list: &[f64], bins: bool) -> Option<LatencySummary> {
        self.latencies.of_kind(Op::Write, list, bins)
    }

    pub fn latency_trims(&self, list: &[f64], bins: bool) -> Option<LatencySummary> {
        self.latencies.of_kind(Op::Trim, list, bins)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_fall_in_fios_ranges() {
        // fio's io_u_mark_lat_*: under 2, 2-3, 4-9, ... 750-999 of each unit; ms also 1,000-1,999 and more.
        let cases = [
            (1, (0, 0)),
            (2, (0, 1)),
            (999, (0, 9)),
            (1_000, (1, 0)),
            (19_999, (1, 3)),
            (20_000, (1, 4)),
            (999_999, (1, 9)),
            (1_000_000, (2, 0)),
            (1_999_999_999, (2, 10)),
            (2_000_000_000, (2, 11)),
        ];
        for (ns, expected) in cases {
            assert_eq!(fio_latency_range(ns), expected, "{ns} ns");
        }
        let mut h = histogram();
        for ns in [500, 1_500, 1_500, 30_000] {
            h.record(ns).unwrap();
        }
        let shares = LatencyShares::of(&h);
        assert_eq!((shares.ns[8], shares.us[0], shares.us[4]), (25.0, 50.0, 25.0), "{shares:?}");
        assert_eq!(shares.ns.iter().chain(&shares.us).chain(&shares.ms).sum::<f64>(), 100.0);
        // One command in 100,000 still shows, as fio's 0.01.
        let mut rare = histogram();
        rare.record_n(1_500, 99_999).unwrap();
        rare.record(5_000_000).unwrap();
        assert_eq!(LatencyShares::of(&rare).ms[2], 0.01);
    }

    const SNAP: Snapshot = Snapshot { free_blocks: 0, write_amplification: 1.0, thermal: None };

    #[test]
    fn the_last_partial_second_is_a_rate_over_its_span_and_a_pure_drain_gets_no_row() {
        let mut m = Metrics::new(0);
        for _ in 0..100 {
            m.record(Op::Write, 4096, 1_000);
        }
        m.close_seconds_before(NS_PER_S + 1, SNAP);
        for _ in 0..30 {
            m.record(Op::Write, 4096, 1_000);
        }
        m.finish(SNAP, NS_PER_S + NS_PER_S / 4);
        assert_eq!(m.series.len(), 2);
        assert_eq!(m.series[0].iops, 100.0);
        assert_eq!(m.series[1].span_seconds, 0.25);
        assert_eq!(m.series[1].iops, 120.0);
        // Completions only after the end (a time-based run's drain): no row.
        let mut m = Metrics::new(0);
        m.record(Op::Write, 4096, 1_000);
        m.close_seconds_before(NS_PER_S + 5, SNAP);
        m.record(Op::Write, 4096, 1_000);
        m.finish(SNAP, NS_PER_S);
        assert_eq!(m.series.len(), 1);
    }

    #[test]
    fn the_largest_latency_is_the_one_measured_not_its_histogram_bucket() {
        // 1,234,567 ns is kept to 3 significant figures by the histogram (its bucket's highest
        // value is 1,234,943 ns); the summary's maximum is the measured value.
        let mut l = Latencies::new();
        l.record(Op::Write, 1_000);
        l.record(Op::Write, 1_234_567);
        l.record(Op::Read, 76_543);
        assert_ne!(l.of(Op::Write).max(), 1_234_567, "the value must be one the histogram rounds");
        assert_eq!(l.of_kind(Op::Write, &[], false).unwrap().max, 1_234.567);
        assert_eq!(l.of_kind(Op::Read, &[], false).unwrap().max, 76.543);
        assert_eq!(l.all(&[], false).unwrap().max, 1_234.567);
        assert!(l.of_kind(Op::Trim, &[], false).is_none());
        // The run's figures (`Metrics`) are the same `Latencies`.
        let mut m = Metrics::new(0);
        m.record(Op::Read, 4096, 76_543);
        m.record(Op::Write, 4096, 1_234_567);
        assert_eq!(m.latency_reads(&[], false).unwrap().max, 76.543);
        assert_eq!(m.latency_writes(&[], false).unwrap().max, 1_234.567);
        assert_eq!(m.latency_all(&[], false).unwrap().max, 1_234.567);
    }

    #[test]
    fn each_kind_s_mean_is_the_measured_mean_not_the_histogram_s() {
        // Two writes of 1,234,567 and 1,000 ns: mean 617,783.5 ns exactly; the histogram's
        // mean is of its buckets' values.
        let mut l = Latencies::new();
        l.record(Op::Write, 1_000);
        l.record(Op::Write, 1_234_567);
        l.record(Op::Read, 76_543);
        assert_ne!(l.of(Op::Write).mean(), 617_783.5, "the values must be ones the histogram rounds");
        assert_eq!(l.of_kind(Op::Write, &[], false).unwrap().mean, 617.7835);
        assert_eq!(l.of_kind(Op::Read, &[], false).unwrap().mean, 76.543);
        assert_eq!(l.all(&[], false).unwrap().mean, (1_000.0 + 1_234_567.0 + 76_543.0) / 3.0 / 1e3);
    }

    #[test]
    fn an_idle_gap_is_one_row_spanning_its_seconds() {
        let mut m = Metrics::new(0);
        m.record(Op::Write, 4096, 1_000);
        // Nothing in flight until a week later.
        let week_ns = 7 * 86_400 * NS_PER_S + NS_PER_S / 2;
        m.close_idle_before(week_ns, SNAP);
        m.record(Op::Write, 4096, 1_000);
        m.finish(SNAP, week_ns + NS_PER_S / 4);
        assert_eq!(m.series.len(), 3, "{:?}", m.series);
        assert_eq!((m.series[0].second, m.series[0].iops), (0, 1.0));
        assert_eq!((m.series[1].second, m.series[1].span_seconds, m.series[1].iops), (1, (7 * 86_400 - 1) as f64, 0.0));
        assert_eq!(m.series[2].second, 7 * 86_400);
        let covered: f64 = m.series[..2].iter().map(|r| r.span_seconds).sum();
        assert_eq!(covered, (7 * 86_400) as f64);
        // A gap of less than two seconds is closed second by second, as before.
        let mut m = Metrics::new(0);
        m.record(Op::Write, 4096, 1_000);
        m.close_idle_before(NS_PER_S + 1, SNAP);
        assert_eq!(m.series.len(), 1);
    }

    #[test]
    fn the_smallest_and_the_deviation_are_the_measured_ones() {
        // 1,234,567 and 1,000 ns writes: the smallest exact, the deviation fio's sqrt(S/(n-1))
        // of the exact values (the histogram keeps 1,234,567 to 3 figures).
        let mut l = Latencies::new();
        l.record(Op::Write, 1_234_567);
        l.record(Op::Write, 1_000);
        l.record(Op::Read, 76_543);
        let w = l.of_kind(Op::Write, &[], false).unwrap();
        assert_eq!(w.min, 1.0);
        let dev = ((1_234_567.0f64 - 1_000.0) / 2.0) * 2.0f64.sqrt() / 1e3;
        assert!((w.stddev - dev).abs() < 1e-9, "{} {dev}", w.stddev);
        let r = l.of_kind(Op::Read, &[], false).unwrap();
        assert_eq!((r.min, r.stddev), (76.543, 0.0));
        let all = l.all(&[], false).unwrap();
        assert_eq!(all.min, 1.0);
        let mean = (1_234_567.0 + 1_000.0 + 76_543.0) / 3.0;
        let s: f64 = [1_234_567.0f64, 1_000.0, 76_543.0].iter().map(|v| (v - mean) * (v - mean)).sum();
        assert!((all.stddev - (s / 2.0).sqrt() / 1e3).abs() < 1e-9, "{}", all.stddev);
    }

    #[test]
    fn percentiles_are_the_lists_and_never_above_the_largest_latency() {
        let mut l = Latencies::new();
        // Every latency 19,000 ns: its histogram bucket's highest value is 19,007 ns.
        for _ in 0..64 {
            l.record(Op::Trim, 19_000);
        }
        let s = l.of_kind(Op::Trim, &[1.0, 50.0, 99.99], false).unwrap();
        assert_eq!((s.p50, s.p99, s.p999, s.max), (19.0, 19.0, 19.0, 19.0));
        assert_eq!(s.percentiles, vec![(1.0, 19.0), (50.0, 19.0), (99.99, 19.0)]);
        // Spread latencies: the list rises with the percentile, its median is p50.
        let mut l = Latencies::new();
        for k in 1..=1000u64 {
            l.record(Op::Read, k * 1_000);
        }
        let s = l.all(&ssdlab_workload::FIO_DEFAULT_PERCENTILES, false).unwrap();
        assert_eq!(s.percentiles.len(), 17);
        assert!(s.percentiles.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1), "{:?}", s.percentiles);
        assert_eq!(s.percentiles[6], (50.0, s.p50));
        assert!(s.percentiles[16].1 <= s.max && s.percentiles[0].1 < s.percentiles[16].1);
    }
}
