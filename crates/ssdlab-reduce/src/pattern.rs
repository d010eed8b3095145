//! Data patterns: what a workload writes.

use crate::SECTOR_BYTES;
use ssdlab_core::SimRng;

/// The kind of data in each sector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PatternKind {
    /// All-zero sectors.
    Zeros,
    /// Iometer-style "repeating bytes": the sector is one byte value repeated, after a 16-byte
    /// per-write stamp that keeps sectors distinct (compresses to well under one ECC unit).
    Repeating,
    /// Text-like: words from a fixed vocabulary with a skewed frequency (about 2:1 with LZ4).
    Text,
    /// Uniformly random bytes (incompressible).
    Random,
    /// fio's `buffer_compress_percentage`: each `chunk_bytes` piece is that percentage zeros and
    /// the rest random.
    FioCompress {
        /// Compressible share of each piece, percent.
        percent: u32,
        /// Piece size (fio's `buffer_compress_chunk`), bytes.
        chunk_bytes: u32,
    },
}

/// A pattern plus the share of duplicates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataPattern {
    /// What each new sector holds.
    pub kind: PatternKind,
    /// Percentage of sectors that repeat the content of an earlier sector of the same job.
    pub dedupe_percent: u32,
}

impl Default for DataPattern {
    fn default() -> Self {
        // fio writes random (incompressible) buffers unless told otherwise.
        Self { kind: PatternKind::Random, dedupe_percent: 0 }
    }
}

impl DataPattern {
    /// A stable text key for caches and reports.
    pub fn key(&self) -> String {
        let kind = match self.kind {
            PatternKind::Zeros => "zeros".to_string(),
            PatternKind::Repeating => "repeating".to_string(),
            PatternKind::Text => "text".to_string(),
            PatternKind::Random => "random".to_string(),
            PatternKind::FioCompress { percent, chunk_bytes } => format!("compress{percent}%/{chunk_bytes}"),
        };
        if self.dedupe_percent > 0 {
            format!("{kind}+dedupe{}%", self.dedupe_percent)
        } else {
            kind
        }
    }

    /// Fill `out` (one sector) with the content identified by `content_seed`. The same seed
    /// always gives the same bytes.
    pub fn fill_sector(&self, content_seed: u64, out: &mut [u8]) {
        debug_assert_eq!(out.len(), SECTOR_BYTES);
        let mut rng = SimRng::new(content_seed ^ 0xC0FF_EE00_D1CE_5EED);
        match self.kind {
            PatternKind::Zeros => out.fill(0),
            PatternKind::Repeating => {
                let value = rng.next_u64() as u8;
                out.fill(value);
                out[..8].copy_from_slice(&content_seed.to_le_bytes());
                out[8..16].copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            PatternKind::Random => fill_random(&mut rng, out),
            PatternKind::Text => fill_text(&mut rng, out),
            PatternKind::FioCompress { percent, chunk_bytes } => {
                let chunk = (chunk_bytes as usize).clamp(1, SECTOR_BYTES);
                for piece in out.chunks_mut(chunk) {
                    let random_len = piece.len() * (100 - percent.min(100)) as usize / 100;
                    fill_random(&mut rng, &mut piece[..random_len]);
                    piece[random_len..].fill(0);
                }
            }
        }
    }

    /// Whether every sector of this pattern is all zeros.
    pub fn is_zeros(&self) -> bool {
        matches!(self.kind, PatternKind::Zeros)
    }
}

fn fill_random(rng: &mut SimRng, out: &mut [u8]) {
    for piece in out.chunks_mut(8) {
        let bytes = rng.next_u64().to_le_bytes();
        piece.copy_from_slice(&bytes[..piece.len()]);
    }
}

/// A fixed vocabulary of pseudo-words, the same in every run.
fn vocabulary() -> &'static [Vec<u8>] {
    use std::sync::OnceLock;
    static WORDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut rng = SimRng::new(0x7E47);
        let letters = b"etaoinshrdlcumwfgypbvkjxqz";
        (0..256)
            .map(|_| {
                let len = 2 + rng.below(9) as usize;
                // Skewed towards frequent letters.
                (0..len).map(|_| letters[(rng.below(26) * rng.below(26) / 26) as usize]).collect()
            })
            .collect()
    })
}

fn fill_text(rng: &mut SimRng, out: &mut [u8]) {
    let words = vocabulary();
    let mut i = 0;
    while i < out.len() {
        // Cubed uniform: low ranks (common words) far more likely, as in prose. One 64-bit draw
        // gives the word (high bits) and the separator (low bits).
        let draw = rng.next_u64();
        let u = (draw >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let word = &words[((u * u * u) * words.len() as f64) as usize];
        let separator: &[u8] = if draw.is_multiple_of(12) { b".\n" } else { b" " };
        for piece in [word.as_slice(), separator] {
            let n = piece.len().min(out.len() - i);
            out[i..i + n].copy_from_slice(&piece[..n]);
            i += n;
        }
    }
}
