//! A finished run's summary: its figures since the ramp's baselines.

use super::*;

impl Run {
    /// Summarize the run (call once done; `wall_seconds` is measured by the caller).
    pub fn summary(&self, drive: &Drive, wall_seconds: f64) -> RunSummary {
        let f = drive.flash().counters();
        let b = &self.flash_base;
        let d = drive.counters();
        let db = &self.drive_base;
        let simulated_ns = self.last_done_ns.saturating_sub(self.ramp_end_ns);
        let sim_s = seconds(simulated_ns).max(1e-12);
        let host_write_bytes = d.host_write_bytes - db.host_write_bytes;
        let host_read_bytes = d.host_read_bytes - db.host_read_bytes;
        let nand_write_bytes_host = f.bytes_programmed_host - b.bytes_programmed_host;
        let nand_write_bytes_gc = f.bytes_programmed_internal - b.bytes_programmed_internal;
        let nand_write_bytes = nand_write_bytes_host + nand_write_bytes_gc;
        let reads = d.read_commands - db.read_commands;
        let writes = d.write_commands - db.write_commands;
        let trims = d.trim_commands - db.trim_commands;
        let p = drive.profile();
        // fio reports a group as one with its last job's percentile list (`__show_run_stats`
        // copies each job's list over the one before; the name is the first job's).
        let percentiles = &self.job.group().last().unwrap_or(&self.job).percentiles;
        let idle_w = p.idle_watts();
        let busy_ns = self.inflight.busy().any_ns - self.busy_base_ns;
        // Idle power over the run: the profile's constant, or (drives with power states) the
        // power of the states the drive was in.
        let base_joules = match (self.state_energy_base_nj, drive.state_energy_nj(self.last_done_ns)) {
            (Some(start), Some(end)) => (end - start) / 1e9,
            _ => idle_w * sim_s,
        };
        // The controller's energy per byte moved (profiles that give it; 0 otherwise).
        let data_joules = p.controller.data_pj_per_byte * (host_read_bytes + host_write_bytes) as f64 * 1e-12;
        let flash_nj = crate::utilization::flash_energy_at_nj(drive, self.last_done_ns) - self.energy_base_nj;
        let energy_joules = flash_nj / 1e9 + base_joules + p.controller.active_mw / 1e3 * seconds(busy_ns) + data_joules;
        let wear = drive.translation().wear();
        RunSummary {
            job: self.job.name.clone(),
            rw: self.job.rw.name().to_string(),
            iodepth: self.job.group_iodepth().min(u32::MAX as u64) as u32,
            seed: self.seed,
            simulated_seconds: seconds(simulated_ns),
            wall_seconds,
            ios: self.completed,
            reads,
            writes,
            trims,
            iops: self.completed as f64 / sim_s,
            read_mbps: host_read_bytes as f64 / 1e6 / sim_s,
            write_mbps: host_write_bytes as f64 / 1e6 / sim_s,
            host_read_bytes,
            host_write_bytes,
            host_trim_bytes: d.host_trim_bytes - db.host_trim_bytes,
            nand_write_bytes,
            nand_write_bytes_host,
            nand_write_bytes_gc,
            nand_read_bytes: f.bytes_read - b.bytes_read,
            nand_page_reads: f.page_reads - b.page_reads,
            nand_page_programs: f.page_programs - b.page_programs,
            nand_block_erases: f.block_erases - b.block_erases,
            write_amplification: (host_write_bytes > 0).then(|| nand_write_bytes as f64 / host_write_bytes as f64),
            latency_us: self.metrics.latency_all(&percentiles.list, percentiles.bins),
            read_latency_us: self.metrics.latency_reads(&percentiles.list, percentiles.bins),
            write_latency_us: self.metrics.latency_writes(&percentiles.list, percentiles.bins),
            trim_latency_us: self.metrics.latency_trims(&percentiles.list, percentiles.bins),
            busy_seconds: seconds(busy_ns),
            energy_joules,
            mean_power_watts: energy_joules / sim_s,
            wear: WearReport { min: wear.min, mean: wear.mean, max: wear.max },
            free_blocks: drive.translation().free_blocks_total(),
            data_pattern: self.job.pattern.key(),
            nand_reads_per_read_sector: {
                let sectors = d.host_read_sectors - db.host_read_sectors;
                (sectors > 0).then(|| (d.host_nand_reads - db.host_nand_reads) as f64 / sectors as f64)
            },
            map_page_reads: d.map_page_reads - db.map_page_reads,
            reduction: self.reduction_report(drive),
            series_truncated: self.metrics.truncated(),
            jobs_in_group: self.streams.len() as u32,
            each_job: self
                .streams
                .iter()
                .filter_map(|s| {
                    let start_ns = s.measured_start_ns(self.ramp_end_ns);
                    s.tally.as_ref().map(|t| JobFigures {
                        job_error: s.error.clone(),
                        verify: s.verify.as_ref().and_then(|v| VerifyReport::of(std::iter::once(v))),
                        rate_samples: s.rates.report(),
                        depth_levels: s.depth.report(),
                        ..t.figures(&s.job, start_ns)
                    })
                })
                .collect(),
            host_queued_max: self.host_queued_max,
            rate_iops_limit: self.job.group().map(|j| j.rate.as_ref().and_then(|r| r.commands_per_second())).sum(),
            unmapped_read_bytes: d.unmapped_read_bytes - db.unmapped_read_bytes,
            ramp_seconds: seconds(self.ramp_end_ns - self.start_ns - self.delay_ns),
            steady_state_seconds: self.steady_at_ns.map(|t| seconds(t.saturating_sub(self.ramp_end_ns))),
            steady_state: self.steady_report(),
            tiers: crate::tiers::TierReport::since(self.tier_base, drive),
            utilization: crate::utilization::Utilization::between(
                &self.busy_counters_base,
                &crate::utilization::BusyCounters::at(drive, self.last_done_ns),
                simulated_ns,
                p.geometry.dies(),
                p.geometry.channels,
                self.job.group_iodepth().max(1),
                self.host_time_ns,
                if nand_write_bytes > 0 { nand_write_bytes_gc as f64 / nand_write_bytes as f64 } else { 0.0 },
                {
                    let sectors = d.host_read_sectors - db.host_read_sectors;
                    if sectors > 0 {
                        (d.map_page_reads - db.map_page_reads) as f64 / sectors as f64
                    } else {
                        0.0
                    }
                },
                if host_read_bytes > 0 {
                    ((f.bytes_read - b.bytes_read) - (f.bytes_read_internal - b.bytes_read_internal)) as f64 / host_read_bytes as f64
                } else {
                    0.0
                },
            ),
            metadata: MetadataReport::since(self.metadata_base, drive, host_write_bytes),
            latency_target: self.latency_target_report(),
            job_error: self.job_error.clone(),
            flushes: self.flush_stats.as_ref().map(|f| f.report(self.job.percentiles.bins)),
            rate_samples: self.streams.iter().fold(crate::RateSampleReport::default(), |mut sum, s| {
                sum.add_up(&s.rates.report());
                sum
            }),
            verify: VerifyReport::of(self.streams.iter().filter_map(|s| s.verify.as_ref())),
            depth_levels: self.streams.iter().fold(crate::DepthReport::default(), |mut sum, s| {
                sum.add_up(&s.depth.report());
                sum
            }),
        }
    }

