//! Closed-loop runs: keep `iodepth` commands in flight until the job's limits.

use crate::depth_search::DepthSearch;
use crate::drive::{Drive, DriveCounters};
use crate::flushes::{FlushReport, FlushStats, JobFlushes};
use crate::inflight::InFlightQueue;
use crate::job_limits::{JobError, LimitCheck, ETIMEDOUT};
use crate::lookahead::{ContentFrom, Lookahead, STAGE2_AT, STAGE3_AT};
use crate::metrics::{LatencySummary, Metrics, SeriesRow, Snapshot};
use crate::think::Think;
use crate::verify::{JobVerify, Phase, Recording, VerifyReport};
use serde::Serialize;
use ssdlab_core::time::seconds;
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_ftl::ChunkStats;
use ssdlab_nand::{FlashCounters, SECTOR_BYTES};
use ssdlab_reduce::ContentStream;
use ssdlab_workload::{Io, IoGenerator, JobSpec, Op, SteadyMetric};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod clock_checks;
mod flow;
mod job_tally;
mod rate_gate;
mod report;
mod summary;
pub(crate) use summary::reduction_since;
mod verify_io;

use clock_checks::{check_rate, check_thinktime};
pub use job_tally::JobFigures;
pub use report::{LatencyTargetReport, MetadataReport, ReductionReport, RunProgress, RunSummary, WearReport};

/// Most commands a group of jobs keeps in flight together (each job's `iodepth`, its `numjobs`
/// copies and the jobs side by side, summed): what the drive's queue does not hold waits in the
/// host's, one entry each, so the sum bounds the run's memory. fio's per-job limits alone
/// (65,536 x 1,024 copies x every job of a file) would let a job file ask for billions.
pub const MAX_GROUP_IN_FLIGHT: u64 = 1 << 20;

/// Drive state for the per-second series: free blocks, and WA since the given baselines.
pub(crate) fn snapshot_of(drive: &Drive, nand_base: u64, host_write_base: u64) -> Snapshot {
    let f = drive.flash().counters();
    let host = drive.counters().host_write_bytes - host_write_base;
    let nand = f.bytes_programmed_host + f.bytes_programmed_internal - nand_base;
    Snapshot {
        free_blocks: drive.translation().free_blocks_total(),
        write_amplification: if host > 0 { nand as f64 / host as f64 } else { 0.0 },
        thermal: drive.thermal_state(),
    }
}

/// One job of a run: its IO stream and written content.
struct Stream {
    job: JobSpec,
    generator: IoGenerator,
    content: ContentStream,
    /// Commands generated ahead of submission, with content drawn ahead for them.
    lookahead: Lookahead,
    stopped: bool,
    /// Commands issued under the job's rate limit (fio's `rate_iops`/`rate`), and where the
    /// limit counts from.
    rate_issued: u64,
    rate_start_ns: Nanoseconds,
    /// fio's `rate_process=poisson`: the draws for the gaps (seeded from the job's seed) and
    /// the sum of those drawn so far.
    poisson: Option<ssdlab_core::SimRng>,
    poisson_offset_ns: Nanoseconds,
    /// fio's `startdelay` of this job, after the group's earliest start (`Run::delay_ns`).
    delay_ns: Nanoseconds,
    /// Completions of this job, for fio's `thinktime_blocks`.
    completions: u64,
    /// fio's `latency_target` search of this job, and how many of its commands are held,
    /// queued or in flight (the search bounds them by its depth).
    search: Option<DepthSearch>,
    active: u32,
    /// fio's `verify` of this job: the blocks it wrote, its phase, what its checks found.
    verify: Option<JobVerify>,
    /// fio's `max_latency` and `rate_min`/`rate_iops_min` of this job, and their counts.
    limits: Option<LimitCheck>,
    /// fio's `fsync`, `end_fsync`, `sync` of this job, and where it stands.
    flushes: Option<JobFlushes>,
    /// The job ended in error (fio's `td->error`).
    failed: bool,
    /// fio's `thinktime` as fio runs it (the whole job pauses; `think.rs`), for a job without a
    /// rate limit, depth search, verify or flushes (those keep the thinktime per slot).
    think: Option<Think>,
    /// A job whose rate paces one command at a time (a mixed job, or one of several block
    /// sizes; `rate_gate.rs`): its commands are generated as its rate lets them go.
    gate: Option<rate_gate::RateGate>,
    /// The job's own figures, in a group of more than one job (`job_tally.rs`).
    tally: Option<job_tally::JobTally>,
}

/// Why an issue is held in the run's pending issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Held {
    /// The issue goes to the host at its time (a rate limit's slot, a flush that blocked it).
    Issue,
    /// The slot is scheduled again at its time, through the job's rate limit (startdelay,
    /// thinktime).
    Schedule,
    /// The command a rate gate held goes at its time; the slots behind it follow.
    GateRelease,
    /// A job that fio's flow control held back with `flow_sleep` tries again.
    FlowRetry,
}

/// Mixed into a job's seed for its Poisson rate process: its own draws, from the job's seed.
const POISSON_SEED: u64 = 0x7261_7465_5f70_6f69;

/// Mixed into a job's seed to draw its `startdelay` from a range.
const STARTDELAY_SEED: u64 = 0x7374_6172_7464_6c79;

