//! The seeded IO stream of a job.

use crate::options::{Distribution, JobSpec, RwKind, StridedZones, Zone, ZoneExtent};
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

impl Op {
    /// The command's direction as an index: reads 0, writes 1, trims 2 (fio's `ddir` order,
    /// the order of per-direction values such as `bs=4k,64k`).
    pub fn index(self) -> usize {
        match self {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => 2,
        }
    }
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
    /// With block sizes per direction and no `blockalign`: each direction's alignment, its own
    /// smallest size (fio's `ba[ddir]`).
    align_by_op: Option<[u64; 3]>,
    rng: SimRng,
    cursor_bytes: u64,
    /// Where the writes of `rw=rw` go on: fio keeps a sequential position per direction, so a
    /// mixed sequential job writes from the span's start as it reads from it.
    write_cursor_bytes: u64,
    /// IOs still to issue sequentially after a random offset (`rw=randread:N`).
    run_left: u64,
    /// fio's `randtrimwrite`: the block just trimmed, to be written next.
    pending_write: Option<(u64, u64)>,
    /// fio's sequential `trimwrite` (`set_rw_ddir` in fio's `io_u.c`): the start of the last
    /// trim and of the last write of this pass (`None` before the first). The next command is a
    /// trim when they are equal, else a write at the writes' own position, of the write size:
    /// with one block size each block is trimmed, then written; with `bs=512,512,16k` each
    /// 16 KiB trim is followed by the 512-byte writes up to its start, as fio issues them.
    last_starts: (Option<u64>, Option<u64>),
    /// Most IOs the job issues (`number_ios`; doubled for `trimwrite`, as fio doubles it).
    ios_limit: Option<u64>,
    issued_ios: u64,
    issued_bytes: u64,
    /// The most bytes the job moves (fio's `io_size`, else `size`, times `loops`).
    limit_bytes: Option<u64>,
    /// fio's `io_size` when given: after its `loops` passes, a sequential job starts another
    /// only while it has moved less.
    io_size_bytes: Option<u64>,
    /// Passes over the span begun so far (the first included).
    passes_started: u64,
    /// The bytes a sequential job moves by its passes, when they are known ahead (one block
    /// size, no strided zones, not `time_based`): what `limit_bytes()` reports.
    expected_bytes: Option<u64>,
    weight_total: u64,
    equal_weights: bool,
    zipf: Option<(Zipf<f64>, u64)>,
    /// fio's Pareto: the power applied to a uniform draw, and the blocks of the span.
    pareto: Option<(f64, u64)>,
    /// Zones of `random_distribution=zoned`: cumulative access percent, start and end bytes.
    zones: Vec<(u32, u64, u64)>,
    /// fio's strided zones: the current zone's start and the bytes moved in it.
    strided: Option<(StridedZones, u64, u64)>,
    /// The one block size of the job and how many aligned positions it has in the span
    /// (computed once instead of a division per command).
    positions_of_fixed: Option<(u64, u64)>,
    /// A sequential position that reaches the span's end wraps to its start within the pass
    /// (a `time_based` job, one in strided zones) instead of ending the pass.
    wraps_in_pass: bool,
}

