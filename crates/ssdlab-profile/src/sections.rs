//! Validation of a profile, section by section: each function turns one raw section into typed
//! settings or returns a [`FieldError`] naming the section and key at fault. Every number is
//! checked against a range in which the simulator's integer arithmetic cannot overflow (a rate
//! in MB/s times 10^6, a latency summed over a long run), so a mistyped value is refused
//! instead of wrapping into nonsense.

use crate::raw::{RawController, RawDrive, RawEnergy, RawFtl, RawHost, RawNand, RawReduction};
use crate::settings::{ControllerSettings, HostInterface, HostSettings, ReductionSettings};
use ssdlab_core::{field_ensure, FieldError, Nanoseconds};
use ssdlab_ftl::{ChunkFtlConfig, FtlConfig, GcPolicy, GcSchedule};
use ssdlab_nand::{BusKind, Energy, Geometry, Timing, SECTOR_BYTES};

type FieldResult<T> = Result<T, FieldError>;

/// Longest per-command time a profile may give the controller or the link (1 s).
const MAX_COMMAND_NS: Nanoseconds = 1_000_000_000;
/// Fastest rate, in MB/s, a profile may give a link or an engine stage (100 GB/s).
const MAX_MBPS: u64 = 100_000;
/// PCIe lanes of an NVMe drive whose profile does not say (an M.2 drive's four).
const DEFAULT_LANES: u32 = 4;
/// Largest user capacity a profile may describe (1 PB).
const MAX_CAPACITY_BYTES: u64 = 1 << 50;

/// A rate in MB/s within (0, [`MAX_MBPS`]], as bytes per second.
fn rate(section: &'static str, key: &'static str, mbps: u64) -> FieldResult<u64> {
    field_ensure!((1..=MAX_MBPS).contains(&mbps), section, key, "must be 1 to {MAX_MBPS} MB/s (got {mbps})");
    Ok(mbps * 1_000_000)
}

/// A non-negative, finite number no larger than `max`.
fn amount(section: &'static str, key: &'static str, value: f64, max: f64) -> FieldResult<f64> {
    field_ensure!(value >= 0.0 && value <= max, section, key, "must be a number from 0 to {max} (got {value})");
    Ok(value)
}

/// `[nand]`: the array's shape.
pub(crate) fn geometry(n: &RawNand) -> FieldResult<Geometry> {
    let geometry = Geometry {
        channels: n.channels,
        packages_per_channel: n.packages_per_channel,
        dies_per_package: n.dies_per_package,
        planes_per_die: n.planes_per_die,
        blocks_per_plane: n.blocks_per_plane,
        pages_per_block: n.pages_per_block,
        page_bytes: n.page_bytes,
        spare_bytes_per_page: n.spare_bytes_per_page,
    };
    geometry.validate()?;
    Ok(geometry)
}

/// `[nand]`: operation times and the bus.
pub(crate) fn timing(n: &RawNand) -> FieldResult<Timing> {
    let bus = BusKind::parse(&n.bus)
        .ok_or_else(|| FieldError::new("nand", "bus", format!("unknown bus `{}` (expected onfi1-async, onfi2-sync, toggle1 or toggle2)", n.bus)))?;
    let bus_bytes_per_second = match n.bus_mbps {
        Some(mbps) => rate("nand", "bus_mbps", mbps)?,
        None => bus.default_bytes_per_second(),
    };
    let timing = Timing {
        t_read_ns: n.t_read_ns,
        t_prog_ns: n.t_prog_ns,
        t_erase_ns: n.t_erase_ns,
        command_overhead_ns: n.command_overhead_ns,
        bus,
        bus_bytes_per_second,
    };
    timing.validate()?;
    Ok(timing)
}

/// Most characters of a drive's model name.
const MAX_MODEL_CHARS: usize = 200;

