//! Validation of the sections of today's drives (issue 20): `[media]` (cell mode, page-type
//! reads, one-shot programs, pSLC mode) and `[slc_cache]` (static and dynamic SLC, what host
//! writes do when it is full). Both are optional: a profile without them behaves exactly as
//! before (legacy media, no cache).

use crate::raw::{RawController, RawMedia, RawSlcCache};
use ssdlab_core::{field_ensure, FieldError};
use ssdlab_ftl::{SlcCacheConfig, WhenCacheFull};
use ssdlab_nand::{CellMode, Geometry, Media, PslcMode, Suspend, Timing};

type FieldResult<T> = Result<T, FieldError>;

/// `[media]`: the dies' cell mode and times; [`Media::legacy`] without the section.
pub(crate) fn media(m: Option<&RawMedia>, timing: &Timing) -> FieldResult<Media> {
    let Some(m) = m else { return Ok(Media::legacy(timing)) };
    let native =
        CellMode::parse(&m.cell).ok_or_else(|| FieldError::new("media", "cell", format!("unknown cell mode `{}` (expected slc, mlc, tlc or qlc)", m.cell)))?;
    let bits = native.bits() as usize;
    let mut t_read_page_ns = [timing.t_read_ns; 4];
    if !m.t_read_page_ns.is_empty() {
        field_ensure!(
            m.t_read_page_ns.len() == bits,
            "media",
            "t_read_page_ns",
            "{} cells have {}: give {bits} time{} (got {})",
            native.name(),
            if bits == 1 { "one page type".to_string() } else { format!("{bits} page types (LSB, CSB, MSB, TSB order)") },
            if bits == 1 { "" } else { "s" },
            m.t_read_page_ns.len()
        );
        t_read_page_ns[..bits].copy_from_slice(&m.t_read_page_ns);
    }
    let pslc = match (m.pslc_t_prog_ns, m.pslc_t_read_ns) {
        (None, None) => None,
        (Some(t_prog_ns), read) => Some(PslcMode { t_prog_ns, t_read_ns: read.unwrap_or(timing.t_read_ns), endurance_cycles: m.pslc_endurance_cycles }),
        (None, Some(_)) => return Err(FieldError::new("media", "pslc_t_read_ns", "a pSLC mode needs pslc_t_prog_ns too")),
    };
    let media = Media {
        native,
        one_shot: m.one_shot,
        t_read_page_ns,
        t_prog_ns: m.t_prog_ns.unwrap_or(timing.t_prog_ns),
        native_endurance_cycles: m.endurance_cycles,
        pslc,
        suspend: m.suspend_latency_ns.filter(|&s| s > 0).map(|suspend_ns| Suspend {
            suspend_ns,
            resume_ns: m.resume_latency_ns,
            max_per_op: m.suspend_max_per_op.max(1),
        }),
    };
    media.validate()?;
    Ok(media)
}

/// `[slc_cache]`: the SLC cache in blocks per die, `None` without the section.
pub(crate) fn slc_cache(c: Option<&RawSlcCache>, media: &Media, geometry: &Geometry) -> FieldResult<Option<SlcCacheConfig>> {
    let Some(c) = c else { return Ok(None) };
    field_ensure!(media.pslc.is_some(), "slc_cache", "static_bytes", "an SLC cache needs a pSLC mode in [media] (pslc_t_prog_ns)");
    let ratio = media.pslc_ratio();
    let slc_block_bytes = geometry.slots_per_block() as u64 * ssdlab_nand::SECTOR_BYTES / ratio as u64;
    let dies = geometry.dies() as u64;
    let per_die = |bytes: u64| -> u64 { bytes.div_ceil(slc_block_bytes * dies) };
    let static_blocks = per_die(c.static_bytes);
    let dynamic_blocks = per_die(c.dynamic_max_bytes);
    field_ensure!(
        static_blocks < geometry.blocks_per_die() as u64,
        "slc_cache",
        "static_bytes",
        "more than the array holds in pSLC mode (got {})",
        c.static_bytes
    );
    // A dynamic maximum beyond what the array holds in pSLC mode means "no firmware limit".
    let dynamic_blocks = dynamic_blocks.min(geometry.blocks_per_die() as u64);
    let when_full = WhenCacheFull::parse(&c.when_full)
        .ok_or_else(|| FieldError::new("slc_cache", "when_full", format!("unknown choice `{}` (expected native, fold or flush)", c.when_full)))?;
    Ok(Some(SlcCacheConfig {
        ratio,
        static_blocks_per_die: static_blocks as u32,
        dynamic_max_blocks_per_die: dynamic_blocks as u32,
        when_full,
        idle_fold: c.idle_fold,
        native_endurance_cycles: media.native_endurance_cycles,
        pslc_endurance_cycles: media.pslc.as_ref().map_or(0, |p| p.endurance_cycles),
    }))
}

/// `[controller] hmb_bytes`: the host memory buffer caching map pages (0: none); an HMB needs
/// the map in flash (`map_cache_bytes` of SRAM set).
pub(crate) fn hmb_bytes(c: &RawController, geometry: &Geometry) -> FieldResult<u64> {
    field_ensure!(c.hmb_bytes <= 1 << 34, "controller", "hmb_bytes", "at most 16 GiB (got {})", c.hmb_bytes);
    field_ensure!(
        c.hmb_bytes == 0 || c.map_cache_bytes > 0,
        "controller",
        "hmb_bytes",
        "a host memory buffer caches map pages of a DRAM-less controller: set map_cache_bytes (its SRAM, at least one {}-byte page) too",
        geometry.page_bytes
    );
    field_ensure!(c.hmb_access_ns <= 1_000_000_000, "controller", "hmb_access_ns", "must be at most 1 s (got {})", c.hmb_access_ns);
    Ok(c.hmb_bytes)
}