impl IoGenerator {
    /// A generator for `job` on a device exposing `capacity_bytes` to workloads.
    pub fn new(job: &JobSpec, capacity_bytes: u64, seed: u64) -> Result<Self> {
        // Messages name the job (and its copy), after where its span's options stand.
        let copy = if job.copy_index > 0 { format!(" (copy {} of numjobs)", job.copy_index + 1) } else { String::new() };
        let file = match (&job.filename, job.file_base_bytes) {
            (Some((name, _)), base) if base > 0 => format!(" (its file `{name}` starts at {base}, after the job file's other files)"),
            _ => String::new(),
        };
        let at = format!("job {}{copy}{file}", job.name);
        let placed = |place: &Option<String>| match place {
            Some(place) => format!("{place}: {at}"),
            None => at.clone(),
        };
        // A copy of a numjobs group is placed by offset_increment.
        let offset_at = if job.copy_index > 0 && job.increment_at.is_some() { &job.increment_at } else { &job.offset_at };
        let min_bs = job.min_block_bytes();
        // Percentages of the device, as fio: a size rounded down to the smallest block size, an
        // offset (with its percentage increments) rounded up to it (fio's get_start_offset).
        let of_capacity = |percent: f64| -> u64 { ((capacity_bytes as f64 * percent / 100.0) as u64 / min_bs) * min_bs };
        let offset_bytes = match job.offset_percent {
            Some(p) => ((capacity_bytes as f64 * p / 100.0) as u64).div_ceil(min_bs).saturating_mul(min_bs).saturating_add(job.offset_bytes),
            None => job.offset_bytes,
        };
        // On a job file naming several files, the job's file starts after the others (files.rs).
        let offset_bytes = offset_bytes.saturating_add(job.file_base_bytes);
        if offset_bytes >= capacity_bytes {
            bail!(Workload, "{}: offset {offset_bytes} is beyond the usable capacity of {capacity_bytes} bytes", placed(offset_at));
        }
        let span_bytes = match (job.fill_device, job.size_bytes, job.size_percent) {
            (true, _, _) | (false, None, None) => capacity_bytes - offset_bytes,
            (false, Some(bytes), _) => bytes,
            (false, None, Some(p)) => of_capacity(p).min(capacity_bytes - offset_bytes),
        };
        let Some(end_bytes) = offset_bytes.checked_add(span_bytes) else {
            bail!(Workload, "{at}: offset {offset_bytes} + size {span_bytes} is past 2^64 bytes");
        };
        if end_bytes > capacity_bytes {
            // A copy moved by offset_increment reaches past the end by its offset; the job
            // itself, by its size.
            let place = if job.size_at.is_none() || (job.copy_index > 0 && job.increment_at.is_some()) { offset_at } else { &job.size_at };
            bail!(Workload, "{}: offset {offset_bytes} + size {span_bytes} reaches beyond the usable capacity of {capacity_bytes} bytes", placed(place));
        }
        if job.max_block_bytes() > span_bytes {
            bail!(Workload, "{at}: block size {} is larger than the span of {span_bytes} bytes", job.max_block_bytes());
        }
        let align_bytes = job.blockalign.unwrap_or(min_bs);
        if align_bytes > span_bytes {
            bail!(Workload, "{at}: blockalign {align_bytes} is larger than the span of {span_bytes} bytes (every IO would land at its start)");
        }
        // As fio, a job transfers at most `io_size` (default: the span), `loops` times, and
        // stops; `time_based` lifts that limit. `number_ios` stops it earlier, never later (fio:
        // "this does not extend the amount of I/O that will be done"). A sequential pass ends
        // where its next block starts past the span's end (`next_pass`): one that skips
        // (`rw=write:4k`) moves less than the span, as fio's; one that steps back
        // (`rw=read:-8k`) wraps from the start to the end and moves the span's bytes, as fio's
        // (it ends on its byte count, not at an end of the span).
        // fio's io_size=N% is a share of the job's size (its span).
        let io_size_bytes = job.io_size_bytes.or(job.io_size_percent.map(|p| (span_bytes as f64 * p / 100.0) as u64));
        // fio multiplies both limits by `loops` (backend.c: io_bytes_exceeded, exceeds_number_ios).
        let limit_bytes = match (io_size_bytes, job.time_based) {
            (Some(bytes), false) => Some(bytes.saturating_mul(job.loops)),
            (None, false) => Some(span_bytes.saturating_mul(job.loops)),
            (_, true) => None,
        };
        // fio's trimwrite moves every byte twice (a trim, then a write): its byte and IO limits
        // double.
        let twice = if job.rw.trims_then_writes() { 2 } else { 1 };
        let limit_bytes = limit_bytes.map(|b| b.saturating_mul(twice));
        let ios_limit = job.number_ios.map(|n| n.saturating_mul(job.loops).saturating_mul(twice));
        let expected_bytes = match (limit_bytes, job.block_sizes.as_slice()) {
            (Some(cap), [(bs, _)])
                if !job.rw.is_random() && !job.rw.trims_then_writes() && job.block_sizes_by_op.is_none() && job.strided.is_none() && job.rw_step >= 0 =>
            {
                // Blocks starting every bs + step bytes, each whole within the span; with
                // `cut_last_block` (ssdlab's own fills) also the block that starts in the span
                // and runs past its end, cut to it.
                let stride = bs + job.rw_step.unsigned_abs();
                let pass = if job.cut_last_block {
                    let blocks = (span_bytes - 1) / stride + 1;
                    (blocks - 1) * bs + (*bs).min(span_bytes - (blocks - 1) * stride)
                } else {
                    ((span_bytes - bs) / stride + 1) * bs
                };
                // The byte limit stops the job at the first whole block that reaches it.
                Some(passes_total(pass, job.loops, io_size_bytes, job.max_block_bytes()).min(cap.div_ceil(*bs).saturating_mul(*bs)))
            }
            _ => None,
        };
        let zipf = match job.distribution {
            Distribution::Zipf(theta) if job.rw.is_random() => {
                let blocks = (span_bytes / align_bytes).max(1);
                let zipf = Zipf::new(blocks as f64, theta).map_err(|e| ssdlab_core::Error::Workload(format!("{at}: random_distribution: {e}")))?;
                Some((zipf, blocks))
            }
            _ => None,
        };
        let pareto = match job.distribution {
            Distribution::Pareto(h) if job.rw.is_random() => Some((h.ln() / (1.0 - h).ln(), (span_bytes / align_bytes).max(1))),
            _ => None,
        };
        let zones = match &job.distribution {
            Distribution::Zoned(zones) if job.rw.is_random() => Self::zone_bounds(zones, offset_bytes, span_bytes, align_bytes, &at)?,
            _ => Vec::new(),
        };
        let equal_weights = job.block_sizes.windows(2).all(|w| w[0].1 == w[1].1);
        Ok(Self {
            weight_total: job.block_sizes.iter().map(|(_, w)| *w as u64).sum(),
            equal_weights,
            job: job.clone(),
            span_start_bytes: offset_bytes,
            span_bytes,
            align_bytes,
            align_by_op: match (job.blockalign, job.block_sizes_by_op.as_deref()) {
                (None, Some(by_op)) => Some(by_op.each_ref().map(|sizes| sizes.iter().map(|(bytes, _)| *bytes).min().unwrap_or(min_bs))),
                _ => None,
            },
            rng: SimRng::new(seed),
            cursor_bytes: offset_bytes,
            write_cursor_bytes: offset_bytes,
            run_left: 0,
            pending_write: None,
            last_starts: (None, None),
            ios_limit,
            issued_ios: 0,
            issued_bytes: 0,
            limit_bytes,
            io_size_bytes,
            passes_started: 1,
            expected_bytes,
            zipf,
            pareto,
            zones,
            strided: job.strided.map(|zones| (zones, offset_bytes, 0)),
            // (Strided zones draw within the current zone, not the span.)
            positions_of_fixed: match job.block_sizes.as_slice() {
                [(bs, _)] if *bs <= span_bytes && align_bytes > 0 && job.strided.is_none() => Some((*bs, (span_bytes - bs) / align_bytes + 1)),
                _ => None,
            },
            wraps_in_pass: job.time_based || job.strided.is_some(),
        })
    }

