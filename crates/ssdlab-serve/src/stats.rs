//! What a served drive reports: request counts, latency percentiles, a per-second series, and
//! the drive's own figures (write amplification, data reduction, GC, free blocks, wear), with
//! the keys `ssdlab run --json` uses where they mean the same.

use hdrhistogram::Histogram;
use serde_json::{json, Value};
use ssdlab_core::time::{seconds, NS_PER_S};
use ssdlab_core::Nanoseconds;
use ssdlab_drive::Session;

/// Per-second rows kept (about 11 days); older seconds are dropped from the front.
const SERIES_ROWS: usize = 1_000_000;

#[derive(Debug, Clone, Default)]
struct Second {
    reads: u64,
    writes: u64,
    trims: u64,
    flushes: u64,
    read_bytes: u64,
    write_bytes: u64,
}

/// Counters and histograms of a serving session.
pub struct ServeStats {
    start_ns: Nanoseconds,
    latency: Histogram<u64>,
    /// The longest request, exact (the histogram keeps 3 significant figures).
    latency_max_ns: Nanoseconds,
    /// The sum of every request's latency (the mean as measured, not the histogram's).
    latency_sum_ns: u128,
    reads: u64,
    writes: u64,
    trims: u64,
    flushes: u64,
    read_bytes: u64,
    write_bytes: u64,
    trim_bytes: u64,
    series: std::collections::VecDeque<(u64, Second)>,
    last_ns: Nanoseconds,
}

impl ServeStats {
    /// Statistics from simulated time `start_ns` on.
    pub fn new(start_ns: Nanoseconds) -> Self {
        Self {
            start_ns,
            latency: Histogram::new_with_bounds(1, 3_600 * NS_PER_S, 3).expect("valid histogram bounds"),
            latency_max_ns: 0,
            latency_sum_ns: 0,
            reads: 0,
            writes: 0,
            trims: 0,
            flushes: 0,
            read_bytes: 0,
            write_bytes: 0,
            trim_bytes: 0,
            series: Default::default(),
            last_ns: start_ns,
        }
    }

    fn second(&mut self, at_ns: Nanoseconds) -> &mut Second {
        let s = (at_ns.saturating_sub(self.start_ns)) / NS_PER_S;
        if self.series.back().is_none_or(|(last, _)| *last != s) {
            self.series.push_back((s, Second::default()));
            if self.series.len() > SERIES_ROWS {
                self.series.pop_front();
            }
        }
        &mut self.series.back_mut().expect("just pushed").1
    }

    fn finish(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds) {
        let latency_ns = done_ns - at_ns;
        self.latency.saturating_record(latency_ns.clamp(1, 3_600 * NS_PER_S));
        self.latency_max_ns = self.latency_max_ns.max(latency_ns);
        self.latency_sum_ns += latency_ns as u128;
        self.last_ns = self.last_ns.max(done_ns);
    }

    /// A read of `bytes` arriving at `at_ns` completed at `done_ns`.
    pub fn record_read(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds, bytes: u64) {
        self.reads += 1;
        self.read_bytes += bytes;
        let s = self.second(done_ns);
        s.reads += 1;
        s.read_bytes += bytes;
        self.finish(at_ns, done_ns);
    }

    /// A write.
    pub fn record_write(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds, bytes: u64) {
        self.writes += 1;
        self.write_bytes += bytes;
        let s = self.second(done_ns);
        s.writes += 1;
        s.write_bytes += bytes;
        self.finish(at_ns, done_ns);
    }

    /// A TRIM.
    pub fn record_trim(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds, bytes: u64) {
        self.trims += 1;
        self.trim_bytes += bytes;
        self.second(done_ns).trims += 1;
        self.finish(at_ns, done_ns);
    }

    /// A flush.
    pub fn record_flush(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds) {
        self.flushes += 1;
        self.second(done_ns).flushes += 1;
        self.finish(at_ns, done_ns);
    }

