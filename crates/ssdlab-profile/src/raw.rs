//! The profile file as written: sections and keys, before validation. Unknown keys are refused.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawProfile {
    pub drive: RawDrive,
    pub nand: RawNand,
    pub host: RawHost,
    pub controller: RawController,
    pub ftl: RawFtl,
    pub energy: RawEnergy,
    pub reduction: Option<RawReduction>,
    /// The media model (issue 20); without it, [`ssdlab_nand::Media::legacy`].
    pub media: Option<RawMedia>,
    /// The SLC cache (issue 20); without it, none.
    pub slc_cache: Option<RawSlcCache>,
    /// NVMe power states and APST (issue 20); without it, one idle power.
    pub power: Option<RawPower>,
    /// The thermal model and throttling (issue 20); without it, no heat.
    pub thermal: Option<RawThermal>,
}

/// `[power]`: one entry per power state in each list, PS0 first.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPower {
    pub state_mw: Vec<f64>,
    pub operational: Vec<bool>,
    pub entry_latency_us: Vec<u64>,
    pub exit_latency_us: Vec<u64>,
    /// APST idle time before each state (0: APST does not enter it); empty: no APST.
    #[serde(default)]
    pub apst_idle_ms: Vec<u64>,
}

/// `[thermal]`: two thermal nodes and the throttling steps.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawThermal {
    #[serde(default = "default_ambient_c")]
    pub ambient_c: f64,
    pub controller_k_per_w: f64,
    pub controller_j_per_k: f64,
    pub nand_k_per_w: f64,
    pub nand_j_per_k: f64,
    #[serde(default)]
    pub throttle_c: Vec<f64>,
    #[serde(default)]
    pub throttle_nand_duty: Vec<f64>,
    #[serde(default = "default_hysteresis_c")]
    pub throttle_hysteresis_c: f64,
}

pub(crate) fn default_ambient_c() -> f64 {
    25.0
}

