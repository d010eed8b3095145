//! The content of every sector a job writes.

use crate::codec::{compress_sector, fingerprint, Fingerprint};
use crate::pattern::DataPattern;
use crate::sizes::{measured_sizes, SAMPLES};
use crate::SECTOR_BYTES;
use ssdlab_core::SimRng;
use std::sync::Arc;

/// How content is represented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentMode {
    /// A fingerprint and a compressed size drawn from the pattern's measured distribution; no
    /// bytes. Fast.
    Modeled,
    /// Real bytes, really hashed and compressed.
    Real,
}

/// What the engine needs to know about one written sector.
#[derive(Debug, Clone, PartialEq)]
pub struct SectorContent {
    /// The sector is all zeros (takes no flash).
    pub zero: bool,
    /// Content fingerprint (equal fingerprints are treated as equal content).
    pub fingerprint: Fingerprint,
    /// Bytes after compression (at most [`SECTOR_BYTES`]).
    pub stored_bytes: u32,
    /// The stored (compressed) bytes, in real mode.
    pub payload: Option<Vec<u8>>,
}

impl SectorContent {
    /// Content of real bytes: all-zero detection, fingerprint, compression.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        debug_assert_eq!(bytes.len(), SECTOR_BYTES);
        if bytes.iter().all(|&b| b == 0) {
            return Self { zero: true, fingerprint: 0, stored_bytes: 0, payload: None };
        }
        let stored = compress_sector(bytes);
        Self { zero: false, fingerprint: fingerprint(bytes), stored_bytes: stored.len() as u32, payload: Some(stored) }
    }
}

/// Anything that hands out the content of successive written sectors.
pub trait ContentSource {
    /// Content of the next sector.
    fn next_content(&mut self) -> SectorContent;
}

impl ContentSource for ContentStream {
    fn next_content(&mut self) -> SectorContent {
        self.next_sector()
    }
}

impl ContentSource for std::collections::VecDeque<SectorContent> {
    /// Contents prepared ahead of time, in order.
    fn next_content(&mut self) -> SectorContent {
        self.pop_front().expect("content prepared for every written sector")
    }
}

/// Recent content identities kept for duplicates.
const RECENT: usize = 4096;

/// Most bytes of a data file read into memory; a longer file contributes its first this many.
pub const MAX_DATA_FILE_BYTES: u64 = 256 << 20;

/// Produces the content of successive sectors of one job.
#[derive(Debug)]
pub struct ContentStream {
    /// Bytes of a user's data file, whose 4 KiB blocks are written in order (cycling), in place
    /// of the pattern.
    file: Option<Arc<Vec<u8>>>,
    file_next: usize,
    pattern: DataPattern,
    mode: ContentMode,
    rng: SimRng,
    recent: Vec<u64>,
    recent_next: usize,
    sizes: Arc<Vec<u32>>,
    buffer: Vec<u8>,
}

fn mix(mut x: u64) -> u64 {
    // SplitMix64 finaliser.
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl ContentStream {
    /// A stream for `pattern`, seeded by `seed` (independent of the job's address choices).
    pub fn new(pattern: DataPattern, mode: ContentMode, seed: u64) -> Self {
        let sizes = if mode == ContentMode::Modeled && !pattern.is_zeros() { measured_sizes(&pattern) } else { Arc::new(Vec::new()) };
        Self {
            file: None,
            file_next: 0,
            pattern,
            mode,
            rng: SimRng::new(seed ^ 0x05EE_DC04_7E47),
            recent: Vec::with_capacity(RECENT),
            recent_next: 0,
            sizes,
            buffer: vec![0; SECTOR_BYTES],
        }
    }

    /// A stream of the 4 KiB blocks of the file at `path`, in order, starting again at its
    /// beginning when it runs out (a short last block is padded with zeros). Only the first
    /// [`MAX_DATA_FILE_BYTES`] of a longer file are used.
    pub fn from_file(path: &str, mode: ContentMode) -> ssdlab_core::Result<Self> {
        use std::io::Read;
        let io = |e: std::io::Error| ssdlab_core::Error::Io(format!("{path}: cannot read the data file: {e}"));
        let file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(MAX_DATA_FILE_BYTES).read_to_end(&mut bytes).map_err(io)?;
        if bytes.is_empty() {
            return Err(ssdlab_core::Error::Io(format!("{path}: the data file is empty")));
        }
        bytes.resize(bytes.len().div_ceil(SECTOR_BYTES) * SECTOR_BYTES, 0);
        let mut stream = Self::new(DataPattern::default(), mode, 0);
        stream.file = Some(Arc::new(bytes));
        Ok(stream)
    }

    /// The pattern.
    pub fn pattern(&self) -> &DataPattern {
        &self.pattern
    }

    /// The identity of the next sector's content: a new one, or (`dedupe_percent` of the time)
    /// one of the recent ones.
    fn next_identity(&mut self) -> u64 {
        if self.pattern.dedupe_percent > 0 && !self.recent.is_empty() && self.rng.below(100) < self.pattern.dedupe_percent as u64 {
            return self.recent[self.rng.below(self.recent.len() as u64) as usize];
        }
        let identity = self.rng.next_u64();
        if self.recent.len() < RECENT {
            self.recent.push(identity);
        } else {
            self.recent[self.recent_next] = identity;
            self.recent_next = (self.recent_next + 1) % RECENT;
        }
        identity
    }

    /// Content of the next sector.
    pub fn next_sector(&mut self) -> SectorContent {
        if let Some(file) = &self.file {
            let block = &file[self.file_next..self.file_next + SECTOR_BYTES];
            self.file_next = (self.file_next + SECTOR_BYTES) % file.len();
            let mut content = SectorContent::from_bytes(block);
            if self.mode == ContentMode::Modeled {
                content.payload = None;
            }
            return content;
        }
        let identity = self.next_identity();
        if self.pattern.is_zeros() {
            return SectorContent { zero: true, fingerprint: 0, stored_bytes: 0, payload: None };
        }
        match self.mode {
            ContentMode::Modeled => {
                let fingerprint = ((mix(identity) as u128) << 64) | mix(identity ^ 0xA5A5_A5A5) as u128;
                let stored_bytes = self.sizes[(mix(identity ^ 0x51_2E5) % SAMPLES as u64) as usize];
                SectorContent { zero: false, fingerprint, stored_bytes, payload: None }
            }
            ContentMode::Real => {
                self.pattern.fill_sector(identity, &mut self.buffer);
                SectorContent::from_bytes(&self.buffer)
            }
        }
    }

    /// The real bytes of the content a [`SectorContent`] of this stream came from is not kept;
    /// tests regenerate it with [`DataPattern::fill_sector`].
    pub fn mode(&self) -> ContentMode {
        self.mode
    }
}
