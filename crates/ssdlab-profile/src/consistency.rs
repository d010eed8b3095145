//! Checks across sections: values each valid alone that contradict one another, the mistakes of
//! a user writing a profile from a spec sheet (a field the interface does not have, a time in
//! the wrong section or unit, an SLC cache slower than the native flash). Each is refused at the
//! field to change, saying what it contradicts; the decisions are in `docs/profiles.md`.

use crate::raw::RawProfile;
use crate::settings::{ControllerSettings, HostSettings};
use ssdlab_core::{field_ensure, FieldError};
use ssdlab_ftl::SlcCacheConfig;
use ssdlab_nand::{Energy, Geometry, Media, SECTOR_BYTES};

type FieldResult<T> = Result<T, FieldError>;

/// The native program time: `media.t_prog_ns` when `[media]` gives one (the time every native
/// program takes), else `nand.t_prog_ns`. Both given and different in the file is refused: the
/// `[nand]` value would be silently ignored. A `--set media.t_prog_ns` is the one way to change
/// the time of such a profile and is taken as given; a `--set nand.t_prog_ns` on it is refused
/// (it would change nothing).
pub(crate) fn program_time(raw: &RawProfile, overrides: &[String]) -> FieldResult<u64> {
    let Some(media_prog_ns) = raw.media.as_ref().and_then(|m| m.t_prog_ns) else { return Ok(raw.nand.t_prog_ns) };
    let overridden = |key: &str| overrides.iter().any(|o| o.split('=').next().map(str::trim) == Some(key));
    let media_set_alone = overridden("media.t_prog_ns") && !overridden("nand.t_prog_ns");
    field_ensure!(
        media_prog_ns == raw.nand.t_prog_ns || media_set_alone,
        "nand",
        "t_prog_ns",
        "{} ns differs from media.t_prog_ns ({media_prog_ns} ns), the native program time the drive uses when [media] gives one: \
         give both the same value, or leave media.t_prog_ns out to use this one (with --set, set media.t_prog_ns)",
        raw.nand.t_prog_ns
    );
    Ok(media_prog_ns)
}

/// pSLC mode must be faster than the native mode it caches for: a pSLC page programs faster
/// than a native page's share of its program (a one-shot word line programs `bits` pages at
/// once), and a pSLC page reads no slower than the slowest native page type. Otherwise a drive
/// writes faster once its SLC cache is full, which is a unit or section mistake.
pub(crate) fn pslc_faster_than_native(media: &Media) -> FieldResult<()> {
    let Some(pslc) = &media.pslc else { return Ok(()) };
    let pages = media.native_pages_per_program() as u64;
    let native_per_page_ns = media.t_prog_ns / pages;
    field_ensure!(
        pslc.t_prog_ns < native_per_page_ns,
        "media",
        "pslc_t_prog_ns",
        "a pSLC page program ({} ns) must be faster than a native page's share of media.t_prog_ns ({} ns{}), or the drive \
         would write faster after its SLC cache fills; check both are in nanoseconds",
        pslc.t_prog_ns,
        native_per_page_ns,
        if pages > 1 { format!(" = {} ns over the {pages} pages of a one-shot word line", media.t_prog_ns) } else { String::new() }
    );
    let bits = media.native.bits() as usize;
    let slowest_native_read_ns = media.t_read_page_ns[..bits].iter().copied().max().unwrap_or(0);
    field_ensure!(
        pslc.t_read_ns <= slowest_native_read_ns,
        "media",
        "pslc_t_read_ns",
        "a pSLC page read ({} ns) must be no slower than the slowest native page read ({slowest_native_read_ns} ns, \
         media.t_read_page_ns or nand.t_read_ns): pSLC senses one level; check the unit",
        pslc.t_read_ns
    );
    Ok(())
}

/// NAND that suspends programs and erases for host reads lets those reads go first: asking for
/// first come, first served beside a suspend latency contradicts it.
pub(crate) fn reads_first_with_suspend(raw: &RawProfile, media: &Media) -> FieldResult<()> {
    let Some(sp) = &media.suspend else { return Ok(()) };
    field_ensure!(
        raw.controller.reads_first != Some(false),
        "controller",
        "reads_first",
        "false contradicts media.suspend_latency_ns ({} ns): NAND that suspends a program or erase for a host read lets host \
         reads go first; remove one of the two",
        sp.suspend_ns
    );
    Ok(())
}

