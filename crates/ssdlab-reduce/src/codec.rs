//! The engine's compressor and hash.

use crate::SECTOR_BYTES;

/// A content fingerprint (XXH3-128 of the sector's bytes in real mode; a 128-bit draw in
/// modeled mode).
pub type Fingerprint = u128;

/// Fingerprint of a sector's bytes.
pub fn fingerprint(bytes: &[u8]) -> Fingerprint {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// Compress one sector with LZ4. Returns the stored form: the compressed bytes, or the sector
/// unchanged when compression would not make it smaller (flagged by its full length).
pub fn compress_sector(bytes: &[u8]) -> Vec<u8> {
    debug_assert_eq!(bytes.len(), SECTOR_BYTES);
    let compressed = lz4_flex::block::compress(bytes);
    if compressed.len() < SECTOR_BYTES {
        compressed
    } else {
        bytes.to_vec()
    }
}

/// Inverse of [`compress_sector`].
pub fn decompress_sector(stored: &[u8]) -> Result<Vec<u8>, String> {
    if stored.len() == SECTOR_BYTES {
        return Ok(stored.to_vec());
    }
    let out = lz4_flex::block::decompress(stored, SECTOR_BYTES).map_err(|e| format!("corrupt compressed sector: {e}"))?;
    if out.len() != SECTOR_BYTES {
        return Err(format!("decompressed sector has {} bytes, expected {SECTOR_BYTES}", out.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_incompressible_stays_raw() {
        let zeros = vec![0u8; SECTOR_BYTES];
        let c = compress_sector(&zeros);
        assert!(c.len() < 64);
        assert_eq!(decompress_sector(&c).unwrap(), zeros);
        let mut noise = vec![0u8; SECTOR_BYTES];
        let mut x = 0x9E3779B97F4A7C15u64;
        for b in noise.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let c = compress_sector(&noise);
        assert_eq!(c.len(), SECTOR_BYTES);
        assert_eq!(decompress_sector(&c).unwrap(), noise);
        assert_ne!(fingerprint(&zeros), fingerprint(&noise));
    }
}
