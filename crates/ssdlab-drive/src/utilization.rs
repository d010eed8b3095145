//! What bounds a run: how busy each shared resource of the drive (and the benchmark host) was.
//!
//! Every resource a command passes through books its time; a run's [`Utilization`] is each
//! one's busy time over the run's simulated time (per unit for the dies and channels, per slot
//! for the host's own time), so the resource near 100% is the one that set the run's pace.
//! The calibration page names it beside every published figure (docs/calibration.md).

use crate::drive::Drive;
use serde::Serialize;
use ssdlab_core::Nanoseconds;

/// Time the drive's shared resources have spent busy since power-on up to a moment (not saved
/// with the drive's state: a restored drive starts counting again). Work is booked ahead (a
/// full write buffer leaves programs and GC queued seconds past a run's last completion), so
/// what is booked past the moment is left out: a run's figures count the busy time inside its
/// window, and the work it left queued counts in the window it runs in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BusyCounters {
    /// The host link (both directions; SATA and PCIe are modelled as one shared link).
    pub link_ns: Nanoseconds,
    /// The controller's command processor (firmware time per command, TRIM mapping work).
    pub controller_ns: Nanoseconds,
    /// Commands admitted through the firmware's small-random-write cap.
    pub capped_commands: u64,
    /// The cap's interval between commands at its sustained rate (0 without a cap).
    pub cap_interval_ns: Nanoseconds,
    /// Dies, summed over dies.
    pub dies_ns: Nanoseconds,
    /// Channel transfers, summed over channels.
    pub channels_ns: Nanoseconds,
    /// The engine's front end (fingerprints, compression, decompression).
    pub engine_front_ns: Nanoseconds,
    /// The engine's back end, all causes.
    pub engine_back_ns: Nanoseconds,
    /// The engine's back end recoding GC copies (as booked).
    pub engine_back_gc_ns: Nanoseconds,
    /// The engine's back end, all causes, as booked (the base of the GC share, which is counted
    /// as booked).
    pub engine_back_booked_ns: Nanoseconds,
}

impl BusyCounters {
    /// The busy time of `drive`'s resources up to `at_ns` (the link, the dies, the channels and
    /// the engine's two stages without what is booked from `at_ns` on; the command processor,
    /// the write cap and the engine's GC share as booked).
    pub fn at(drive: &Drive, at_ns: Nanoseconds) -> Self {
        let engine = drive.engine_counters().unwrap_or_default();
        let (front_after, back_after) = drive.engine.as_ref().map_or((0, 0), |e| e.busy_after(at_ns));
        let flash = drive.flash();
        Self {
            link_ns: drive.busy.link_ns.saturating_sub(drive.link.busy_after(at_ns)),
            controller_ns: drive.busy.controller_ns,
            capped_commands: drive.busy.capped_commands,
            cap_interval_ns: drive.busy.cap_interval_ns,
            dies_ns: flash.die_busy_total_ns().saturating_sub(flash.die_busy_after(at_ns)),
            channels_ns: flash.channel_busy_total_ns().saturating_sub(flash.channel_busy_after(at_ns)),
            engine_front_ns: engine.front_end_busy_ns.saturating_sub(front_after),
            engine_back_ns: engine.back_end_busy_ns.saturating_sub(back_after),
            engine_back_gc_ns: engine.back_end_gc_busy_ns,
            engine_back_booked_ns: engine.back_end_busy_ns,
        }
    }
}

/// The energy (nJ) of the flash operations of `drive` up to `at_ns`: the counters' energy
/// without the part of the work booked from `at_ns` on (as [`BusyCounters::at`]).
pub fn flash_energy_at_nj(drive: &Drive, at_ns: Nanoseconds) -> f64 {
    let flash = drive.flash();
    flash.counters().energy_nj - flash.energy_after_nj(at_ns)
}

