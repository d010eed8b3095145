//! Generated traces with the published statistics of the AnandTech Storage Bench workloads.
//!
//! The recorded traces are not public; these have the same request counts (exact), size mix,
//! sequential share and queue-depth profile (within a few tenths of a percent), from a seed.
//! Queue depth is built from bursts: requests of a burst arrive at the same instant, so the
//! k-th of a burst sees depth k; singletons see depth 1. Burst sizes are chosen so that the
//! share at depth 1 and the mean depth match.

use crate::record::{TraceOp, TraceRecord};
use ssdlab_core::{Error, Result, SimRng};
use std::io::Write;

const KIB: u64 = 1024;

/// A published workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Short name (`heavy2011`, ...).
    pub name: &'static str,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Request sizes and their shares (summing to 1).
    pub sizes: &'static [(u64, f64)],
    /// Share of sequential requests.
    pub sequential: f64,
    /// Mean queue depth.
    pub mean_qd: f64,
    /// Share of requests at queue depth 1.
    pub qd1: f64,
    /// Bytes of address space the requests fall in.
    pub span_bytes: u64,
    /// Mean time between bursts, nanoseconds.
    pub mean_gap_ns: u64,
    /// Where the figures come from, and what had to be assumed.
    pub source: &'static str,
}

/// The workloads of the articles.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "heavy2011",
        reads: 2_168_893,
        writes: 1_783_447,
        // Published: 4K 28%, 16K 10%, 32K 10%, 64K 4%. The other 48% are split between 8 KiB and
        // 128 KiB so that the writes total the published 106.32 GB.
        sizes: &[(4 * KIB, 0.28), (8 * KIB, 0.0975), (16 * KIB, 0.10), (32 * KIB, 0.10), (64 * KIB, 0.04), (128 * KIB, 0.3825)],
        sequential: 0.42,
        mean_qd: 4.625,
        qd1: 0.59,
        span_bytes: 80_000_000_000,
        mean_gap_ns: 1_000_000,
        source: "AnandTech Storage Bench 2011 Heavy (seed 000): counts, sizes, 42% sequential, mean QD 4.625, 59% at QD1, 106.32 GB written",
    },
    Workload {
        name: "light2011",
        reads: 372_630,
        writes: 459_709,
        // Published: 4K 27%, 16K 8%, 32K 6%, 64K 5%; the other 54% assumed half 8 KiB, half 128 KiB.
        sizes: &[(4 * KIB, 0.27), (8 * KIB, 0.27), (16 * KIB, 0.08), (32 * KIB, 0.06), (64 * KIB, 0.05), (128 * KIB, 0.27)],
        sequential: 0.62,
        mean_qd: 2.2029,
        qd1: 0.75,
        span_bytes: 80_000_000_000,
        mean_gap_ns: 2_000_000,
        source: "AnandTech Storage Bench 2011 Light (seed 003): counts, sizes, over 60% sequential (62% used), mean QD 2.2029; 75% at QD1 assumed",
    },
    Workload {
        name: "light2010",
        reads: 37_501,
        writes: 20_268,
        sizes: &[(4 * KIB, 0.30), (8 * KIB, 0.12), (16 * KIB, 0.11), (32 * KIB, 0.22), (64 * KIB, 0.13), (128 * KIB, 0.12)],
        sequential: 0.28,
        mean_qd: 6.09,
        qd1: 0.60,
        span_bytes: 40_000_000_000,
        mean_gap_ns: 5_000_000,
        source: "AnandTech Storage Bench 2010 light (seed 001): counts, sizes (rest split 8K/128K), under 30% sequential (28% used), mean QD 6.09; 60% at QD1 assumed",
    },
    Workload {
        name: "heavy2010",
        reads: 128_895,
        writes: 72_411,
        sizes: &[(4 * KIB, 0.30), (8 * KIB, 0.12), (16 * KIB, 0.12), (32 * KIB, 0.14), (64 * KIB, 0.20), (128 * KIB, 0.12)],
        sequential: 0.44,
        mean_qd: 3.59,
        qd1: 0.60,
        span_bytes: 40_000_000_000,
        mean_gap_ns: 6_500_000,
        source: "AnandTech Storage Bench 2010 heavy (seed 001): counts, sizes (rest split 8K/128K), 44% sequential, mean QD 3.59; 60% at QD1 assumed",
    },
    Workload {
        name: "gaming2010",
        reads: 75_206,
        writes: 4_592,
        sizes: &[(4 * KIB, 0.20), (16 * KIB, 0.10), (32 * KIB, 0.20), (64 * KIB, 0.40), (128 * KIB, 0.10)],
        sequential: 0.69,
        mean_qd: 7.76,
        qd1: 0.55,
        span_bytes: 40_000_000_000,
        mean_gap_ns: 5_000_000,
        source: "AnandTech Storage Bench 2010 gaming (seed 001): counts, sizes (rest split 16K/128K), 69% sequential, mean QD 7.76; 55% at QD1 assumed",
    },
];

impl Workload {
    /// A workload by name.
    pub fn by_name(name: &str) -> Option<&'static Workload> {
        WORKLOADS.iter().find(|w| w.name == name)
    }

    /// Names of all workloads.
    pub fn names() -> Vec<&'static str> {
        WORKLOADS.iter().map(|w| w.name).collect()
    }

    /// Requests in all.
    pub fn requests(&self) -> u64 {
        self.reads + self.writes
    }
}