/// `[drive]`: its model name, capacity and reserved space.
pub(crate) fn drive(d: &RawDrive, geometry: &Geometry) -> FieldResult<()> {
    // The name heads every summary and report page: one printable line.
    field_ensure!(!d.model.trim().is_empty(), "drive", "model", "give the drive's name (got an empty one)");
    if let Some(c) = d.model.chars().find(|c| c.is_control()) {
        field_ensure!(false, "drive", "model", "contains a control character ({c:?}); give the name on one line of printable characters");
    }
    field_ensure!(d.model.chars().count() <= MAX_MODEL_CHARS, "drive", "model", "at most {MAX_MODEL_CHARS} characters (got {})", d.model.chars().count());
    field_ensure!(
        d.capacity_bytes_user > 0 && d.capacity_bytes_user.is_multiple_of(SECTOR_BYTES) && d.capacity_bytes_user <= MAX_CAPACITY_BYTES,
        "drive",
        "capacity_bytes_user",
        "must be a positive multiple of {SECTOR_BYTES} bytes no larger than {MAX_CAPACITY_BYTES} (got {})",
        d.capacity_bytes_user
    );
    field_ensure!(
        d.capacity_bytes_user < geometry.raw_bytes(),
        "drive",
        "capacity_bytes_user",
        "user capacity {} bytes is not below the raw capacity {} bytes; there is no spare area",
        d.capacity_bytes_user,
        geometry.raw_bytes()
    );
    field_ensure!(
        (0.0..0.95).contains(&d.reserved_user_fraction),
        "drive",
        "reserved_user_fraction",
        "must be in [0, 0.95) (got {})",
        d.reserved_user_fraction
    );
    Ok(())
}

/// `[host]`: the link and NCQ.
pub(crate) fn host(h: &RawHost) -> FieldResult<HostSettings> {
    let interface = HostInterface::parse(&h.interface)
        .ok_or_else(|| FieldError::new("host", "interface", format!("unknown interface `{}` (expected sata-3g, sata-6g, pcie3 or pcie4)", h.interface)))?;
    let limit = interface.queue_depth_limit();
    // Lanes on SATA are refused in `consistency::host_features`.
    let lanes = if interface.is_nvme() { h.lanes.unwrap_or(DEFAULT_LANES) } else { 0 };
    if interface.is_nvme() {
        field_ensure!(
            (1..=limit).contains(&h.queue_depth_max),
            "host",
            "queue_depth_max",
            "an NVMe queue holds 1 to {limit} commands (got {})",
            h.queue_depth_max
        );
        field_ensure!([1, 2, 4, 8, 16].contains(&lanes), "host", "lanes", "must be 1, 2, 4, 8 or 16 PCIe lanes (got {lanes})");
    } else {
        field_ensure!(
            (1..=limit).contains(&h.queue_depth_max),
            "host",
            "queue_depth_max",
            "SATA NCQ allows 1 to 32 outstanding commands (got {})",
            h.queue_depth_max
        );
    }
    field_ensure!(
        h.command_overhead_ns <= MAX_COMMAND_NS,
        "host",
        "command_overhead_ns",
        "must be at most {MAX_COMMAND_NS} ns (got {})",
        h.command_overhead_ns
    );
    let link_bytes_per_second = match h.link_mbps {
        Some(mbps) => rate("host", "link_mbps", mbps)?,
        None => interface.default_payload_bytes_per_second() * lanes.max(1) as u64,
    };
    Ok(HostSettings { interface, link_bytes_per_second, command_overhead_ns: h.command_overhead_ns, queue_depth_max: h.queue_depth_max, lanes })
}