    /// Each zone's access share (cumulative percent) and byte range, aligned.
    fn zone_bounds(zones: &[Zone], start: u64, span: u64, align: u64, at: &str) -> Result<Vec<(u32, u64, u64)>> {
        let mut out = Vec::new();
        let mut cumulative = 0;
        let mut zone_start = start;
        for zone in zones {
            let len = match zone.extent {
                ZoneExtent::Percent(p) => ((span as f64 * p / 100.0) as u64 / align) * align,
                ZoneExtent::Bytes(b) => (b / align) * align,
            };
            let zone_end = zone_start.saturating_add(len).min(start + span);
            if zone.access_percent > 0 && zone_end <= zone_start {
                bail!(Workload, "{at}: random_distribution: a zone with {}% of the accesses is empty on a span of {span} bytes", zone.access_percent);
            }
            cumulative += zone.access_percent;
            out.push((cumulative, zone_start, zone_end));
            zone_start = zone_end;
        }
        Ok(out)
    }

    /// Start of the span the job works on, bytes.
    pub fn span_start_bytes(&self) -> u64 {
        self.span_start_bytes
    }

    /// Length of the span the job works on, bytes.
    pub fn span_bytes(&self) -> u64 {
        self.span_bytes
    }

    /// The job being generated.
    pub fn job(&self) -> &JobSpec {
        &self.job
    }