/// How busy each resource was over a run, as a fraction of the run's simulated time (1.0 =
/// busy all the time). `bound` names the busiest one.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Utilization {
    /// The host link.
    pub link: f64,
    /// The controller's command processor.
    pub command_processor: f64,
    /// The small-random-write cap: commands admitted through it times its interval (1.0 = at
    /// its sustained rate the whole run); 0 without a cap.
    pub write_cap: f64,
    /// The engine's front end (0 without an engine).
    pub engine_front_end: f64,
    /// The engine's back end, all causes (0 without an engine).
    pub engine_back_end: f64,
    /// Share of the back end's busy time spent recoding GC copies.
    pub engine_back_end_gc_share: f64,
    /// The dies, mean over dies.
    pub dies: f64,
    /// The channels, mean over channels.
    pub channels: f64,
    /// The benchmark host's own time per command (fio's thinktime), as a share of the slots'
    /// time (1.0 = every slot spends all its time in the host).
    pub host_time: f64,
    /// Share of the bytes programmed that garbage collection (and folding) programmed.
    pub gc_program_share: f64,
    /// Map pages read from flash per 4 KiB sector the host read (controllers without DRAM; 0
    /// without reads).
    pub map_page_reads_per_read_sector: f64,
    /// Bytes the NAND sent to the controller for host reads per byte the host read (above 1:
    /// whole pages moved for scattered data; 0 without reads).
    pub read_amplification: f64,
    /// The busiest of link, command processor, write cap, engine front end, engine back end,
    /// dies, channels and host time.
    pub bound: String,
}

impl Utilization {
    /// Utilization between `base` and `now` over `elapsed_ns` of simulated time, with `slots`
    /// commands kept in flight, `host_ns` of the host's own time, `gc_share` of GC programs,
    /// `map_reads_per_read_sector` and the host reads' `read_amplification`.
    #[allow(clippy::too_many_arguments)]
    pub fn between(
        base: &BusyCounters,
        now: &BusyCounters,
        elapsed_ns: Nanoseconds,
        dies: u32,
        channels: u32,
        slots: u64,
        host_ns: Nanoseconds,
        gc_share: f64,
        map_reads_per_read_sector: f64,
        read_amplification: f64,
    ) -> Self {
        let t = elapsed_ns.max(1) as f64;
        let share = |ns: Nanoseconds, units: f64| ns as f64 / (t * units.max(1.0));
        let back = now.engine_back_ns - base.engine_back_ns;
        let back_booked = now.engine_back_booked_ns - base.engine_back_booked_ns;
        let mut u = Self {
            link: share(now.link_ns - base.link_ns, 1.0),
            command_processor: share(now.controller_ns - base.controller_ns, 1.0),
            write_cap: share((now.capped_commands - base.capped_commands) * now.cap_interval_ns, 1.0),
            engine_front_end: share(now.engine_front_ns - base.engine_front_ns, 1.0),
            engine_back_end: share(back, 1.0),
            engine_back_end_gc_share: if back_booked > 0 { (now.engine_back_gc_ns - base.engine_back_gc_ns) as f64 / back_booked as f64 } else { 0.0 },
            dies: share(now.dies_ns - base.dies_ns, dies as f64),
            channels: share(now.channels_ns - base.channels_ns, channels as f64),
            host_time: share(host_ns, slots as f64),
            gc_program_share: gc_share,
            map_page_reads_per_read_sector: map_reads_per_read_sector,
            read_amplification,
            bound: String::new(),
        };
        let candidates = [
            ("link", u.link),
            ("command processor", u.command_processor),
            ("write cap", u.write_cap),
            ("engine front end", u.engine_front_end),
            ("engine back end", u.engine_back_end),
            ("NAND dies", u.dies),
            ("NAND channels", u.channels),
            ("host time", u.host_time),
        ];
        // Ties go to the first listed: the order is fixed, never a map's.
        let (name, _) = candidates.iter().fold(("", -1.0), |best, &(n, v)| if v > best.1 { (n, v) } else { best });
        u.bound = name.to_string();
        u
    }
}
