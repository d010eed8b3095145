//! FTL configuration.

use ssdlab_core::{field_ensure, FieldError};
use ssdlab_nand::Geometry;

/// How garbage collection picks the block to reclaim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GcPolicy {
    /// The closed block with the fewest valid slots on the die.
    Greedy,
    /// The closed block with the highest `(1 - u) * age / (2 u)` (Rosenblum and Ousterhout's
    /// cost-benefit), `u` its valid fraction and `age` counted in block closes since it closed.
    CostBenefit,
    /// Greedy among the `window` least recently closed blocks of the die.
    WindowedGreedy {
        /// How many of the oldest closed blocks are considered.
        window: u32,
    },
}

impl GcPolicy {
    /// Parse the profile spelling: `greedy`, `cost-benefit`, `windowed` (window given separately).
    pub fn parse(name: &str, window: u32) -> Result<Self, String> {
        match name {
            "greedy" => Ok(Self::Greedy),
            "cost-benefit" => Ok(Self::CostBenefit),
            "windowed" => Ok(Self::WindowedGreedy { window }),
            other => Err(format!("unknown GC policy `{other}` (expected greedy, cost-benefit or windowed)")),
        }
    }

    /// The profile spelling of the policy.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Greedy => "greedy",
            Self::CostBenefit => "cost-benefit",
            Self::WindowedGreedy { .. } => "windowed",
        }
    }
}

/// A burst target or background start must lie above the low-water mark; background GC must
/// copy something.
pub(crate) fn check_schedule(schedule: GcSchedule, low_free: u32) -> Result<(), FieldError> {
    if let Some(high) = schedule.high_free() {
        field_ensure!(high > low_free, "ftl", "gc_high_free_blocks_per_die", "must be above gc_low_free_blocks_per_die ({low_free}) (got {high})");
    }
    if let GcSchedule::Background { units_per_host_unit, .. } = schedule {
        field_ensure!(units_per_host_unit >= 1, "ftl", "gc_background_units_per_host_unit", "must be at least 1 (got {units_per_host_unit})");
    }
    Ok(())
}

/// When foreground garbage collection runs and how much it does at a time: a controller's
/// choice, which shapes how steady the drive's performance is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum GcSchedule {
    /// While a die is at its low-water mark, copy after each host program as much as
    /// reclaiming the victim frees per host unit: GC interleaves with host writes (steady).
    #[default]
    Paced,
    /// Threshold bursts: when a die reaches its low-water mark, reclaim whole victims until it
    /// has `high_free` free blocks; the die's host programs wait behind the burst.
    Burst {
        /// Free blocks per die a burst collects up to.
        high_free: u32,
    },
    /// Background GC at a bounded rate: from `start_free` free blocks down, at most
    /// `units_per_host_unit` units of copying per host unit; a die that still falls to its
    /// low-water mark collects in the foreground until it is above it.
    Background {
        /// Free blocks per die at or below which background GC runs.
        start_free: u32,
        /// Most allocation units copied per host allocation unit written.
        units_per_host_unit: u32,
    },
}

impl GcSchedule {
    /// Parse the profile spelling (`paced`, `burst`, `background`) with its parameters.
    pub fn parse(name: &str, high_free: u32, units_per_host_unit: u32) -> Result<Self, String> {
        match name {
            "paced" => Ok(Self::Paced),
            "burst" => Ok(Self::Burst { high_free }),
            "background" => Ok(Self::Background { start_free: high_free, units_per_host_unit }),
            other => Err(format!("unknown GC schedule `{other}` (expected paced, burst or background)")),
        }
    }

    /// The profile spelling of the schedule.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Paced => "paced",
            Self::Burst { .. } => "burst",
            Self::Background { .. } => "background",
        }
    }

    /// The schedule on a die with `spare_blocks` spare blocks: its high mark is capped at the
    /// spare blocks less 3 (the open blocks and one more stay for data), and at least one above
    /// the low-water mark, so a profile shrunk to a small drive keeps a workable schedule.
    pub fn capped(self, low_free: u32, spare_blocks: u64) -> Self {
        let cap = |high: u32| -> u32 { (high as u64).min(spare_blocks.saturating_sub(3)).max(low_free as u64 + 1) as u32 };
        match self {
            Self::Paced => Self::Paced,
            Self::Burst { high_free } => Self::Burst { high_free: cap(high_free) },
            Self::Background { start_free, units_per_host_unit } => Self::Background { start_free: cap(start_free), units_per_host_unit },
        }
    }

    /// The free-block mark above the low-water mark the schedule works up to (bursts) or from
    /// (background), if it has one.
    pub fn high_free(&self) -> Option<u32> {
        match *self {
            Self::Paced => None,
            Self::Burst { high_free } => Some(high_free),
            Self::Background { start_free, .. } => Some(start_free),
        }
    }
}

