//! Preparing a run: each job of the group becomes a stream (its seed, startdelay, rate,
//! thinktime, depth search, verify, limits and flushes), checked against the simulated clock's
//! limit, and the run takes its baselines from the drive.

use super::*;

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
        // Each job ramps from its own start, as fio's (`ramp_time` after its `startdelay`), and
        // its runtime counts from there: both must stay within the simulated clock's limit.
        let mut measure_from = Vec::new();
        for (member, &d) in job.group().zip(&delays) {
            let Some(from_ns) = (at_ns + d).checked_add(member.ramp_ns).filter(|&t| t <= crate::session::MAX_SIMULATED_NS) else {
                bail!(
                    Workload,
                    "job {}: startdelay and ramp_time pass the simulated clock's limit of {:.0} s",
                    member.name,
                    seconds(crate::session::MAX_SIMULATED_NS)
                );
            };
            if let Some(runtime) = member.runtime_ns.filter(|&r| r > crate::session::MAX_SIMULATED_NS - from_ns) {
                bail!(
                    Workload,
                    "job {}: a runtime of {:.0} s from the simulated present ({:.0} s) passes the simulated clock's limit of {:.0} s",
                    member.name,
                    seconds(runtime),
                    seconds(at_ns),
                    seconds(crate::session::MAX_SIMULATED_NS)
                );
            }
            measure_from.push(from_ns);
        }
        // The group's measured part (the drive's figures) starts at its earliest job's.
        let ramp_end_ns = measure_from.iter().copied().min().unwrap_or(at_ns);
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
                measure_from_ns: measure_from[index],
                ramped: member.ramp_ns == 0,
                completions: 0,
                search: member.latency_target.map(|t| DepthSearch::new(t, member.iodepth, ramp_end_ns)),
                active: 0,
                verify: member.verify.as_ref().map(|v| JobVerify::new(v, member.rw)),
                limits: member.limits.map(|l| LimitCheck::new(l, at_ns + delays[index])),
                flushes: JobFlushes::new(member.flushes),
                failed: false,
                error: None,
                think: (member.rate.is_none() && member.latency_target.is_none() && member.verify.is_none() && !member.flushes.any())
                    .then(|| Think::new(member, at_ns + delays[index]))
                    .flatten(),
                gate: member.rate.as_ref().filter(|r| r.uniform.is_none()).map(|_| rate_gate::RateGate::default()),
                tally: None,
                rates: crate::rate_samples::RateSamples::new(member.logs.bw_sample_ms(), member.logs.iops_sample_ms()),
                depth: crate::depth_levels::DepthLevels::default(),
            });
        }
        if streams.len() > 1 {
            for stream in &mut streams {
                stream.tally = Some(job_tally::JobTally::new(stream.flushes.is_some()));
            }
        }
        let total_depth = job.group_iodepth();
        let streams_next_ramp = streams.iter().filter(|s| !s.ramped).map(|s| s.measure_from_ns).min().unwrap_or(Nanoseconds::MAX);
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
            sending_depth: None,
            host_queued_max: 0,
            pending: BinaryHeap::new(),
            pending_seq: 0,
            delay_ns,
            device_depth,
            ramp_end_ns,
            ramped: ramp_end_ns == at_ns + delay_ns,
            next_job_ramp_ns: streams_next_ramp,
            busy_base_ns: 0,
            steady_samples: Vec::new(),
            steady_at_ns: None,
            steady_samples_at: None,
            started: false,
            stopped_issuing: false,
            completed: 0,
            metrics: Metrics::new(ramp_end_ns),
            log_windows: log_windows_for(job, ramp_end_ns),
            flash_base: drive.flash().counters().clone(),
            drive_base: drive.counters().clone(),
            busy_counters_base: crate::utilization::BusyCounters::at(drive, ramp_end_ns),
            host_time_ns: 0,
            energy_base_nj: crate::utilization::flash_energy_at_nj(drive, ramp_end_ns),
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
}

/// The log windows of a measured part starting at `start_ns`, for the logs the per-second
/// series cannot give: when the job writes a log and its `log_avg_msec` is not a whole number
/// of seconds (`None` otherwise; 0, fio's per-IO logging, is written per second from the series).
pub(super) fn log_windows_for(job: &JobSpec, start_ns: Nanoseconds) -> Option<LogWindows> {
    let logs = &job.logs;
    let writes_a_log = logs.bw.is_some() || logs.lat.is_some() || logs.iops.is_some();
    (writes_a_log && logs.avg_msec > 0 && !logs.avg_msec.is_multiple_of(1000)).then(|| LogWindows::new(start_ns, logs.avg_msec))
}
