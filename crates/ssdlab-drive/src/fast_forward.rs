//! Fast-forward: a preconditioning job run on the untimed path (`untimed.rs`), at the speed of
//! the FTL alone, leaving the drive in the state the same job run with timing leaves it (the
//! same placements, GC, wear and counters), idle at a well-defined simulated time.
//!
//! Only a job whose commands do not depend on time can be fast-forwarded: one job (no group,
//! `numjobs=1`), writes and TRIMs only, its length given by size, `io_size` or `number_ios`
//! (not by `runtime`, which needs the drive's speed), without `ramp_time` or a steady-state
//! rule. Its commands reach the drive in the order they are generated, which is also the order
//! a timed closed-loop run of one job submits them in (whatever the queue depth), so the FTL
//! sees the same sequence either way.
//!
//! The fast-forward starts once everything booked before it has finished and ends at its start
//! plus the time its busiest resource (a die, a channel, the host link, the command processor,
//! a stage of the engine, or the small-random-write cap) needs for the work: a lower bound of
//! the timed run's length. The drive is idle from then on.

use crate::drive::{Drive, DriveCounters};
use crate::lookahead::{ContentFrom, Lookahead, STAGE2_AT, STAGE3_AT};
use crate::run::RunProgress;
use crate::untimed::UntimedWork;
use serde::Serialize;
use ssdlab_core::time::seconds;
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_nand::FlashCounters;
use ssdlab_reduce::ContentStream;
use ssdlab_workload::{IoGenerator, JobSpec};

/// Why `job` cannot be fast-forwarded, if it cannot.
pub fn fast_forward_refusal(job: &JobSpec) -> Option<String> {
    let why = if !job.concurrent.is_empty() || job.numjobs > 1 {
        "it runs jobs side by side, whose order depends on timing"
    } else if job.rw.reads() {
        "it reads, and what a read does is only time"
    } else if job.runtime_ns.is_some() || job.time_based {
        "its length is a time, which depends on the drive's speed"
    } else if job.ramp_ns > 0 {
        "it has a ramp_time"
    } else if job.steady_state.is_some() {
        "it stops on a steady-state rule measured in time"
    } else if job.verify.is_some() {
        "it has verify, whose headers and reads back only a timed run keeps"
    } else {
        return None;
    };
    Some(format!("job {} cannot be fast-forwarded: {why}", job.name))
}

/// What a fast-forward did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FastForwardSummary {
    /// Job name.
    pub job: String,
    /// fio `rw` kind.
    pub rw: String,
    /// Seed of the workload's random choices.
    pub seed: u64,
    /// `"fast-forward"`: no timing (the summary of a timed run has none of these keys).
    pub timing: String,
    /// Simulated time the fast-forward took: the busiest resource's time for the work.
    pub simulated_seconds: f64,
    /// Wall-clock time spent.
    pub wall_seconds: f64,
    /// Commands done.
    pub ios: u64,
    /// Bytes written by the host.
    pub host_write_bytes: u64,
    /// Bytes trimmed by the host.
    pub host_trim_bytes: u64,
    /// Bytes programmed into NAND (host and GC).
    pub nand_write_bytes: u64,
    /// Bytes programmed into NAND by garbage collection.
    pub nand_write_bytes_gc: u64,
    /// Block erases (per plane).
    pub nand_block_erases: u64,
    /// NAND bytes programmed / host bytes written (`None` when nothing was written).
    pub write_amplification: Option<f64>,
    /// Free blocks at the end.
    pub free_blocks: u64,
    /// The data pattern written.
    pub data_pattern: String,
}

/// A job being fast-forwarded (advance it in slices, as a [`crate::Run`]).
pub struct FastForward {
    job: JobSpec,
    seed: u64,
    generator: IoGenerator,
    content: ContentStream,
    needs_content: bool,
    /// Commands generated ahead (their entries prefetched, as a timed run does).
    lookahead: Lookahead,
    work: UntimedWork,
    flash_base: FlashCounters,
    drive_base: DriveCounters,
    end_ns: Option<Nanoseconds>,
}

