//! The simulated drive and the runs against it.
//!
//! * [`Drive`]: host interface (SATA link, NCQ), controller (command processor, write buffer,
//!   small-random-write cap), FTL and NAND array composed. [`Drive::submit`] takes one host
//!   command at a simulated time and returns when it completes, booking every resource it uses.
//! * [`Run`]: a closed-loop (Iometer-style) run of one job: keep `iodepth` commands in flight,
//!   record latencies and a per-second series, stop on the job's limits. Resumable in slices so
//!   a front end can show progress and stop on Ctrl-C.
//! * [`RunSummary`] and [`SeriesRow`]: what a run reports.
//!
//! How a write travels: the command waits for the controller's command processor (and the
//! small-random-write cap, if the firmware has one), then for room in the write buffer; its data
//! crosses the SATA link into the buffer and the command completes. Each 4 KiB sector is mapped
//! by the FTL to the next slot of the open unit on the current die; when a unit (one page on
//! every plane) fills, it is programmed: channel transfer, then tPROG on the die, after which
//! its buffer space is released. When a die runs low on free blocks, garbage collection reads
//! the victim's live slots, programs them into the die's GC block and erases the victim, all
//! booked on the same die and channel timelines the host's programs wait on.

#![warn(missing_docs)]

mod buffer;
mod drive;
mod map_cache;
mod mapper;
mod metrics;
mod replay;
mod run;
mod sink;
mod throttle;

pub use drive::{Drive, DriveCounters, DriveOptions};
pub use mapper::{Mapper, Piece};
pub use metrics::{LatencySummary, SeriesRow};
pub use replay::{ReplayMode, ReplaySummary, TraceRun};
pub use run::{ReductionReport, Run, RunProgress, RunSummary};
