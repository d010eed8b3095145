//! Occupancy timelines of dies and channels, with operation counters.
//!
//! Dies are first-come first-served: an operation starts once the data it needs is ready and
//! the die has finished what was booked before; with reads first (`set_suspend`), a read a host
//! command waits for goes ahead of the programs, erases and internal reads queued on its die
//! (and may suspend the one in progress, on NAND that suspends). Channels are [`Timeline`]s: a transfer takes the
//! earliest gap long enough for it, even before a transfer booked earlier for a later time. A read books the die for tR and then the channel for
//! the transfer out; a program books the channel for the transfer in and the die for the transfer
//! plus tPROG; an erase books only the die.

use crate::{Energy, Geometry, Timing};
use ssdlab_core::time::transfer_ns;
use ssdlab_core::{Nanoseconds, Timeline};

/// Who asked for a flash operation, for separate accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// On behalf of a host command.
    Host,
    /// On behalf of garbage collection (or other internal data movement).
    Internal,
}

/// How long an operation counted without timing occupies its die and its channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpTime {
    /// Time on the die (command, sense or program, and its transfer).
    pub die_ns: Nanoseconds,
    /// Time on the die's channel (the transfer).
    pub channel_ns: Nanoseconds,
}

/// Counts of flash operations and bytes since power-on (or since the last reset of counters).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FlashCounters {
    /// Page reads (one per plane page sensed).
    pub page_reads: u64,
    /// Page programs (one per plane page programmed).
    pub page_programs: u64,
    /// Block erases (one per plane block erased).
    pub block_erases: u64,
    /// Bytes read from the array to the controller.
    pub bytes_read: u64,
    /// Bytes programmed for host writes.
    pub bytes_programmed_host: u64,
    /// Bytes programmed for internal moves (garbage collection).
    pub bytes_programmed_internal: u64,
    /// Bytes read for internal moves (garbage collection).
    pub bytes_read_internal: u64,
    /// Energy spent by operations and transfers, nanojoules (idle power not included).
    pub energy_nj: f64,
    /// Programs or erases suspended for a host command's read, of its data or its map page
    /// (NAND that supports it).
    #[serde(default)]
    pub suspends: u64,
}

/// The NAND array: per-die and per-channel busy-until times and counters.
#[derive(Debug, Clone)]
pub struct FlashArray {
    geometry: Geometry,
    timing: Timing,
    energy: Energy,
    die_free_ns: Vec<Nanoseconds>,
    channels: Vec<Timeline>,
    die_busy_ns: Vec<Nanoseconds>,
    /// Channel transfer time booked, summed over channels (not saved with the counters).
    channel_busy_ns: Nanoseconds,
    counters: FlashCounters,
    page_read_nj: f64,
    page_program_nj: f64,
    page_program_pslc_nj: f64,
    block_erase_nj: f64,
    /// Channel transfer time of `i` whole 4 KiB sectors, for the sizes operations move most
    /// (up to [`SECTOR_TABLE_SECTORS`]): a table instead of a 128-bit division per operation.
    sector_transfer_ns: Vec<Nanoseconds>,
    /// Thermal throttling: after each operation a die rests this share of the operation's time
    /// (16.16 fixed point; 0: no throttling).
    rest_q16: u64,
    /// Reads first, with program/erase suspend by host reads on NAND that supports it, and per
    /// die the operations booked from the present on, in order (kept only when reads go first).
    suspend: Option<crate::Suspend>,
    booked: Vec<std::collections::VecDeque<BookedOp>>,
    /// Per die, the work booked that may not be over yet: its busy intervals (touching ones
    /// merged) and their energy, so a run counts the busy time and energy that fall inside its
    /// window rather than all it booked (a full write buffer leaves seconds of programs and GC
    /// queued past a run's last completion). Dropped as it ends ([`FlashArray::forget_before`]).
    pending: Vec<std::collections::VecDeque<PendingWork>>,
}

/// Work booked on a die: busy from `start_ns` to `end_ns`, costing `energy_nj`.
#[derive(Debug, Clone, Copy)]
struct PendingWork {
    start_ns: Nanoseconds,
    end_ns: Nanoseconds,
    energy_nj: f64,
}

impl PendingWork {
    /// Busy time from `at_ns` on.
    #[inline]
    fn busy_after(&self, at_ns: Nanoseconds) -> Nanoseconds {
        self.end_ns.saturating_sub(self.start_ns.max(at_ns))
    }

    /// Energy of the part from `at_ns` on (spread evenly over the interval).
    #[inline]
    fn energy_after(&self, at_ns: Nanoseconds) -> f64 {
        let length = self.end_ns - self.start_ns;
        if length == 0 {
            return if self.start_ns >= at_ns { self.energy_nj } else { 0.0 };
        }
        self.energy_nj * self.busy_after(at_ns) as f64 / length as f64
    }
}

/// A program's unit when the caller does not name one (no read waits for it by name).
pub const NO_UNIT: u64 = u64::MAX;

/// The name of program unit `unit` of block `block`, for [`FlashArray::program_unit`] and
/// [`FlashArray::read_data`].
#[inline]
pub fn unit_key(block: u32, unit: u32) -> u64 {
    ((block as u64) << 32) | unit as u64
}

/// The name of the erase of block `block` in a die's queue (no program unit has this number).
#[inline]
fn erase_key(block: u32) -> u64 {
    unit_key(block, u32::MAX)
}