    /// Bytes the job will transfer before it stops by itself (`None` when only time stops it):
    /// a sequential job's passes when they are known ahead, else the most it may move.
    pub fn limit_bytes(&self) -> Option<u64> {
        self.expected_bytes.or(self.limit_bytes)
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
        self.next_io_with(None::<fn(Op) -> Op>)
    }

    /// The next IO, its direction settled by `choose` from the one the job's mix draws (fio's
    /// `rate_ddir`, which may switch a mixed job to the direction its rate lets go first); the
    /// direction is drawn before the size. `None` when `number_ios` or the byte limit is
    /// reached (`choose` is then not called).
    pub fn next_io_directed(&mut self, choose: impl FnOnce(Op) -> Op) -> Option<Io> {
        self.next_io_with(Some(choose))
    }

    #[inline(always)]
    fn next_io_with<F: FnOnce(Op) -> Op>(&mut self, choose: Option<F>) -> Option<Io> {
        // fio's trimwrite: the block just trimmed is written next, at the same place.
        if let Some((offset_bytes, len_bytes)) = self.pending_write.take() {
            self.issued_ios += 1;
            self.issued_bytes += len_bytes;
            if let Some(zone) = self.strided.as_mut() {
                zone.2 = zone.2.saturating_add(len_bytes);
            }
            return Some(Io { op: Op::Write, offset_bytes, len_bytes });
        }
        if let Some(n) = self.ios_limit {
            if self.issued_ios >= n {
                return None;
            }
        }
        if let Some(limit) = self.limit_bytes {
            if self.issued_bytes >= limit {
                return None;
            }
        }
        // fio's sequential trimwrite: the direction follows from where the last trim and the last
        // write started; each direction goes on from its own position, with its own size.
        if self.job.rw == RwKind::TrimWrite {
            return self.next_trimwrite();
        }
        // With sizes per direction (bs=4k,64k) or a direction chosen by the caller, the direction
        // is drawn first; otherwise the size first, as always (the same draws as before for
        // every job without them).
        let (mut len_bytes, op) = if choose.is_some() || self.job.block_sizes_by_op.is_some() {
            let drawn = self.pick_op();
            let op = choose.map_or(drawn, |choose| choose(drawn));
            (self.pick_block_size_for(op), op)
        } else {
            let len = self.pick_block_size();
            (len, self.pick_op())
        };
        // Strided zones: the offsets come from the current zone, as if it were the span.
        let whole_span = self.enter_zone(len_bytes);
        let offset_bytes = if self.job.rw.is_random() {
            let end = self.span_start_bytes + self.span_bytes;
            if self.run_left > 0 && self.cursor_bytes + len_bytes <= end {
                self.run_left -= 1;
                self.cursor_bytes
            } else if self.job.percentage_random < 100 && self.rng.below(100) >= self.job.percentage_random as u64 {
                // fio's percentage_random: this IO goes on from the previous one (from the span's
                // start once past its end).
                if self.cursor_bytes + len_bytes > end {
                    self.cursor_bytes = self.span_start_bytes;
                }
                self.cursor_bytes
            } else {
                self.run_left = (self.job.rw_step.max(1) - 1) as u64;
                self.random_offset(len_bytes)
            }
        } else {
            let writes_apart = op == Op::Write && self.job.rw == RwKind::ReadWrite;
            if writes_apart {
                std::mem::swap(&mut self.cursor_bytes, &mut self.write_cursor_bytes);
            }
            let placed = self.place_sequential(op, len_bytes);
            if writes_apart {
                std::mem::swap(&mut self.cursor_bytes, &mut self.write_cursor_bytes);
            }
            let Some((offset, len)) = placed else {
                if let Some((start, span)) = whole_span {
                    (self.span_start_bytes, self.span_bytes) = (start, span);
                }
                return None;
            };
            len_bytes = len;
            offset
        };
        if self.job.rw.is_random() {
            self.cursor_bytes = offset_bytes + len_bytes;
        }
        if let (Some((start, span)), Some(zone)) = (whole_span, self.strided.as_mut()) {
            (self.span_start_bytes, self.span_bytes) = (start, span);
            zone.2 = zone.2.saturating_add(len_bytes);
        }
        if self.job.rw == RwKind::RandTrimWrite {
            self.pending_write = Some((offset_bytes, len_bytes));
        }
        self.issued_ios += 1;
        self.issued_bytes += len_bytes;
        Some(Io { op, offset_bytes, len_bytes })
    }

