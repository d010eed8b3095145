//! The simulated drive as a block device.
//!
//! * [`BackingFile`]: the file a served drive keeps its data and state in (header, data region
//!   at simulated NAND addresses with holes where nothing is stored, saved state), locked while
//!   in use; layout in docs/backing-file.md.
//! * [`Server`]: one drive shared by every connection, with the NBD operations (read, write with
//!   FUA, flush, trim, write zeroes, extents), two clocks ([`Latency`]), live statistics and a
//!   clean shutdown that saves the drive's state. The nbdkit plugin (`ssdlab-nbd`) adapts it.

#![warn(missing_docs)]

mod backing;
mod header;
mod server;
mod stats;

pub use backing::{BackingFile, DriveIdentity, FilePlane, DATA_OFFSET};
pub use header::{Header, SavedState, FORMAT_VERSION, HEADER_BYTES};
pub use server::{ExtentKind, Latency, ServeConfig, ServeError, ServeResult, Server};
pub use stats::ServeStats;