/// A closed-loop run of one job, or of a group of jobs side by side sharing the drive's queue
/// (`JobSpec::concurrent`: the other jobs of an fio group and `numjobs` copies), each keeping its
/// own `iodepth` in flight. Commands beyond the drive's queue (`host.queue_depth_max`) wait in
/// the host's queue, as a host's block layer holds them, and are submitted in arrival order as
/// the drive's slots free; their latency counts from their arrival.
pub struct Run {
    job: JobSpec,
    seed: u64,
    streams: Vec<Stream>,
    needs_content: bool,
    reduction_base: Option<ChunkStats>,
    tier_base: Option<ssdlab_ftl::TierStats>,
    metadata_base: Option<ssdlab_ftl::MetadataStats>,
    start_ns: Nanoseconds,
    now_ns: Nanoseconds,
    inflight: InFlightQueue,
    /// The stream of each command in the drive, ordered as `inflight` orders them.
    owners: BinaryHeap<Reverse<(Nanoseconds, u64, usize)>>,
    owner_seq: u64,
    /// Commands the host holds while the drive's queue is full: arrival time and stream.
    host_queue: VecDeque<(Nanoseconds, usize)>,
    host_queued_max: u64,
    /// Issues held back (by a rate limit, or a job's startdelay): time, sequence (ties in
    /// order), stream, and what happens then.
    pending: BinaryHeap<Reverse<(Nanoseconds, u64, usize, Held)>>,
    pending_seq: u64,
    device_depth: usize,
    /// The earliest `startdelay` of the group's jobs: the group starts then, and the ramp and
    /// figures count from there (the drive idles before).
    delay_ns: Nanoseconds,
    /// End of `ramp_time`: figures count from here.
    ramp_end_ns: Nanoseconds,
    ramped: bool,
    busy_base_ns: Nanoseconds,
    steady_samples: Vec<f64>,
    steady_at_ns: Option<Nanoseconds>,
    started: bool,
    stopped_issuing: bool,
    completed: u64,
    metrics: Metrics,
    flash_base: FlashCounters,
    drive_base: DriveCounters,
    /// Busy time of the drive's resources when measuring started.
    busy_counters_base: crate::utilization::BusyCounters,
    /// The benchmark host's own time (thinktime) spent after measured completions.
    host_time_ns: Nanoseconds,
    energy_base_nj: f64,
    /// The drive's base (idle and power-state) energy at the start, on drives with power states.
    state_energy_base_nj: Option<f64>,
    last_done_ns: Nanoseconds,
    /// Whether a job of the group has fio's `verify` (the run keeps the host's record).
    verifying: bool,
    /// The flushes of the measured part (`Some` when a job of the group flushes: fio's
    /// `fsync`, `end_fsync`, ...).
    flush_stats: Option<FlushStats>,
    /// A job of the group thinks as fio's `thinktime` does (the whole job pauses).
    thinking: bool,
    /// Content identities of the sectors of the write being submitted (data-reduction drives).
    written_ids: Vec<u64>,
    /// The first job of the group that ended in error (fio's `max_latency`, `rate_min`,
    /// `latency_target` at depth 1).
    job_error: Option<JobError>,
    /// fio's flow control between the group's jobs (`Some` when a job has a `flow` weight).
    flows: Option<flow::Flows>,
}

impl Run {
    /// Prepare a run of `job` on `drive`, starting at simulated time `at_ns`; written data
    /// follows the job's data pattern.
    pub fn new(drive: &Drive, job: &JobSpec, seed: u64, at_ns: Nanoseconds) -> Result<Self> {
        let content = ContentStream::new(job.pattern, drive.options().content, seed);
        Self::with_content(drive, job, seed, at_ns, content)
    }

