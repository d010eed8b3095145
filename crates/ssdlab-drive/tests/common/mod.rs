//! Helpers shared by the drive's integration tests.

use ssdlab_core::time::transfer_ns;
use ssdlab_drive::{Drive, Run, RunSummary};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_workload::parse_options;

/// Run one job (fio options) to completion from `at_ns` with `seed`; returns its summary and
/// the time of its last completion.
pub fn run_job(drive: &mut Drive, items: &[&str], seed: u64, at_ns: u64) -> (RunSummary, u64) {
    let job = parse_options("t", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let mut run = Run::new(drive, &job, seed, at_ns).unwrap();
    while !run.advance(drive, u64::MAX).unwrap() {}
    (run.summary(drive, 0.0), run.end_ns())
}

/// The Force GS layout shrunk to 64 blocks per plane (8 GiB raw), data reduction off and the
/// whole map in DRAM (a conventional controller), with extra overrides: a drive whose timing
/// the tests compute by hand.
#[allow(dead_code)]
pub fn small_timing_profile(extra: &[&str]) -> Profile {
    let raw: u64 = 32 * 2 * 64 * 256 * 8192;
    let user = raw * 88 / 100 / 4096 * 4096;
    let mut overrides = vec![
        "nand.blocks_per_plane=64".to_string(),
        format!("drive.capacity_bytes_user={user}"),
        "reduction.enabled=false".to_string(),
        "controller.map_cache_bytes=0".to_string(),
    ];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile("force-gs-240", &overrides).unwrap()
}

/// A lone (QD1) 4 KiB read of mapped data on an idle drive: command processing, sense,
/// channel transfer, link.
#[allow(dead_code)]
pub fn lone_read_ns(p: &Profile) -> u64 {
    p.controller.command_processing_ns
        + p.timing.command_overhead_ns
        + p.timing.t_read_ns
        + transfer_ns(4096, p.timing.bus_bytes_per_second)
        + p.host.command_overhead_ns
        + transfer_ns(4096, p.host.link_bytes_per_second)
}

/// The small timing drive (`small_timing_profile`) with its first 64 MiB written sequentially,
/// and the time a millisecond after it went quiet: where the read tests start.
#[allow(dead_code)]
pub fn written_small_drive() -> (Drive, u64) {
    let mut drive = Drive::new(small_timing_profile(&[])).unwrap();
    let (_, end) = run_job(&mut drive, &["rw=write", "bs=128k", "size=64m", "iodepth=4"], 11, 0);
    let at = drive.quiesce_ns().max(end) + 1_000_000;
    (drive, at)
}

/// Run the first group of jobs of a job file's `text` to completion with `seed` on the written
/// small drive (`written_small_drive`); returns its summary.
#[allow(dead_code)]
pub fn run_job_file(text: &str, seed: u64) -> RunSummary {
    let job = ssdlab_workload::parse_job_text("t.fio", text).unwrap().remove(0);
    let (mut drive, at) = written_small_drive();
    let mut run = Run::new(&drive, &job, seed, at).unwrap();
    while !run.advance(&mut drive, u64::MAX).unwrap() {}
    run.summary(&drive, 0.0)
}
