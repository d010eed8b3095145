//! Block traces.
//!
//! * [`TraceRecord`]: one request (time since the trace began, read/write/trim, byte offset and
//!   length, the recorded service time when the format has one).
//! * [`TraceReader`]: a streaming reader (plain or gzip) for [`TraceFormat`]s: SNIA / MSR
//!   Cambridge CSV, blkparse text, fio iolog v2 and v3, UMass/SPC, DiskSim ASCII, Alibaba Cloud,
//!   Tencent CBS, SNIA SYSTOR '17 and FIU (with content hashes); detected from the first lines
//!   or named. A bad line is an error naming file and line, or, with `skip_bad`, counted and
//!   skipped. Traces of several volumes are read one volume at a time ([`VolumeChoice`]).
//! * [`WrittenContent`]: the duplicate share of written blocks in a trace with content hashes.
//! * [`QueueDepth`]: each request's queue depth in the trace (outstanding requests at its
//!   arrival, from recorded service times).
//! * [`TraceStats`]: op counts, size histogram, sequential share, queue-depth distribution.
//! * [`generate`]: seeded traces with the published statistics of the AnandTech Storage Bench
//!   workloads ([`Workload`]).

#![warn(missing_docs)]

mod content;
mod decimal;
mod fields;
mod generate;
mod parse;
mod qd;
mod record;
mod stats;
mod volume;

pub use content::{block_key, is_zero_block_md5, WrittenContent, MAX_DISTINCT_CONTENTS, MD5_OF_ZERO_4096, MD5_OF_ZERO_512};
pub use generate::{generate, write_msr, write_msr_file, Workload};
pub use parse::{ReadOptions, TimeUnit, TraceFormat, TraceReader};
pub use qd::{QueueDepth, MAX_TRACKED_DEPTH};
pub use record::{TraceOp, TraceRecord, MAX_TRACE_BYTES, MAX_TRACE_NS};
pub use stats::{ContentReport, TraceStats, TraceStatsReport};
pub use volume::{VolumeChoice, MAX_TALLIED_VOLUMES};
