//! The flash translation layer: where data goes and what must move, never when.
//!
//! * [`Translation`]: the one interface the drive uses, whichever FTL it holds. A write is
//!   [`Translation::prepare`]d (what storing the sector takes, decided without changing
//!   anything, so the drive can time the engine on the bytes actually stored) and then
//!   [`Translation::write`]n; reads ask for a sector's physical [`Piece`]s.
//! * [`Ftl`]: page-level mapping of 4 KiB logical sectors onto 4 KiB physical *slots*, with the
//!   reverse map (the per-slot out-of-band logical address).
//! * [`ChunkFtl`]: the data-reduction FTL of a SandForce-style controller: sectors map to
//!   reference-counted, compressed, deduplicated chunks packed into ECC units.
//! * Shared by both: the block manager (free pools, open blocks, the host stripe over the dies,
//!   padding, GC keys, victim policies [`GcPolicy`]) and one garbage-collection driver (collect
//!   a victim, paced GC, make room for a host block); each FTL supplies only how a victim's
//!   data is copied.
//! * [`FlashSink`]: where the FTL sends the flash operations it decides on (programs of filled
//!   units, reads for garbage collection, erases). The drive turns them into timed operations on
//!   the NAND array; tests use [`NullSink`].
//! * [`analytic`]: the steady-state write amplification of greedy GC (Desnoyers' model) that
//!   the FTL is validated against.
//!
//! Host writes are striped one program unit (a multi-plane page) at a time over the dies in
//! round-robin order; garbage collection runs per die, into a separate open block, paced by
//! host writes once a die's free pool falls to its low-water mark.

#![warn(missing_docs)]

pub mod analytic;
mod block;
mod block_counts;
mod check;
mod chunk;
mod chunk_check;
mod config;
mod die;
mod ftl;
mod gc;
mod index;
mod metadata;
mod metadata_writer;
mod pool;
mod prefetch;
mod sink;
mod slot_bits;
mod translation;
mod victim;
mod wear;

pub use block::BlockState;
pub use chunk::{ChunkFtl, ChunkFtlConfig, ChunkLocation, ChunkStats, ZERO};
pub use config::{FtlConfig, GcPolicy, GcSchedule, SlcCacheConfig, WhenCacheFull};
pub use ftl::{Ftl, FtlStats, Location};
pub use metadata::{MetadataConfig, MetadataStats, JOURNAL_RECORD_BYTES, JOURNAL_SHARE_OF_MAP};
pub use sink::{FlashSink, NullSink};
pub use translation::{content_id_of, DataLocation, Piece, Prepared, StoredSector, TierStats, Translation, ZERO_CONTENT_ID};
pub use wear::WearSummary;

/// Marker for "no physical slot" in the logical-to-physical map and "no logical sector" in the
/// reverse map.
pub const UNMAPPED: u32 = u32::MAX;