    /// The next command of a sequential `trimwrite` (called after the job's limits were checked).
    /// fio's rule (`set_rw_ddir`): a trim when the last trim and the last write started at the
    /// same place (or neither was issued yet this pass), else a write. A pass ends when the
    /// direction due would run past the span's end: fio's job then stops (`get_next_seq_offset`
    /// finds no offset), or starts its next loop afresh; a `time_based` job's directions each
    /// wrap to the span's start, as fio's.
    fn next_trimwrite(&mut self) -> Option<Io> {
        let op = if self.last_starts.0 == self.last_starts.1 { Op::Trim } else { Op::Write };
        let cursor = if op == Op::Trim { self.cursor_bytes } else { self.write_cursor_bytes };
        let mut len_bytes = self.pick_block_size_for(op);
        // (No partial block: a direction whose block does not fit before the span's end is
        // past it, as fio's io_u_fits.)
        let op = if !self.fits(cursor, len_bytes) && self.strided.is_none() {
            if let Some(limit) = self.limit_bytes {
                // Past the span's end: the pass is over. Another pass only when `loops` left
                // room for one (each pass moves about twice the span).
                if limit - self.issued_bytes.min(limit) < self.span_bytes {
                    return None;
                }
                self.cursor_bytes = self.span_start_bytes;
                self.write_cursor_bytes = self.span_start_bytes;
                self.last_starts = (None, None);
                if op != Op::Trim {
                    len_bytes = self.pick_block_size_for(Op::Trim);
                }
                Op::Trim
            } else {
                op
            }
        } else {
            op
        };
        let whole_span = self.enter_zone(len_bytes);
        let (offset_bytes, len_bytes) = if op == Op::Write {
            std::mem::swap(&mut self.cursor_bytes, &mut self.write_cursor_bytes);
            let placed = self.sequential_offset(len_bytes);
            std::mem::swap(&mut self.cursor_bytes, &mut self.write_cursor_bytes);
            self.last_starts.1 = Some(placed.0);
            placed
        } else {
            let placed = self.sequential_offset(len_bytes);
            self.last_starts.0 = Some(placed.0);
            placed
        };
        if let (Some((start, span)), Some(zone)) = (whole_span, self.strided.as_mut()) {
            (self.span_start_bytes, self.span_bytes) = (start, span);
            zone.2 = zone.2.saturating_add(len_bytes);
        }
        self.issued_ios += 1;
        self.issued_bytes += len_bytes;
        Some(Io { op, offset_bytes, len_bytes })
    }

    /// Whether a block of `len_bytes` at `cursor` ends within the span (fio's `io_u_fits`).
    fn fits(&self, cursor: u64, len_bytes: u64) -> bool {
        let end = self.span_start_bytes + self.span_bytes;
        cursor < end && len_bytes <= end - cursor
    }

    /// The next sequential command of direction `op` (the cursor is the direction's own: the
    /// caller swaps in the writes' for `rw=rw`), as fio's `get_next_buflen` and `fill_io_u`:
    /// a command goes whole or not at all. When the drawn size does not fit before the span's
    /// end, a job of several sizes takes one of those that fit; when none fits, the pass is
    /// over: a job that wraps within its pass starts over at the span's start, any other starts
    /// its next pass if fio would (`next_pass`) or ends (`None`).
    fn place_sequential(&mut self, op: Op, len_bytes: u64) -> Option<(u64, u64)> {
        let mut len = len_bytes;
        if self.cursor_bytes >= self.span_start_bytes && !self.fits(self.cursor_bytes, len) {
            let room = (self.span_start_bytes + self.span_bytes).saturating_sub(self.cursor_bytes);
            match self.pick_fitting(op, room) {
                Some(smaller) => len = smaller,
                None if self.job.cut_last_block && room > 0 => len = room,
                None if self.wraps_in_pass => self.cursor_bytes = self.span_start_bytes,
                None if self.next_pass() => {}
                None => return None,
            }
        }
        Some(self.sequential_offset(len))
    }