    pub(super) fn reduction_report(&self, drive: &Drive) -> Option<ReductionReport> {
        reduction_since(self.reduction_base.as_ref(), drive)
    }

    /// What the group's `latency_target` searches found, if any job has one.
    pub(super) fn latency_target_report(&self) -> Option<LatencyTargetReport> {
        let searches: Vec<&DepthSearch> = self.streams.iter().filter_map(|s| s.search.as_ref()).collect();
        let first = searches.first()?.target();
        Some(LatencyTargetReport {
            target_us: first.target_ns as f64 / 1e3,
            window_ms: first.window_ns as f64 / 1e6,
            percentile: first.percentile,
            depth: searches.iter().map(|s| s.depth() as u64).sum(),
            jobs: searches.len() as u32,
            settled: searches.iter().all(|s| s.done()),
            failed_at_depth_1_us: searches.iter().find_map(|s| s.gave_up_ns()).map(|ns| ns as f64 / 1e3),
        })
    }
}

/// What the data-reduction engine did since `base` (its statistics then; `None`: since the
/// drive was new), or `None` on a drive without the engine. Runs and trace replays report it.
pub(crate) fn reduction_since(base: Option<&ChunkStats>, drive: &Drive) -> Option<ReductionReport> {
    let now = drive.translation().reduction_stats()?;
    let base = base.cloned().unwrap_or_default();
    let unit = drive.translation().ecc_unit_bytes()? as u64;
    let sectors = now.host_sectors_written - base.host_sectors_written;
    let bytes_stored = (now.host_units_written - base.host_units_written) * unit;
    let host_bytes = sectors * SECTOR_BYTES;
    let rate = |n: u64| (sectors > 0).then(|| n as f64 / sectors as f64);
    Some(ReductionReport {
        bytes_after_dedup: now.bytes_after_dedup - base.bytes_after_dedup,
        bytes_after_compression: now.bytes_after_compression - base.bytes_after_compression,
        bytes_stored,
        data_reduction_ratio: (bytes_stored > 0).then(|| host_bytes as f64 / bytes_stored as f64),
        dedup_hit_rate: rate(now.dedup_hits - base.dedup_hits),
        zero_sector_rate: rate(now.zero_sectors - base.zero_sectors),
        index_full_skips: now.index_full_skips - base.index_full_skips,
        gc_chunks_moved: now.gc_chunks_moved - base.gc_chunks_moved,
    })
}