impl FastForward {
    /// Prepare a fast-forward of `job` on `drive` from simulated time `at_ns` (or once the
    /// drive is idle, if later); written sectors take their content from `content`.
    pub fn new(drive: &mut Drive, job: &JobSpec, seed: u64, at_ns: Nanoseconds, content: ContentStream) -> Result<Self> {
        if let Some(why) = fast_forward_refusal(job) {
            bail!(Workload, "{why}");
        }
        let generator = IoGenerator::new(job, drive.usable_bytes(), seed)?;
        if generator.limit_bytes().is_none() && job.number_ios.is_none() {
            bail!(Workload, "job {} cannot be fast-forwarded: it has no end", job.name);
        }
        let work = drive.start_untimed(at_ns)?;
        Ok(Self {
            job: job.clone(),
            seed,
            generator,
            content,
            needs_content: drive.translation().needs_content(),
            lookahead: Lookahead::new(),
            work,
            flash_base: drive.flash().counters().clone(),
            drive_base: drive.counters().clone(),
            end_ns: None,
        })
    }

    /// Seed of the workload.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether every command was done.
    pub fn is_done(&self) -> bool {
        self.end_ns.is_some()
    }

    /// Simulated time the fast-forward ends (the drive is idle from then); the start until done.
    pub fn end_ns(&self) -> Nanoseconds {
        self.end_ns.unwrap_or(self.work.start_ns())
    }

    /// Do up to `max_ios` more commands. Returns whether the job is done.
    pub fn advance(&mut self, drive: &mut Drive, max_ios: u64) -> Result<bool> {
        if self.end_ns.is_some() {
            return Ok(true);
        }
        for _ in 0..max_ios {
            self.lookahead.fill(drive, &mut self.generator, &mut self.content, self.needs_content);
            let Some((io, from)) = self.lookahead.pop() else {
                self.end_ns = Some(drive.finish_untimed(&self.work));
                return Ok(true);
            };
            if let Some(soon) = self.lookahead.get(STAGE2_AT) {
                drive.prefetch_stage2(soon);
            }
            if self.needs_content {
                if let Some(soon) = self.lookahead.get(STAGE3_AT) {
                    drive.prefetch_stage3(soon);
                }
            }
            match from {
                ContentFrom::Ahead if self.needs_content => drive.submit_untimed(&io, self.lookahead.contents(), &mut self.work)?,
                _ => drive.submit_untimed(&io, &mut self.content, &mut self.work)?,
            }
        }
        Ok(false)
    }

    /// How far the fast-forward has got (simulated time: the busiest resource's so far).
    pub fn progress(&self) -> RunProgress {
        let limit = self.generator.limit_bytes();
        let mut fraction: f64 = 0.0;
        if let Some(limit) = limit {
            fraction = fraction.max(self.generator.issued_bytes() as f64 / limit.max(1) as f64);
        }
        if let Some(n) = self.job.number_ios {
            fraction = fraction.max(self.generator.issued_ios() as f64 / n.max(1) as f64);
        }
        RunProgress {
            simulated_ns: self.end_ns.map_or(self.work.busiest_ns(), |end| end - self.work.start_ns()),
            completed_ios: self.work.commands(),
            fraction: if self.is_done() { 1.0 } else { fraction.min(1.0) },
            done: self.is_done(),
        }
    }

    /// Summarize (call once done).
    pub fn summary(&self, drive: &Drive, wall_seconds: f64) -> FastForwardSummary {
        let f = drive.flash().counters();
        let b = &self.flash_base;
        let d = drive.counters();
        let host_write_bytes = d.host_write_bytes - self.drive_base.host_write_bytes;
        let gc = f.bytes_programmed_internal - b.bytes_programmed_internal;
        let nand = f.bytes_programmed_host - b.bytes_programmed_host + gc;
        FastForwardSummary {
            job: self.job.name.clone(),
            rw: self.job.rw.name().to_string(),
            seed: self.seed,
            timing: "fast-forward".to_string(),
            simulated_seconds: seconds(self.end_ns() - self.work.start_ns()),
            wall_seconds,
            ios: self.work.commands(),
            host_write_bytes,
            host_trim_bytes: d.host_trim_bytes - self.drive_base.host_trim_bytes,
            nand_write_bytes: nand,
            nand_write_bytes_gc: gc,
            nand_block_erases: f.block_erases - b.block_erases,
            write_amplification: (host_write_bytes > 0).then(|| nand as f64 / host_write_bytes as f64),
            free_blocks: drive.translation().free_blocks_total(),
            data_pattern: self.job.pattern.key(),
        }
    }
}
