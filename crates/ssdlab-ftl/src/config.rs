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
    /// Idle-time GC tries to bring every die up to this many free blocks.
    pub gc_idle_target_free_blocks_per_die: u32,
    /// Keep a 64-bit content tag per slot, moved by GC, so reads can be checked.
    pub track_tags: bool,
    /// Send every written sector's bytes, and every GC move, to the sink (a drive that stores
    /// real data, e.g. in a backing file).
    pub store_data: bool,
}

impl FtlConfig {
    /// Check that garbage collection can always make progress with this much spare space.
    pub fn validate(&self) -> Result<(), FieldError> {
        let g = &self.geometry;
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
            self.user_sectors < total_slots,
            "drive",
            "capacity_bytes_user",
            "user capacity ({} sectors) is not smaller than the raw capacity ({} slots): no spare area",
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
        let spare_slots_per_die = (total_slots - self.user_sectors) / dies;
        let needed_slots = needed_blocks * g.slots_per_block() as u64;
        field_ensure!(
            spare_slots_per_die >= needed_slots,
            "drive",
            "capacity_bytes_user",
            "over-provisioning too small for garbage collection: {:.2} spare blocks per die, need at least {} \
             (ftl.gc_low_free_blocks_per_die + open blocks + 1); lower drive.capacity_bytes_user or add blocks",
            spare_slots_per_die as f64 / g.slots_per_block() as f64,
            needed_blocks
        );
        Ok(())
    }
}