    /// The live summary.
    pub fn summary(&self, session: &Session, backing_path: &str) -> Value {
        let drive = session.drive();
        let f = drive.flash().counters();
        let d = drive.counters();
        let t = drive.translation();
        let nand = f.bytes_programmed_host + f.bytes_programmed_internal;
        let sim_s = seconds(self.last_ns.saturating_sub(self.start_ns)).max(1e-12);
        let wear = t.wear();
        let reduction = t.reduction_stats().map(|r| {
            let unit = t.ecc_unit_bytes().unwrap_or(512) as u64;
            let stored = r.host_units_written * unit;
            json!({
                "bytes_after_dedup": r.bytes_after_dedup,
                "bytes_after_compression": r.bytes_after_compression,
                "bytes_stored": stored,
                "data_reduction_ratio": (stored > 0).then(|| (r.host_sectors_written * 4096) as f64 / stored as f64),
                "dedup_hit_rate": (r.host_sectors_written > 0).then(|| r.dedup_hits as f64 / r.host_sectors_written as f64),
                "zero_sector_rate": (r.host_sectors_written > 0).then(|| r.zero_sectors as f64 / r.host_sectors_written as f64),
                "gc_chunks_moved": r.gc_chunks_moved,
            })
        });
        let allocated = std::fs::metadata(backing_path).map(|m| std::os::unix::fs::MetadataExt::blocks(&m) * 512).ok();
        let mut summary = json!({
            "profile": drive.profile().name,
            "simulated_seconds": seconds(session.now_ns().max(self.last_ns)),
            "served_simulated_seconds": sim_s,
            "ios": self.reads + self.writes + self.trims,
            "reads": self.reads,
            "writes": self.writes,
            "trims": self.trims,
            "flushes": self.flushes,
            "iops": (self.reads + self.writes + self.trims) as f64 / sim_s,
            "read_mbps": self.read_bytes as f64 / 1e6 / sim_s,
            "write_mbps": self.write_bytes as f64 / 1e6 / sim_s,
            "host_read_bytes": d.host_read_bytes,
            "host_write_bytes": d.host_write_bytes,
            "host_trim_bytes": d.host_trim_bytes,
            "nand_write_bytes": nand,
            "nand_write_bytes_host": f.bytes_programmed_host,
            "nand_write_bytes_gc": f.bytes_programmed_internal,
            "nand_read_bytes": f.bytes_read,
            "nand_block_erases": f.block_erases,
            "write_amplification": (d.host_write_bytes > 0).then(|| nand as f64 / d.host_write_bytes as f64),
            "latency_us": self.latency_us(),
            "wear": {"min": wear.min, "mean": wear.mean, "max": wear.max},
            "free_blocks": t.free_blocks_total(),
            "live_data_sectors": t.live_data_sectors(),
            "gc_moved": t.gc_moved(),
            "reduction": reduction,
            "backing_file": backing_path,
            "backing_allocated_bytes": allocated,
            "data_failure": drive.data_failure(),
            "map_page_reads": d.map_page_reads,
        });
        // Drives with an SLC cache: where the host's data landed (SLC or native blocks), what
        // folding and GC wrote, and the cache's state now, as `ssdlab run --json` reports them;
        // counted over the drive's life (a restart continues them, as it does WA and wear).
        if let Some(tiers) = ssdlab_drive::TierReport::since(None, drive) {
            summary["tiers"] = serde_json::to_value(tiers).unwrap_or_default();
        }
        summary
    }

    /// The requests' latency in microseconds (None before the first): percentiles from the
    /// histogram, the mean and the largest as measured (not from its buckets' values).
    fn latency_us(&self) -> Option<Value> {
        (!self.latency.is_empty()).then(|| {
            json!({
                "mean": self.latency_sum_ns as f64 / self.latency.len() as f64 / 1e3,
                "p50": self.latency.value_at_quantile(0.5) as f64 / 1e3,
                "p99": self.latency.value_at_quantile(0.99) as f64 / 1e3,
                "p999": self.latency.value_at_quantile(0.999) as f64 / 1e3,
                "max": self.latency_max_ns as f64 / 1e3,
            })
        })
    }

    /// The per-second series as CSV (`second` counts from the server's start).
    pub fn series_csv(&self) -> String {
        let mut out = String::from("second,reads,writes,trims,flushes,read_mbps,write_mbps\n");
        for (s, row) in &self.series {
            out.push_str(&format!(
                "{s},{},{},{},{},{},{}\n",
                row.reads,
                row.writes,
                row.trims,
                row.flushes,
                row.read_bytes as f64 / 1e6,
                row.write_bytes as f64 / 1e6
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_latency_is_the_one_measured_not_its_histogram_bucket() {
        let mut stats = ServeStats::new(0);
        stats.record_read(0, 5_000, 4096);
        stats.record_write(10, 10 + 1_234_567, 4096);
        assert_ne!(stats.latency.max(), 1_234_567, "the value must be one the histogram rounds");
        assert_eq!(stats.latency_us().unwrap()["max"], 1_234.567);
        assert_ne!(stats.latency.mean(), (5_000.0 + 1_234_567.0) / 2.0, "the mean must be one the histogram rounds");
        assert_eq!(stats.latency_us().unwrap()["mean"], (5_000.0 + 1_234_567.0) / 2.0 / 1e3);
        assert!(ServeStats::new(0).latency_us().is_none());
    }
}
