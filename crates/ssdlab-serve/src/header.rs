//! The backing file's header: what drive the file belongs to, where its newest checkpoint is,
//! and whether it was shut down cleanly. Two 4 KiB slots at offsets 0 and 4096, written
//! alternately (generation `g` goes to slot `g % 2`), so a header write torn by a power cut
//! leaves the other slot intact; the valid slot with the higher generation is current. A slot:
//!
//! | bytes | what |
//! |---|---|
//! | 0..8 | magic `SSDLABBF` |
//! | 8..12 | length `n` of the body, little-endian |
//! | 12..12+n | the body ([`Header`], bincode) |
//! | 12+n..16+n | CRC-32 of the body, little-endian |

use serde::{Deserialize, Serialize};
use ssdlab_core::{bail, Error, Result};

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"SSDLABBF";
/// The version of the layout this ssdlab writes and reads.
pub const FORMAT_VERSION: u32 = 4;
/// Bytes of one header slot.
pub const HEADER_BYTES: u64 = 4096;

/// Where the newest map checkpoint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointRef {
    /// Checkpoint slot (0 or 1).
    pub slot: u32,
    /// Bytes of the checkpoint.
    pub len: u64,
    /// CRC-32 of the checkpoint's bytes.
    pub crc32: u32,
    /// Journal epoch the checkpoint starts: journal batches of this epoch come after it.
    pub epoch: u64,
}

/// What the header says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Layout version.
    pub format_version: u32,
    /// Name of the profile the drive was built from.
    pub profile_name: String,
    /// Hash of the effective profile text (after overrides).
    pub profile_hash: u64,
    /// Raw NAND bytes of the drive.
    pub raw_bytes: u64,
    /// User capacity of the drive (the export's size).
    pub capacity_bytes_user: u64,
    /// Bytes of one erase block (one extent of the file).
    pub block_bytes: u64,
    /// Seed of the drive's session (a drive with no checkpoint yet is rebuilt from it).
    pub seed: u64,
    /// How many times the header was written; the slot is `generation % 2`.
    pub generation: u64,
    /// The newest map checkpoint (none before the first).
    pub checkpoint: Option<CheckpointRef>,
    /// Whether the last server shut down cleanly (false while one serves the file).
    pub clean: bool,
    /// The drive died at a power cut (the dead-device fault): it refuses every request until
    /// a secure erase.
    pub dead: bool,
}

impl Header {
    /// The journal epoch in use: the newest checkpoint's, or 0 before the first.
    pub fn epoch(&self) -> u64 {
        self.checkpoint.map_or(0, |c| c.epoch)
    }

    /// The 4 KiB block holding this header.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let body = bincode::serialize(self).map_err(|e| Error::Io(format!("cannot encode the backing file's header: {e}")))?;
        if body.len() + 16 > HEADER_BYTES as usize {
            bail!(Io, "the backing file's header would need {} bytes (at most {HEADER_BYTES})", body.len() + 16);
        }
        let mut block = vec![0u8; HEADER_BYTES as usize];
        block[..8].copy_from_slice(MAGIC);
        block[8..12].copy_from_slice(&(body.len() as u32).to_le_bytes());
        block[12..12 + body.len()].copy_from_slice(&body);
        block[12 + body.len()..16 + body.len()].copy_from_slice(&crc32fast::hash(&body).to_le_bytes());
        Ok(block)
    }

    /// Read a header block; `path` names the file in messages.
    pub fn decode(path: &str, block: &[u8]) -> Result<Self> {
        if block.len() < 16 || &block[..8] != MAGIC {
            bail!(Config, "{path}: not an ssdlab backing file (no SSDLABBF header); refusing to use it");
        }
        let len = u32::from_le_bytes(block[8..12].try_into().expect("4 bytes")) as usize;
        if len + 16 > block.len() {
            bail!(Io, "{path}: the header is damaged (body of {len} bytes)");
        }
        let body = &block[12..12 + len];
        let crc = u32::from_le_bytes(block[12 + len..16 + len].try_into().expect("4 bytes"));
        if crc32fast::hash(body) != crc {
            bail!(Io, "{path}: the header's checksum does not match (damaged header)");
        }
        // The version is the body's first field: read it alone first, so a file of another
        // version is named as such rather than as damaged.
        let version = u32::from_le_bytes(body.get(..4).and_then(|b| b.try_into().ok()).ok_or_else(|| Error::Io(format!("{path}: the header is damaged")))?);
        if version != FORMAT_VERSION {
            bail!(Config, "{path}: backing file format version {version}; this ssdlab reads version {FORMAT_VERSION}");
        }
        bincode::deserialize(body).map_err(|e| Error::Io(format!("{path}: the header is damaged: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            format_version: FORMAT_VERSION,
            profile_name: "force-gs-240".into(),
            profile_hash: 42,
            raw_bytes: 1 << 30,
            capacity_bytes_user: 900 << 20,
            block_bytes: 1 << 20,
            seed: 1,
            generation: 3,
            checkpoint: Some(CheckpointRef { slot: 1, len: 1000, crc32: 7, epoch: 5 }),
            clean: true,
            dead: false,
        }
    }

    #[test]
    fn header_round_trips_and_damage_is_named() {
        let block = header().encode().unwrap();
        assert_eq!(Header::decode("f", &block).unwrap(), header());
        let mut damaged = block.clone();
        damaged[20] ^= 1;
        assert!(Header::decode("f", &damaged).unwrap_err().to_string().contains("checksum"));
        assert!(Header::decode("f", &[0u8; 4096]).unwrap_err().to_string().contains("not an ssdlab backing file"));
        let mut other = header();
        other.format_version = 99;
        let block = other.encode().unwrap();
        assert!(Header::decode("f", &block).unwrap_err().to_string().contains("format version 99"));
    }
}