/// SLC cache sizes are bytes: a non-zero size below one pSLC block (the cache's unit) is a size
/// given in GB or MB, which would silently become one block per die.
pub(crate) fn slc_cache_sizes(raw: &RawProfile, media: &Media, geometry: &Geometry) -> FieldResult<()> {
    let Some(c) = &raw.slc_cache else { return Ok(()) };
    let slc_block_bytes = geometry.slots_per_block() as u64 * SECTOR_BYTES / media.pslc_ratio() as u64;
    for (key, bytes) in [("static_bytes", c.static_bytes), ("dynamic_max_bytes", c.dynamic_max_bytes)] {
        field_ensure!(
            bytes == 0 || bytes >= slc_block_bytes,
            "slc_cache",
            key,
            "{bytes} bytes is less than one pSLC block ({slc_block_bytes} bytes), the unit the cache is made of: give the size in bytes \
             (12 GB is 12_000_000_000), or 0 for none"
        );
    }
    Ok(())
}

/// A host memory buffer, PCIe lanes and NVMe power states belong to NVMe; a link rate above
/// what the interface carries would make the drive faster than its link.
pub(crate) fn host_features(raw: &RawProfile, host: &HostSettings, controller: &ControllerSettings) -> FieldResult<()> {
    let interface = host.interface;
    if !interface.is_nvme() {
        field_ensure!(
            controller.hmb_bytes == 0,
            "controller",
            "hmb_bytes",
            "a host memory buffer is an NVMe feature and host.interface is {}: give 0 (a DRAM-less SATA drive caches map pages \
             in its SRAM alone, controller.map_cache_bytes)",
            interface.name()
        );
        field_ensure!(
            raw.power.is_none(),
            "power",
            "state_mw",
            "NVMe power states and APST apply to pcie3 and pcie4; host.interface is {} (SATA's link power management is not \
             modelled): remove [power]",
            interface.name()
        );
        field_ensure!(
            raw.host.lanes.is_none(),
            "host",
            "lanes",
            "PCIe lanes apply to pcie3 and pcie4; host.interface is {}: remove the field",
            interface.name()
        );
    }
    if let Some(mbps) = raw.host.link_mbps {
        let lanes = host.lanes.max(1) as u64;
        let max_mbps = interface.line_bytes_per_second() * lanes / 1_000_000;
        field_ensure!(
            mbps <= max_mbps,
            "host",
            "link_mbps",
            "{mbps} MB/s is more than a {}{} link carries ({max_mbps} MB/s after line coding); give the payload rate in MB/s, \
             or leave the field out for the interface's ({} MB/s)",
            interface.name(),
            if interface.is_nvme() { format!(" x{lanes}") } else { String::new() },
            interface.default_payload_bytes_per_second() * lanes / 1_000_000
        );
    }
    Ok(())
}

/// PS0 is the working state: its maximum power cannot be below what the idle drive draws
/// (a power given in watts instead of milliwatts).
pub(crate) fn power_states(power: Option<&crate::PowerSettings>, controller: &ControllerSettings, energy: &Energy) -> FieldResult<()> {
    let Some(ps0) = power.and_then(|p| p.states.first()) else { return Ok(()) };
    let idle_mw = controller.idle_mw + energy.idle_mw;
    field_ensure!(
        ps0.max_mw >= idle_mw,
        "power",
        "state_mw",
        "PS0's {} mW is below the idle drive's {idle_mw} mW (controller.idle_mw + energy.nand_idle_mw): powers are in milliwatts",
        ps0.max_mw
    );
    Ok(())
}

/// The data-reduction FTL has no SLC cache: a `[slc_cache]` beside an enabled `[reduction]`
/// would be ignored.
pub(crate) fn cache_with_reduction(raw: &RawProfile, slc: Option<&SlcCacheConfig>) -> FieldResult<()> {
    let reduction_on = raw.reduction.as_ref().is_some_and(|r| r.enabled);
    field_ensure!(
        !(reduction_on && slc.is_some()),
        "slc_cache",
        "static_bytes",
        "the data-reduction FTL ([reduction] enabled = true) has no SLC cache: remove [slc_cache] or set reduction.enabled = false"
    );
    Ok(())
}
