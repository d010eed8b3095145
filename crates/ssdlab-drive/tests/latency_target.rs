//! fio's `latency_target` in simulated time: a job searches for the largest queue depth whose
//! commands meet a latency target, runs one more window there, measured alone, and ends.

mod common;

use ssdlab_drive::RunSummary;
use ssdlab_profile::Profile;

fn small_profile() -> Profile {
    common::small_timing_profile(&[])
}

/// Random 4 KiB reads of 64 MiB written first, for at most 10 simulated seconds.
fn read_job(extra: &[&str]) -> RunSummary {
    let (mut drive, at) = common::written_small_drive();
    let mut items = vec!["rw=randread", "bs=4k", "size=64m", "time_based", "runtime=10"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 7, at).0
}

#[test]
fn a_target_every_depth_meets_climbs_to_iodepth_and_ends_after_its_final_window() {
    let s = read_job(&["iodepth=32", "latency_target=1s", "latency_window=100ms"]);
    let t = s.latency_target.clone().expect("a latency-target report");
    // Depths 1, 2, 4, 8, 16, 32, then 32 again (the final run), each for a 100 ms window.
    assert_eq!((t.depth, t.jobs, t.settled, t.failed_at_depth_1_us), (32, 1, true, None), "{t:?}");
    assert_eq!((t.target_us, t.window_ms, t.percentile), (1e6, 100.0, 100.0));
    // The figures are the final window's (plus the commands in flight as it ended), not the
    // 10 s of the runtime: the search took 6 windows before it.
    assert!(s.simulated_seconds > 0.1 && s.simulated_seconds < 0.11, "{} s measured", s.simulated_seconds);
    assert!(s.ramp_seconds >= 0.6 && s.ramp_seconds < 0.7, "{} s of search", s.ramp_seconds);
    // At depth 32 the drive reads as fast as a plain QD32 job does.
    let plain = read_job(&["iodepth=32"]);
    assert!((s.iops - plain.iops).abs() / plain.iops < 0.05, "{} against {} IOPS at QD32", s.iops, plain.iops);
    assert!(plain.latency_target.is_none());
}

#[test]
fn the_final_run_samples_bandwidth_and_iops_afresh() {
    // fio's final run resets the job's statistics (`reset_io_stats`): the bandwidth and IOPS
    // samples are the final window's, not the search's six seconds.
    let s = read_job(&["iodepth=32", "latency_target=1s", "latency_window=1s"]);
    assert!(s.latency_target.as_ref().is_some_and(|t| t.settled), "{:?}", s.latency_target);
    assert!(s.ramp_seconds > 5.9, "{} s of search", s.ramp_seconds);
    let reads = &s.rate_samples.iops[0];
    assert!((1..=2).contains(&reads.samples), "{reads:?} over a final window of {} s", s.simulated_seconds);
    assert!((reads.mean - s.iops).abs() / s.iops < 0.05, "{reads:?} against {} IOPS", s.iops);
    // Its queue depths too: the commands issued in the final run, not the search's (the final
    // run starts once the job's commands have all completed: each counted one completes in it).
    let issued: u64 = s.depth_levels.levels.iter().sum();
    assert_eq!(issued, s.ios, "commands issued against completed in the final run");
}

#[test]
fn a_target_between_depths_settles_below_iodepth_and_its_final_window_meets_it() {
    // A lone read on this drive takes `lone`; at QD32 random reads queue behind each other on
    // the dies and the channel. A target of twice a lone read lies between the two.
    let lone_us = common::lone_read_ns(&small_profile()) as f64 / 1000.0;
    let qd32 = read_job(&["iodepth=32"]).latency_us.unwrap();
    assert!(qd32.p99 > 2.0 * lone_us, "QD32 p99 {} us against a lone read's {lone_us} us", qd32.p99);
    let target = format!("latency_target={}ns", (2.0 * lone_us * 1000.0) as u64);
    let s = read_job(&["iodepth=32", &target, "latency_window=50ms"]);
    let t = s.latency_target.clone().unwrap();
    assert!(t.settled && t.depth > 1 && t.depth < 32, "{t:?}");
    // Every command of the final window met the target (fio's default 100th percentile); the
    // few still in flight when it ended complete after it and count too.
    let lat = s.latency_us.unwrap();
    assert!(lat.p99 <= 2.0 * lone_us * 1.002, "p99 {} us against a target of {} us at depth {}", lat.p99, 2.0 * lone_us, t.depth);
    // One depth more had a late command: run it and see.
    let above = read_job(&[&format!("iodepth={}", t.depth + 1), "runtime=1"]).latency_us.unwrap();
    assert!(above.max > 2.0 * lone_us, "depth {} max {} us", t.depth + 1, above.max);
}

#[test]
fn a_target_no_command_can_meet_ends_the_job_at_depth_1() {
    let lone_us = common::lone_read_ns(&small_profile()) as f64 / 1000.0;
    let target = format!("latency_target={}ns", (lone_us * 500.0) as u64);
    let s = read_job(&["iodepth=8", &target]);
    let t = s.latency_target.clone().unwrap();
    assert_eq!((t.depth, t.settled), (1, false));
    let late = t.failed_at_depth_1_us.expect("the job's error");
    assert!((late - lone_us).abs() < 0.01, "{late} us");
    assert_eq!(s.ios, 1, "fio ends the job at its first late command");
    // The same error as max_latency's (fio's lat_fatal with the target as the limit).
    let error = s.job_error.expect("the job's error");
    assert_eq!(error.errno, ssdlab_drive::ETIMEDOUT);
    assert!(
        error.message.starts_with("fio: latency of ") && error.message.ends_with(&format!("exceeds specified max ({} nsec)", (lone_us * 500.0) as u64)),
        "{}",
        error.message
    );
}

#[test]
fn the_search_follows_the_seed() {
    let a = read_job(&["iodepth=16", "latency_target=300us", "latency_window=20ms", "latency_percentile=95"]);
    let b = read_job(&["iodepth=16", "latency_target=300us", "latency_window=20ms", "latency_percentile=95"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..a }, RunSummary { wall_seconds: 0.0, ..b });
}