/// Everything the FTL is built from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FtlConfig {
    /// The array geometry.
    pub geometry: Geometry,
    /// Logical 4 KiB sectors the host can address.
    pub user_sectors: u64,
    /// Victim selection policy.
    pub gc_policy: GcPolicy,
    /// Foreground GC runs on a die when taking a block would leave fewer free blocks than this.
    pub gc_low_free_blocks_per_die: u32,
    /// When foreground GC runs and how much it does at a time.
    #[serde(default)]
    pub gc_schedule: GcSchedule,
    /// Idle-time GC tries to bring every die up to this many free blocks.
    pub gc_idle_target_free_blocks_per_die: u32,
    /// Keep a 64-bit content tag per slot, moved by GC, so reads can be checked.
    pub track_tags: bool,
    /// Send every written sector's bytes, and every GC move, to the sink (a drive that stores
    /// real data, e.g. in a backing file).
    pub store_data: bool,
    /// Multi-plane pages in one native program unit: 1, or the bits per cell of NAND programmed
    /// one word line at a time (one-shot TLC/QLC).
    #[serde(default = "one")]
    pub native_pages_per_program: u32,
    /// The SLC cache, on drives whose NAND has a pSLC mode and whose firmware uses it.
    #[serde(default)]
    pub slc: Option<SlcCacheConfig>,
    /// Firmware metadata (map pages, journal) written to flash; `None`: not modelled.
    #[serde(default)]
    pub metadata: Option<crate::MetadataConfig>,
}

fn one() -> u32 {
    1
}

/// What the firmware does with host writes while its SLC cache is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WhenCacheFull {
    /// Write host data directly to native blocks; fold only when free blocks run low or in
    /// idle time.
    Native,
    /// Fold the oldest SLC block in the foreground first, so host data keeps landing in SLC.
    Fold,
    /// Write host data directly to native blocks and flush the cache behind it: for every
    /// native block the host fills, one SLC block is folded, interleaved with the host's
    /// programs on the same die. Host data goes back into SLC after the host pauses (idle).
    Flush,
}

impl WhenCacheFull {
    /// Parse the profile spelling (`native`, `fold`, `flush`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "native" => Some(Self::Native),
            "fold" => Some(Self::Fold),
            "flush" => Some(Self::Flush),
            _ => None,
        }
    }

    /// The profile spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Fold => "fold",
            Self::Flush => "flush",
        }
    }
}

/// The SLC cache: blocks programmed in pSLC mode take host writes first; folding copies their
/// data into native blocks later.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlcCacheConfig {
    /// A native block holds this many times the data of the same block in pSLC mode (bits per
    /// cell).
    pub ratio: u32,
    /// SLC blocks per die available whatever the free space (static SLC).
    pub static_blocks_per_die: u32,
    /// Most further SLC blocks per die the firmware takes from free native blocks (dynamic
    /// SLC). Fewer are taken when free blocks run short: a dynamic SLC block is opened only
    /// while the die keeps more than its GC reserve free, so a fuller drive has a smaller cache.
    pub dynamic_max_blocks_per_die: u32,
    /// What host writes do while the cache is full.
    pub when_full: WhenCacheFull,
    /// Fold SLC data into native blocks in idle time.
    pub idle_fold: bool,
    /// Rated program/erase cycles in native mode (0: not rated), for the life-used figure.
    #[serde(default)]
    pub native_endurance_cycles: u32,
    /// Rated program/erase cycles in pSLC mode (0: not rated).
    #[serde(default)]
    pub pslc_endurance_cycles: u32,
}

impl FtlConfig {
    /// Metadata pseudo-sectors this configuration writes (map pages and journal; 0 without).
    pub fn metadata_sectors(&self) -> u64 {
        self.metadata.as_ref().map_or(0, |m| crate::metadata::Metadata::sectors_needed(m, self.user_sectors))
    }

