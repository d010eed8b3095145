//! A DRAM-less drive with a host memory buffer (issue 20): 4 KiB random reads over a span the
//! HMB's map pages cover are faster than over the whole drive, by the map pages the whole-span
//! reads had to fetch from NAND (counted).

use ssdlab_core::time::transfer_ns;
use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::load_profile;
use ssdlab_workload::parse_options;

fn run(session: &mut Session, items: &[String]) -> ssdlab_drive::RunSummary {
    let job = parse_options("t", items).unwrap();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    session.run_summary(&run, 0.0).unwrap()
}

#[test]
fn random_reads_beyond_the_hmb_pay_one_map_page_read_each_miss() {
    // The Samsung 980 layout shrunk to 600 blocks per plane (about 110 GB user), with an HMB of
    // 16 MiB: 1024 map pages of 4096 entries, covering 16 GiB of user space.
    let full = load_profile("samsung-980-1tb", &[]).unwrap();
    let g = &full.geometry;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * 600;
    let user = (raw as u128 * full.capacity_bytes_user as u128 / g.raw_bytes() as u128) as u64 / 4096 * 4096;
    let profile = load_profile(
        "samsung-980-1tb",
        &[
            "nand.blocks_per_plane=600".into(),
            format!("drive.capacity_bytes_user={user}"),
            "controller.map_cache_bytes=16384".into(),
            "controller.hmb_bytes=16777216".into(),
        ],
    )
    .unwrap();
    let map_read_ns =
        profile.timing.command_overhead_ns + profile.timing.t_read_ns + transfer_ns(profile.geometry.page_bytes as u64, profile.timing.bus_bytes_per_second);
    let mut session = Session::new(profile, DriveOptions::default(), 3).unwrap();
    session.secure_erase();
    run(&mut session, &["rw=write".into(), "bs=128k".into(), "iodepth=32".into()]);
    session.idle(600_000_000_000).unwrap();
    let reads = |span: u64| -> Vec<String> { ["rw=randread", "bs=4k", "iodepth=1", &format!("size={span}"), "number_ios=20000"].map(String::from).to_vec() };
    let covered = 8u64 << 30;
    // Warm the HMB with the covered span, then measure it, then the whole span.
    run(&mut session, &reads(covered));
    let inside = run(&mut session, &reads(covered));
    let whole = run(&mut session, &reads(user));
    let mean = |s: &ssdlab_drive::RunSummary| s.read_latency_us.as_ref().unwrap().mean;
    let per_read = |s: &ssdlab_drive::RunSummary| s.map_page_reads as f64 / s.reads as f64;
    eprintln!(
        "inside the HMB: {:.1} us, {:.4} map reads per read; whole span: {:.1} us, {:.4} map reads per read; one map read {:.1} us",
        mean(&inside),
        per_read(&inside),
        mean(&whole),
        per_read(&whole),
        map_read_ns as f64 / 1e3
    );
    assert_eq!(inside.map_page_reads, 0, "the covered span's map pages stay in the HMB");
    // 16 GiB of about 110 GB is covered: most whole-span reads miss.
    assert!(per_read(&whole) > 0.7, "{}", per_read(&whole));
    // The difference in mean latency is the map reads' time (the data reads of both spans
    // cost the same on average: same page types, same dies).
    let explained = per_read(&whole) * map_read_ns as f64 / 1e3;
    let slower = mean(&whole) - mean(&inside);
    assert!((slower - explained).abs() < 0.15 * explained, "whole span slower by {slower:.1} us; map reads explain {explained:.1} us");
}
