//! Typed, validated drive settings.

use ssdlab_core::Nanoseconds;
use ssdlab_ftl::{ChunkFtlConfig, FtlConfig};
use ssdlab_nand::{Energy, Geometry, Media, Timing};

/// The host link kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostInterface {
    /// SATA 3 Gb/s (about 275 MB/s of payload).
    Sata3G,
    /// SATA 6 Gb/s (about 550 MB/s of payload).
    Sata6G,
    /// NVMe over PCIe 3.0 (8 GT/s per lane, 128b/130b).
    Pcie3,
    /// NVMe over PCIe 4.0 (16 GT/s per lane, 128b/130b).
    Pcie4,
}

impl HostInterface {
    /// Parse the profile spelling (`sata-3g`, `sata-6g`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "sata-3g" => Some(Self::Sata3G),
            "sata-6g" => Some(Self::Sata6G),
            "pcie3" => Some(Self::Pcie3),
            "pcie4" => Some(Self::Pcie4),
            _ => None,
        }
    }

    /// Usable payload bandwidth of the link in bytes per second (SATA), or of one lane (NVMe).
    /// PCIe: 985 MB/s (Gen3) or 1969 MB/s (Gen4) per lane after 128b/130b coding, times the
    /// TLP efficiency of 256-byte payloads with 24 bytes of header, framing and CRC
    /// (256 / 280, assumed).
    pub fn default_payload_bytes_per_second(self) -> u64 {
        match self {
            Self::Sata3G => 275_000_000,
            Self::Sata6G => 550_000_000,
            Self::Pcie3 | Self::Pcie4 => self.line_bytes_per_second() * 256 / 280,
        }
    }

    /// Raw data rate of the link (SATA) or of one lane (NVMe) after line coding (8b/10b for
    /// SATA, 128b/130b for PCIe 3 and 4), bytes per second: no payload rate can exceed it.
    pub fn line_bytes_per_second(self) -> u64 {
        match self {
            Self::Sata3G => 300_000_000,
            Self::Sata6G => 600_000_000,
            Self::Pcie3 => 984_615_384,
            Self::Pcie4 => 1_969_230_769,
        }
    }

    /// Whether this is an NVMe interface (queues up to 65536 deep, PCIe lanes).
    pub fn is_nvme(self) -> bool {
        matches!(self, Self::Pcie3 | Self::Pcie4)
    }

    /// Most commands outstanding the interface allows: NCQ's 32 tags, or one NVMe queue of
    /// 65536 entries. Several NVMe submission/completion queue pairs are modelled as one deep
    /// queue: the drive serves commands in arrival order whichever queue they came from.
    pub fn queue_depth_limit(self) -> u32 {
        if self.is_nvme() {
            65_536
        } else {
            32
        }
    }

    /// The profile spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sata3G => "sata-3g",
            Self::Sata6G => "sata-6g",
            Self::Pcie3 => "pcie3",
            Self::Pcie4 => "pcie4",
        }
    }
}

/// Host interface settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSettings {
    /// Link kind.
    pub interface: HostInterface,
    /// Payload bandwidth of the link, bytes per second.
    pub link_bytes_per_second: u64,
    /// Link time per command (FIS exchange), on top of the payload.
    pub command_overhead_ns: Nanoseconds,
    /// Largest number of outstanding commands (NCQ tags, or NVMe queue entries).
    pub queue_depth_max: u32,
    /// PCIe lanes (NVMe; 0 on SATA).
    pub lanes: u32,
}

/// Controller and firmware settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerSettings {
    /// Firmware time per command on the controller's single command processor.
    pub command_processing_ns: Nanoseconds,
    /// Bytes of write buffer (on-chip SRAM on SandForce controllers, part of the DRAM on
    /// conventional ones; the model treats both alike).
    pub write_buffer_bytes: u64,
    /// Sustained cap on small random writes, commands per second (0: no cap).
    pub small_random_write_cap_iops: u64,
    /// Burst credit of the cap, commands.
    pub small_random_write_burst_ios: u64,
    /// Writes up to this size that do not continue the previous write count as small random.
    pub small_random_write_max_bytes: u64,
    /// Controller time to process TRIM, per MiB trimmed.
    pub trim_ns_per_mib: Nanoseconds,
    /// Controller power while commands are outstanding, on top of idle, milliwatts.
    pub active_mw: f64,
    /// Controller energy per host byte moved (data path, ECC engines, link), picojoules; 0 when
    /// the profile does not give it.
    pub data_pj_per_byte: f64,
    /// Controller and board power when idle, milliwatts.
    pub idle_mw: f64,
    /// Bytes of on-chip SRAM caching map pages when the map does not fit in memory (controllers
    /// without DRAM); 0 when the whole map is in DRAM.
    pub map_cache_bytes: u64,
    /// Bytes per map entry (one per 4 KiB sector) in a map page.
    pub map_entry_bytes: u64,
    /// Power-loss protection (capacitors that let the drive finish what it acknowledged, as on
    /// enterprise drives): a served drive then makes every acknowledged write durable. Without
    /// it the write buffer is volatile, as on the consumer drives of the era, and only what a
    /// FLUSH or a FUA write covered survives a power cut.
    pub power_loss_protection: bool,
    /// Bytes of the host memory buffer (NVMe HMB) a DRAM-less controller caches map pages in,
    /// on top of `map_cache_bytes` of SRAM; 0 without one.
    pub hmb_bytes: u64,
    /// Time to fetch a map entry from the host memory buffer (a PCIe read round trip), paid by
    /// every map lookup on a drive with an HMB (its small SRAM is not modelled apart).
    pub hmb_access_ns: Nanoseconds,
    /// Whether the firmware's metadata (map pages, journal) is written to flash.
    pub metadata_writes: bool,
    /// Bytes of journal records between map checkpoints (0: a sixteenth of the map, assumed).
    pub journal_bytes: u64,
    /// The firmware's die scheduler lets host reads (and the map pages they need) go ahead of
    /// the programs and erases queued on their die, waiting only for the operation in
    /// progress; `false`: each die serves operations first come, first served. NAND with
    /// program/erase suspend (`[media] suspend_latency_ns`) lets reads go first either way.
    /// Profile default: `true` with a `[media]` section (today's drives), `false` without (the
    /// era's drives, calibrated first come, first served).
    pub reads_first: bool,
}