    /// One of direction `op`'s sizes that is at most `room` bytes, drawn by weight among them
    /// (fio draws again until the size fits); `None` when none fits (no draw).
    fn pick_fitting(&mut self, op: Op, room: u64) -> Option<u64> {
        let sizes = match self.job.block_sizes_by_op.as_deref() {
            Some(by_op) => &by_op[op.index()],
            None => &self.job.block_sizes,
        };
        let fitting: Vec<(u64, u32)> = sizes.iter().copied().filter(|(bytes, _)| *bytes <= room).collect();
        if fitting.is_empty() {
            return None;
        }
        let total = fitting.iter().map(|(_, w)| *w as u64).sum();
        Some(pick_weighted(&mut self.rng, &fitting, total))
    }

    /// Whether another pass over the span starts once a sequential pass is over, as fio's
    /// `keep_running` (backend.c): the first `loops` passes always; after them only a job given
    /// `io_size`, while it has moved less and the bytes left are at least the largest block
    /// size (fio 3.33: `rw=read size=1m io_size=2m` reads 2 MiB, with `loops=3` 3 MiB: three
    /// passes). A new pass starts every direction at the span's start.
    fn next_pass(&mut self) -> bool {
        let more = self.passes_started < self.job.loops
            || self.io_size_bytes.is_some_and(|target| target.saturating_sub(self.issued_bytes) >= self.job.max_block_bytes().max(1));
        if more {
            self.passes_started += 1;
            self.cursor_bytes = self.span_start_bytes;
            self.write_cursor_bytes = self.span_start_bytes;
        }
        more
    }

    /// The size of the next command of direction `op`: drawn from the direction's own sizes
    /// when the job gives sizes per direction (`bs=4k,64k`; the direction's alignment then
    /// applies), else from the job's sizes.
    fn pick_block_size_for(&mut self, op: Op) -> u64 {
        match self.job.block_sizes_by_op.as_deref() {
            Some(by_op) => {
                let sizes = &by_op[op.index()];
                if let Some(align) = self.align_by_op {
                    self.align_bytes = align[op.index()];
                }
                pick_weighted(&mut self.rng, sizes, sizes.iter().map(|(_, w)| *w as u64).sum())
            }
            None => self.pick_block_size(),
        }
    }

    fn pick_block_size(&mut self) -> u64 {
        let sizes = &self.job.block_sizes;
        if self.equal_weights && sizes.len() > 1 {
            return sizes[self.rng.below(sizes.len() as u64) as usize].0;
        }
        pick_weighted(&mut self.rng, sizes, self.weight_total)
    }

    /// With strided zones: move to the next zone once `zonesize` bytes went to this one (past
    /// the span's end, back to its start), as fio's `setup_strided_zone_mode`, then narrow the
    /// span to the zone for this command. Returns the whole span to put back afterwards.
    fn enter_zone(&mut self, len_bytes: u64) -> Option<(u64, u64)> {
        let (zones, start, moved) = self.strided.as_mut()?;
        let (span_start, span_end) = (self.span_start_bytes, self.span_start_bytes + self.span_bytes);
        if *moved >= zones.size_bytes {
            *moved = 0;
            *start = start.saturating_add(zones.range_bytes.saturating_add(zones.skip_bytes));
            if *start >= span_end {
                *start = span_start;
            }
            self.cursor_bytes = *start;
            self.write_cursor_bytes = *start;
        }
        // Commands start inside the zone and keep their length (fio's buflen): one starting near
        // the zone's end runs past it, not past the span's end.
        let zone_start = (*start).min(span_end.saturating_sub(len_bytes)).max(span_start);
        let starts_end = zone_start.saturating_add(zones.range_bytes).min(span_end);
        for cursor in [&mut self.cursor_bytes, &mut self.write_cursor_bytes] {
            if *cursor < zone_start || *cursor >= starts_end {
                *cursor = zone_start;
            }
        }
        let zone_end = starts_end.saturating_add(len_bytes - 1).min(span_end).max(zone_start + len_bytes);
        let whole = (self.span_start_bytes, self.span_bytes);
        (self.span_start_bytes, self.span_bytes) = (zone_start, zone_end - zone_start);
        Some(whole)
    }

