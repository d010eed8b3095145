//! Shared foundations of ssdlab.
//!
//! * [`Error`] and the [`bail!`]/[`ensure!`] macros: the one error type of the core crates.
//! * [`time`]: simulated time in integer nanoseconds ([`time::Nanoseconds`]).
//! * [`SimRng`]: the seeded random source; one seed drives every random choice of a run.
//! * [`units`]: byte-size constants and human-readable size parsing.
//! * [`content_key`]: identities of sectors named by a content hash, and the SplitMix64 mix.
//! * [`input`]: opening input files as possibly huge, endless or hostile (regular files only,
//!   bounded sizes and lines).
//! * [`memory`]: large tables on huge pages; [`RecyclingAllocator`]: freed large tables kept
//!   for the next drive; [`memory_room`]: whether a drive's tables fit before they are built.

#![warn(missing_docs)]

pub mod content_key;
pub mod error;
pub mod fastdiv;
pub mod field;
pub mod input;
pub mod memory;
pub mod memory_room;
pub mod recycling_alloc;
pub mod rng;
pub mod time;
pub mod timeline;
pub mod units;

pub use error::{Error, Result};
pub use fastdiv::FastDiv;
pub use field::FieldError;
pub use recycling_alloc::RecyclingAllocator;
pub use rng::SimRng;
pub use time::Nanoseconds;
pub use timeline::Timeline;