/// A validated drive profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Short name (built-in name or file stem).
    pub name: String,
    /// Human-readable model name.
    pub model: String,
    /// Where the profile came from (built-in name or path), for messages.
    pub origin: String,
    /// The TOML text after overrides, for `profile show` and hashing.
    pub source: String,
    /// User capacity advertised to the host, bytes.
    pub capacity_bytes_user: u64,
    /// Fraction of the user capacity kept unused (trimmed) as extra over-provisioning.
    pub reserved_user_fraction: f64,
    /// Array geometry.
    pub geometry: Geometry,
    /// Array timing.
    pub timing: Timing,
    /// The media model of the dies (cell mode, page-type reads, one-shot programs, pSLC).
    pub media: Media,
    /// Energy model of the array.
    pub energy: Energy,
    /// Host interface.
    pub host: HostSettings,
    /// Controller and firmware.
    pub controller: ControllerSettings,
    /// FTL configuration.
    pub ftl: FtlConfig,
    /// The data-reduction engine, when the controller has one and it is enabled.
    pub reduction: Option<ReductionSettings>,
    /// NVMe power states and the host's APST table (`[power]`); `None`: one idle power.
    pub power: Option<crate::PowerSettings>,
    /// The thermal model and throttling steps (`[thermal]`); `None`: no heat modelled.
    pub thermal: Option<crate::ThermalSettings>,
}

/// Data-reduction engine settings (SandForce-style compression and deduplication).
#[derive(Debug, Clone)]
pub struct ReductionSettings {
    /// The data-reduction FTL's configuration.
    pub chunk: ChunkFtlConfig,
    /// Fingerprinting throughput, bytes per second of host data.
    pub hash_bytes_per_second: u64,
    /// Compression throughput, bytes per second of host data.
    pub compress_bytes_per_second: u64,
    /// Decompression throughput, bytes per second of host data read.
    pub decompress_bytes_per_second: u64,
    /// Chunks the engine can handle per second (lookups, table updates).
    pub chunks_per_second: u64,
    /// Back end of the write path: encryption and ECC encoding of the bytes actually stored,
    /// bytes per second of stored data.
    pub backend_write_bytes_per_second: u64,
    /// Back end of the read path: ECC decoding and decryption of the stored bytes read, bytes
    /// per second of stored data.
    pub backend_read_bytes_per_second: u64,
}

impl Profile {
    /// Raw NAND bytes (user-data area of every page).
    pub fn raw_bytes(&self) -> u64 {
        self.geometry.raw_bytes()
    }

    /// Bytes of user space the workloads may use (capacity less the reserved fraction), a whole
    /// number of 4 KiB sectors.
    pub fn usable_bytes(&self) -> u64 {
        let usable = (self.capacity_bytes_user as f64 * (1.0 - self.reserved_user_fraction)) as u64;
        usable / ssdlab_nand::SECTOR_BYTES * ssdlab_nand::SECTOR_BYTES
    }

    /// Spare area over user space: (raw - used) / used, counting reserved user space as spare.
    pub fn spare_over_user(&self) -> f64 {
        let used = self.usable_bytes() as f64;
        (self.raw_bytes() as f64 - used) / used
    }

    /// Power of the idle drive (controller, board and NAND array), watts.
    pub fn idle_watts(&self) -> f64 {
        (self.controller.idle_mw + self.energy.idle_mw) / 1e3
    }

    /// Spare area over raw space: (raw - used) / raw.
    pub fn spare_over_raw(&self) -> f64 {
        let used = self.usable_bytes() as f64;
        (self.raw_bytes() as f64 - used) / self.raw_bytes() as f64
    }
}