    fn pick_op(&mut self) -> Op {
        match self.job.rw {
            RwKind::Read | RwKind::RandRead => Op::Read,
            RwKind::Write | RwKind::RandWrite => Op::Write,
            RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite => Op::Trim,
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
        if !self.zones.is_empty() {
            let point = self.rng.below(100) as u32;
            let &(_, start, end) = self.zones.iter().find(|(cumulative, _, _)| point < *cumulative).unwrap_or(self.zones.last().expect("zones"));
            // The block must fit the span; near the span's end it may reach into the next zone.
            let last_start = (self.span_start_bytes + self.span_bytes - len_bytes).min(end.saturating_sub(1).max(start));
            let positions = last_start.saturating_sub(start) / self.align_bytes + 1;
            return (start + self.rng.below(positions) * self.align_bytes).min(self.span_start_bytes + self.span_bytes - len_bytes);
        }
        let positions = match self.positions_of_fixed {
            Some((len, positions)) if len == len_bytes => positions,
            _ => (self.span_bytes - len_bytes) / self.align_bytes + 1,
        };
        let scatter =
            |rank: u64, blocks: u64| if blocks.is_multiple_of(SCATTER_PRIME) { rank } else { ((rank as u128 * SCATTER_PRIME as u128) % blocks as u128) as u64 };
        let index = match (&self.zipf, self.pareto) {
            (Some((zipf, blocks)), _) => {
                let rank = (zipf.sample(self.rng.inner_mut()) as u64).clamp(1, *blocks) - 1;
                scatter(rank, *blocks).min(positions - 1)
            }
            (None, Some((power, blocks))) => {
                let rank = (((blocks - 1) as f64 * self.rng.unit_f64().powf(power)) as u64).min(blocks - 1);
                scatter(rank, blocks).min(positions - 1)
            }
            (None, None) => self.rng.below(positions),
        };
        self.span_start_bytes + index * self.align_bytes
    }

    /// Next sequential `(offset, length)`: the block goes whole where the cursor stands, or at
    /// the span's start when it does not fit before the span's end (fio issues no partial block).
    /// A step (`rw=read:8k`, `rw=read:-8k`) moves the next offset by that much beyond (or before)
    /// the block's end; stepping back past the start wraps to the end plus the step, as fio.
    fn sequential_offset(&mut self, len_bytes: u64) -> (u64, u64) {
        let start = self.span_start_bytes;
        let end = start + self.span_bytes;
        if self.cursor_bytes < start {
            self.cursor_bytes = end.saturating_sub(len_bytes).max(start);
        } else if !self.fits(self.cursor_bytes, len_bytes) {
            self.cursor_bytes = start;
        }
        let len = len_bytes;
        let offset = self.cursor_bytes;
        let next = offset as i128 + len as i128 + self.job.rw_step as i128;
        self.cursor_bytes = if next < start as i128 {
            // Stepping back past the start wraps to the end, stepped back once (fio's
            // get_next_seq_offset: the span's end plus the negative step).
            (end as i128 + self.job.rw_step as i128).clamp(start as i128, end.saturating_sub(len_bytes).max(start) as i128) as u64
        } else {
            next.min(u64::MAX as i128) as u64
        };
        (offset, len)
    }
}

/// The bytes of a sequential job whose every pass moves `pass` bytes, by fio's `keep_running`:
/// `loops` passes, then, given `io_size`, one more while the bytes left are at least `max_bs`
/// (the cap of `io_size` times `loops` is applied by the caller).
fn passes_total(pass: u64, loops: u64, io_size: Option<u64>, max_bs: u64) -> u64 {
    let after_loops = pass.saturating_mul(loops);
    let extra = match io_size {
        Some(target) if pass > 0 && target.saturating_sub(after_loops) >= max_bs.max(1) => (target - max_bs.max(1) - after_loops) / pass + 1,
        _ => 0,
    };
    after_loops.saturating_add(extra.saturating_mul(pass))
}

/// One size of `sizes` (size, weight; `total_weight` their weights' sum), drawn by weight; a
/// single size takes no draw.
fn pick_weighted(rng: &mut SimRng, sizes: &[(u64, u32)], total_weight: u64) -> u64 {
    if let [(bytes, _)] = sizes {
        return *bytes;
    }
    let mut point = rng.below(total_weight.max(1));
    for &(bytes, weight) in sizes {
        if point < weight as u64 {
            return bytes;
        }
        point -= weight as u64;
    }
    sizes.last().map_or(4096, |(bytes, _)| *bytes)
}