    /// The tables a page FTL of this configuration allocates when it is built, each by name
    /// with its size in bytes: what the memory check counts before building them.
    pub fn table_parts(&self) -> [(&'static str, u64); 5] {
        let g = &self.geometry;
        let logical = self.user_sectors + self.metadata_sectors();
        let slots = g.total_slots();
        let entry = std::mem::size_of::<u32>() as u64;
        [
            ("mapping table", logical * entry),
            ("reverse map", slots * entry),
            ("validity bits", slots / 8),
            ("content tags", if self.track_tags { slots * 8 } else { 0 }),
            ("block tables", crate::pool::BlockPool::table_bytes(g.total_blocks() as u64)),
        ]
    }

    /// Check that garbage collection can always make progress with this much spare space.
    pub fn validate(&self) -> Result<(), FieldError> {
        let g = &self.geometry;
        // Metadata sectors hold flash like user data.
        let metadata = self.metadata_sectors();
        let logical = self.user_sectors + metadata;
        // What the messages add when the firmware's metadata takes part of the flash.
        let with_metadata = if metadata > 0 {
            format!(" (with the firmware's metadata in flash, {metadata} sectors: map pages and the controller.journal_bytes journal)")
        } else {
            String::new()
        };
        field_ensure!(self.user_sectors > 0, "drive", "capacity_bytes_user", "the drive has no user capacity");
        field_ensure!(
            self.user_sectors < super::UNMAPPED as u64,
            "drive",
            "capacity_bytes_user",
            "{} user sectors are more than the {} supported",
            self.user_sectors,
            super::UNMAPPED
        );
        field_ensure!(self.gc_low_free_blocks_per_die >= 1, "ftl", "gc_low_free_blocks_per_die", "must be at least 1 (GC needs a free block to copy into)");
        if let GcPolicy::WindowedGreedy { window } = self.gc_policy {
            field_ensure!(window >= 1, "ftl", "gc_window_blocks", "must be at least 1");
        }
        let total_slots = g.total_slots();
        field_ensure!(
            logical < total_slots,
            "drive",
            "capacity_bytes_user",
            "user capacity ({} sectors){with_metadata} is not smaller than the raw capacity ({} slots): no spare area",
            self.user_sectors,
            total_slots
        );
        // Per die: the low-water free blocks, one open host block and one open GC block are never
        // available for data, and at least one further block's worth of spare must exist so a
        // victim always has an invalid slot to reclaim.
        let needed_blocks = self.gc_low_free_blocks_per_die as u64 + 3;
        field_ensure!(
            (g.blocks_per_die() as u64) > needed_blocks,
            "ftl",
            "gc_low_free_blocks_per_die",
            "{} blocks per die cannot hold the GC reserve of {needed_blocks} (this low-water mark + open blocks + 1)",
            g.blocks_per_die()
        );
        let dies = g.dies() as u64;
        let spare_slots_per_die = (total_slots - logical) / dies;
        let needed_slots = needed_blocks * g.slots_per_block() as u64;
        field_ensure!(
            spare_slots_per_die >= needed_slots,
            "drive",
            "capacity_bytes_user",
            "over-provisioning too small for garbage collection: {:.2} spare blocks per die{with_metadata}, need at least {} \
             (ftl.gc_low_free_blocks_per_die + open blocks + 1); lower drive.capacity_bytes_user or add blocks",
            spare_slots_per_die as f64 / g.slots_per_block() as f64,
            needed_blocks
        );
        check_schedule(self.gc_schedule, self.gc_low_free_blocks_per_die)?;
        field_ensure!(
            (1..=4).contains(&self.native_pages_per_program) && g.pages_per_block.is_multiple_of(self.native_pages_per_program),
            "media",
            "one_shot",
            "a one-shot word line of {} pages must divide the {} pages of a block",
            self.native_pages_per_program,
            g.pages_per_block
        );
        if let Some(slc) = &self.slc {
            field_ensure!((2..=4).contains(&slc.ratio), "media", "cell", "an SLC cache needs MLC, TLC or QLC cells (ratio {})", slc.ratio);
            field_ensure!(
                g.pages_per_block.is_multiple_of(slc.ratio),
                "nand",
                "pages_per_block",
                "must be a multiple of {} so a block in pSLC mode holds whole pages (got {})",
                slc.ratio,
                g.pages_per_block
            );
            field_ensure!(
                slc.static_blocks_per_die as u64 + needed_blocks < g.blocks_per_die() as u64,
                "slc_cache",
                "static_bytes",
                "{} static SLC blocks per die leave no room for the GC reserve of {needed_blocks} blocks",
                slc.static_blocks_per_die
            );
        }
        Ok(())
    }
}