/// An operation booked on a die, for reads that go ahead of programs and erases.
#[derive(Debug, Clone, Copy)]
struct BookedOp {
    start_ns: Nanoseconds,
    end_ns: Nanoseconds,
    /// When the die may start its next operation (`end_ns` plus a throttled die's rest).
    free_ns: Nanoseconds,
    /// A program or erase (suspendable), not a read.
    long: bool,
    /// A read a host command waits for (its data or its map page): later host reads queue
    /// behind it; everything else queued (programs, erases, GC's reads) they go ahead of.
    host_read: bool,
    /// The unit a program writes (`(block << 32) | unit`, or [`NO_UNIT`]): a host read of that
    /// unit's data never goes ahead of it.
    unit: u64,
    /// Times the operation was suspended so far.
    suspended: u32,
}

/// Sizes (in 4 KiB sectors) whose transfer time is precomputed.
const SECTOR_TABLE_SECTORS: u64 = 256;

impl FlashArray {
    /// An idle array at time zero.
    pub fn new(geometry: Geometry, timing: Timing, energy: Energy) -> Self {
        let sector_transfer_ns = (0..=SECTOR_TABLE_SECTORS).map(|i| transfer_ns(i * crate::SECTOR_BYTES, timing.bus_bytes_per_second)).collect();
        let dies = geometry.dies() as usize;
        let channels = geometry.channels as usize;
        Self {
            page_read_nj: energy.read_nj_per_page,
            page_program_nj: energy.program_nj_per_page,
            page_program_pslc_nj: energy.pslc_program_nj_per_page,
            block_erase_nj: energy.erase_nj_per_block,
            geometry,
            timing,
            energy,
            die_free_ns: vec![0; dies],
            channels: vec![Timeline::new(); channels],
            die_busy_ns: vec![0; dies],
            channel_busy_ns: 0,
            counters: FlashCounters::default(),
            sector_transfer_ns,
            rest_q16: 0,
            suspend: None,
            booked: Vec::new(),
            pending: vec![std::collections::VecDeque::new(); dies],
        }
    }

    /// Let host reads go ahead of queued programs, erases and internal reads, and suspend the
    /// one in progress up to `max_per_op` times (`Some`; [`crate::Suspend::READS_FIRST_ONLY`]:
    /// never), or serve every die first come, first served (`None`).
    pub fn set_suspend(&mut self, suspend: Option<crate::Suspend>) {
        self.suspend = suspend;
        self.booked = vec![std::collections::VecDeque::new(); self.die_free_ns.len()];
    }