pub(crate) fn default_hysteresis_c() -> f64 {
    2.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMedia {
    pub cell: String,
    #[serde(default)]
    pub one_shot: bool,
    /// Sense time per page type (LSB, CSB, MSB, TSB); default: `nand.t_read_ns` for each.
    #[serde(default)]
    pub t_read_page_ns: Vec<u64>,
    /// Native program time (a word line when one-shot); default `nand.t_prog_ns`.
    pub t_prog_ns: Option<u64>,
    #[serde(default)]
    pub endurance_cycles: u32,
    pub pslc_t_read_ns: Option<u64>,
    pub pslc_t_prog_ns: Option<u64>,
    #[serde(default)]
    pub pslc_endurance_cycles: u32,
    /// Program/erase suspend by a host read: the suspend latency (absent or 0: no suspend).
    pub suspend_latency_ns: Option<u64>,
    /// Time a resumed program or erase loses on top of the read's time.
    #[serde(default)]
    pub resume_latency_ns: u64,
    /// Most suspensions of one program or erase (default 1).
    #[serde(default = "default_one")]
    pub suspend_max_per_op: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSlcCache {
    #[serde(default)]
    pub static_bytes: u64,
    #[serde(default)]
    pub dynamic_max_bytes: u64,
    #[serde(default = "default_when_full")]
    pub when_full: String,
    #[serde(default = "default_true")]
    pub idle_fold: bool,
}

pub(crate) fn default_when_full() -> String {
    "native".to_string()
}

pub(crate) fn default_one() -> u32 {
    1
}

pub(crate) fn default_true() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawReduction {
    pub enabled: bool,
    pub ecc_unit_bytes: u32,
    pub chunk_header_bytes: u32,
    pub dedup_index_entries: u64,
    pub hash_mbps: u64,
    pub compress_mbps: u64,
    pub decompress_mbps: u64,
    pub chunks_per_second: u64,
    pub backend_write_mbps: u64,
    pub backend_read_mbps: u64,
    pub partial_page_reads: bool,
    #[serde(default)]
    pub stale_pointer_trim_firmware: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDrive {
    pub model: String,
    pub capacity_bytes_user: u64,
    #[serde(default)]
    pub reserved_user_fraction: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNand {
    pub channels: u32,
    pub packages_per_channel: u32,
    pub dies_per_package: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub spare_bytes_per_page: u32,
    pub t_read_ns: u64,
    pub t_prog_ns: u64,
    pub t_erase_ns: u64,
    pub command_overhead_ns: u64,
    pub bus: String,
    pub bus_mbps: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHost {
    pub interface: String,
    pub link_mbps: Option<u64>,
    pub command_overhead_ns: u64,
    pub queue_depth_max: u32,
    /// PCIe lanes (NVMe interfaces only; absent: 4).
    pub lanes: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawController {
    pub command_processing_ns: u64,
    pub write_buffer_bytes: u64,
    #[serde(default)]
    pub small_random_write_cap_iops: u64,
    #[serde(default)]
    pub small_random_write_burst_ios: u64,
    #[serde(default = "default_small_write_bytes")]
    pub small_random_write_max_bytes: u64,
    pub trim_ns_per_mib: u64,
    pub active_mw: f64,
    /// Controller energy per host byte moved, picojoules (default 0).
    #[serde(default)]
    pub data_pj_per_byte: f64,
    pub idle_mw: f64,
    #[serde(default)]
    pub map_cache_bytes: u64,
    #[serde(default = "default_map_entry_bytes")]
    pub map_entry_bytes: u64,
    #[serde(default)]
    pub firmware: String,
    #[serde(default)]
    pub power_loss_protection: bool,
    /// Bytes of host memory buffer (NVMe HMB) caching map pages, on top of the SRAM.
    #[serde(default)]
    pub hmb_bytes: u64,
    /// Time to fetch a cached map entry from the host memory buffer over PCIe.
    #[serde(default = "default_hmb_access_ns")]
    pub hmb_access_ns: u64,
    /// Whether the firmware's metadata (map pages, journal) is written to flash.
    #[serde(default = "default_true")]
    pub metadata_writes: bool,
    /// Bytes of journal records between map checkpoints (0: a sixteenth of the map).
    #[serde(default)]
    pub journal_bytes: u64,
    /// Host reads go ahead of programs and erases queued on their die (default: yes for a
    /// profile with `[media]`, today's drives; no for the era's drives, first come first
    /// served).
    pub reads_first: Option<bool>,
}

pub(crate) fn default_hmb_access_ns() -> u64 {
    1_000
}

pub(crate) fn default_map_entry_bytes() -> u64 {
    4
}

pub(crate) fn default_small_write_bytes() -> u64 {
    8192
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFtl {
    pub gc_policy: String,
    #[serde(default = "default_window")]
    pub gc_window_blocks: u32,
    pub gc_low_free_blocks_per_die: u32,
    pub gc_idle_target_free_blocks_per_die: u32,
    #[serde(default = "default_schedule")]
    pub gc_schedule: String,
    #[serde(default)]
    pub gc_high_free_blocks_per_die: u32,
    #[serde(default = "default_background_rate")]
    pub gc_background_units_per_host_unit: u32,
}

pub(crate) fn default_schedule() -> String {
    "paced".to_string()
}

pub(crate) fn default_background_rate() -> u32 {
    1
}

pub(crate) fn default_window() -> u32 {
    8
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEnergy {
    pub read_nj_per_page: f64,
    pub program_nj_per_page: f64,
    /// Energy of a pSLC page program; default `program_nj_per_page`.
    pub pslc_program_nj_per_page: Option<f64>,
    pub erase_nj_per_block: f64,
    pub transfer_pj_per_byte: f64,
    pub nand_idle_mw: f64,
}

impl RawProfile {
    /// The sections of an already parsed (and overridden) table. The error carries the keys of
    /// the field at fault (no line: the table has none).
    pub(crate) fn deserialize_table(table: toml::Table) -> Result<Self, toml::de::Error> {
        use serde::Deserialize as _;
        RawProfile::deserialize(toml::Value::Table(table))
    }
}
