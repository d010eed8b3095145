//! The NAND flash array.
//!
//! * [`Geometry`]: channels, dies, planes, blocks, pages and the derived addressing used by the
//!   FTL (a *block* here is a multi-plane block group on one die; a *unit* is one page on every
//!   plane of that die, programmed and read with one multi-plane operation).
//! * [`BusKind`] and [`Timing`]: array timings (tR, tPROG, tBERS) and the channel bus rate.
//! * [`Energy`]: energy per operation and per byte moved, idle power.
//! * [`FlashArray`]: occupancy timelines for every die and channel. Each operation is scheduled at
//!   the earliest time its die and channel are both free, so parallelism and contention come out
//!   of the model, and it counts operations, bytes, busy time and energy.

#![warn(missing_docs)]

mod array;
mod energy;
mod geometry;
mod media;
mod timing;

pub use array::{unit_key, FlashArray, FlashCounters, OpKind, OpTime, NO_UNIT};
pub use energy::Energy;
pub use geometry::{Geometry, SECTOR_BYTES};
pub use media::{CellMode, Media, PslcMode, Suspend};
pub use timing::{BusKind, Timing};