/// `[controller]`: firmware time, write buffer, write cap, map cache, power.
/// `[controller]`; `todays_drive`: the profile has a `[media]` section (the default of
/// `reads_first`).
pub(crate) fn controller(c: &RawController, geometry: &Geometry, todays_drive: bool) -> FieldResult<ControllerSettings> {
    let unit_bytes = geometry.unit_bytes();
    field_ensure!(
        c.write_buffer_bytes >= 2 * unit_bytes,
        "controller",
        "write_buffer_bytes",
        "must hold at least two multi-plane pages ({} bytes) (got {})",
        2 * unit_bytes,
        c.write_buffer_bytes
    );
    field_ensure!(c.write_buffer_bytes <= 1 << 34, "controller", "write_buffer_bytes", "at most 16 GiB (got {})", c.write_buffer_bytes);
    for (key, value) in [("command_processing_ns", c.command_processing_ns), ("trim_ns_per_mib", c.trim_ns_per_mib)] {
        field_ensure!(value <= MAX_COMMAND_NS, "controller", key, "must be at most {MAX_COMMAND_NS} ns (got {value})");
    }
    field_ensure!(
        c.journal_bytes == 0 || c.journal_bytes >= geometry.page_bytes as u64,
        "controller",
        "journal_bytes",
        "must be 0 (a sixteenth of the map) or at least one NAND page, {} bytes (got {})",
        geometry.page_bytes,
        c.journal_bytes
    );
    // Every command costs its controller some time: with none, a command that touches no
    // flash (a TRIM, a read of unwritten space) would take no time at all (0 us latency,
    // unbounded IOPS).
    field_ensure!(
        c.command_processing_ns >= 1,
        "controller",
        "command_processing_ns",
        "must be at least 1 ns: every command takes the controller some time (got 0)"
    );
    field_ensure!(
        c.small_random_write_cap_iops <= 100_000_000,
        "controller",
        "small_random_write_cap_iops",
        "must be at most 100000000 (got {})",
        c.small_random_write_cap_iops
    );
    field_ensure!(
        c.small_random_write_cap_iops == 0 || (1..=100_000_000).contains(&c.small_random_write_burst_ios),
        "controller",
        "small_random_write_burst_ios",
        "must be 1 to 100000000 when a cap is set (got {})",
        c.small_random_write_burst_ios
    );
    field_ensure!(
        c.small_random_write_max_bytes <= 1 << 30,
        "controller",
        "small_random_write_max_bytes",
        "must be at most 1 GiB (got {})",
        c.small_random_write_max_bytes
    );
    let active_mw = amount("controller", "active_mw", c.active_mw, 1e6)?;
    let idle_mw = amount("controller", "idle_mw", c.idle_mw, 1e6)?;
    field_ensure!(
        c.map_cache_bytes == 0 || (geometry.page_bytes as u64..=1 << 34).contains(&c.map_cache_bytes),
        "controller",
        "map_cache_bytes",
        "must be 0 (the whole map in DRAM) or one page ({} bytes) to 16 GiB (got {})",
        geometry.page_bytes,
        c.map_cache_bytes
    );
    field_ensure!((1..=64).contains(&c.map_entry_bytes), "controller", "map_entry_bytes", "must be 1 to 64 bytes (got {})", c.map_entry_bytes);
    Ok(ControllerSettings {
        command_processing_ns: c.command_processing_ns,
        write_buffer_bytes: c.write_buffer_bytes,
        small_random_write_cap_iops: c.small_random_write_cap_iops,
        small_random_write_burst_ios: c.small_random_write_burst_ios,
        small_random_write_max_bytes: c.small_random_write_max_bytes,
        trim_ns_per_mib: c.trim_ns_per_mib,
        active_mw,
        data_pj_per_byte: amount("controller", "data_pj_per_byte", c.data_pj_per_byte, 1e6)?,
        idle_mw,
        map_cache_bytes: c.map_cache_bytes,
        map_entry_bytes: c.map_entry_bytes,
        power_loss_protection: c.power_loss_protection,
        hmb_bytes: crate::media_sections::hmb_bytes(c, geometry)?,
        hmb_access_ns: c.hmb_access_ns.min(MAX_COMMAND_NS),
        metadata_writes: c.metadata_writes,
        journal_bytes: c.journal_bytes,
        reads_first: c.reads_first.unwrap_or(todays_drive),
    })
}

