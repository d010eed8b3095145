//! The seeded IO stream of a job.

use crate::options::{Distribution, JobSpec, RwKind};
use rand_distr::{Distribution as _, Zipf};
use ssdlab_core::{bail, Result, SimRng};

/// What a command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Read.
    Read,
    /// Write.
    Write,
    /// TRIM (deallocate).
    Trim,
}

/// One host command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// What to do.
    pub op: Op,
    /// First byte addressed.
    pub offset_bytes: u64,
    /// Bytes addressed.
    pub len_bytes: u64,
}

/// A large prime used to scatter Zipf ranks over the span (a bijection when it does not divide
/// the block count).
const SCATTER_PRIME: u64 = 2_654_435_761;

/// Generates the IOs of one job, deterministically from a seed.
#[derive(Debug, Clone)]
pub struct IoGenerator {
    job: JobSpec,
    span_start_bytes: u64,
    span_bytes: u64,
    align_bytes: u64,
    rng: SimRng,
    cursor_bytes: u64,
    issued_ios: u64,
    issued_bytes: u64,
    limit_bytes: Option<u64>,
    weight_total: u64,
    zipf: Option<(Zipf<f64>, u64)>,
}

impl IoGenerator {
    /// A generator for `job` on a device exposing `capacity_bytes` to workloads.
    pub fn new(job: &JobSpec, capacity_bytes: u64, seed: u64) -> Result<Self> {
        let at = format!("job {}", job.name);
        if job.offset_bytes >= capacity_bytes {
            bail!(Workload, "{at}: offset {} is beyond the usable capacity of {capacity_bytes} bytes", job.offset_bytes);
        }
        let span_bytes = job.size_bytes.unwrap_or(capacity_bytes - job.offset_bytes);
        if job.offset_bytes + span_bytes > capacity_bytes {
            bail!(Workload, "{at}: offset {} + size {span_bytes} reaches beyond the usable capacity of {capacity_bytes} bytes", job.offset_bytes);
        }
        if job.max_block_bytes() > span_bytes {
            bail!(Workload, "{at}: block size {} is larger than the span of {span_bytes} bytes", job.max_block_bytes());
        }
        let align_bytes = job.blockalign.unwrap_or(job.min_block_bytes());
        // As fio, a job transfers `io_size` (default: the span) and stops; `time_based` lifts that
        // limit. `number_ios` stops it earlier, never later (fio: "this does not extend the
        // amount of I/O that will be done").
        let limit_bytes = match (job.io_size_bytes, job.time_based) {
            (Some(bytes), false) => Some(bytes),
            (None, false) => Some(span_bytes),
            (_, true) => None,
        };
        let zipf = match job.distribution {
            Distribution::Zipf(theta) if job.rw.is_random() => {
                let blocks = (span_bytes / align_bytes).max(1);
                let zipf = Zipf::new(blocks as f64, theta).map_err(|e| ssdlab_core::Error::Workload(format!("{at}: random_distribution: {e}")))?;
                Some((zipf, blocks))
            }
            _ => None,
        };
        Ok(Self {
            weight_total: job.block_sizes.iter().map(|(_, w)| *w as u64).sum(),
            job: job.clone(),
            span_start_bytes: job.offset_bytes,
            span_bytes,
            align_bytes,
            rng: SimRng::new(seed),
            cursor_bytes: job.offset_bytes,
            issued_ios: 0,
            issued_bytes: 0,
            limit_bytes,
            zipf,
        })
    }

    /// The job being generated.
    pub fn job(&self) -> &JobSpec {
        &self.job
    }

    /// Bytes the job will transfer before it stops by itself (`None` when only time stops it).
    pub fn limit_bytes(&self) -> Option<u64> {
        self.limit_bytes
    }

    /// IOs handed out so far.
    pub fn issued_ios(&self) -> u64 {
        self.issued_ios
    }

    /// Bytes handed out so far.
    pub fn issued_bytes(&self) -> u64 {
        self.issued_bytes
    }

    /// The next IO, or `None` when `number_ios` or the byte limit is reached.
    pub fn next_io(&mut self) -> Option<Io> {
        if let Some(n) = self.job.number_ios {
            if self.issued_ios >= n {
                return None;
            }
        }
        if let Some(limit) = self.limit_bytes {
            if self.issued_bytes >= limit {
                return None;
            }
        }
        let mut len_bytes = self.pick_block_size();
        let op = self.pick_op();
        let offset_bytes = if self.job.rw.is_random() {
            self.random_offset(len_bytes)
        } else {
            let (offset, len) = self.sequential_offset(len_bytes);
            len_bytes = len;
            offset
        };
        self.issued_ios += 1;
        self.issued_bytes += len_bytes;
        Some(Io { op, offset_bytes, len_bytes })
    }

    fn pick_block_size(&mut self) -> u64 {
        if self.job.block_sizes.len() == 1 {
            return self.job.block_sizes[0].0;
        }
        let mut point = self.rng.below(self.weight_total);
        for &(bytes, weight) in &self.job.block_sizes {
            if point < weight as u64 {
                return bytes;
            }
            point -= weight as u64;
        }
        self.job.block_sizes.last().expect("non-empty").0
    }

    fn pick_op(&mut self) -> Op {
        match self.job.rw {
            RwKind::Read | RwKind::RandRead => Op::Read,
            RwKind::Write | RwKind::RandWrite => Op::Write,
            RwKind::Trim | RwKind::RandTrim => Op::Trim,
            RwKind::RandRw | RwKind::ReadWrite => {
                if self.rng.below(100) < self.job.rwmixread as u64 {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    fn random_offset(&mut self, len_bytes: u64) -> u64 {
        let positions = (self.span_bytes - len_bytes) / self.align_bytes + 1;
        let index = match &self.zipf {
            None => self.rng.below(positions),
            Some((zipf, blocks)) => {
                let rank = (zipf.sample(self.rng.inner_mut()) as u64).clamp(1, *blocks) - 1;
                let scattered = if *blocks % SCATTER_PRIME == 0 { rank } else { ((rank as u128 * SCATTER_PRIME as u128) % *blocks as u128) as u64 };
                scattered.min(positions - 1)
            }
        };
        self.span_start_bytes + index * self.align_bytes
    }

    /// Next sequential `(offset, length)`. As fio, the last block of the span is cut short when
    /// the block size does not divide the span; the one after starts over at the beginning.
    fn sequential_offset(&mut self, len_bytes: u64) -> (u64, u64) {
        let end = self.span_start_bytes + self.span_bytes;
        if self.cursor_bytes >= end {
            self.cursor_bytes = self.span_start_bytes;
        }
        let len = len_bytes.min(end - self.cursor_bytes);
        let offset = self.cursor_bytes;
        self.cursor_bytes += len;
        (offset, len)
    }
}
