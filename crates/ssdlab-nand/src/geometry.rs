//! Array geometry and the addressing derived from it.

use ssdlab_core::{field_ensure, FieldError};

/// Bytes in one logical sector, the mapping granularity of the FTL (4 KiB).
pub const SECTOR_BYTES: u64 = 4096;

/// The shape of the NAND array.
///
/// Dies are numbered so that consecutive dies sit on consecutive channels
/// (`channel = die % channels`), which makes round-robin striping over dies spread over channels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Geometry {
    /// Independent channels (buses) between controller and NAND.
    pub channels: u32,
    /// NAND packages on each channel.
    pub packages_per_channel: u32,
    /// Dies in each package.
    pub dies_per_package: u32,
    /// Planes in each die (operated together by multi-plane commands).
    pub planes_per_die: u32,
    /// Erase blocks in each plane.
    pub blocks_per_plane: u32,
    /// Pages in each erase block.
    pub pages_per_block: u32,
    /// User-data bytes in one page.
    pub page_bytes: u32,
    /// Out-of-band (spare) bytes in one page, holding ECC and FTL metadata.
    pub spare_bytes_per_page: u32,
}

impl Geometry {
    /// Check that the geometry describes a drive the FTL can address, with every count in a
    /// range where the arithmetic on it cannot overflow.
    pub fn validate(&self) -> Result<(), FieldError> {
        for (key, value, max) in [
            ("channels", self.channels, 1024),
            ("packages_per_channel", self.packages_per_channel, 1024),
            ("dies_per_package", self.dies_per_package, 64),
            ("planes_per_die", self.planes_per_die, 16),
            ("blocks_per_plane", self.blocks_per_plane, 1 << 20),
            ("pages_per_block", self.pages_per_block, 1 << 16),
            ("page_bytes", self.page_bytes, 1 << 20),
        ] {
            field_ensure!((1..=max).contains(&value), "nand", key, "must be 1 to {max} (got {value})");
        }
        field_ensure!(
            (self.page_bytes as u64).is_multiple_of(SECTOR_BYTES),
            "nand",
            "page_bytes",
            "must be a multiple of {SECTOR_BYTES} (got {})",
            self.page_bytes
        );
        field_ensure!(
            self.spare_bytes_per_page <= self.page_bytes,
            "nand",
            "spare_bytes_per_page",
            "must not exceed the page ({} bytes) (got {})",
            self.page_bytes,
            self.spare_bytes_per_page
        );
        field_ensure!(
            self.blocks_per_plane >= 4,
            "nand",
            "blocks_per_plane",
            "must be at least 4 so garbage collection has room (got {})",
            self.blocks_per_plane
        );
        let dies = self.channels as u64 * self.packages_per_channel as u64 * self.dies_per_package as u64;
        field_ensure!(dies <= 65_536, "nand", "dies_per_package", "{dies} dies in all (channels x packages x dies) are more than the 65536 supported");
        let slots = dies * self.planes_per_die as u64 * self.blocks_per_plane as u64 * self.pages_per_block as u64 * (self.page_bytes as u64 / SECTOR_BYTES);
        field_ensure!(slots < u32::MAX as u64 - 1, "nand", "blocks_per_plane", "the array has {slots} 4 KiB slots; at most {} are supported", u32::MAX - 2);
        Ok(())
    }

    /// Dies in the whole array.
    pub fn dies(&self) -> u32 {
        self.channels * self.packages_per_channel * self.dies_per_package
    }

    /// The channel a die is attached to.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die % self.channels
    }

    /// FTL blocks (multi-plane block groups) on each die.
    pub fn blocks_per_die(&self) -> u32 {
        self.blocks_per_plane
    }

    /// FTL blocks in the whole array.
    pub fn total_blocks(&self) -> u32 {
        self.blocks_per_plane * self.dies()
    }

    /// Bytes in one unit (one page on every plane of a die).
    pub fn unit_bytes(&self) -> u64 {
        self.page_bytes as u64 * self.planes_per_die as u64
    }

    /// 4 KiB slots in one unit.
    pub fn slots_per_unit(&self) -> u32 {
        (self.unit_bytes() / SECTOR_BYTES) as u32
    }

    /// Units (multi-plane pages) in one FTL block.
    pub fn units_per_block(&self) -> u32 {
        self.pages_per_block
    }

    /// 4 KiB slots in one FTL block.
    pub fn slots_per_block(&self) -> u32 {
        self.slots_per_unit() * self.units_per_block()
    }

    /// 4 KiB slots in the whole array.
    pub fn total_slots(&self) -> u64 {
        self.slots_per_block() as u64 * self.total_blocks() as u64
    }

    /// Raw user-data capacity of the array in bytes (spare bytes excluded).
    pub fn raw_bytes(&self) -> u64 {
        self.total_slots() * SECTOR_BYTES
    }

    /// The die an FTL block lives on (blocks are numbered die-major).
    #[inline]
    pub fn die_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Geometry {
        Geometry {
            channels: 2,
            packages_per_channel: 1,
            dies_per_package: 2,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_bytes: 8192,
            spare_bytes_per_page: 448,
        }
    }

    #[test]
    fn derived_sizes() {
        let g = small();
        g.validate().unwrap();
        assert_eq!(g.dies(), 4);
        assert_eq!(g.slots_per_unit(), 4);
        assert_eq!(g.slots_per_block(), 16);
        assert_eq!(g.total_blocks(), 32);
        assert_eq!(g.raw_bytes(), 32 * 16 * 4096);
        assert_eq!(g.die_of_block(9), 1);
        assert_eq!(g.channel_of_die(3), 1);
    }

    #[test]
    fn zero_geometry_is_refused_with_the_field_name() {
        let mut g = small();
        g.planes_per_die = 0;
        let err = g.validate().unwrap_err();
        assert_eq!((err.section, err.key), ("nand", "planes_per_die"), "{err}");
        let mut g = small();
        g.page_bytes = 6000;
        assert_eq!(g.validate().unwrap_err().key, "page_bytes");
        // Products that would overflow 32 bits are refused, not wrapped.
        let mut g = small();
        g.channels = 1024;
        g.packages_per_channel = 1024;
        assert_eq!(g.validate().unwrap_err().key, "dies_per_package");
    }
}
