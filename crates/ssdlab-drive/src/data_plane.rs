//! Where a drive that stores real data keeps it: a [`DataPlane`] (a backing file, say) holds the
//! bytes at their simulated physical addresses (block by block, `block * block_bytes`), and
//! the region format below says how one sector's stored form fits its region.
//!
//! Region format: a region of exactly 4 KiB holds the raw sector (a compressed payload is
//! expanded first, so the format needs no marker); a smaller region (a compressed chunk of
//! whole ECC units) holds the payload's length as a 4-byte little-endian number, then the
//! payload. The data-reduction FTL reserves `chunk_header_bytes` (at least 4, checked when a
//! drive stores data) of every compressed chunk for this.

use ssdlab_core::{Error, Result};
use ssdlab_reduce::{decompress_sector, decompress_sector_into, SECTOR_BYTES};

/// Byte-addressed storage of a drive's physical data.
pub trait DataPlane: Send {
    /// Write `bytes` at physical byte address `addr`.
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()>;
    /// Read `buf.len()` bytes at `addr` (never-written bytes read as zeros).
    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()>;
    /// Copy `len` bytes from `from` to `to` (a GC move).
    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()>;
    /// The `len` bytes at `addr` are erased: their storage may be released.
    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()>;
    /// Make everything written so far durable.
    fn sync(&mut self) -> std::io::Result<()>;
    /// Write the region of `region_bytes` at `addr` holding a sector stored as `payload` (the
    /// bytes [`encode_region`] gives). This default encodes it first; a plane may write it
    /// without that copy.
    fn write_region(&mut self, addr: u64, region_bytes: u64, payload: &[u8]) -> std::io::Result<()> {
        let bytes = encode_region(payload, region_bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        self.write_at(addr, &bytes)
    }
}

/// Bytes of the length prefix of a compressed region.
pub const REGION_PREFIX_BYTES: usize = 4;

/// The bytes to write in a region of `region_bytes` for a sector stored as `payload` (its
/// compressed form, the raw 4 KiB, or nothing for an all-zero sector).
pub fn encode_region(payload: &[u8], region_bytes: u64) -> Result<Vec<u8>> {
    if region_bytes == SECTOR_BYTES as u64 {
        return if payload.is_empty() {
            Ok(vec![0; SECTOR_BYTES])
        } else if payload.len() == SECTOR_BYTES {
            Ok(payload.to_vec())
        } else {
            decompress_sector(payload).map_err(Error::Request)
        };
    }
    if payload.len() + REGION_PREFIX_BYTES > region_bytes as usize {
        return Err(Error::Request(format!(
            "a {}-byte compressed sector and its {REGION_PREFIX_BYTES}-byte length do not fit its {region_bytes}-byte region",
            payload.len()
        )));
    }
    let mut out = Vec::with_capacity(REGION_PREFIX_BYTES + payload.len());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    Ok(out)
}

/// The sector a region holds (`region` is the region's whole bytes).
pub fn decode_region(region: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; SECTOR_BYTES];
    decode_region_into(region, &mut out)?;
    Ok(out)
}

/// The sector a region holds, into `out` ([`SECTOR_BYTES`] long).
pub fn decode_region_into(region: &[u8], out: &mut [u8]) -> Result<()> {
    if region.len() == SECTOR_BYTES {
        out.copy_from_slice(region);
        return Ok(());
    }
    if region.len() < REGION_PREFIX_BYTES {
        return Err(Error::Io(format!("a {}-byte region cannot hold a stored sector", region.len())));
    }
    let len = u32::from_le_bytes(region[..REGION_PREFIX_BYTES].try_into().expect("four bytes")) as usize;
    if len == 0 || len + REGION_PREFIX_BYTES > region.len() {
        return Err(Error::Io(format!("stored sector of {len} bytes does not fit its {}-byte region (damaged or missing data)", region.len())));
    }
    decompress_sector_into(&region[REGION_PREFIX_BYTES..REGION_PREFIX_BYTES + len], out).map_err(Error::Io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_reduce::compress_sector;

    #[test]
    fn regions_round_trip_raw_and_compressed() {
        let text: Vec<u8> = (0..SECTOR_BYTES).map(|i| b"abcabcabd"[i % 9]).collect();
        let compressed = compress_sector(&text);
        assert!(compressed.len() < 512);
        let region = encode_region(&compressed, 1024).unwrap();
        let mut full = region.clone();
        full.resize(1024, 0);
        assert_eq!(decode_region(&full).unwrap(), text);
        // A 4 KiB region holds the raw sector, even for a compressed payload.
        assert_eq!(encode_region(&compressed, 4096).unwrap(), text);
        assert_eq!(decode_region(&encode_region(&compressed, 4096).unwrap()).unwrap(), text);
        // An erased (all-zero) small region is reported, not read as a sector.
        assert!(decode_region(&[0u8; 1024]).is_err());
        assert!(encode_region(&compressed, compressed.len() as u64).is_err());
    }
}
