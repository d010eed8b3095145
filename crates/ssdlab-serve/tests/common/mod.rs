//! What the server's integration tests share: the served Force GS 240 with overrides, the tiny
//! drive, the bytes of a numbered sector value, incompressible test data, the server's stats,
//! and a temporary folder.

#![allow(dead_code)]

use ssdlab_serve::{ServeConfig, Server};
use std::path::{Path, PathBuf};

/// Bytes of the 512-byte sectors the tests write.
pub const SECTOR: u64 = 512;

/// A tiny drive (12 MiB raw in 48 blocks of 256 KiB, 8 MiB exported), so garbage collection
/// runs all the time, served from `backing`.
pub fn tiny(backing: &Path, reduction: bool, protected: bool) -> ServeConfig {
    let mut overrides = tiny_array();
    overrides.extend([
        "nand.pages_per_block=16".into(),
        "drive.capacity_bytes_user=8388608".into(),
        format!("reduction.enabled={reduction}"),
        format!("controller.power_loss_protection={protected}"),
        "controller.map_cache_bytes=0".into(),
        "reduction.dedup_index_entries=65536".into(),
    ]);
    force_gs(backing, overrides)
}

/// The array of the tiny drives: two dies of 24 blocks on one channel.
fn tiny_array() -> Vec<String> {
    ["nand.channels=1", "nand.packages_per_channel=1", "nand.dies_per_package=2", "nand.blocks_per_plane=24"].map(String::from).to_vec()
}

/// Today's drives the crash tests serve shrunk ([`tiny_today`]): TLC with a flushing SLC cache
/// (DRAM), QLC with an SLC cache that writes natively when full, and a DRAM-less TLC drive with a
/// small map cache in host memory.
pub const TODAYS_DRIVES: [&str; 3] = ["samsung-980-pro-1tb", "samsung-870-qvo-1tb", "samsung-980-1tb"];

/// Today's drive `profile` shrunk like [`tiny`] (two dies of 24 blocks, a 1 MiB write buffer, an
/// SLC cache of 1 MiB static and up to 4 MiB dynamic), served from `backing`: about 36 to 48
/// MiB raw, two thirds of it exported, so garbage collection and the cache's folding run all
/// the time.
pub fn tiny_today(backing: &Path, profile: &str, protected: bool) -> ServeConfig {
    let full = ssdlab_profile::load_profile(profile, &[]).unwrap();
    // Eight one-shot word lines a block (24 pages of TLC, 32 of QLC), two thirds of the raw
    // array exported.
    let pages = 8 * full.media.native_pages_per_program();
    let raw_bytes = 2 * 24 * full.geometry.planes_per_die as u64 * pages as u64 * full.geometry.page_bytes as u64;
    let mut overrides = tiny_array();
    overrides.extend([
        format!("nand.pages_per_block={pages}"),
        format!("drive.capacity_bytes_user={}", raw_bytes * 2 / 3 / 4096 * 4096),
        "slc_cache.static_bytes=1048576".into(),
        "slc_cache.dynamic_max_bytes=4194304".into(),
        "controller.write_buffer_bytes=1048576".into(),
        format!("controller.power_loss_protection={protected}"),
    ]);
    let mut cfg = force_gs(backing, overrides);
    cfg.profile = profile.into();
    cfg
}

/// The Force GS 240 with `overrides`, served from `backing` with no emulated latency, seed 1,
/// no faults, no power cut, no preconditioning, data written through the page cache.
pub fn force_gs(backing: &Path, overrides: Vec<String>) -> ServeConfig {
    ServeConfig { overrides, ..ServeConfig::new("force-gs-240", &backing.to_string_lossy()) }
}

/// Incompressible bytes of `len`, different for each `seed`.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The server's `ssdlab stats` figures.
pub fn stats(server: &Server) -> serde_json::Value {
    serde_json::from_str(&server.stats_json()).unwrap()
}

/// The 512 bytes of value `id` (0: zeros): the id, then either a repeated phrase (even ids,
/// compressible) or a pseudo-random stream (odd ids, incompressible).
pub fn sector_bytes(id: u64) -> Vec<u8> {
    if id == 0 {
        return vec![0; SECTOR as usize];
    }
    let mut out = id.to_le_bytes().to_vec();
    let mut x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while out.len() < SECTOR as usize {
        if id.is_multiple_of(2) {
            out.extend_from_slice(b"ssdlab ");
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push((x >> 24) as u8);
        }
    }
    out.truncate(SECTOR as usize);
    out
}

/// The value a 512-byte sector holds, or `None` when it is not any value's bytes.
pub fn sector_value(bytes: &[u8]) -> Option<u64> {
    let id = if bytes.iter().all(|&b| b == 0) { 0 } else { u64::from_le_bytes(bytes[..8].try_into().ok()?) };
    (sector_bytes(id) == bytes).then_some(id)
}

/// A temporary folder removed at the end.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new, empty folder named after `what`.
    pub fn new(what: &str) -> Self {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ssdlab-{what}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What an operation did to the reference image (512-byte sectors -> value id).
#[derive(Clone, Debug)]
pub enum Change {
    Set { first: u64, ids: Vec<u64> },
    Zero { first: u64, count: u64 },
}

pub fn apply(image: &mut [u64], change: &Change) {
    match change {
        Change::Set { first, ids } => image[*first as usize..*first as usize + ids.len()].copy_from_slice(ids),
        Change::Zero { first, count } => image[*first as usize..(*first + *count) as usize].fill(0),
    }
}

/// The oracle of the crash tests: the longest prefix of `since` (the operations issued after
/// the durable image `durable`) that turns `durable` into `back`, the image the drive came
/// back with; `Err(first differing sector)` when no prefix does (a lost acknowledged write or
/// bytes from nowhere).
pub fn matching_prefix(durable: &[u64], since: &[Change], back: &[u64]) -> Result<usize, usize> {
    let mut image = durable.to_vec();
    let mut matched = (image == back).then_some(0);
    for (k, change) in since.iter().enumerate() {
        apply(&mut image, change);
        if image == back {
            matched = Some(k + 1);
        }
    }
    matched.ok_or_else(|| durable.iter().zip(back).position(|(a, b)| a != b).unwrap_or(0))
}

/// The drive's whole image read back, as the value id of each 512-byte sector (`None`: bytes
/// no write ever wrote).
pub fn read_image(server: &Server, sectors: u64) -> Vec<Option<u64>> {
    let mut out = Vec::with_capacity(sectors as usize);
    let piece = 1u64 << 20;
    let mut offset = 0;
    while offset < sectors * SECTOR {
        let len = piece.min(sectors * SECTOR - offset);
        let mut buf = vec![0u8; len as usize];
        server.read(&mut buf, offset).unwrap_or_else(|e| panic!("read at {offset} after recovery: {}", e.message));
        out.extend(buf.chunks(SECTOR as usize).map(sector_value));
        offset += len;
    }
    out
}
