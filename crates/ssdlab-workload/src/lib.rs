//! Workloads in fio's vocabulary.
//!
//! * [`JobSpec`]: one job, validated (`rw`, `bs`/`bsrange`/`bssplit`, `iodepth`, `offset`,
//!   `size` (bytes or percent), `io_size`, `runtime`, `ramp_time`, `time_based`, `number_ios`,
//!   `rwmixread`, `random_distribution` (random, zipf, zoned), `blockalign`, `numjobs`, logs,
//!   steady state), with the jobs that run beside it.
//! * [`parse_options`] turns `key=value` pairs (from the command line) into a [`JobSpec`];
//!   [`parse_job_file_with`] reads an fio job file (`jobfile`: fio's syntax and grouping).
//!   Every unknown or refused option is reported at once, each where it stands;
//!   [`catalogue`] says which options are simulated, which change nothing and which are refused.
//! * [`IoGenerator`]: the seeded stream of IOs of a job over a given capacity.

#![warn(missing_docs)]

pub mod catalogue;
pub mod engines;
mod files;
mod generator;
mod jobfile;
mod limits;
mod options;
mod steady;

pub use generator::{Io, IoGenerator, Op};
pub use jobfile::{expand_numjobs, parse_command_line, parse_job_bytes_with, parse_job_file, parse_job_file_with, parse_job_text, MAX_JOB_FILE_BYTES};
pub use limits::{JobLimits, DEFAULT_RATE_CYCLE_MS};
pub use options::{
    parse_options, BlockSizes, DirectionRate, Distribution, Extent, Flow, Flushes, JobSpec, LatencyTarget, LogSettings, OptionsEcho, PercentileSettings,
    RateLimit, RwKind, RwReporting, SteadyMetric, SteadyState, StridedZones, Verify, Zone, ZoneExtent, FIO_DEFAULT_PERCENTILES, MAX_IODEPTH, MAX_NUMJOBS,
    MAX_PERCENTILES, RW_VALUES, VERIFY_METHODS,
};
pub use steady::SteadyWindow;