    /// Prepare a run whose written sectors take their content from `content` (a user's data
    /// file, say) instead of the job's pattern. The other jobs of the group (if any) draw their
    /// seeds in order from `seed` and write their own patterns.
    pub fn with_content(drive: &Drive, job: &JobSpec, seed: u64, at_ns: Nanoseconds, content: ContentStream) -> Result<Self> {
        let device_depth = drive.profile().host.queue_depth_max.max(1) as usize;
        if job.group_iodepth() > MAX_GROUP_IN_FLIGHT {
            bail!(
                Workload,
                "job {}: its group of {} jobs side by side keeps {} commands in flight (iodepth x numjobs, summed over the jobs before the next stonewall); at most {MAX_GROUP_IN_FLIGHT}",
                job.name,
                job.group().count(),
                job.group_iodepth()
            );
        }
        let ramp_ns = job.group().map(|j| j.ramp_ns).max().unwrap_or(0);
        // Each job's startdelay (a range drawn from the job's seed); the group starts at the
        // earliest.
        let mut member_seeds = Vec::new();
        let mut seeds = ssdlab_core::SimRng::new(seed);
        for index in 0..job.group().count() {
            member_seeds.push(if index == 0 { seed } else { seeds.next_u64() });
        }
        let delays: Vec<Nanoseconds> = job
            .group()
            .zip(&member_seeds)
            .map(|(member, &member_seed)| {
                let (low, high) = member.startdelay_ns;
                if high > low {
                    low + ssdlab_core::SimRng::new(member_seed ^ STARTDELAY_SEED).below((high - low).saturating_add(1))
                } else {
                    low
                }
            })
            .collect();
        let delay_ns = delays.iter().copied().min().unwrap_or(0);
        // Every job must start before the simulated clock's limit (a later job's start is also
        // where its held issues are booked).
        for (member, &d) in job.group().zip(&delays) {
            if at_ns.checked_add(d).is_none_or(|t| t > crate::session::MAX_SIMULATED_NS) {
                bail!(
                    Workload,
                    "job {}: a startdelay of {:.0} s from the simulated present ({:.0} s) passes the simulated clock's limit of {:.0} s",
                    member.name,
                    seconds(d),
                    seconds(at_ns),
                    seconds(crate::session::MAX_SIMULATED_NS)
                );
            }
        }
        let longest_ns = job.group().zip(&delays).filter_map(|(j, &d)| j.runtime_ns.map(|r| r.saturating_add(d - delay_ns))).max();
        let Some(ramp_end_ns) = at_ns.checked_add(delay_ns).and_then(|t| t.checked_add(ramp_ns)).filter(|&t| t <= crate::session::MAX_SIMULATED_NS) else {
            bail!(
                Workload,
                "job {}: startdelay and ramp_time pass the simulated clock's limit of {:.0} s",
                job.name,
                seconds(crate::session::MAX_SIMULATED_NS)
            );
        };
        if let Some(runtime) = longest_ns {
            if runtime > crate::session::MAX_SIMULATED_NS - ramp_end_ns {
                bail!(
                    Workload,
                    "job {}: a runtime of {:.0} s from the simulated present ({:.0} s) passes the simulated clock's limit of {:.0} s",
                    job.name,
                    seconds(runtime),
                    seconds(at_ns),
                    seconds(crate::session::MAX_SIMULATED_NS)
                );
            }
        }
        let mut streams = Vec::new();
        let mut first_content = Some(content);
        for (index, member) in job.group().enumerate() {
            let member_seed = member_seeds[index];
            let generator = IoGenerator::new(member, drive.usable_bytes(), member_seed)?;
            check_thinktime(member, &generator, ramp_end_ns)?;
            check_rate(member, &generator, at_ns)?;
            let content = match first_content.take() {
                Some(c) => c,
                None => ContentStream::new(member.pattern, drive.options().content, member_seed),
            };
            let mut alone = member.clone();
            alone.concurrent.clear();
            let poisson = member.rate.as_ref().filter(|r| r.poisson).map(|_| ssdlab_core::SimRng::new(member_seed ^ POISSON_SEED));
            streams.push(Stream {
                job: alone,
                generator,
                content,
                lookahead: Lookahead::new(),
                stopped: false,
                rate_issued: 0,
                rate_start_ns: at_ns + delays[index],
                poisson,
                poisson_offset_ns: 0,
                delay_ns: delays[index] - delay_ns,
                completions: 0,
                search: member.latency_target.map(|t| DepthSearch::new(t, member.iodepth, ramp_end_ns)),
                active: 0,
                verify: member.verify.as_ref().map(|v| JobVerify::new(v, member.rw)),
                limits: member.limits.map(|l| LimitCheck::new(l, at_ns + delays[index])),
                flushes: JobFlushes::new(member.flushes),
                failed: false,
                think: (member.rate.is_none() && member.latency_target.is_none() && member.verify.is_none() && !member.flushes.any())
                    .then(|| Think::new(member, at_ns + delays[index]))
                    .flatten(),
                gate: member.rate.as_ref().filter(|r| r.uniform.is_none()).map(|_| rate_gate::RateGate::default()),
                tally: None,
            });
        }
        if streams.len() > 1 {
            for stream in &mut streams {
                stream.tally = Some(job_tally::JobTally::new());
            }
        }
        let total_depth = job.group_iodepth();
        let verifying = streams.iter().any(|s| s.verify.is_some());
        let flush_stats = streams.iter().any(|s| s.flushes.is_some()).then(FlushStats::new);
        let thinking = streams.iter().any(|s| s.think.is_some());
        let flows = flow::Flows::new(streams.iter().map(|s| s.job.flow.as_ref()));
        Ok(Self {
            streams,
            needs_content: drive.translation().needs_content(),
            reduction_base: drive.translation().reduction_stats().cloned(),
            tier_base: drive.translation().tier_stats(),
            metadata_base: drive.translation().metadata_stats(),
            job: job.clone(),
            seed,
            start_ns: at_ns,
            now_ns: at_ns,
            inflight: InFlightQueue::new(total_depth.clamp(1, device_depth as u64) as usize, at_ns),
            owners: BinaryHeap::new(),
            owner_seq: 0,
            host_queue: VecDeque::new(),
            host_queued_max: 0,
            pending: BinaryHeap::new(),
            pending_seq: 0,
            delay_ns,
            device_depth,
            ramp_end_ns,
            ramped: ramp_ns == 0,
            busy_base_ns: 0,
            steady_samples: Vec::new(),
            steady_at_ns: None,
            started: false,
            stopped_issuing: false,
            completed: 0,
            metrics: Metrics::new(ramp_end_ns),
            flash_base: drive.flash().counters().clone(),
            drive_base: drive.counters().clone(),
            busy_counters_base: crate::utilization::BusyCounters::of(drive),
            host_time_ns: 0,
            energy_base_nj: drive.flash().counters().energy_nj,
            state_energy_base_nj: drive.state_energy_nj(ramp_end_ns),
            last_done_ns: at_ns,
            verifying,
            flush_stats,
            thinking,
            written_ids: Vec::new(),
            job_error: None,
            flows,
        })
    }

    /// Seed of the run's workload.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The job being run.
    pub fn job(&self) -> &JobSpec {
        &self.job
    }

    /// Whether every command has completed.
    pub fn is_done(&self) -> bool {
        self.started && self.inflight.is_empty() && self.host_queue.is_empty() && self.pending.is_empty()
    }

    /// Simulated time of the last completion (the run's end once done).
    pub fn end_ns(&self) -> Nanoseconds {
        self.last_done_ns
    }

    /// The run's `ramp_time` (its longest in a group), the time it has run, and whether the
    /// ramp is still going: a job that ends inside it has nothing measured.
    pub fn ramp(&self) -> (Nanoseconds, Nanoseconds, bool) {
        (self.ramp_end_ns - self.start_ns - self.delay_ns, self.last_done_ns.saturating_sub(self.start_ns + self.delay_ns), !self.ramped)
    }

    /// Stream `index` may issue its next command at `at_ns`: at once, or, when its rate limit
    /// (fio's `rate_iops`/`rate`) says later, held until then in time order with completions.
    fn schedule(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let stream = &mut self.streams[index];
        let Some(rate) = &stream.job.rate else { return self.issue(drive, index, at_ns) };
        if stream.verify.as_ref().is_some_and(|v| v.phase == Phase::Reading) {
            // The verify phase's reads are not paced by the job's (write) rate.
            return self.issue(drive, index, at_ns);
        }
        if self.stopped_issuing || stream.stopped {
            return Ok(());
        }
        let Some(uniform) = rate.uniform_rate() else {
            // A job paced one command at a time: its free slots wait behind the one held.
            let gate = stream.gate.as_mut().expect("a job paced one command at a time has a gate");
            if gate.held {
                gate.waiting += 1;
                return Ok(());
            }
            return self.gate_decide(drive, index, at_ns);
        };
        // fio's linear process: the k-th command no earlier than k/rate after the start; its
        // Poisson process: after the sum of k exponential gaps of mean 1/rate.
        let offset_ns = match stream.poisson.as_mut() {
            Some(rng) => {
                let offset = stream.poisson_offset_ns;
                let mean_ns = uniform.mean_gap_ns();
                let gap = -(1.0 - rng.unit_f64()).ln() * mean_ns;
                stream.poisson_offset_ns = offset.saturating_add(gap.round().min(u64::MAX as f64) as u64);
                offset as u128
            }
            None => stream.rate_issued as u128 * uniform.ns_times_per / uniform.per as u128,
        };
        stream.rate_issued += 1;
        let earliest_ns = stream.rate_start_ns.saturating_add(offset_ns.min(u64::MAX as u128) as u64);
        if earliest_ns > at_ns {
            self.hold(earliest_ns, index, Held::Issue);
            return Ok(());
        }
        self.issue(drive, index, at_ns)
    }