/// Exactly `round(n * share)` of each value (the last takes the rounding rest), shuffled.
fn exact_mix<T: Copy>(rng: &mut SimRng, n: u64, shares: &[(T, f64)]) -> Vec<T> {
    let mut out = Vec::with_capacity(n as usize);
    for (i, &(value, share)) in shares.iter().enumerate() {
        let count = if i + 1 == shares.len() { n - out.len() as u64 } else { ((n as f64) * share).round() as u64 };
        out.extend(std::iter::repeat_n(value, count as usize));
    }
    out.truncate(n as usize);
    for i in (1..out.len()).rev() {
        out.swap(i, rng.below(i as u64 + 1) as usize);
    }
    out
}

/// Burst sizes whose singletons give the QD1 share and whose depths average the mean.
fn bursts(rng: &mut SimRng, n: u64, qd1: f64, mean_qd: f64) -> Vec<u32> {
    let singles_and_heads = ((n as f64) * qd1).round() as u64; // one depth-1 request per burst
    let rest = n - singles_and_heads; // requests beyond the first of a burst
    if rest == 0 {
        return vec![1; n as usize];
    }
    // With bursts of size m (m - 1 extra requests each), sum of depths = B + rest * (m + 2) / 2.
    let m = (2.0 * (mean_qd * n as f64 - singles_and_heads as f64) / rest as f64 - 2.0).max(2.0);
    let low = m.floor().max(2.0) as u64;
    // Mix sizes `low` and `low + 1`: extra requests per burst (low - 1) and low.
    let frac = m - low as f64;
    let mut sizes = Vec::new();
    let mut left = rest;
    let mut acc = 0.0;
    while left > 0 {
        acc += frac;
        let size = if acc >= 1.0 {
            acc -= 1.0;
            low + 1
        } else {
            low
        };
        let extra = (size - 1).min(left);
        sizes.push(extra as u32 + 1);
        left -= extra;
    }
    let singles = singles_and_heads.saturating_sub(sizes.len() as u64);
    sizes.extend(std::iter::repeat_n(1, singles as usize));
    for i in (1..sizes.len()).rev() {
        sizes.swap(i, rng.below(i as u64 + 1) as usize);
    }
    sizes
}

/// Generate the requests of `workload` from `seed`, in time order.
pub fn generate(workload: &Workload, seed: u64) -> impl Iterator<Item = TraceRecord> {
    let mut rng = SimRng::new(seed);
    let n = workload.requests();
    let ops = exact_mix(&mut rng, n, &[(TraceOp::Read, workload.reads as f64 / n as f64), (TraceOp::Write, workload.writes as f64 / n as f64)]);
    let sizes = exact_mix(&mut rng, n, workload.sizes);
    let sequential = exact_mix(&mut rng, n, &[(true, workload.sequential), (false, 1.0 - workload.sequential)]);
    let burst_sizes = bursts(&mut rng, n, workload.qd1, workload.mean_qd);
    let span = workload.span_bytes;
    let gap = workload.mean_gap_ns;
    let mut last_end = [None::<u64>; 2];
    let mut time_ns = 0u64;
    let mut burst = burst_sizes.into_iter();
    let mut left_in_burst = 0u32;
    (0..n as usize).map(move |i| {
        if left_in_burst == 0 {
            left_in_burst = burst.next().unwrap_or(1);
            // Exponential gaps between bursts, at least 1 us.
            time_ns += 1_000 + (-(1.0 - rng.unit_f64()).ln() * gap as f64) as u64;
        }
        left_in_burst -= 1;
        let op = ops[i];
        let len = sizes[i];
        let k = if op == TraceOp::Read { 0 } else { 1 };
        let offset = match last_end[k] {
            Some(end) if sequential[i] && end + len <= span => end,
            _ => rng.below((span - len) / 4096) * 4096,
        };
        last_end[k] = Some(offset + len);
        TraceRecord { time_ns, op, offset_bytes: offset, len_bytes: len, latency_ns: Some(0), line: 0, content_hash: None }
    })
}

/// Write records as SNIA / MSR Cambridge CSV (`Timestamp` in 100 ns ticks from 0).
pub fn write_msr<W: Write>(out: &mut W, records: impl Iterator<Item = TraceRecord>) -> Result<u64> {
    let io = |e: std::io::Error| Error::Io(format!("cannot write trace: {e}"));
    let mut n = 0;
    for r in records {
        let op = match r.op {
            TraceOp::Read => "Read",
            TraceOp::Write => "Write",
            TraceOp::Trim => continue,
        };
        writeln!(out, "{},ssdlab,0,{op},{},{},{}", r.time_ns / 100, r.offset_bytes, r.len_bytes, r.latency_ns.unwrap_or(0) / 100).map_err(io)?;
        n += 1;
    }
    Ok(n)
}

/// Write records to `path` as MSR CSV, gzip-compressed when the name ends in `.gz`. Returns the
/// records written.
pub fn write_msr_file(path: &str, records: impl Iterator<Item = TraceRecord>) -> Result<u64> {
    let io = |e: std::io::Error| Error::Io(format!("{path}: cannot write: {e}"));
    let file = std::fs::File::create(path).map_err(io)?;
    if path.ends_with(".gz") {
        let mut out = std::io::BufWriter::new(flate2::write::GzEncoder::new(file, flate2::Compression::fast()));
        let n = write_msr(&mut out, records)?;
        out.flush().map_err(io)?;
        out.into_inner().map_err(|e| io(e.into_error()))?.finish().map_err(io)?;
        Ok(n)
    } else {
        let mut out = std::io::BufWriter::new(file);
        let n = write_msr(&mut out, records)?;
        out.flush().map_err(io)?;
        Ok(n)
    }
}
