//! fio's host pacing in simulated time: `rate_iops`/`rate` (a job issues no faster than its rate), `startdelay` and `thinktime_blocks`.

mod common;

use ssdlab_drive::RunSummary;
use ssdlab_profile::Profile;

/// The hand-timed small drive of the timing tests (`common::small_timing_profile`).
fn small_profile() -> Profile {
    common::small_timing_profile(&[])
}

fn read_job(extra: &[&str]) -> (RunSummary, u64) {
    let (mut drive, at) = common::written_small_drive();
    let mut items = vec!["rw=randread", "bs=4k", "size=64m", "time_based", "runtime=10"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 7, at)
}

#[test]
fn rate_iops_spaces_commands_and_each_finds_the_drive_idle() {
    let lone = common::lone_read_ns(&small_profile()) as f64 / 1000.0;
    let (s, _) = read_job(&["iodepth=32", "rate_iops=1000"]);
    // 1 ms apart for 10 simulated seconds: commands at 0, 1, ..., 9,999 ms.
    assert!(s.ios.abs_diff(10_000) <= 1, "{} IOs", s.ios);
    assert!((s.iops - 1000.0).abs() < 1.0, "{} IOPS", s.iops);
    // Latency counts from issue: each command alone on an idle drive (the mean exact; the
    // maximum is read from the latency histogram, within its 0.1% buckets).
    let lat = s.latency_us.unwrap();
    assert!((lat.mean - lone).abs() < 1e-6 && (lat.max - lone).abs() / lone < 1e-3, "{lat:?} vs {lone} us");
    assert_eq!(s.rate_iops_limit, Some(1000.0));
    assert_eq!(s.host_queued_max, 0);
}

#[test]
fn rate_in_bytes_is_the_same_limit_at_its_block_size() {
    // 4,096,000 B/s at 4 KiB: 1,000 commands per second.
    let (by_bytes, _) = read_job(&["iodepth=8", "rate=4000k"]);
    let (by_iops, _) = read_job(&["iodepth=8", "rate_iops=1000"]);
    assert_eq!(by_bytes, by_iops);
    // READ,WRITE: this read job takes the first value.
    let (per_direction, _) = read_job(&["iodepth=8", "rate_iops=1000,50"]);
    assert_eq!(per_direction, by_iops);
}

#[test]
fn a_rate_above_the_drive_changes_nothing() {
    // One command at a time: each is issued at the previous one's completion, long after 1/rate.
    let (free, _) = read_job(&["iodepth=1"]);
    let (limited, _) = read_job(&["iodepth=1", "rate_iops=10000000"]);
    assert_eq!(limited.rate_iops_limit, Some(1e7));
    assert_eq!(RunSummary { rate_iops_limit: None, ..limited }, free);
    // At QD32 only the first 32 commands are spaced (100 ns apart, as fio spaces them); the
    // drive admits them no sooner anyway, so every completion is the same.
    let (free, _) = read_job(&["iodepth=32"]);
    let (limited, _) = read_job(&["iodepth=32", "rate_iops=10000000"]);
    assert_eq!((limited.ios, limited.host_read_bytes, limited.nand_page_reads), (free.ios, free.host_read_bytes, free.nand_page_reads));
    assert_eq!(limited.simulated_seconds, free.simulated_seconds);
    let (a, b) = (limited.latency_us.unwrap().mean, free.latency_us.unwrap().mean);
    assert!((a - b).abs() / b < 1e-4, "{a} vs {b}");
}

#[test]
fn rate_limits_jobs_side_by_side_each() {
    // Two copies, each limited: 2,000 commands per second together.
    let (s, _) = read_job(&["iodepth=16", "rate_iops=1000", "numjobs=2"]);
    assert!(s.ios.abs_diff(20_000) <= 2, "{} IOs", s.ios);
    assert_eq!(s.rate_iops_limit, Some(2000.0));
}

#[test]
fn poisson_gaps_keep_the_mean_rate_and_follow_the_seed() {
    let (a, _) = read_job(&["iodepth=32", "rate_iops=1000", "rate_process=poisson"]);
    let (b, _) = read_job(&["iodepth=32", "rate_iops=1000", "rate_process=poisson"]);
    assert_eq!(a, b);
    // A Poisson count of mean 10,000: standard deviation 100.
    assert!(a.ios.abs_diff(10_000) <= 400 && a.ios != 10_000, "{} IOs", a.ios);
    // Bursts make some commands wait for others: the latency is above a lone command's at times.
    let lone = common::lone_read_ns(&small_profile()) as f64 / 1000.0;
    assert!(a.latency_us.unwrap().max > lone);
}