/// The firmware's metadata in flash (docs/model.md): map pages of one NAND page holding
/// `map_entry_bytes` per sector, a journal of 8-byte records (assumed) as long as
/// `journal_bytes` or a sixteenth of the map (assumed), and map pages read before write-back on a
/// controller whose map lives in flash (`map_cache_bytes` set). `None` when the profile turns it
/// off (`controller.metadata_writes = false`).
pub(crate) fn metadata(c: &ControllerSettings, geometry: &Geometry, user_sectors: u64) -> Option<ssdlab_ftl::MetadataConfig> {
    if !c.metadata_writes {
        return None;
    }
    let map_bytes = user_sectors * c.map_entry_bytes;
    let journal_bytes = if c.journal_bytes > 0 { c.journal_bytes } else { (map_bytes / ssdlab_ftl::JOURNAL_SHARE_OF_MAP).max(geometry.page_bytes as u64) };
    Some(ssdlab_ftl::MetadataConfig {
        map_entry_bytes: c.map_entry_bytes as u32,
        map_page_bytes: geometry.page_bytes,
        journal_record_bytes: ssdlab_ftl::JOURNAL_RECORD_BYTES,
        journal_bytes,
        read_before_writeback: c.map_cache_bytes > 0,
    })
}

/// `[energy]`: per-operation energy and idle power of the array.
pub(crate) fn energy(e: &RawEnergy) -> FieldResult<Energy> {
    Ok(Energy {
        read_nj_per_page: amount("energy", "read_nj_per_page", e.read_nj_per_page, 1e12)?,
        program_nj_per_page: amount("energy", "program_nj_per_page", e.program_nj_per_page, 1e12)?,
        // Completed from the media model in `pslc_energy` when the profile does not give it.
        pslc_program_nj_per_page: amount("energy", "pslc_program_nj_per_page", e.pslc_program_nj_per_page.unwrap_or(e.program_nj_per_page), 1e12)?,
        erase_nj_per_block: amount("energy", "erase_nj_per_block", e.erase_nj_per_block, 1e12)?,
        transfer_pj_per_byte: amount("energy", "transfer_pj_per_byte", e.transfer_pj_per_byte, 1e12)?,
        idle_mw: amount("energy", "nand_idle_mw", e.nand_idle_mw, 1e6)?,
    })
}

/// The energy of a pSLC page program when the profile does not give it
/// (`energy.pslc_program_nj_per_page`): the array draws the same power programming in pSLC mode as
/// natively, so a pSLC page costs the native energy per unit of program time times the pSLC
/// program time (a native program of `pages` pages per plane takes `t_prog_ns`).
pub(crate) fn pslc_energy(e: &RawEnergy, energy: &mut Energy, media: &ssdlab_nand::Media) {
    if let (None, Some(pslc)) = (e.pslc_program_nj_per_page, media.pslc.as_ref()) {
        let pages = media.native_pages_per_program() as f64;
        energy.pslc_program_nj_per_page = e.program_nj_per_page * pages * pslc.t_prog_ns as f64 / media.t_prog_ns as f64;
    }
}

