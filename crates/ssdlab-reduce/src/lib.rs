//! Parts of the data-reduction engine (SandForce-style "DuraWrite") that deal with content.
//!
//! * [`DataPattern`]: what a workload writes (zeros, Iometer-style repeating bytes, text-like,
//!   random, fio's `buffer_compress_percentage`/`buffer_compress_chunk`), with the share of
//!   duplicate sectors (`dedupe_percentage`). [`DataPattern::fill_sector`] makes real bytes.
//! * [`compress_sector`] and [`fingerprint`]: the engine's real compressor (LZ4) and hash
//!   (XXH3-128).
//! * [`measured_sizes`]: a pattern's compressed-size distribution, measured by really
//!   compressing generated samples, cached per pattern.
//! * [`ContentStream`]: the content of every sector a job writes, either *modeled* (fingerprint
//!   and compressed size, no bytes) or *real* (bytes, hashed and compressed). Both modes draw
//!   the same content identities, so duplicates and sizes agree between them. A block trace
//!   that records content hashes names each write's content instead ([`NamedContent`]).

#![warn(missing_docs)]

mod codec;
mod content;
mod pattern;
mod sizes;

pub use codec::{compress_sector, decompress_sector, decompress_sector_into, fingerprint, Fingerprint};
pub use content::{ContentMode, ContentSource, ContentStream, NamedContent, SectorContent};
pub use pattern::{DataPattern, PatternKind};
pub use sizes::measured_sizes;

/// Bytes in one logical sector.
pub const SECTOR_BYTES: usize = 4096;
