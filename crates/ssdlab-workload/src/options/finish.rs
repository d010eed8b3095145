//! `JobSpec::finish`: the checks on a job as a whole once all its options are set, and the
//! settings it resolves from several options (verify, zones, `filesize`, flow, rate).

use super::{DirectionRate, Distribution, Extent, Flow, JobSpec, LatencyTarget, RateLimit, RwKind, StridedZones, Verify};
use ssdlab_core::{Error, Result};
use ssdlab_reduce::PatternKind;

impl JobSpec {
    /// Check the job as a whole once all options are set, and settle its data pattern.
    pub fn finish(&mut self, at: &str) -> Result<()> {
        let mut problems: Vec<String> = Vec::new();
        self.settle_block_sizes();
        self.finish_filesize(at, &mut problems);
        self.finish_zones(at, &mut problems);
        self.verify = self.verify_method.clone().map(|method| Verify {
            method,
            do_verify: self.do_verify,
            fatal: self.verify_fatal,
            pattern: self.verify_pattern.clone(),
            backlog: self.verify_backlog.unwrap_or(0),
            backlog_batch: self.verify_backlog_batch.unwrap_or(0),
        });
        self.finish_verify(at, &mut problems);
        self.finish_buffer_pattern(at, &mut problems);
        self.pattern.kind = match (self.named_pattern, self.compress_percent) {
            (Some(_), Some(_)) => {
                problems.push(format!("{at}: give either data_pattern/zero_buffers or buffer_compress_percentage, not both"));
                PatternKind::Random
            }
            (Some(kind), None) => kind,
            (None, Some(percent)) => PatternKind::FioCompress { percent, chunk_bytes: self.compress_chunk_bytes },
            (None, None) => PatternKind::Random,
        };
        // As fio, a synchronous engine caps the queue depth at 1 (then ioengine is not without
        // effect).
        if self.sync_engine && self.iodepth > 1 {
            self.iodepth = 1;
            self.no_effect.retain(|k| k != "ioengine");
        }
        if let (Some(r), Some(w)) = (self.rwmixread_given, self.rwmixwrite_given) {
            if r + w != 100 {
                problems.push(format!("{at}: rwmixread={r} and rwmixwrite={w} disagree (they must add up to 100; give one of them)"));
            }
        }
        let total: u64 = self.block_sizes.iter().map(|(_, w)| *w as u64).sum();
        if total == 0 {
            problems.push(format!("{at}: bssplit: the percentages add up to zero"));
        }
        if let Some(size) = self.size_bytes {
            if !size.is_multiple_of(512) {
                problems.push(format!("{at}: size {size} is not a whole number of 512-byte sectors"));
            }
            if let Some(align) = self.blockalign.filter(|&a| a > size) {
                problems.push(format!("{at}: blockalign {align} is larger than size {size}"));
            }
            if self.max_block_bytes() > size {
                problems.push(format!("{at}: block size {} is larger than size {size}", self.max_block_bytes()));
            }
            if self.offset_bytes.checked_add(size).is_none() {
                problems.push(format!("{at}: offset {} + size {size} is past 2^64 bytes", self.offset_bytes));
            }
        }
        if !self.offset_bytes.is_multiple_of(512) {
            problems.push(format!("{at}: offset {} is not a whole number of 512-byte sectors", self.offset_bytes));
        }
        if self.time_based && self.runtime_ns.is_none() {
            problems.push(format!("{at}: time_based needs a runtime"));
        }
        if let Some(ss) = self.steady_state {
            if ss.limit <= 0.0 && ss.duration_ns == 0 {
                problems.push(format!("{at}: steadystate_duration given without steadystate=METRIC:LIMIT"));
            } else if ss.duration_ns < 2 * ss.interval_ns {
                problems.push(format!(
                    "{at}: steadystate: needs a steadystate_duration (ss_dur) of at least two check intervals (got {} s)",
                    ss.duration_ns / 1_000_000_000
                ));
            }
        }
        self.latency_target = (self.latency_target_ns > 0).then(|| LatencyTarget {
            target_ns: self.latency_target_ns,
            window_ns: self.latency_window_ns.unwrap_or(0),
            percentile: self.latency_percentile.unwrap_or(100.0),
        });
        if self.latency_target.is_none() {
            // Without a target (fio's default 0) the window and percentile do nothing, as in fio.
            for (key, given) in [("latency_window", self.latency_window_ns.is_some()), ("latency_percentile", self.latency_percentile.is_some())] {
                if given && !self.no_effect.iter().any(|k| k == key) {
                    self.no_effect.push(key.to_string());
                }
            }
        }
        match self.resolve_rate() {
            Ok(rate) => self.rate = rate,
            Err(m) => problems.push(format!("{at}: {m}")),
        }
        if let (Some(rate), Some(_)) = (&self.rate, &self.verify) {
            if rate.uniform.is_none() {
                problems.push(format!(
                    "{at}: {}={}: a rate on a mixed job or one of several block sizes, with verify, is not simulated (give the rate to a job of one direction and one block size)",
                    rate.given.0, rate.given.1
                ));
            }
        }
        self.finish_flow();
        match self.given_limits.resolve([self.rate_bytes_given.as_ref().map(|(v, _)| *v), self.rate_iops_given.as_ref().map(|(v, _)| *v)]) {
            Ok(limits) => self.limits = limits,
            Err(m) => problems.push(format!("{at}: {m}")),
        }
        if self.given_limits.rate_cycle_ms.is_some() && !self.limits.is_some_and(|l| l.checks_rate()) {
            self.note_no_effect("rate_cycle");
        }
        if self.continue_on_error && (self.limits.is_some() || self.latency_target.is_some()) {
            problems.push(format!(
                "{at}: continue_on_error with max_latency, rate_min, rate_iops_min or latency_target is not simulated (fio may go on past the error those end a job with)"
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Workload(problems.join("\n")))
        }
    }

    /// fio's `filesize` is the size of the job's file: the span runs from `offset` to the file's
    /// end (fio's `f->io_size = real_file_size - file_offset`), and a `size` given too is how
    /// many bytes the job moves there, at most the span (fio's `setup_files` caps `o->size` at
    /// the files' total): `size=64m filesize=1g` writes 64 MiB at random offsets over 1 GiB,
    /// as fio 3.33 does (it was a 1 GiB span and 1 GiB moved, whichever option came last).
    fn finish_filesize(&mut self, at: &str, problems: &mut Vec<String>) {
        let Some(file) = self.filesize.take() else { return };
        // The span is the file's: a span too long for the drive is `filesize`'s doing (a `size`
        // given too only says how much of it the job moves).
        self.size_at = self.filesize_at.take();
        let size = match (self.size_bytes, self.size_percent) {
            (Some(b), _) => Some(Extent::Bytes(b)),
            (None, Some(p)) => Some(Extent::Percent(p)),
            (None, None) => None,
        };
        match file {
            Extent::Bytes(file_bytes) => {
                if self.offset_percent.is_some() {
                    problems
                        .push(format!("{at}: offset: a percentage with filesize is not simulated (fio takes it of the file's size; give the offset in bytes)"));
                    return;
                }
                if self.offset_bytes >= file_bytes {
                    problems.push(format!("{at}: offset {} is at or past the end of filesize {file_bytes}", self.offset_bytes));
                    return;
                }
                let span = file_bytes - self.offset_bytes;
                (self.size_bytes, self.size_percent) = (Some(span), None);
                if self.io_size_bytes.is_none() && self.io_size_percent.is_none() {
                    match size {
                        Some(Extent::Bytes(b)) => self.io_size_bytes = Some(b.min(span)),
                        Some(Extent::Percent(p)) => self.io_size_percent = Some(p.min(100.0)),
                        None => {}
                    }
                }
            }
            Extent::Percent(p) => {
                // A share of the capacity, as `size=` takes it; `size` then moves that much.
                (self.size_bytes, self.size_percent) = (None, Some(p));
                if self.io_size_bytes.is_none() && self.io_size_percent.is_none() {
                    match size {
                        Some(Extent::Bytes(b)) => self.io_size_bytes = Some(b),
                        Some(Extent::Percent(q)) => self.io_size_percent = Some((q / p * 100.0).min(100.0)),
                        None => {}
                    }
                }
            }
        }
    }

    /// fio's flow control: a job with a `flow` weight above 0 joins its `flow_id`'s counter;
    /// without one, `flow_id` and `flow_sleep` do nothing (fio's `flow_init_job`).
    fn finish_flow(&mut self) {
        if self.flow_weight > 0 {
            self.flow = Some(Flow { id: self.flow_id, weight: self.flow_weight, sleep_ns: self.flow_sleep_ns.unwrap_or(0) });
            return;
        }
        self.flow = None;
        if self.flow_id > 0 {
            self.note_no_effect("flow_id");
        }
        if self.flow_sleep_ns.is_some_and(|ns| ns > 0) {
            self.note_no_effect("flow_sleep");
        }
    }

    /// fio's zone options as fio settles them: `zonesize` alone means `zonemode=strided`;
    /// `zonerange` defaults to `zonesize`; with `zonemode=none` they are an error.
    fn finish_zones(&mut self, at: &str, problems: &mut Vec<String>) {
        let given = self.zone_size > 0;
        let at = self.zone_at.clone().unwrap_or_else(|| at.to_string());
        match (self.zone_mode.as_deref(), given) {
            (Some("none"), true) => problems.push(format!("{at}: zonemode=none and zonesize are not compatible (as in fio)")),
            (Some("strided"), false) => problems.push(format!("{at}: zonemode=strided needs zonesize (as in fio)")),
            (_, true) => {
                if !matches!(self.distribution, Distribution::Uniform) {
                    problems.push(format!("{at}: strided zones with random_distribution other than random are not simulated"));
                }
                let range = if self.zone_range > 0 { self.zone_range } else { self.zone_size };
                if range < self.max_block_bytes() {
                    problems.push(format!("{at}: zonerange {range} is smaller than the block size {}", self.max_block_bytes()));
                }
                self.strided = Some(StridedZones { size_bytes: self.zone_size, range_bytes: range, skip_bytes: self.zone_skip });
            }
            _ => {
                // zonerange or zoneskip without zones: nothing to do, as in fio.
                if self.zone_range > 0 {
                    self.note_no_effect("zonerange");
                }
                if self.zone_skip > 0 {
                    self.note_no_effect("zoneskip");
                }
            }
        }
    }

    /// fio's `buffer_pattern`: alone, every write buffer holds the same bytes, so every sector
    /// written is the same (a repeating pattern, each sector a duplicate of the first); with
    /// `buffer_compress_percentage` or `dedupe_percentage` fio fills only the compressible part
    /// of each buffer with it, as zeros are filled here (no change).
    fn finish_buffer_pattern(&mut self, at: &str, problems: &mut Vec<String>) {
        if self.buffer_pattern.is_none() {
            return;
        }
        if self.verify_pattern.is_some() {
            problems.push(format!("{at}: give buffer_pattern or verify_pattern, not both"));
        } else if matches!(self.named_pattern, Some(k) if k != PatternKind::Zeros) {
            problems.push(format!("{at}: give buffer_pattern or data_pattern, not both"));
        } else if self.compress_percent.is_some() || self.pattern.dedupe_percent > 0 {
            self.note_no_effect("buffer_pattern");
        } else {
            // fio's buffer_pattern takes the place of zero_buffers.
            self.named_pattern = Some(PatternKind::Repeating);
            self.pattern.dedupe_percent = 100;
        }
    }

    /// Settle what fio's `verify` changes: `verify_pattern` fills the write buffers (one byte
    /// value repeated after fio's header, which keeps each block distinct; with
    /// `verify=pattern`, which writes no header, every block is the same); the options that
    /// only matter with verify do nothing without it. Combinations not simulated are refused.
    fn finish_verify(&mut self, at: &str, problems: &mut Vec<String>) {
        let Some(verify) = self.verify.clone() else {
            for (key, given) in [
                ("do_verify", !self.do_verify),
                ("verify_fatal", self.verify_fatal),
                ("verify_pattern", self.verify_pattern.is_some()),
                ("verify_backlog", self.verify_backlog.is_some()),
                ("verify_backlog_batch", self.verify_backlog_batch.is_some()),
            ] {
                if given {
                    self.note_no_effect(key);
                }
            }
            return;
        };
        if verify.pattern.is_some() {
            if self.named_pattern.is_some() || self.compress_percent.is_some() {
                problems
                    .push(format!("{at}: verify_pattern fills the write buffers: give it or data_pattern/zero_buffers/buffer_compress_percentage, not both"));
            }
            self.named_pattern = Some(PatternKind::Repeating);
            if verify.method == "pattern" {
                self.pattern.dedupe_percent = 100;
            }
        }
        if self.rw.trims_then_writes() {
            problems.push(format!("{at}: verify with rw={} is not simulated", self.rw.name()));
        }
        if verify.do_verify && self.rw.writes() {
            if self.flushes.any() {
                problems.push(format!("{at}: verify with fsync, fdatasync, end_fsync or sync is not simulated (give the flushes to a job without verify)"));
            }
            if self.time_based {
                problems.push(format!(
                    "{at}: verify with time_based: fio writes `size` bytes, verifies them and starts again until the runtime; that cycle is not simulated (drop time_based: the job writes its size, then verifies)"
                ));
            }
            if self.latency_target_ns > 0 {
                problems.push(format!("{at}: verify with latency_target is not simulated (fio searches for the depth over the verify reads too)"));
            }
        }
    }

    /// The job's rate limit from `rate_iops`/`rate` (fio's values are per direction: read,
    /// write, trim), for the directions the job issues.
    fn resolve_rate(&self) -> std::result::Result<Option<RateLimit>, String> {
        let nonzero = |given: &Option<([u64; 3], String)>| given.as_ref().is_some_and(|(v, _)| v.iter().any(|&x| x > 0));
        if nonzero(&self.rate_iops_given) && nonzero(&self.rate_bytes_given) {
            // fio's fixup_options refuses any of one with any of the other.
            return Err("rate and rate_iops are mutually exclusive (as in fio: give one of them)".to_string());
        }
        let Some(((values, text), key)) = [(&self.rate_iops_given, "rate_iops"), (&self.rate_bytes_given, "rate")]
            .into_iter()
            .find_map(|(g, k)| g.as_ref().filter(|(v, _)| v.iter().any(|&x| x > 0)).map(|g| (g, k)))
        else {
            return Ok(None);
        };
        let mixed = matches!(self.rw, RwKind::RandRw | RwKind::ReadWrite);
        let issued = [self.rw.reads() && (!mixed || self.rwmixread > 0), self.rw.writes() && (!mixed || self.rwmixread < 100), self.rw.trims()];
        if !(0..3).any(|d| issued[d] && values[d] > 0) {
            return Ok(None);
        }
        if self.rw.trims_then_writes() {
            return Err(format!(
                "{key}={text}: a rate on rw={} is not simulated (fio paces its trims and the writes after them each to its own rate)",
                self.rw.name()
            ));
        }
        let sizes_of = |d: usize| -> &[(u64, u32)] {
            match self.block_sizes_by_op.as_deref() {
                Some(by_op) => &by_op[d],
                None => &self.block_sizes,
            }
        };
        let mut directions = [None; 3];
        for d in 0..3 {
            if !issued[d] || values[d] == 0 {
                continue;
            }
            let smallest = sizes_of(d).iter().map(|(b, _)| *b).min().unwrap_or(4096);
            let (per, ns_times_per, bytes_per_second) = if key == "rate" {
                (values[d], 1_000_000_000u128 * smallest as u128, values[d])
            } else {
                (values[d], 1_000_000_000u128, values[d].saturating_mul(smallest))
            };
            directions[d] = Some(DirectionRate { bytes_per_second, ns_times_per, per });
        }
        let issued_count = issued.iter().filter(|&&i| i).count();
        let uniform = (0..3).find(|&d| issued[d]).filter(|&d| issued_count == 1 && sizes_of(d).len() == 1);
        Ok(Some(RateLimit { given: (key.to_string(), text.clone()), directions, uniform, poisson: self.rate_poisson, issued }))
    }
}
