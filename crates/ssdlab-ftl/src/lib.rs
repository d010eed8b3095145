//! The flash translation layer.
//!
//! * [`Ftl`]: page-level mapping of 4 KiB logical sectors onto 4 KiB physical *slots*, with the
//!   reverse map (the per-slot out-of-band logical address), per-block valid counts, a free pool
//!   and open blocks on every die, garbage collection, TRIM and wear counts.
//! * [`FtlConfig`] and [`GcPolicy`]: what the FTL is built from.
//! * [`FlashSink`]: where the FTL sends the flash operations it decides on (programs of filled
//!   units, reads for garbage collection, erases). The drive turns them into timed operations on
//!   the NAND array; tests use [`NullSink`].
//!
//! The FTL knows nothing of time: it decides *where* data goes and *what* must move. Host writes
//! are striped one unit (a multi-plane page) at a time over the dies in round-robin order;
//! garbage collection runs per die, into a separate open block, when a die's free pool falls to
//! its low-water mark.

#![warn(missing_docs)]

pub mod analytic;
mod block;
mod check;
mod chunk;
mod chunk_check;
mod config;
mod die;
mod ftl;
mod gc;
mod index;
mod pool;
mod sink;
mod victim;

pub use block::BlockState;
pub use chunk::{ChunkFtl, ChunkFtlConfig, ChunkLocation, ChunkStats, ZERO};
pub use config::{FtlConfig, GcPolicy};
pub use ftl::{Ftl, FtlStats, Location, WearSummary};
pub use sink::{FlashSink, NullSink};

/// Marker for "no physical slot" in the logical-to-physical map and "no logical sector" in the
/// reverse map.
pub const UNMAPPED: u32 = u32::MAX;
