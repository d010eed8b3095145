//! The content of every sector a job writes.

use crate::codec::{compress_sector, fingerprint, Fingerprint};
use crate::pattern::DataPattern;
use crate::sizes::{measured_sizes, SAMPLES};
use crate::SECTOR_BYTES;
use ssdlab_core::content_key::{mix64 as mix, sector_identity};
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

/// The content a block trace names for a write (FIU's traces record the MD5 of each block
/// written): the replay then writes that content instead of drawing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedContent {
    /// An all-zero block (the trace's hash is that of zeros): takes no flash.
    Zeros,
    /// A content hash: equal hashes are equal content, different hashes different content.
    Hash(u128),
}

/// Recent content identities kept for duplicates.
const RECENT: usize = 4096;

/// Bytes of a data file buffered in memory at a time (the file itself is streamed whole).
pub const DATA_FILE_BUFFER_BYTES: usize = 1 << 20;

/// A user's data file, read 4 KiB block by block as the run writes (bounded memory, whatever
/// the file's size), starting again at its beginning only when the run writes more than it holds.
#[derive(Debug)]
struct DataFile {
    path: String,
    reader: std::io::BufReader<std::fs::File>,
    /// Times the file was started again from its beginning.
    restarts: u64,
}

impl DataFile {
    /// Fill `block` with the next 4 KiB of the file (a short last block padded with zeros),
    /// starting again at the beginning at the end. A read error (the file changed under the
    /// run) gives a zero block: the run cannot stop here, and the file was checked at start.
    fn next_block(&mut self, block: &mut [u8]) {
        use std::io::{Read, Seek};
        let mut filled = 0;
        let mut rewound = false;
        while filled < block.len() {
            match self.reader.read(&mut block[filled..]) {
                Ok(0) if filled > 0 => break,
                Ok(0) if !rewound => {
                    rewound = true;
                    self.restarts += 1;
                    if self.reader.seek(std::io::SeekFrom::Start(0)).is_err() {
                        break;
                    }
                }
                Ok(0) => break, // empty now: zeros
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        block[filled..].fill(0);
    }
}

/// Produces the content of successive sectors of one job.
#[derive(Debug)]
pub struct ContentStream {
    /// A user's data file, whose 4 KiB blocks are written in order in place of the pattern.
    file: Option<DataFile>,
    pattern: DataPattern,
    mode: ContentMode,
    rng: SimRng,
    recent: Vec<u64>,
    recent_next: usize,
    sizes: Arc<Vec<u32>>,
    buffer: Vec<u8>,
    /// The content the trace names for the write being served, and the index of its next
    /// 4 KiB sector.
    named: Option<NamedContent>,
    named_sector: u64,
}

impl ContentStream {
    /// A stream for `pattern`, seeded by `seed` (independent of the job's address choices).
    pub fn new(pattern: DataPattern, mode: ContentMode, seed: u64) -> Self {
        let sizes = if mode == ContentMode::Modeled && !pattern.is_zeros() { measured_sizes(&pattern) } else { Arc::new(Vec::new()) };
        Self {
            file: None,
            pattern,
            mode,
            rng: SimRng::new(seed ^ 0x05EE_DC04_7E47),
            recent: Vec::with_capacity(RECENT),
            recent_next: 0,
            sizes,
            buffer: vec![0; SECTOR_BYTES],
            named: None,
            named_sector: 0,
        }
    }

    /// The content the next write's sectors carry, as a trace names it (`None`: drawn from the
    /// pattern as usual). The `i`-th sector of a write named `Hash(h)` gets an identity that is
    /// a function of `(h, i)` alone (not of the seed, the address or the time), so equal hashes
    /// are equal content, compressed to the same size (drawn from the pattern's measured size
    /// distribution by that identity) and deduplicated; in real mode the identity generates the
    /// pattern's bytes. A data file's blocks take precedence (callers refuse the combination).
    pub fn name_next_write(&mut self, named: Option<NamedContent>) {
        self.named = named;
        self.named_sector = 0;
    }

    /// A stream of the 4 KiB blocks of the file at `path`, in order, read as the run needs
    /// them (the whole file, with [`DATA_FILE_BUFFER_BYTES`] in memory), starting again at its
    /// beginning only when the run writes more than the file holds (a short last block is
    /// padded with zeros). The file must be a regular, non-empty file.
    pub fn from_file(path: &str, mode: ContentMode) -> ssdlab_core::Result<Self> {
        let file = ssdlab_core::input::open_regular(path, "data file")?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len == 0 {
            return Err(ssdlab_core::Error::Io(format!("{path}: the data file is empty")));
        }
        let mut stream = Self::new(DataPattern::default(), mode, 0);
        let reader = std::io::BufReader::with_capacity(DATA_FILE_BUFFER_BYTES, file);
        stream.file = Some(DataFile { path: path.to_string(), reader, restarts: 0 });
        Ok(stream)
    }

    /// The data file being written and how many times it was started again from its beginning
    /// (0 while the run has written no more than the file holds).
    pub fn data_file(&self) -> Option<(&str, u64)> {
        self.file.as_ref().map(|f| (f.path.as_str(), f.restarts))
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
        if let Some(file) = &mut self.file {
            file.next_block(&mut self.buffer);
            let mut content = SectorContent::from_bytes(&self.buffer);
            if self.mode == ContentMode::Modeled {
                content.payload = None;
            }
            return content;
        }
        let identity = match self.named {
            None => self.next_identity(),
            Some(NamedContent::Zeros) => return SectorContent { zero: true, fingerprint: 0, stored_bytes: 0, payload: None },
            Some(NamedContent::Hash(hash)) => {
                let index = self.named_sector;
                self.named_sector += 1;
                sector_identity(hash, index)
            }
        };
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
