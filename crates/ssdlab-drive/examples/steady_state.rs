//! Benchmark: sequential fill, then 4 KiB random writes at QD32 over the whole span with GC
//! running. Prints simulated host writes per wall second in steady state and peak RAM.
//!
//! `cargo run --release -p ssdlab-drive --example steady_state -- [profile] [random_write_seconds] [data_pattern] [section.field=value ...]`

use ssdlab_drive::{Drive, Run};
use ssdlab_profile::load_profile;
use std::time::Instant;

mod common;
use common::{fill_job, job, peak_rss_bytes, Args};
use ssdlab_workload::JobSpec;

fn run(drive: &mut Drive, job: &JobSpec, at: u64, seed: u64) -> (ssdlab_drive::RunSummary, u64, Vec<ssdlab_drive::SeriesRow>) {
    let mut r = Run::new(drive, job, seed, at).unwrap();
    let t = Instant::now();
    while !r.advance(drive, 1 << 20).unwrap() {}
    let s = r.summary(drive, t.elapsed().as_secs_f64());
    (s, r.end_ns(), r.series().to_vec())
}

fn main() {
    let args = Args::from_env();
    let profile_name = args.text(0, "force-gs-240");
    let seconds = args.number(1, "random_write_seconds", 600);
    let pattern = args.text(2, "random");
    let overrides = args.rest(3);
    let profile = load_profile(&profile_name, &overrides).unwrap();
    println!("profile {profile_name} {overrides:?}, data reduction {}, pattern {pattern}", profile.reduction.is_some());
    let raw_gib = profile.raw_bytes() as f64 / (1u64 << 30) as f64;
    let mut drive = Drive::new(profile).unwrap();
    let data = format!("data_pattern={pattern}");
    let (fill, end, _) = run(&mut drive, &fill_job("bench", &["rw=write", "bs=128k", "iodepth=32", &data]), 0, 1);
    println!("fill: {:.1} simulated s, {:.1} MB/s, wall {:.2} s", fill.simulated_seconds, fill.write_mbps, fill.wall_seconds);
    let runtime = format!("runtime={seconds}");
    let (warm, end, _) = run(&mut drive, &job("bench", &["rw=randwrite", "bs=4k", "iodepth=32", &runtime, "time_based", &data]), end, 2);
    println!("warm-up random write: {:.0} simulated s, {} IOs, wall {:.2} s", warm.simulated_seconds, warm.ios, warm.wall_seconds);
    let (rw, _, series) = run(&mut drive, &job("bench", &["rw=randwrite", "bs=4k", "iodepth=32", &runtime, "time_based", &data]), end, 3);
    println!(
        "random write: {:.0} simulated s, {} IOs, {:.0} IOPS, WA {:.3}, wall {:.2} s, {:.0} host writes per wall second",
        rw.simulated_seconds,
        rw.ios,
        rw.iops,
        rw.write_amplification.unwrap_or(0.0),
        rw.wall_seconds,
        rw.ios as f64 / rw.wall_seconds
    );
    println!("pending bookings (channels, engine, link): {:?}", drive.pending_bookings());
    let f = drive.flash().counters();
    println!(
        "die busy total {:.1} s over 32 dies, reads {} programs {} erases {}",
        drive.flash().die_busy_total_ns() as f64 / 1e9,
        f.page_reads,
        f.page_programs,
        f.block_erases
    );
    println!("gc moved {} (sectors or chunks), reduction: {:?}", drive.translation().gc_moved(), rw.reduction);
    let n = series.len();
    for row in series.iter().step_by((n / 12).max(1)) {
        println!(
            "  t={:>5}s iops={:>8.0} free={:>6} wa={:.2} maxlat={:.0}us",
            row.second, row.iops, row.free_blocks, row.write_amplification, row.max_latency_us
        );
    }
    let rss = peak_rss_bytes();
    println!("peak RSS {:.1} MiB = {:.2} MiB per raw GiB", rss as f64 / 1048576.0, rss as f64 / 1048576.0 / raw_gib);
}
