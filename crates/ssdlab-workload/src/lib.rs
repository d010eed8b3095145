//! Workloads in fio's vocabulary.
//!
//! * [`JobSpec`]: one job, validated (`rw`, `bs`/`bssplit`, `iodepth`, `offset`, `size`,
//!   `io_size`, `runtime`, `time_based`, `number_ios`, `rwmixread`, `random_distribution`,
//!   `blockalign`).
//! * [`parse_options`] turns `key=value` pairs (from the command line) into a [`JobSpec`];
//!   [`parse_job_file`] reads an fio job file (`[global]` plus job sections, run one after the
//!   other). Unknown options are refused by name.
//! * [`IoGenerator`]: the seeded stream of IOs of a job over a given capacity.

#![warn(missing_docs)]

mod generator;
mod options;

pub use generator::{Io, IoGenerator, Op};
pub use options::{parse_job_file, parse_job_text, parse_options, Distribution, JobSpec, RwKind};