    /// Note an operation just booked on die `d` (drives whose reads go first).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn note_booked(&mut self, d: usize, start_ns: Nanoseconds, end_ns: Nanoseconds, free_ns: Nanoseconds, long: bool, host_read: bool, unit: u64) {
        if self.suspend.is_some() {
            self.push_booked(d, BookedOp { start_ns, end_ns, free_ns, long, host_read, unit, suspended: 0 });
        }
    }

    /// Keep work just booked on die `d` (busy `start_ns` to `end_ns`) with the energy the
    /// counters gained for it since `energy_before_nj`, for the busy time and energy that fall
    /// after a moment ([`FlashArray::die_busy_after`]).
    #[inline]
    fn keep_pending(&mut self, d: usize, start_ns: Nanoseconds, end_ns: Nanoseconds, energy_before_nj: f64) {
        let energy_nj = self.counters.energy_nj - energy_before_nj;
        let work = &mut self.pending[d];
        if let Some(last) = work.back_mut() {
            if last.end_ns == start_ns {
                last.end_ns = end_ns;
                last.energy_nj += energy_nj;
                return;
            }
        }
        work.push_back(PendingWork { start_ns, end_ns, energy_nj });
    }

    /// Die busy time booked from `at_ns` on, summed over dies (exact for any `at_ns` not before
    /// the last [`FlashArray::forget_before`]'s present; a read that goes ahead of queued work is
    /// kept at the end of the die's queue, so on NAND whose reads go first the time is exact
    /// while the die works without a break, and its reads' energy lands where the work it
    /// moved would have run).
    pub fn die_busy_after(&self, at_ns: Nanoseconds) -> Nanoseconds {
        self.pending.iter().flatten().map(|w| w.busy_after(at_ns)).sum()
    }

    /// Energy (nJ) of the operations booked, for their part from `at_ns` on (as
    /// [`FlashArray::die_busy_after`]).
    pub fn energy_after_nj(&self, at_ns: Nanoseconds) -> f64 {
        self.pending.iter().flatten().map(|w| w.energy_after(at_ns)).sum()
    }

    /// Channel transfer time booked from `at_ns` on, summed over channels.
    pub fn channel_busy_after(&self, at_ns: Nanoseconds) -> Nanoseconds {
        self.channels.iter().map(|c| c.busy_after(at_ns)).sum()
    }

    /// Out of the hot path of drives whose dies serve first come, first served.
    #[cold]
    #[inline(never)]
    fn push_booked(&mut self, d: usize, op: BookedOp) {
        self.booked[d].push_back(op);
    }

    /// A host read ready at `ready_ns` on busy die `d`, with reads first: the read goes ahead
    /// of the programs, erases and internal reads queued on the die, after the host reads
    /// still waiting or under way (they keep their order), and never ahead of the program of
    /// its own data (`unit`). When nothing but a program or erase in progress is ahead of it,
    /// the read suspends it (up to the NAND's limit per operation) or waits for its end; a
    /// read arriving while an operation is suspended for reads joins the suspension. What the
    /// read goes ahead of moves later, each operation only as far as the one before it now
    /// ends (a gap in the queue absorbs the move); a suspended operation ends later by the
    /// reads' time and both latencies. A throttled die rests after the read as after any
    /// operation. (Completion times already given for operations that move are not revised;
    /// the channel transfers of the operations that move keep their times.)
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn read_ahead(&mut self, d: usize, ready_ns: Nanoseconds, planes: u32, bytes_out: u64, kind: OpKind, sense_ns: Nanoseconds, unit: u64) -> Nanoseconds {
        let sp = self.suspend.expect("reads go first");
        let ops = &mut self.booked[d];
        // Everything over by now: the front, and reads done inside a suspension behind it.
        ops.retain(|o| o.free_ns > ready_ns);
        let last_read = ops.iter().rposition(|o| o.host_read);
        let own_program = if unit == NO_UNIT { None } else { ops.iter().rposition(|o| o.long && o.unit == unit) };
        let (start_ns, at, suspends) = match last_read.max(own_program) {
            // Behind the host reads queued and its data's program, ahead of what follows them.
            Some(r) => {
                let after_program = own_program.map_or(0, |p| ops[p].free_ns);
                (ops[r].free_ns.max(ready_ns).max(after_program), r + 1, false)
            }
            None => match ops.front() {
                Some(o) if o.long && o.start_ns <= ready_ns && o.suspended < sp.max_per_op && ready_ns + sp.suspend_ns < o.end_ns => {
                    (ready_ns + sp.suspend_ns, 1, true)
                }
                Some(o) if o.start_ns <= ready_ns => (o.free_ns, 1, false),
                _ => (ready_ns, 0, false),
            },
        };
        // A read queued behind reads that run inside a suspended operation runs inside it too.
        let joins = !suspends && at >= 2 && ops[0].long && ops[0].suspended > 0 && start_ns < ops[0].end_ns;
        let c = self.geometry.channel_of_die(d as u32) as usize;
        let sensed = start_ns + self.timing.command_overhead_ns + sense_ns;
        let transfer = self.transfer_time_ns(bytes_out);
        let transfer_start = self.channels[c].book(sensed, transfer);
        self.channel_busy_ns += transfer;
        let done = transfer_start + transfer;
        let rested = self.free_after(start_ns, done);
        let ops = &mut self.booked[d];
        let read = BookedOp { start_ns, end_ns: done, free_ns: rested, long: false, host_read: true, unit: NO_UNIT, suspended: 0 };
        let extend = if suspends {
            ops[0].suspended += 1;
            Some(rested - ready_ns + sp.resume_ns)
        } else if joins {
            Some(rested - start_ns)
        } else {
            None
        };
        ops.insert(at, read);
        // The first operation after the read that must move, and when it may start.
        let mut prev_free = match extend {
            Some(by) => {
                ops[0].end_ns += by;
                ops[0].free_ns += by;
                ops[0].free_ns
            }
            None => rested,
        };
        for o in ops.iter_mut().skip(at + 1) {
            if o.start_ns >= prev_free {
                break;
            }
            let by = prev_free - o.start_ns;
            o.start_ns += by;
            o.end_ns += by;
            o.free_ns += by;
            prev_free = o.free_ns;
        }
        self.die_free_ns[d] = self.die_free_ns[d].max(prev_free);
        self.die_busy_ns[d] += done - start_ns;
        if suspends {
            self.counters.suspends += 1;
        }
        let energy_before = self.counters.energy_nj;
        self.tally_read(planes, bytes_out, kind);
        // The work the read went ahead of now ends later by about the read's time: kept as the
        // read's time after the die's queued work, the die's busy time past any moment stays
        // what the die still has to do (while it works without a break).
        let tail = self.pending[d].back().map_or(start_ns, |w| w.end_ns.max(start_ns));
        self.keep_pending(d, tail, tail + (done - start_ns), energy_before);
        done
    }

    /// Throttling: let each die work at most `duty` (0 < duty <= 1) of the time from now on: after
    /// each operation the die rests `(1 - duty) / duty` of the operation's time before the next.
    pub fn set_duty(&mut self, duty: f64) {
        let duty = duty.clamp(0.01, 1.0);
        self.rest_q16 = (((1.0 - duty) / duty) * 65536.0).round() as u64;
    }

    /// When die `d`, whose operation ran from `start` to `done`, may start the next one.
    #[inline(always)]
    fn free_after(&self, start: Nanoseconds, done: Nanoseconds) -> Nanoseconds {
        if self.rest_q16 == 0 {
            done
        } else {
            self.rested(start, done)
        }
    }

    /// A throttled die rests after its operation in proportion to its length.
    #[cold]
    #[inline(never)]
    fn rested(&self, start: Nanoseconds, done: Nanoseconds) -> Nanoseconds {
        done + (((done - start) as u128 * self.rest_q16 as u128) >> 16) as u64
    }

    /// The geometry of the array.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The timing of the array.
    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The energy model of the array.
    pub fn energy(&self) -> &Energy {
        &self.energy
    }

    /// Operation counters so far.
    pub fn counters(&self) -> &FlashCounters {
        &self.counters
    }

    /// Carry on from saved counters (a drive restored from its saved state).
    pub fn set_counters(&mut self, counters: FlashCounters) {
        self.counters = counters;
    }

    /// Time at which a die finishes everything booked on it.
    #[inline]
    pub fn die_free_ns(&self, die: u32) -> Nanoseconds {
        self.die_free_ns[die as usize]
    }

    /// Time at which every die and channel is idle.
    pub fn all_idle_ns(&self) -> Nanoseconds {
        let dies = self.die_free_ns.iter().copied().max().unwrap_or(0);
        let channels = self.channels.iter().map(Timeline::free_from_ns).max().unwrap_or(0);
        dies.max(channels)
    }

    /// Forget channel bookings that ended before `now_ns`; nothing is booked before the present.
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        for channel in &mut self.channels {
            channel.forget_before(now_ns);
        }
        for work in &mut self.pending {
            while work.front().is_some_and(|w| w.end_ns <= now_ns) {
                work.pop_front();
            }
        }
        if self.suspend.is_some() {
            for ops in &mut self.booked {
                while ops.front().is_some_and(|o| o.end_ns <= now_ns) {
                    ops.pop_front();
                }
            }
        }
    }

    /// Future bookings held over all channels (a diagnostic of how far ahead work is booked).
    pub fn channel_bookings(&self) -> usize {
        self.channels.iter().map(Timeline::pending_bookings).sum()
    }

    /// Total time each die has been busy, summed over dies.
    pub fn die_busy_total_ns(&self) -> Nanoseconds {
        self.die_busy_ns.iter().sum()
    }

    /// Total transfer time booked on the channels, summed over channels.
    pub fn channel_busy_total_ns(&self) -> Nanoseconds {
        self.channel_busy_ns
    }

    /// Channel transfer time for `bytes`.
    #[inline]
    pub fn transfer_time_ns(&self, bytes: u64) -> Nanoseconds {
        if bytes.is_multiple_of(crate::SECTOR_BYTES) {
            if let Some(&ns) = self.sector_transfer_ns.get((bytes / crate::SECTOR_BYTES) as usize) {
                return ns;
            }
        }
        transfer_ns(bytes, self.timing.bus_bytes_per_second)
    }

    /// Read `planes` pages (one multi-plane sense) on `die` and move `bytes_out` to the
    /// controller. Returns the time the last byte reaches the controller.
    pub fn read(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, bytes_out: u64, kind: OpKind) -> Nanoseconds {
        self.read_sensed(die, ready_ns, planes, bytes_out, kind, self.timing.t_read_ns)
    }

    /// [`FlashArray::read`] with the sense time given (the media model's time for the page's
    /// type and the block's mode).
    pub fn read_sensed(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, bytes_out: u64, kind: OpKind, sense_ns: Nanoseconds) -> Nanoseconds {
        self.read_scheduled(die, ready_ns, planes, bytes_out, kind, kind == OpKind::Host, sense_ns, NO_UNIT)
    }

    /// A host command's read of its data, in `unit` (`(block << 32) | unit`, as its program was
    /// given to [`FlashArray::program_unit`]): it goes first where reads do, but never ahead of
    /// the program that writes that unit, so it cannot complete before its data is on the flash.
    #[allow(clippy::too_many_arguments)]
    pub fn read_data(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, bytes_out: u64, sense_ns: Nanoseconds, unit: u64) -> Nanoseconds {
        self.read_scheduled(die, ready_ns, planes, bytes_out, OpKind::Host, true, sense_ns, unit)
    }

    /// Whether host reads go ahead of the work queued on their die (`controller.reads_first`,
    /// or NAND with suspend).
    pub fn reads_go_first(&self) -> bool {
        self.suspend.is_some()
    }

    /// Whether the program of `unit` (named as for [`FlashArray::read_data`]) is booked on die
    /// `die` and not over at `at_ns`: its data is not on the flash yet. Known only on NAND
    /// whose reads go first (the die's queue is kept there); `false` elsewhere.
    pub fn program_pending(&self, die: u32, unit: u64, at_ns: Nanoseconds) -> bool {
        let d = die as usize;
        // (Nothing is pending on a die that is free by then.)
        self.die_free_ns.get(d).is_some_and(|&free| at_ns < free)
            && self.booked.get(d).is_some_and(|ops| ops.iter().any(|o| o.long && o.unit == unit && o.end_ns > at_ns))
    }

    /// A read a host command waits for that is counted as internal: a map page a DRAM-less
    /// controller must read before it knows where the command's data is (one sense of `die`
    /// at the array's read time, `bytes_out` moved). It is scheduled as the host read it serves
    /// (ahead of queued programs and erases on NAND that lets reads go first), since the
    /// command cannot go on without it.
    pub fn read_map_page(&mut self, die: u32, ready_ns: Nanoseconds, bytes_out: u64) -> Nanoseconds {
        self.read_scheduled(die, ready_ns, 1, bytes_out, OpKind::Internal, true, self.timing.t_read_ns, NO_UNIT)
    }

    /// A read counted as `kind`, going ahead of queued programs and erases when it is on a host
    /// command's path (`for_host`) and the NAND lets reads go first.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn read_scheduled(
        &mut self,
        die: u32,
        ready_ns: Nanoseconds,
        planes: u32,
        bytes_out: u64,
        kind: OpKind,
        for_host: bool,
        sense_ns: Nanoseconds,
        unit: u64,
    ) -> Nanoseconds {
        let d = die as usize;
        if self.suspend.is_some() && for_host && ready_ns < self.die_free_ns[d] {
            return self.read_ahead(d, ready_ns, planes, bytes_out, kind, sense_ns, unit);
        }
        let c = self.geometry.channel_of_die(die) as usize;
        let sense_start = ready_ns.max(self.die_free_ns[d]);
        let sensed = sense_start + self.timing.command_overhead_ns + sense_ns;
        let transfer = self.transfer_time_ns(bytes_out);
        let transfer_start = self.channels[c].book(sensed, transfer);
        self.channel_busy_ns += transfer;
        let done = transfer_start + transfer;
        self.die_free_ns[d] = self.free_after(sense_start, done);
        self.note_booked(d, sense_start, done, self.die_free_ns[d], false, for_host, NO_UNIT);
        self.die_busy_ns[d] += done - sense_start;
        let energy_before = self.counters.energy_nj;
        self.tally_read(planes, bytes_out, kind);
        self.keep_pending(d, sense_start, done, energy_before);
        done
    }

    /// Counters and energy of a read (shared by the timed and the untimed paths, so both count
    /// alike).
    #[inline]
    fn tally_read(&mut self, planes: u32, bytes_out: u64, kind: OpKind) {
        self.counters.page_reads += planes as u64;
        self.counters.bytes_read += bytes_out;
        if kind == OpKind::Internal {
            self.counters.bytes_read_internal += bytes_out;
        }
        self.counters.energy_nj += self.page_read_nj * planes as f64 + self.energy.transfer_pj_per_byte * bytes_out as f64 / 1000.0;
    }

    /// Move `bytes_in` to `die` and program `planes` pages with one multi-plane program.
    /// Returns the time the program ends.
    pub fn program(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, bytes_in: u64, kind: OpKind) -> Nanoseconds {
        self.program_timed(die, ready_ns, planes, bytes_in, kind, self.timing.t_prog_ns)
    }

    /// Move `bytes_in` to `die` and program `pages` plane pages together (a multi-plane page,
    /// or a one-shot word line on every plane) in `prog_ns`. Returns the time the program ends.
    pub fn program_timed(&mut self, die: u32, ready_ns: Nanoseconds, pages: u32, bytes_in: u64, kind: OpKind, prog_ns: Nanoseconds) -> Nanoseconds {
        self.program_cells(die, ready_ns, pages, bytes_in, kind, prog_ns, false)
    }

    /// [`FlashArray::program_timed`] in pSLC mode (`slc`) or natively: a pSLC program costs the
    /// energy model's pSLC energy per page.
    #[allow(clippy::too_many_arguments)]
    pub fn program_cells(&mut self, die: u32, ready_ns: Nanoseconds, pages: u32, bytes_in: u64, kind: OpKind, prog_ns: Nanoseconds, slc: bool) -> Nanoseconds {
        self.program_unit(die, ready_ns, pages, bytes_in, kind, prog_ns, slc, NO_UNIT)
    }

    /// [`FlashArray::program_cells`] of a named unit (`(block << 32) | unit`, or [`NO_UNIT`]):
    /// a host read of that unit's data ([`FlashArray::read_data`]) never goes ahead of it.
    #[allow(clippy::too_many_arguments)]
    pub fn program_unit(
        &mut self,
        die: u32,
        ready_ns: Nanoseconds,
        pages: u32,
        bytes_in: u64,
        kind: OpKind,
        prog_ns: Nanoseconds,
        slc: bool,
        unit: u64,
    ) -> Nanoseconds {
        let planes = pages;
        let d = die as usize;
        let c = self.geometry.channel_of_die(die) as usize;
        let die_ready = ready_ns.max(self.die_free_ns[d]);
        let transfer = self.timing.command_overhead_ns + self.transfer_time_ns(bytes_in);
        let start = self.channels[c].book(die_ready, transfer);
        self.channel_busy_ns += transfer;
        let done = start + transfer + prog_ns;
        self.die_free_ns[d] = self.free_after(start, done);
        self.note_booked(d, start, done, self.die_free_ns[d], true, false, unit);
        self.die_busy_ns[d] += done - start;
        let energy_before = self.counters.energy_nj;
        self.tally_program(planes, bytes_in, kind, slc);
        self.keep_pending(d, start, done, energy_before);
        done
    }

    /// Counters and energy of a program.
    #[inline]
    fn tally_program(&mut self, planes: u32, bytes_in: u64, kind: OpKind, slc: bool) {
        self.counters.page_programs += planes as u64;
        match kind {
            OpKind::Host => self.counters.bytes_programmed_host += bytes_in,
            OpKind::Internal => self.counters.bytes_programmed_internal += bytes_in,
        }
        let page_nj = if slc { self.page_program_pslc_nj } else { self.page_program_nj };
        self.counters.energy_nj += page_nj * planes as f64 + self.energy.transfer_pj_per_byte * bytes_in as f64 / 1000.0;
    }

    /// Erase one block group (`planes` blocks with one multi-plane erase) on `die`.
    /// Returns the time the erase ends.
    pub fn erase(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32) -> Nanoseconds {
        self.erase_named(die, ready_ns, planes, NO_UNIT)
    }

    /// [`FlashArray::erase`] of FTL block `block`, named so that [`FlashArray::erase_queued`]
    /// can tell whether it has started.
    pub fn erase_block(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, block: u32) -> Nanoseconds {
        self.erase_named(die, ready_ns, planes, erase_key(block))
    }

    /// Whether the erase of `block` ([`FlashArray::erase_block`]) is booked on die `die` and
    /// has not started at `at_ns`: a read that goes first still finds the block's data. Known
    /// only on NAND whose reads go first; `false` elsewhere, or once the erase has begun.
    pub fn erase_queued(&self, die: u32, block: u32, at_ns: Nanoseconds) -> bool {
        let key = erase_key(block);
        self.booked.get(die as usize).is_some_and(|ops| ops.iter().any(|o| o.long && o.unit == key && o.start_ns > at_ns))
    }

    fn erase_named(&mut self, die: u32, ready_ns: Nanoseconds, planes: u32, unit: u64) -> Nanoseconds {
        let d = die as usize;
        let start = ready_ns.max(self.die_free_ns[d]);
        let done = start + self.timing.command_overhead_ns + self.timing.t_erase_ns;
        self.die_free_ns[d] = self.free_after(start, done);
        self.note_booked(d, start, done, self.die_free_ns[d], true, false, unit);
        self.die_busy_ns[d] += done - start;
        let energy_before = self.counters.energy_nj;
        self.tally_erase(planes);
        self.keep_pending(d, start, done, energy_before);
        done
    }

    /// Counters and energy of an erase.
    #[inline]
    fn tally_erase(&mut self, planes: u32) {
        self.counters.block_erases += planes as u64;
        self.counters.energy_nj += self.block_erase_nj * planes as f64;
    }

    /// A read counted as [`FlashArray::read_sensed`] counts it (operations, bytes, energy) but
    /// not booked on any die or channel: the untimed path of a fast-forward. Returns the time
    /// it occupies its die and its channel.
    #[inline]
    pub fn count_read(&mut self, die: u32, planes: u32, bytes_out: u64, kind: OpKind, sense_ns: Nanoseconds) -> OpTime {
        let transfer = self.transfer_time_ns(bytes_out);
        let die_ns = self.timing.command_overhead_ns + sense_ns + transfer;
        self.die_busy_ns[die as usize] += die_ns;
        self.tally_read(planes, bytes_out, kind);
        OpTime { die_ns, channel_ns: transfer }
    }

    /// A program counted as [`FlashArray::program_timed`] counts it, not booked (see
    /// [`FlashArray::count_read`]).
    #[inline]
    pub fn count_program(&mut self, die: u32, pages: u32, bytes_in: u64, kind: OpKind, prog_ns: Nanoseconds, slc: bool) -> OpTime {
        let transfer = self.timing.command_overhead_ns + self.transfer_time_ns(bytes_in);
        let die_ns = transfer + prog_ns;
        self.die_busy_ns[die as usize] += die_ns;
        self.tally_program(pages, bytes_in, kind, slc);
        OpTime { die_ns, channel_ns: transfer }
    }

    /// An erase counted as [`FlashArray::erase`] counts it, not booked.
    #[inline]
    pub fn count_erase(&mut self, die: u32, planes: u32) -> OpTime {
        let die_ns = self.timing.command_overhead_ns + self.timing.t_erase_ns;
        self.die_busy_ns[die as usize] += die_ns;
        self.tally_erase(planes);
        OpTime { die_ns, channel_ns: 0 }
    }

    /// Erase every block of the array (secure erase) starting no earlier than `ready_ns`; dies
    /// work in parallel. Returns the time the last die finishes.
    pub fn erase_all(&mut self, ready_ns: Nanoseconds) -> Nanoseconds {
        let blocks = self.geometry.blocks_per_die();
        let planes = self.geometry.planes_per_die;
        let mut last = ready_ns;
        for die in 0..self.geometry.dies() {
            let mut t = ready_ns;
            for _ in 0..blocks {
                t = self.erase(die, t, planes);
            }
            last = last.max(t);
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BusKind;

    fn array() -> FlashArray {
        let geometry = Geometry {
            channels: 2,
            packages_per_channel: 1,
            dies_per_package: 2,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_bytes: 8192,
            spare_bytes_per_page: 448,
        };
        let timing = Timing {
            t_read_ns: 50_000,
            t_prog_ns: 1_000_000,
            t_erase_ns: 3_000_000,
            command_overhead_ns: 0,
            bus: BusKind::Toggle1,
            bus_bytes_per_second: 200_000_000,
        };
        let energy = Energy {
            read_nj_per_page: 1.0,
            program_nj_per_page: 2.0,
            pslc_program_nj_per_page: 2.0,
            erase_nj_per_block: 3.0,
            transfer_pj_per_byte: 0.0,
            idle_mw: 0.0,
        };
        FlashArray::new(geometry, timing, energy)
    }

    #[test]
    fn busy_time_and_energy_after_a_moment_are_the_booked_work_past_it() {
        let mut a = array();
        // Ten erases queued on die 0 from 0 (3 ms each, back to back: one interval), one on
        // die 1 from 40 ms.
        for _ in 0..10 {
            a.erase(0, 0, 2);
        }
        a.erase(1, 40_000_000, 2);
        let (total_ns, total_nj) = (a.die_busy_total_ns(), a.counters().energy_nj);
        assert_eq!(total_ns, 33_000_000);
        assert_eq!(a.die_busy_after(0), total_ns);
        assert_eq!(a.die_busy_after(12_500_000), 17_500_000 + 3_000_000);
        assert_eq!(a.die_busy_after(41_000_000), 2_000_000);
        assert_eq!(a.die_busy_after(50_000_000), 0);
        let per_erase = total_nj / 11.0;
        assert!((a.energy_after_nj(12_500_000) - per_erase * (17.5 / 3.0 + 1.0)).abs() < 1e-6 * total_nj);
        assert_eq!(a.energy_after_nj(50_000_000), 0.0);
        // What ended before the present is dropped; what is left still counts from then on.
        a.forget_before(29_000_000);
        assert_eq!(a.die_busy_after(29_000_000), 1_000_000 + 3_000_000);
        // Channel transfers: a program moves its bytes first (8192 B at 200 MB/s = 40.96 us).
        let done = a.program(2, 100_000_000, 1, 8192, OpKind::Host);
        assert_eq!(done, 100_000_000 + 40_960 + 1_000_000);
        assert_eq!(a.channel_busy_after(100_020_480), 20_480);
        assert_eq!(a.die_busy_after(100_000_000), 1_040_960);
    }

    #[test]
    fn a_read_that_goes_ahead_leaves_the_die_s_remaining_work_right() {
        let mut a = array();
        a.set_suspend(Some(crate::Suspend { suspend_ns: 10_000, resume_ns: 5_000, max_per_op: 1 }));
        // Three programs queued on die 0 from 0, then a host read at 100 us goes ahead of them.
        for _ in 0..3 {
            a.program(0, 0, 1, 8192, OpKind::Internal);
        }
        a.read(0, 100_000, 1, 4096, OpKind::Host);
        let total = a.die_busy_total_ns();
        assert_eq!(a.die_busy_after(0), total);
        // Nothing is left once the die is free; from 100 us on, all but the first 100 us.
        assert_eq!(a.die_busy_after(a.die_free_ns(0)), 0);
        assert_eq!(a.die_busy_after(100_000), total - 100_000);
    }

    #[test]
    fn read_books_die_then_channel() {
        let mut a = array();
        // 4096 bytes at 200 MB/s = 20.48 us -> 20_480 ns.
        let done = a.read(0, 0, 1, 4096, OpKind::Host);
        assert_eq!(done, 50_000 + 20_480);
        // A second read on the same die waits for the first.
        let second = a.read(0, 0, 1, 4096, OpKind::Host);
        assert_eq!(second, done + 50_000 + 20_480);
        // A read on die 2 (channel 0) senses in parallel, then takes the channel's free gap
        // between the two transfers of die 0.
        let other = a.read(2, 0, 1, 4096, OpKind::Host);
        assert_eq!(other, 50_000 + 2 * 20_480);
        // A fourth read on die 2 senses from 90_960 to 140_960, when die 0's second transfer has
        // just ended, and transfers at once.
        let fourth = a.read(2, 0, 1, 4096, OpKind::Host);
        assert_eq!(fourth, 140_960 + 20_480);
        // Die 1 is on channel 1: fully independent.
        assert_eq!(a.read(1, 0, 1, 4096, OpKind::Host), 70_480);
    }

    #[test]
    fn a_host_read_suspends_a_program_once_and_the_program_ends_later() {
        let mut a = array();
        a.set_suspend(Some(crate::Suspend { suspend_ns: 10_000, resume_ns: 5_000, max_per_op: 1 }));
        // The program transfers for 81.92 us, then programs for 1 ms.
        let program_end = a.program(0, 0, 2, 16384, OpKind::Internal);
        assert_eq!(program_end, 1_081_920);
        // A GC read does not suspend it: it would queue (not booked here). A host read at 200 us
        // suspends it: sensed from 210 us for 50 us, 20.48 us on the channel.
        let read = a.read(0, 200_000, 1, 4096, OpKind::Host);
        assert_eq!(read, 280_480);
        assert_eq!(a.counters().suspends, 1);
        // The program resumes: it ends later by the read's 80.48 us and the 5 us resume.
        assert_eq!(a.die_free_ns(0), program_end + 85_480);
        // A second read during the resumed program does not suspend it again: it queues.
        let second = a.read(0, 300_000, 1, 4096, OpKind::Host);
        assert_eq!(second, program_end + 85_480 + 50_000 + 20_480);
        assert_eq!(a.counters().suspends, 1);
        // Without suspend the first read would have waited for the program.
        let mut b = array();
        b.program(0, 0, 2, 16384, OpKind::Internal);
        assert_eq!(b.read(0, 200_000, 1, 4096, OpKind::Host), program_end + 70_480);
    }

    #[test]
    fn reads_first_go_ahead_of_queued_work_and_gc_reads_but_wait_for_the_operation_in_progress() {
        // Three programs queued on die 0 (each 81.92 us of transfer and 1 ms), with a GC read
        // between the first two: a host read at 200 us goes after the first program (in
        // progress; no suspend) and ahead of the GC read and the later programs.
        let queue = |a: &mut FlashArray| {
            let first = a.program(0, 0, 2, 16384, OpKind::Internal);
            a.read(0, 0, 1, 4096, OpKind::Internal);
            a.program(0, 0, 2, 16384, OpKind::Internal);
            a.program(0, 0, 2, 16384, OpKind::Internal);
            first
        };
        let mut a = array();
        a.set_suspend(Some(crate::Suspend::READS_FIRST_ONLY));
        let first_end = queue(&mut a);
        let queued_end = a.die_free_ns(0);
        let read = a.read(0, 200_000, 1, 4096, OpKind::Host);
        // Sensed as the first program ends; the channel transfers booked by the work it went
        // ahead of keep their times (the die's order changes, the channel's bookings do not),
        // so its 20.48 us transfer waits for the GC read's and the second program's.
        assert_eq!(read, first_end + 50_000 + 20_480 + 81_920 + 20_480);
        assert_eq!(a.counters().suspends, 0);
        // What it went ahead of ends later by the time the read held the die.
        assert_eq!(a.die_free_ns(0), queued_end + (read - first_end));
        // A second host read queues behind the first (reads keep their order), still ahead of
        // the queued work.
        assert_eq!(a.read(0, 210_000, 1, 4096, OpKind::Host), read + 70_480);
        // A map page a host command needs goes first too, counted as an internal read.
        let internal_before = a.counters().bytes_read_internal;
        assert_eq!(a.read_map_page(0, 220_000, 4096), read + 2 * 70_480);
        assert_eq!(a.counters().bytes_read_internal, internal_before + 4096);
        // First come, first served: the host read waits for everything queued.
        let mut b = array();
        queue(&mut b);
        let fifo_end = b.die_free_ns(0);
        assert_eq!(b.read(0, 200_000, 1, 4096, OpKind::Host), fifo_end + 70_480);
        assert_eq!(b.read_map_page(0, 200_000, 4096), fifo_end + 2 * 70_480);
    }

    #[test]
    fn a_read_never_goes_ahead_of_or_suspends_the_program_of_its_own_data() {
        // Two programs queued on die 0: unit 7 of block 3, then another. A read of unit 7's
        // data at 200 us, while that program is under way, neither suspends it nor goes ahead:
        // it senses once it ends. A read of the second program's unit waits for that one.
        for sp in [crate::Suspend::READS_FIRST_ONLY, crate::Suspend { suspend_ns: 10_000, resume_ns: 5_000, max_per_op: 4 }] {
            let mut a = array();
            a.set_suspend(Some(sp));
            let first = a.program_unit(0, 0, 2, 16384, OpKind::Host, 1_000_000, false, unit_key(3, 7));
            let second = a.program_unit(0, 0, 2, 16384, OpKind::Host, 1_000_000, false, unit_key(3, 8));
            // (Its transfer waits for the second program's transfer in, booked on the channel
            // when the first ended.)
            let read = a.read_data(0, 200_000, 1, 4096, 50_000, unit_key(3, 7));
            assert_eq!(read, first + 81_920 + 20_480);
            assert_eq!(a.counters().suspends, 0);
            // The read went ahead of the second program, which moved later by the die's time.
            assert_eq!(a.die_free_ns(0), second + (read - first));
            let after_second = a.read_data(0, 300_000, 1, 4096, 50_000, unit_key(3, 8));
            assert_eq!(after_second, second + (read - first) + 70_480);
        }
    }

    #[test]
    fn a_throttled_die_rests_after_reads_that_go_first_as_after_any_operation() {
        // At half duty a die rests as long as each operation took: ten reads on one die end at
        // the same time whether they go first or not.
        let ten_reads = |reads_first: bool| {
            let mut a = array();
            if reads_first {
                a.set_suspend(Some(crate::Suspend::READS_FIRST_ONLY));
            }
            a.set_duty(0.5);
            (0..10).map(|_| a.read(0, 0, 1, 4096, OpKind::Host)).max().unwrap()
        };
        assert_eq!(ten_reads(true), ten_reads(false));
        // 70.48 us each, and a rest as long after each but the last.
        assert_eq!(ten_reads(false), 10 * 70_480 + 9 * 70_480);
    }

    #[test]
    fn reads_arriving_during_a_suspension_run_one_after_another_inside_it() {
        let mut a = array();
        a.set_suspend(Some(crate::Suspend { suspend_ns: 10_000, resume_ns: 5_000, max_per_op: 4 }));
        let program_end = a.program(0, 0, 2, 16384, OpKind::Internal);
        // The first read suspends the program (sensed from 210 us, done at 280.48 us); the
        // second, at 220 us, runs after it inside the same suspension, not beside it.
        let first = a.read(0, 200_000, 1, 4096, OpKind::Host);
        assert_eq!(first, 280_480);
        let second = a.read(0, 220_000, 1, 4096, OpKind::Host);
        assert_eq!(second, first + 70_480);
        assert_eq!(a.counters().suspends, 1);
        // The program ends later by both reads, the suspend latency and the resume.
        assert_eq!(a.die_free_ns(0), program_end + 80_480 + 5_000 + 70_480);
    }

    #[test]
    fn programs_on_different_dies_overlap_but_share_the_channel() {
        let mut a = array();
        let x = a.program(0, 0, 2, 16384, OpKind::Host);
        let y = a.program(2, 0, 2, 16384, OpKind::Host);
        // 16384 B at 200 MB/s = 81.92 us.
        assert_eq!(x, 81_920 + 1_000_000);
        assert_eq!(y, 2 * 81_920 + 1_000_000);
        assert_eq!(a.counters().page_programs, 4);
        assert_eq!(a.counters().bytes_programmed_host, 32768);
        let e = a.erase(0, 0, 2);
        assert_eq!(e, x + 3_000_000);
    }
}
