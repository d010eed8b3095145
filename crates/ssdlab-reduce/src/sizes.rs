//! Measured compressed-size distributions of patterns.

use crate::codec::compress_sector;
use crate::pattern::DataPattern;
use crate::SECTOR_BYTES;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Samples compressed per pattern.
pub const SAMPLES: usize = 1024;

/// Compressed sizes in bytes of [`SAMPLES`] generated sectors of `pattern`, by really
/// compressing them with the engine's compressor. Computed once per pattern and process,
/// deterministically (sample `i` uses content seed `i`).
pub fn measured_sizes(pattern: &DataPattern) -> Arc<Vec<u32>> {
    static CACHE: OnceLock<Mutex<BTreeMap<String, Arc<Vec<u32>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    let key = pattern.key();
    if let Some(hit) = cache.lock().expect("size cache poisoned").get(&key) {
        return hit.clone();
    }
    let mut buffer = vec![0u8; SECTOR_BYTES];
    let sizes: Vec<u32> = (0..SAMPLES as u64)
        .map(|seed| {
            pattern.fill_sector(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), &mut buffer);
            compress_sector(&buffer).len() as u32
        })
        .collect();
    let sizes = Arc::new(sizes);
    cache.lock().expect("size cache poisoned").insert(key, sizes.clone());
    sizes
}