    /// A job paced one command at a time (`rate_gate.rs`) takes its next command at `now_ns`:
    /// its direction as fio's `rate_ddir` picks it, issued at once when its rate allows, else
    /// held until then (the job's other free slots wait behind it).
    fn gate_decide(&mut self, drive: &mut Drive, index: usize, now_ns: Nanoseconds) -> Result<()> {
        if self.stopped_issuing || self.streams[index].stopped {
            return Ok(());
        }
        let Stream { job, generator, gate, poisson, rate_start_ns, .. } = &mut self.streams[index];
        let (Some(rate), Some(gate)) = (job.rate.as_ref(), gate.as_mut()) else { return self.issue(drive, index, now_ns) };
        let mixed = matches!(job.rw, ssdlab_workload::RwKind::RandRw | ssdlab_workload::RwKind::ReadWrite);
        let mut at_ns = now_ns;
        let Some(io) = generator.next_io_directed(|candidate| {
            let (op, when) = gate.choose(rate, *rate_start_ns, candidate, now_ns, mixed);
            at_ns = when;
            op
        }) else {
            // The job has issued its last command.
            let stream = &mut self.streams[index];
            stream.stopped = true;
            if stream.job.exitall {
                self.stop_issuing();
            }
            return Ok(());
        };
        gate.account(rate, &io, poisson.as_mut());
        gate.ready.push_back(io);
        if at_ns > now_ns {
            gate.held = true;
            self.hold(at_ns, index, Held::GateRelease);
            return Ok(());
        }
        self.issue(drive, index, now_ns)
    }

    /// The command a rate gate held goes at `at_ns`; then the slots waiting behind it take
    /// their commands, as long as the rate lets them go at once.
    fn gate_release(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        if let Some(gate) = self.streams[index].gate.as_mut() {
            gate.held = false;
        }
        self.issue(drive, index, at_ns)?;
        while let Some(gate) = self.streams[index].gate.as_mut().filter(|g| !g.held && g.waiting > 0) {
            gate.waiting -= 1;
            self.gate_decide(drive, index, at_ns)?;
        }
        Ok(())
    }

    /// Hold stream `index`'s next issue until `at_ns` (ties in the order held), and say what
    /// happens then.
    fn hold(&mut self, at_ns: Nanoseconds, index: usize, what: Held) {
        self.pending_seq += 1;
        self.pending.push(Reverse((at_ns, self.pending_seq, index, what)));
    }

    /// How much later than the group's first job its last job starts (fio's `startdelay`).
    fn latest_delay_ns(&self) -> Nanoseconds {
        self.streams.iter().map(|s| s.delay_ns).max().unwrap_or(0)
    }