#[test]
fn rate_with_number_ios_ends_after_its_commands() {
    let (mut drive, at) = common::written_small_drive();
    let (s, end) = common::run_job(&mut drive, &["rw=randread", "bs=4k", "size=64m", "number_ios=500", "iodepth=4", "rate_iops=100"], 7, at);
    assert_eq!(s.ios, 500);
    // The last command is issued 4.99 s after the first.
    let lone = common::lone_read_ns(&small_profile());
    assert_eq!(end - at, 4_990_000_000 + lone);
}

/// fio's `startdelay`: the same run, later.
#[test]
fn startdelay_starts_the_job_later_and_its_runtime_counts_from_its_start() {
    let items = ["rw=randread", "bs=4k", "size=64m", "time_based", "runtime=10", "iodepth=4", "rate_iops=1000"];
    let (mut drive, at) = common::written_small_drive();
    let (now, now_end) = common::run_job(&mut drive, &items, 7, at);
    let (mut drive, at) = common::written_small_drive();
    let mut delayed = items.to_vec();
    delayed.push("startdelay=5");
    let (later, later_end) = common::run_job(&mut drive, &delayed, 7, at);
    assert_eq!(later, now);
    assert_eq!(later_end - now_end, 5_000_000_000);
    // A range is drawn from the job's seed: the same seed, the same delay, within the range.
    let mut ranged = items.to_vec();
    ranged.push("startdelay=1-5");
    let ends: Vec<u64> = (0..2)
        .map(|_| {
            let (mut drive, at) = common::written_small_drive();
            let (s, end) = common::run_job(&mut drive, &ranged, 7, at);
            assert_eq!(s, now);
            end - (now_end - at) - at
        })
        .collect();
    assert!(ends[0] == ends[1] && (1_000_000_000..=5_000_000_000).contains(&ends[0]), "{ends:?}");
}

#[test]
fn a_job_with_a_startdelay_beside_one_without_runs_that_much_later() {
    let text = "[global]\nrw=randread\nbs=4k\nsize=64m\ntime_based\nruntime=10\niodepth=4\nrate_iops=1000\n[a]\n[b]\nstartdelay=5\n";
    let job = ssdlab_workload::parse_job_text("t.fio", text).unwrap().remove(0);
    let (mut drive, at) = common::written_small_drive();
    let mut run = ssdlab_drive::Run::new(&drive, &job, 7, at).unwrap();
    while !run.advance(&mut drive, u64::MAX).unwrap() {}
    let s = run.summary(&drive, 0.0);
    // a issues over 0..10 s, b over 5..15 s: 20,000 reads over 15 s.
    assert!(s.ios.abs_diff(20_000) <= 2, "{} IOs", s.ios);
    assert!((s.simulated_seconds - 15.0).abs() < 0.01, "{}", s.simulated_seconds);
    // Seconds 5 to 10 carry both jobs.
    let series = run.series();
    assert!((series[2].iops - 1000.0).abs() <= 1.0 && (series[7].iops - 2000.0).abs() <= 2.0 && (series[12].iops - 1000.0).abs() <= 1.0, "{series:?}");
}

#[test]
fn thinktime_blocks_thinks_after_every_n_completions() {
    let end = |extra: &[&str]| {
        let (mut drive, at) = common::written_small_drive();
        let mut items = vec!["rw=randread", "bs=4k", "size=64m", "number_ios=400", "iodepth=1", "thinktime=1ms"];
        items.extend_from_slice(extra);
        let (s, end) = common::run_job(&mut drive, &items, 7, at);
        assert_eq!(s.ios, 400);
        end - at
    };
    let each = end(&[]);
    // The default is fio's: a think after every completion (399 before the last command).
    assert_eq!(end(&["thinktime_blocks=1"]), each);
    // After every 4th: 99 thinks instead of 399.
    assert_eq!(each - end(&["thinktime_blocks=4"]), 300 * 1_000_000);
    assert_eq!(end(&["thinktime_blocks=4", "thinktime_blocks_type=complete"]), end(&["thinktime_blocks=4"]));
}

#[test]
fn a_startdelay_past_the_simulated_clock_is_refused_for_any_job_of_the_group() {
    let (drive, at) = common::written_small_drive();
    // Job b starts after the clock's limit (job a does not), and 18e9 s would overflow the
    // nanosecond clock itself.
    for delay in ["10000000000", "18000000000"] {
        let text = format!("[global]\nrw=randread\nbs=4k\nsize=64m\n[a]\n[b]\nstartdelay={delay}\n");
        let job = ssdlab_workload::parse_job_text("t.fio", &text).unwrap().remove(0);
        let err = ssdlab_drive::Run::new(&drive, &job, 7, at).err().expect("refused").to_string();
        assert!(err.contains("job b") && err.contains("startdelay") && err.contains("limit"), "{err}");
    }
}
