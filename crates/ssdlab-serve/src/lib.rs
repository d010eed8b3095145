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
mod clock;
mod commit;
mod crash_host;
mod extents;
mod generated;
mod header;
mod host;
mod journal;
mod layout;
mod pending;
mod placement;
mod precondition;
mod read_plan;
mod recovery;
mod server;
mod stats;

pub use backing::{BackingFile, DriveIdentity, JournalScan};
pub use clock::{RoundTrip, ROUND_TRIP_PERCENTILE};
pub use crash_host::{CrashFile, CrashMode, CrashOutcome};
pub use extents::{ExtentTable, ExtentTally, Extents, FilePlane, NO_EXTENT, WARM_EXTENT_BYTES};
pub use generated::{fill_sector, Generated, PreconditionRecord};
pub use header::{CheckpointRef, Header, FORMAT_VERSION, HEADER_BYTES};
pub use host::{HostFile, OsFile};
pub use journal::{Check, CutReport, Op, Record, SectorDesc};
pub use layout::{Layout, JOURNAL_BYTES, JOURNAL_OFFSET};
pub use recovery::RecoveryReport;
pub use server::{mapping_digest_of, ExtentKind, Faults, Latency, ServeConfig, ServeError, ServeResult, Server};
pub use ssdlab_drive::PRECONDITION_STEPS;
pub use stats::ServeStats;
