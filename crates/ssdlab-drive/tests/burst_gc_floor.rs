//! Burst GC with a floor (issue 21): the Samsung 830's firmware collects garbage in bursts
//! (from its low-water mark to its high mark of free blocks per die), yet AnandTech's IO
//! consistency chart of the drive never drops to zero IOPS in steady state: host programs
//! pass between the victims of a burst. Checked on the built-in profile shrunk to fewer
//! blocks per plane (its blocks keep their pages, so a victim takes as long to move as at
//! full size, and the spare ratio stays).

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::load_profile;
use ssdlab_workload::parse_options;

/// Blocks per plane of the shrunk drive.
const BLOCKS_PER_PLANE: u64 = 128;

fn run(session: &mut Session, job: &str) -> Vec<ssdlab_drive::SeriesRow> {
    let items: Vec<String> = job.split(' ').map(str::to_string).collect();
    let spec = parse_options("burst-floor", &items).unwrap();
    let mut run = session.start_run(&spec, Some(11), None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    run.series().to_vec()
}

#[test]
fn samsung_830_burst_gc_leaves_no_zero_iops_second_in_steady_state() {
    let full = load_profile("samsung-830-256", &[]).unwrap();
    let g = &full.geometry;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * BLOCKS_PER_PLANE;
    let user = (raw as u128 * full.capacity_bytes_user as u128 / g.raw_bytes() as u128) as u64 / 4096 * 4096;
    let profile = load_profile("samsung-830-256", &[format!("nand.blocks_per_plane={BLOCKS_PER_PLANE}"), format!("drive.capacity_bytes_user={user}")]).unwrap();
    let mut session = Session::new(profile, DriveOptions::default(), 5).unwrap();
    session.secure_erase();
    run(&mut session, "rw=write bs=128k iodepth=32");
    // AnandTech's IO consistency test: 4 KiB random writes at QD32 over the whole span.
    let series = run(&mut session, "rw=randwrite bs=4k iodepth=32 runtime=60 time_based");
    // Steady state: the last two thirds of the whole seconds (the first third is the drive
    // leaving its fresh-out-of-the-fill state).
    let whole: Vec<_> = series.iter().filter(|r| r.span_seconds >= 1.0).collect();
    let steady = &whole[whole.len() / 3..];
    let min = steady.iter().map(|r| r.iops).fold(f64::INFINITY, f64::min);
    let mean = steady.iter().map(|r| r.iops).sum::<f64>() / steady.len() as f64;
    let wa = whole.last().map_or(0.0, |r| r.write_amplification);
    println!("samsung-830-256 (shrunk to {BLOCKS_PER_PLANE} blocks/plane), 4 KiB random writes QD32, {} steady seconds: min {min:.0} IOPS, mean {mean:.0}, WA {wa:.2}", steady.len());
    assert!(steady.len() >= 20, "{} steady seconds", steady.len());
    assert!(wa > 2.0, "the drive must be in GC steady state (WA {wa:.2})");
    let zero: Vec<u64> = steady.iter().filter(|r| r.iops == 0.0).map(|r| r.second).collect();
    assert!(zero.is_empty(), "seconds with zero IOPS in steady state: {zero:?} (min {min:.0}, mean {mean:.0})");
}
