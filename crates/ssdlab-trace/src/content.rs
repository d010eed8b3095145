//! Content hashes carried by traces (FIU's MD5 of each written block), and the duplicate
//! share of written blocks they reveal.

use std::collections::HashSet;

/// MD5 of 4096 zero bytes, as FIU's traces record an all-zero 4 KiB block.
pub const MD5_OF_ZERO_4096: u128 = 0x620f0b67a91f7f74151bc5be745b7110;

/// MD5 of 512 zero bytes, as FIU's home-directory traces (a digest per 512 bytes) record an
/// all-zero sector.
pub const MD5_OF_ZERO_512: u128 = 0xbf619eac0cdf3f68d496ea9344137e8b;

/// Whether a trace's content hash is the MD5 of an all-zero block (such a block takes no
/// flash on a data-reduction drive, as zeros written any other way).
pub fn is_zero_block_md5(hash: u128) -> bool {
    hash == MD5_OF_ZERO_4096 || hash == MD5_OF_ZERO_512
}

/// A hash written as 32 hexadecimal digits (either case).
pub(crate) fn parse_md5(text: &str, what: &str) -> Result<u128, String> {
    let t = text.trim();
    if t.len() != 32 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{what}: `{t}` is not an MD5 digest (32 hexadecimal digits)"));
    }
    u128::from_str_radix(t, 16).map_err(|_| format!("{what}: `{t}` is not an MD5 digest"))
}

/// The identity of the `index`-th 4 KiB sector of a write whose content hash is `hash` (the
/// key the engine's content identity is folded from: `ssdlab_core::content_key`).
pub use ssdlab_core::content_key::sector_key as block_key;

/// Distinct block contents remembered at most for the duplicate share (128 bits each, about
/// 256 MiB at the limit); past it, blocks of contents not yet seen are counted as new without
/// being remembered, so the share is a lower bound and the report says so.
pub const MAX_DISTINCT_CONTENTS: usize = 8 << 20;

/// Written 4 KiB blocks with a content hash: how many, how many repeat a content written
/// before, how many are all zeros.
#[derive(Debug, Clone, Default)]
pub struct WrittenContent {
    seen: HashSet<u128>,
    /// Written 4 KiB blocks whose content the trace names.
    pub blocks: u64,
    /// Of those, blocks whose content an earlier block of the trace already had.
    pub duplicates: u64,
    /// Of those, all-zero blocks.
    pub zero_blocks: u64,
    /// Whether more distinct contents came than [`MAX_DISTINCT_CONTENTS`] (the duplicate count
    /// is then a lower bound).
    pub capped: bool,
}

impl WrittenContent {
    /// Account for a write of `sectors` 4 KiB sectors whose content hash is `hash`.
    pub fn add(&mut self, hash: u128, sectors: u64) {
        for index in 0..sectors {
            self.blocks += 1;
            if is_zero_block_md5(hash) {
                self.zero_blocks += 1;
            }
            let key = block_key(hash, index);
            if self.seen.contains(&key) {
                self.duplicates += 1;
            } else if self.seen.len() < MAX_DISTINCT_CONTENTS {
                self.seen.insert(key);
            } else {
                self.capped = true;
            }
        }
    }

    /// Share of written blocks that repeat an earlier block's content (0 without blocks).
    pub fn duplicate_share(&self) -> f64 {
        self.duplicates as f64 / self.blocks.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_digests_parse_and_zero_blocks_are_known() {
        assert_eq!(parse_md5("620F0B67A91F7F74151BC5BE745B7110", "md5"), Ok(MD5_OF_ZERO_4096));
        assert!(is_zero_block_md5(parse_md5("bf619eac0cdf3f68d496ea9344137e8b", "md5").unwrap()));
        assert!(parse_md5("620f0b67", "md5").unwrap_err().contains("32 hexadecimal"));
        assert!(parse_md5("zz0f0b67a91f7f74151bc5be745b7110", "md5").is_err());
    }

    #[test]
    fn duplicates_count_blocks_seen_before() {
        let mut w = WrittenContent::default();
        w.add(1, 1);
        w.add(2, 1);
        w.add(1, 1);
        w.add(1, 2); // its first sector repeats hash 1's, its second is new
        w.add(MD5_OF_ZERO_4096, 1);
        assert_eq!((w.blocks, w.duplicates, w.zero_blocks, w.capped), (6, 2, 1, false));
        assert!((w.duplicate_share() - 2.0 / 6.0).abs() < 1e-12);
    }
}