    /// The host issues stream `index`'s next command at `at_ns`: to the drive when its queue has
    /// room, else into the host's queue.
    fn issue(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let stream = &mut self.streams[index];
        if self.stopped_issuing || stream.stopped {
            return Ok(());
        }
        if let Some(runtime) = stream.job.runtime_ns {
            // A job's runtime counts from its own start (after its startdelay), as fio's.
            let from_ns = self.ramp_end_ns.saturating_add(stream.delay_ns);
            if at_ns >= from_ns && at_ns - from_ns >= runtime {
                stream.stopped = true;
                if stream.job.exitall {
                    self.stop_issuing();
                }
                return Ok(());
            }
        }
        if let Some(flows) = self.flows.as_mut() {
            // fio's flow control: a job ahead of its share of its flow waits.
            if !flows.pass(index) {
                self.flow_blocked(index, at_ns);
                return Ok(());
            }
        }
        let stream = &mut self.streams[index];
        if self.flush_stats.is_some() {
            // fio's fsync blocks the job: its next command waits for the flush to return.
            if let Some(until_ns) = stream.flushes.as_ref().map(|f| f.blocked_until_ns).filter(|&t| t > at_ns) {
                self.hold(until_ns, index, Held::Issue);
                return Ok(());
            }
        }
        if self.thinking {
            if let Some(t) = stream.think.as_mut() {
                if t.quiescing {
                    // fio's job waits for its commands before it thinks: it issues nothing.
                    return Ok(());
                }
                t.in_flight += 1;
            }
        }
        if self.inflight.len() < self.device_depth && self.host_queue.is_empty() {
            self.submit(drive, index, at_ns, at_ns)?;
        } else {
            self.host_queue.push_back((at_ns, index));
            self.host_queued_max = self.host_queued_max.max(self.host_queue.len() as u64);
            if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                m.outstanding += 1;
            }
        }
        Ok(())
    }

    /// A slot of stream `index` was held back by fio's flow control at `at_ns`: it waits for
    /// another job of its flow to issue, or, with `flow_sleep`, for the job's commands in flight
    /// and the sleep after them (`flow.rs`).
    fn flow_blocked(&mut self, index: usize, at_ns: Nanoseconds) {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return };
        m.blocked += 1;
        if m.sleep_ns > 0 && !m.sleeping {
            m.sleeping = true;
            if m.outstanding == 0 {
                let until_ns = at_ns.saturating_add(m.sleep_ns);
                self.hold(until_ns, index, Held::FlowRetry);
            }
        }
    }

    /// fio's flow control after an event at `at_ns`: jobs that have ended (issue no more, with
    /// nothing outstanding) leave their flow; the slots held back by it issue as it allows.
    fn flow_wake(&mut self, drive: &mut Drive, at_ns: Nanoseconds) -> Result<()> {
        let Some(flows) = self.flows.as_mut() else { return Ok(()) };
        for (index, stream) in self.streams.iter().enumerate() {
            let ended = stream.stopped || self.stopped_issuing;
            if let Some(m) = flows.members[index].as_ref() {
                if m.joined && ended && m.outstanding == 0 {
                    flows.leave(index);
                }
            }
        }
        for index in 0..self.streams.len() {
            loop {
                let Some(flows) = self.flows.as_mut() else { return Ok(()) };
                let Some(m) = flows.members[index].as_mut() else { break };
                if m.blocked == 0 || m.sleeping || !flows.allowed(index) {
                    break;
                }
                if let Some(m) = flows.members[index].as_mut() {
                    m.blocked -= 1;
                }
                self.issue(drive, index, at_ns)?;
            }
        }
        Ok(())
    }

    /// A command of stream `index` completed at `done_ns`: with fio's `flow_sleep`, a job held
    /// back sleeps once its last command in flight is done (fio's `io_u_quiesce`).
    fn flow_completed(&mut self, index: usize, done_ns: Nanoseconds) {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return };
        m.outstanding = m.outstanding.saturating_sub(1);
        if m.sleeping && m.outstanding == 0 {
            let until_ns = done_ns.saturating_add(m.sleep_ns);
            self.hold(until_ns, index, Held::FlowRetry);
        }
    }

    /// Nothing is in flight or pending, yet slots are held back by fio's flow control: cannot
    /// happen while a job in a flow is under its share (one always is), so this is a guard
    /// against a hang: such a job leaves its flow and issues. Returns whether any did.
    fn flow_unstick(&mut self, drive: &mut Drive) -> Result<bool> {
        if self.stopped_issuing {
            return Ok(false);
        }
        let Some(flows) = self.flows.as_mut() else { return Ok(false) };
        let stuck: Vec<(usize, u32)> =
            flows.members.iter().enumerate().filter_map(|(i, m)| m.as_ref().filter(|m| m.blocked > 0).map(|m| (i, m.blocked))).collect();
        debug_assert!(stuck.is_empty(), "flow control held back every job: {stuck:?}");
        for &(index, _) in &stuck {
            flows.leave(index);
            if let Some(m) = flows.members[index].as_mut() {
                m.blocked = 0;
                m.sleeping = false;
            }
        }
        let at_ns = self.last_done_ns.max(self.now_ns);
        for (index, blocked) in &stuck {
            for _ in 0..*blocked {
                self.issue(drive, *index, at_ns)?;
            }
        }
        Ok(!stuck.is_empty())
    }

    /// A job held back with `flow_sleep` wakes at `at_ns` and tries its held slots again.
    fn flow_retry(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return Ok(()) };
        m.sleeping = false;
        let mut left = std::mem::take(&mut m.blocked);
        while left > 0 {
            left -= 1;
            self.issue(drive, index, at_ns)?;
            if self.flows.as_ref().and_then(|f| f.members[index].as_ref()).is_some_and(|m| m.sleeping) {
                // Held back again: the rest wait with it.
                if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                    m.blocked += left;
                }
                break;
            }
        }
        Ok(())
    }

    /// Submit stream `index`'s next command to the drive at `at_ns` (it arrived at
    /// `arrival_ns`). Returns whether the stream had one.
    fn submit(&mut self, drive: &mut Drive, index: usize, arrival_ns: Nanoseconds, at_ns: Nanoseconds) -> Result<bool> {
        if self.verifying {
            match self.streams[index].verify.as_ref().map(|v| v.phase) {
                Some(Phase::Reading) | Some(Phase::Done) => return self.submit_verify_read(drive, index, arrival_ns, at_ns),
                Some(Phase::Draining) => return Ok(false),
                _ => {
                    // fio's verify_backlog: a block written earlier is verified instead.
                    if let Some((offset, len)) = self.streams[index].verify.as_mut().and_then(|v| v.backlog_block()) {
                        return self.submit_check_read(drive, index, arrival_ns, at_ns, Io { op: Op::Read, offset_bytes: offset, len_bytes: len });
                    }
                }
            }
        }
        let needs_content = self.needs_content;
        let stream = &mut self.streams[index];
        let gated = stream.gate.is_some();
        if !gated {
            stream.lookahead.fill(drive, &mut stream.generator, &mut stream.content, needs_content);
        }
        // The job's next command is a flush (fio's fsync=N) when it has another command to
        // issue after it (fio checks the job's bytes before it takes its next command); the
        // command goes once the flush returns.
        if self.flush_stats.is_some() && stream.flushes.as_ref().is_some_and(|f| f.due()) {
            let has_next = match stream.gate.as_ref() {
                Some(gate) => !gate.ready.is_empty(),
                None => stream.lookahead.get(0).is_some(),
            };
            if has_next {
                let done_ns = drive.flush(at_ns);
                self.flushed(index, arrival_ns, done_ns, true);
                self.hold(done_ns, index, Held::Issue);
                return Ok(true);
            }
        }
        let next = match stream.gate.as_mut() {
            // A gated job's commands were generated as its rate let them go (content drawn now).
            Some(gate) => match gate.ready.pop_front() {
                Some(io) => Some((io, ContentFrom::Stream)),
                None => return Ok(false),
            },
            None => stream.lookahead.pop(),
        };
        let Some((io, from)) = next else {
            // A job with a verify phase reads back what it wrote once its writes complete.
            if let Some(v) = stream.verify.as_mut().filter(|v| v.has_phase()) {
                v.phase = Phase::Draining;
                return Ok(false);
            }
            stream.stopped = true;
            if let Some(t) = stream.think.as_mut() {
                // Issued, but the job had nothing left: nothing went out.
                t.in_flight = t.in_flight.saturating_sub(1);
            }
            if stream.job.exitall {
                self.stop_issuing();
            }
            return Ok(false);
        };
        if let Some(soon) = stream.lookahead.get(STAGE2_AT) {
            drive.prefetch_stage2(soon);
        }
        if needs_content {
            if let Some(soon) = stream.lookahead.get(STAGE3_AT) {
                drive.prefetch_stage3(soon);
            }
        }
        let mut done_ns = if self.verifying {
            self.submit_verified(drive, index, &io, from, at_ns)?
        } else {
            match from {
                ContentFrom::Ahead if needs_content => drive.submit_with(&io, at_ns, stream.lookahead.contents())?,
                _ => drive.submit_with(&io, at_ns, &mut stream.content)?,
            }
        };
        if self.flush_stats.is_some() {
            if let Some(f) = self.streams[index].flushes.as_mut() {
                f.issued(io.op);
                if f.asked.sync_writes && io.op == Op::Write {
                    // fio's sync=1 (O_SYNC): the write returns once a flush after it has.
                    done_ns = drive.flush(done_ns);
                }
            }
        }
        self.inflight.push(at_ns, arrival_ns, done_ns, io.op, io.len_bytes);
        if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
            m.outstanding += 1;
        }
        // A lone job owns every command: no need to track whose each is.
        if self.streams.len() > 1 {
            self.owner_seq += 1;
            self.owners.push(Reverse((done_ns, self.owner_seq, index)));
        }
        Ok(true)
    }

    /// The group issues no more commands (steady state reached, or a job with fio's `exitall`
    /// has issued its last); those in flight complete.
    fn stop_issuing(&mut self) {
        self.stopped_issuing = true;
        self.host_queue.clear();
        self.pending.clear();
    }

    /// A drive slot freed at `at_ns`: submit what the host holds, oldest first.
    fn drain_host_queue(&mut self, drive: &mut Drive, at_ns: Nanoseconds) -> Result<()> {
        while self.inflight.len() < self.device_depth {
            let Some((arrival_ns, index)) = self.host_queue.pop_front() else { break };
            if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                m.outstanding = m.outstanding.saturating_sub(1);
            }
            if self.stopped_issuing {
                continue;
            }
            self.submit(drive, index, arrival_ns, at_ns.max(arrival_ns))?;
        }
        Ok(())
    }

    /// Figures count from the end of `ramp_time`: take the baselines again there. `first` is
    /// the command whose completion ends the ramp, if one does. As fio (its stats reset at the ramp's end,
    /// commands count when they complete), the commands in flight then count in the measured
    /// part: the drive counted them when they were submitted, so they come off its baseline
    /// (commands and bytes; the flash's own counters stay as they are).
    fn end_ramp(&mut self, drive: &Drive, first: Option<(Op, u64)>) {
        self.ramped = true;
        self.metrics = Metrics::new(self.ramp_end_ns);
        self.flash_base = drive.flash().counters().clone();
        self.drive_base = drive.counters().clone();
        for (op, bytes) in self.inflight.in_flight().chain(first) {
            let base = &mut self.drive_base;
            let (commands, counted_bytes) = match op {
                Op::Read => (&mut base.read_commands, &mut base.host_read_bytes),
                Op::Write => (&mut base.write_commands, &mut base.host_write_bytes),
                Op::Trim => (&mut base.trim_commands, &mut base.host_trim_bytes),
            };
            *commands = commands.saturating_sub(1);
            *counted_bytes = counted_bytes.saturating_sub(bytes);
        }
        self.busy_counters_base = crate::utilization::BusyCounters::of(drive);
        self.energy_base_nj = drive.flash().counters().energy_nj;
        self.state_energy_base_nj = drive.state_energy_nj(self.ramp_end_ns);
        self.reduction_base = drive.translation().reduction_stats().cloned();
        self.metadata_base = drive.translation().metadata_stats();
        self.busy_base_ns = self.inflight.busy().any_ns;
        self.completed = 0;
        for stream in &mut self.streams {
            if let Some(check) = stream.limits.as_mut() {
                check.restart(self.ramp_end_ns);
            }
            // fio's reset_all_stats sets the counts of issued commands back to zero.
            if let Some(f) = stream.flushes.as_mut() {
                f.restart_count();
            }
        }
    }

    /// A flush of stream `index`, called at `arrival_ns`, completed at `done_ns`: the job
    /// waits for it, and the measured part counts it when `counted` (fio's `fsync=N`; not the
    /// flush at the job's end, which fio runs outside its accounted state).
    fn flushed(&mut self, index: usize, arrival_ns: Nanoseconds, done_ns: Nanoseconds, counted: bool) {
        if let Some(f) = self.streams[index].flushes.as_mut() {
            f.flushed(done_ns);
        }
        if let (true, Some(stats)) = (counted && self.ramped && arrival_ns >= self.ramp_end_ns, self.flush_stats.as_mut()) {
            stats.record(done_ns - arrival_ns);
        }
    }

    /// fio's `end_fsync`: each job that issues no more, has nothing in flight or held by the
    /// host, wrote, ended without error and did not just flush, flushes once (no earlier than
    /// `at_ns` and the end of its previous flush); the run ends when that flush does. Every job
    /// is looked at: one job's event can end another (the host's queue, `exitall`).
    fn end_flushes(&mut self, drive: &mut Drive, at_ns: Nanoseconds) {
        for index in 0..self.streams.len() {
            let stream = &self.streams[index];
            let stopped = stream.stopped || self.stopped_issuing;
            let Some(f) = stream.flushes.as_ref() else { continue };
            if !f.end_due(stopped) {
                continue;
            }
            if self.host_queue.iter().any(|&(_, i)| i == index) || self.pending.iter().any(|Reverse((_, _, i, _))| *i == index) {
                continue;
            }
            let failed = stream.failed;
            let writes = stream.job.rw.writes();
            let Some(f) = self.streams[index].flushes.as_mut() else { continue };
            f.ended();
            // fio's should_fsync: only a job that writes, not right after a sync, and not after
            // an error.
            if failed || !writes || f.last_was_sync() {
                continue;
            }
            let start_ns = at_ns.max(f.blocked_until_ns);
            let done_ns = drive.flush(start_ns);
            self.flushed(index, start_ns, done_ns, false);
            if let (true, Some(stats)) = (self.ramped, self.flush_stats.as_mut()) {
                stats.record_end();
            }
            self.last_done_ns = self.last_done_ns.max(done_ns);
        }
    }

    /// A command of stream `index` completed at `now_ns` (`host_ns` of host time after it): with
    /// fio's thinktime, once a think is due the job issues nothing until all its commands have
    /// completed, then thinks and fills its queue again. Returns whether the slot is held
    /// (nothing to schedule now).
    fn think_completed(&mut self, index: usize, now_ns: Nanoseconds, host_ns: Nanoseconds) -> bool {
        let stopped = self.streams[index].stopped || self.stopped_issuing;
        let stream = &mut self.streams[index];
        let completions = stream.completions;
        let Some(t) = stream.think.as_mut() else { return false };
        t.in_flight = t.in_flight.saturating_sub(1);
        if !t.quiescing && !stopped && t.due(completions, now_ns) {
            t.quiescing = true;
        }
        if !t.quiescing {
            return false;
        }
        if t.in_flight == 0 {
            let until_ns = t.think(completions, now_ns.saturating_add(host_ns));
            if self.ramped {
                self.host_time_ns += t.think_ns();
            }
            for _ in 0..stream.job.iodepth {
                self.hold(until_ns, index, Held::Schedule);
            }
        }
        true
    }

    /// Stream `index` ended in error at `at_ns` (fio's `td_verror`): it issues no more, the
    /// group's first error is kept for the summary, and with fio's `exitall` or
    /// `exitall_on_error` the group's other jobs issue no more either.
    fn job_failed(&mut self, index: usize, errno: i32, message: String, at_ns: Nanoseconds) {
        let stream = &mut self.streams[index];
        stream.stopped = true;
        stream.failed = true;
        let stop_group = stream.job.exitall || stream.job.exitall_on_error;
        if self.job_error.is_none() {
            let at_seconds = at_ns.saturating_sub(self.ramp_end_ns) as f64 / 1e9;
            self.job_error = Some(JobError { job: stream.job.name.clone(), errno, message, at_seconds });
        }
        if stop_group {
            self.stop_issuing();
        }
    }

    /// A command of stream `index`, which searches for its depth (fio's `latency_target`),
    /// completed: feed the search, then keep as many commands going as its depth allows.
    fn search_completed(&mut self, drive: &mut Drive, index: usize, done: &crate::inflight::Completion, thinktime_ns: Nanoseconds) -> Result<()> {
        let ramped = self.ramped;
        let stream = &mut self.streams[index];
        stream.active = stream.active.saturating_sub(1);
        let completions = stream.completions;
        let Some(search) = stream.search.as_mut() else { return Ok(()) };
        let step = search.completed(done.done_ns - done.arrival_ns, done.done_ns, completions, ramped);
        if step.gave_up {
            // fio's lat_fatal with the target as the limit.
            let message = format!("fio: latency of {} nsec exceeds specified max ({} nsec)", done.done_ns - done.arrival_ns, search.target().target_ns);
            self.job_failed(index, ETIMEDOUT, message, done.done_ns);
            return Ok(());
        }
        if step.done {
            stream.stopped = true;
            if stream.job.exitall {
                self.stop_issuing();
            }
            return Ok(());
        }
        let depth = search.depth();
        if search.quiescing() {
            if stream.active > 0 {
                return Ok(());
            }
            // Every command of the job has finished: the next window starts; the final run's
            // figures restart here when the job runs alone (fio resets the job's figures and
            // its runtime).
            if search.quiesced(done.done_ns, completions) && self.streams.len() == 1 {
                self.ramp_end_ns = done.done_ns;
                self.end_ramp(drive, None);
            }
        }
        let at_ns = done.done_ns.saturating_add(thinktime_ns);
        while self.streams[index].active < depth && !self.streams[index].stopped && !self.stopped_issuing {
            self.streams[index].active += 1;
            self.schedule(drive, index, at_ns)?;
        }
        Ok(())
    }

    /// Feed the seconds closed so far to fio's steady-state rule; stop the jobs once it holds.
    fn check_steady_state(&mut self, at_ns: Nanoseconds) {
        let Some(ss) = self.job.steady_state else { return };
        let ramp_seconds = ss.ramp_ns / ssdlab_core::time::NS_PER_S;
        let rows = &self.metrics.series;
        let first = (ramp_seconds as usize + self.steady_samples.len()).min(rows.len());
        for row in &rows[first..] {
            self.steady_samples.push(match ss.metric {
                SteadyMetric::Iops => row.iops,
                SteadyMetric::Bandwidth => row.read_mbps + row.write_mbps,
                SteadyMetric::Latency => row.mean_latency_us,
            });
        }
        if self.steady_at_ns.is_none() && ss.reached(&self.steady_samples) {
            self.steady_at_ns = Some(at_ns);
            self.stop_issuing();
        }
    }

    fn snapshot(&self, drive: &Drive) -> Snapshot {
        snapshot_of(drive, self.flash_base.bytes_programmed_host + self.flash_base.bytes_programmed_internal, self.drive_base.host_write_bytes)
    }

    /// Process up to `max_completions` completions. Returns whether the run is done.
    pub fn advance(&mut self, drive: &mut Drive, max_completions: u64) -> Result<bool> {
        if !self.started {
            self.started = true;
            if self.verifying {
                drive.start_verify();
            }
            // Slots are filled job by job, in file order, at the start.
            for index in 0..self.streams.len() {
                let delay_ns = self.streams[index].delay_ns;
                let slots = match &self.streams[index].search {
                    Some(search) => search.depth(),
                    None => self.streams[index].job.iodepth,
                };
                self.streams[index].active = slots;
                for _ in 0..slots {
                    if delay_ns == 0 {
                        self.schedule(drive, index, self.start_ns + self.delay_ns)?;
                    } else {
                        // fio's startdelay: the job's slots fill once it starts.
                        self.hold(self.start_ns + self.delay_ns + delay_ns, index, Held::Schedule);
                    }
                }
            }
        }
        let mut processed = 0;
        while processed < max_completions {
            // Issues a rate limit held back, in time order with the completions (first on a tie).
            if let Some(&Reverse((at_ns, _, index, what))) = self.pending.peek() {
                if self.inflight.next_done_ns().is_none_or(|done_ns| at_ns <= done_ns) {
                    self.pending.pop();
                    match what {
                        Held::Schedule => self.schedule(drive, index, at_ns)?,
                        Held::Issue => self.issue(drive, index, at_ns)?,
                        Held::GateRelease => self.gate_release(drive, index, at_ns)?,
                        Held::FlowRetry => self.flow_retry(drive, index, at_ns)?,
                    }
                    if self.flows.is_some() {
                        self.flow_wake(drive, at_ns)?;
                    }
                    if self.verifying {
                        self.start_verify_phases(drive, at_ns)?;
                    }
                    if self.flush_stats.is_some() {
                        self.end_flushes(drive, at_ns);
                    }
                    continue;
                }
            }
            let Some(done) = self.inflight.pop() else {
                if self.flow_unstick(drive)? {
                    continue;
                }
                break;
            };
            let owner = match self.owners.pop() {
                Some(Reverse((owner_done_ns, _, owner))) => {
                    debug_assert_eq!(owner_done_ns, done.done_ns, "owner heap out of step with the in-flight queue");
                    owner
                }
                None => 0,
            };
            self.now_ns = done.done_ns;
            if !self.ramped && done.done_ns >= self.ramp_end_ns {
                self.end_ramp(drive, Some((done.op, done.bytes)));
                // fio's latency_target windows count from the ramp's end.
                for stream in &mut self.streams {
                    if let Some(search) = stream.search.as_mut() {
                        search.ramp_ended(self.ramp_end_ns, stream.completions);
                    }
                }
            }
            if self.ramped {
                if self.metrics.closes_second(done.done_ns) {
                    let snapshot = self.snapshot(drive);
                    self.metrics.close_seconds_before(done.done_ns, snapshot);
                    self.check_steady_state(done.done_ns);
                }
                self.metrics.record(done.op, done.bytes, done.done_ns - done.arrival_ns);
                if let Some(tally) = self.streams[owner].tally.as_mut() {
                    tally.record(done.op, done.bytes, done.done_ns - done.arrival_ns, done.done_ns);
                }
                self.completed += 1;
            }
            self.last_done_ns = self.last_done_ns.max(done.done_ns);
            if self.flush_stats.is_some() {
                if let Some(f) = self.streams[owner].flushes.as_mut() {
                    f.in_flight = f.in_flight.saturating_sub(1);
                }
            }
            if self.flows.is_some() {
                self.flow_completed(owner, done.done_ns);
            }
            self.drain_host_queue(drive, done.done_ns)?;
            // The host's own time per command (ssdlab's host_time) before the slot's next
            // command; for a job that keeps fio's thinktime per slot (see `Stream::think`), its
            // thinktime too, after every `thinktime_blocks` completions.
            let stream = &mut self.streams[owner];
            stream.completions += 1;
            let mut thinktime_ns = stream.job.host_time_ns;
            if stream.think.is_none() && stream.job.thinktime_ns > 0 && stream.completions.is_multiple_of(stream.job.thinktime_blocks) {
                thinktime_ns += stream.job.thinktime_ns;
            }
            if self.ramped {
                self.host_time_ns += thinktime_ns;
                if let Some(check) = stream.limits.as_mut() {
                    if let Some((errno, message)) = check.completed(&stream.job.name, done.op, done.bytes, done.done_ns - done.arrival_ns, done.done_ns) {
                        self.job_failed(owner, errno, message, done.done_ns);
                    }
                }
            }
            if self.thinking && self.think_completed(owner, done.done_ns, thinktime_ns) {
                // The job waits for its other commands, or thinks (fio's thinktime).
            } else if self.streams[owner].search.is_some() {
                self.search_completed(drive, owner, &done, thinktime_ns)?;
            } else {
                if self.verifying {
                    if let Some(v) = self.streams[owner].verify.as_mut() {
                        v.outstanding = v.outstanding.saturating_sub(1);
                    }
                }
                self.schedule(drive, owner, done.done_ns.saturating_add(thinktime_ns))?;
                if self.verifying {
                    self.start_verify_phases(drive, done.done_ns.saturating_add(thinktime_ns))?;
                }
            }
            if self.flush_stats.is_some() {
                self.end_flushes(drive, done.done_ns);
            }
            if self.flows.is_some() {
                self.flow_wake(drive, done.done_ns)?;
            }
            processed += 1;
        }
        if self.is_done() {
            let snapshot = self.snapshot(drive);
            // A time-based run's series ends at its runtime; the drain after it is in the summary.
            // (Jobs that start later, by their startdelay, run that much longer.)
            let later_ns = self.latest_delay_ns();
            let series_end = self
                .job
                .runtime_ns
                .map_or(self.last_done_ns, |runtime| self.last_done_ns.min(self.ramp_end_ns.saturating_add(runtime).saturating_add(later_ns)));
            self.metrics.finish(snapshot, series_end);
        }
        Ok(self.is_done())
    }

    /// How far the run has got.
    pub fn progress(&self) -> RunProgress {
        let simulated_ns = self.now_ns - self.start_ns;
        let mut fraction: f64 = 0.0;
        if let Some(runtime) = self.job.runtime_ns {
            let later_ns = self.latest_delay_ns();
            fraction = fraction.max(simulated_ns as f64 / (runtime as f64 + (self.ramp_end_ns - self.start_ns + later_ns) as f64));
        }
        let generator = &self.streams[0].generator;
        if let Some(limit) = generator.limit_bytes() {
            let share = (generator.issued_bytes() as f64 / limit.max(1) as f64).min(1.0);
            // A job with a verify phase has as much to read back after its writes.
            fraction = fraction.max(self.streams[0].verify.as_ref().and_then(|v| v.share_done(share)).unwrap_or(share));
        }
        if let Some(n) = self.job.number_ios {
            fraction = fraction.max(generator.issued_ios() as f64 / n as f64);
        }
        RunProgress { simulated_ns, completed_ios: self.completed, fraction: fraction.min(1.0), done: self.is_done() }
    }

    /// The per-second series so far.
    pub fn series(&self) -> &[SeriesRow] {
        &self.metrics.series
    }
}