/// `[ftl]`: victim policy and GC thresholds, checked with the spare area they must work in.
pub(crate) fn ftl(f: &RawFtl, geometry: &Geometry, user_sectors: u64) -> FieldResult<FtlConfig> {
    let gc_policy = GcPolicy::parse(&f.gc_policy, f.gc_window_blocks).map_err(|m| FieldError::new("ftl", "gc_policy", m))?;
    // A window of no blocks has no victim to choose from (checked for every policy: the field
    // is meaningless at 0 whichever policy reads it).
    field_ensure!(f.gc_window_blocks >= 1, "ftl", "gc_window_blocks", "must be at least 1 (got {})", f.gc_window_blocks);
    field_ensure!(
        f.gc_low_free_blocks_per_die <= geometry.blocks_per_die(),
        "ftl",
        "gc_low_free_blocks_per_die",
        "must be at most the {} blocks of a die (got {})",
        geometry.blocks_per_die(),
        f.gc_low_free_blocks_per_die
    );
    field_ensure!(
        f.gc_idle_target_free_blocks_per_die >= f.gc_low_free_blocks_per_die && f.gc_idle_target_free_blocks_per_die <= geometry.blocks_per_die(),
        "ftl",
        "gc_idle_target_free_blocks_per_die",
        "must be from gc_low_free_blocks_per_die ({}) to the {} blocks of a die (got {})",
        f.gc_low_free_blocks_per_die,
        geometry.blocks_per_die(),
        f.gc_idle_target_free_blocks_per_die
    );
    let gc_schedule = GcSchedule::parse(&f.gc_schedule, f.gc_high_free_blocks_per_die, f.gc_background_units_per_host_unit)
        .map_err(|m| FieldError::new("ftl", "gc_schedule", m))?;
    // A small drive (a shrunk profile) has fewer spare blocks per die than the mark may ask for.
    let spare_blocks = geometry.total_slots().saturating_sub(user_sectors) / geometry.dies() as u64 / geometry.slots_per_block() as u64;
    let gc_schedule = if gc_schedule.high_free().is_some_and(|h| h <= f.gc_low_free_blocks_per_die) {
        gc_schedule // refused by the check below, with the value given
    } else {
        gc_schedule.capped(f.gc_low_free_blocks_per_die, spare_blocks)
    };
    let config = FtlConfig {
        geometry: geometry.clone(),
        user_sectors,
        gc_policy,
        gc_low_free_blocks_per_die: f.gc_low_free_blocks_per_die,
        gc_schedule,
        gc_idle_target_free_blocks_per_die: f.gc_idle_target_free_blocks_per_die,
        track_tags: false,
        store_data: false,
        native_pages_per_program: 1,
        slc: None,
        metadata: None,
    };
    config.validate()?;
    Ok(config)
}

/// `[reduction]`: the data-reduction engine, when present and enabled. `firmware` is the
/// controller's firmware version: those listed in `stale_pointer_trim_firmware` keep a stale
/// pointer for each trimmed sector (see `ChunkFtlConfig::trim_keeps_stale_pointers`).
pub(crate) fn reduction(r: &RawReduction, ftl: &FtlConfig, firmware: &str) -> FieldResult<Option<ReductionSettings>> {
    if !r.enabled {
        return Ok(None);
    }
    let chunks_per_second = r.chunks_per_second;
    field_ensure!((1..=10_000_000_000).contains(&chunks_per_second), "reduction", "chunks_per_second", "must be 1 to 10000000000 (got {chunks_per_second})");
    let chunk = ChunkFtlConfig {
        geometry: ftl.geometry.clone(),
        user_sectors: ftl.user_sectors,
        ecc_unit_bytes: r.ecc_unit_bytes,
        chunk_header_bytes: r.chunk_header_bytes,
        dedup_index_entries: r.dedup_index_entries,
        gc_policy: ftl.gc_policy,
        gc_low_free_blocks_per_die: ftl.gc_low_free_blocks_per_die,
        gc_schedule: ftl.gc_schedule,
        gc_idle_target_free_blocks_per_die: ftl.gc_idle_target_free_blocks_per_die,
        keep_payloads: false,
        payload_limit_bytes: 0,
        store_data: false,
        partial_page_reads: r.partial_page_reads,
        trim_keeps_stale_pointers: r.stale_pointer_trim_firmware.iter().any(|f| f == firmware),
        metadata: ftl.metadata.clone(),
    };
    chunk.validate()?;
    Ok(Some(ReductionSettings {
        chunk,
        hash_bytes_per_second: rate("reduction", "hash_mbps", r.hash_mbps)?,
        compress_bytes_per_second: rate("reduction", "compress_mbps", r.compress_mbps)?,
        decompress_bytes_per_second: rate("reduction", "decompress_mbps", r.decompress_mbps)?,
        chunks_per_second,
        backend_write_bytes_per_second: rate("reduction", "backend_write_mbps", r.backend_write_mbps)?,
        backend_read_bytes_per_second: rate("reduction", "backend_read_mbps", r.backend_read_mbps)?,
    }))
}
