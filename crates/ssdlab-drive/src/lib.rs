//! The simulated drive and the runs against it.
//!
//! * [`Drive`]: host interface (SATA link, NCQ), controller (command processor, write buffer,
//!   small-random-write cap, map cache), data-reduction engine, translation layer
//!   ([`ssdlab_ftl::Translation`]) and NAND array composed. [`Drive::submit`] takes one host
//!   command at a simulated time and returns when it completes, booking every resource it uses.
//!   The stages of a write are laid out in order in `write_path.rs`, those of a read in
//!   `read_path.rs`.
//! * [`Session`]: a drive with its simulated clock and seed stream, what every host of the
//!   simulator drives (the Python binding, a block-device server, a sweep worker); typed
//!   [`DriveInfo`] and [`DriveState`].
//! * [`Run`]: a closed-loop (Iometer-style) run of one job: keep `iodepth` commands in flight,
//!   record latencies and a per-second series, stop on the job's limits. Resumable in slices so
//!   a front end can show progress and stop on Ctrl-C.
//! * [`TraceRun`]: a trace replay, keeping the trace's queue depths or its timestamps.
//! * [`FastForward`]: a preconditioning job run without timing (`untimed.rs`: the same FTL
//!   work, no bookings), leaving the drive idle at a well-defined simulated time.
//! * [`PreconditionStep`]: the one definition of the `--precondition` steps (`seq-fill`,
//!   `rand-fill`, `trim-all`, `secure-erase`, `idle:SECONDS`): their text, their jobs, and what
//!   they do to a session.
//! * [`RunSummary`], [`ReplaySummary`] and [`SeriesRow`]: what runs report.
//!
//! How a write travels: admission (the small-random-write cap, the command processor), room in
//! the write buffer, the SATA link, the engine's front end (fingerprint, compress) and back end
//! (encrypt, ECC-encode what is stored), then placement by the FTL; a program unit that fills is
//! programmed (channel transfer, tPROG) once all its data has left the back end, and releases
//! its buffer positions when it ends. When a die runs low on free blocks, garbage collection
//! reads the victim's live data, passes it through the back end again (on data-reduction
//! drives), programs it into the die's GC block and erases the victim, all booked on the same
//! die, channel and engine timelines host data waits on.

#![warn(missing_docs)]

mod buffer;
mod data_plane;
mod depth_levels;
mod depth_search;
mod drive;
mod drive_power;
mod engine;
mod expected;
mod fast_forward;
mod fill;
mod fio_buckets;
mod flushes;
mod inflight;
mod job_limits;
mod latency_moments;
mod log_windows;
mod lookahead;
mod map_cache;
mod metrics;
mod power;
mod precondition;
mod rate_samples;
mod read_path;
mod replay;
mod run;
mod run_ahead;
mod session;
mod sink;
mod thermal;
mod think;
mod throttle;
mod tiers;
mod untimed;
mod utilization;
mod verify;
mod write_path;

pub use buffer::BufferAtCut;
pub use data_plane::{decode_region, decode_region_into, encode_region, DataPlane, REGION_PREFIX_BYTES};
pub use depth_levels::DepthReport;
pub use drive::{Drive, DriveCounters, DriveOptions, DEFAULT_REAL_BYTES_LIMIT};
pub use drive_power::PowerStateNow;
pub use engine::EngineCounters;
pub use expected::{ExpectedIds, EXPECTED_BYTES_PER_SECTOR};
pub use fast_forward::{fast_forward_refusal, FastForward, FastForwardSummary};
pub use fill::{FillFigures, CLIFF_FRACTION, POST_CACHE_SHARE};
pub use flushes::FlushReport;
pub use job_limits::{JobError, EIO, ETIMEDOUT};
pub use log_windows::{LogWindow, MAX_LOG_WINDOWS};
pub use metrics::{LatencyShares, LatencySummary, SeriesRow};
pub use precondition::{idle_seconds_ns, PreconditionStart, PreconditionStep, PRECONDITION_STEPS};
pub use rate_samples::{RateSampleReport, SampleStats};
pub use replay::{ReplayMode, ReplaySummary, TraceRun};
pub use run::{JobFigures, LatencyTargetReport, MetadataReport, ReductionReport, Run, RunProgress, RunSummary, SteadyReport, WearReport};
pub use session::{DriveInfo, DriveState, Session, WearState, MAX_SIMULATED_NS};
pub use ssdlab_ftl::{Piece, Translation};
pub use thermal::{ThermalState, THERMAL_STEP_NS};
pub use tiers::TierReport;
pub use untimed::UntimedWork;
pub use utilization::{BusyCounters, Utilization};
pub use verify::VerifyReport;
