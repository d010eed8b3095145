//! Helpers shared by the drive's integration tests.

use ssdlab_drive::{Drive, Run, RunSummary};
use ssdlab_workload::parse_options;

/// Run one job (fio options) to completion from `at_ns` with `seed`; returns its summary and
/// the time of its last completion.
pub fn run_job(drive: &mut Drive, items: &[&str], seed: u64, at_ns: u64) -> (RunSummary, u64) {
    let job = parse_options("t", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let mut run = Run::new(drive, &job, seed, at_ns).unwrap();
    while !run.advance(drive, u64::MAX).unwrap() {}
    (run.summary(drive, 0.0), run.end_ns())
}
