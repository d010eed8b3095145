//! fio's limits that end a job in error, in simulated time: `max_latency` (ETIMEDOUT at the
//! first command over it) and `rate_min`/`rate_iops_min` (EIO at the first `rate_cycle`, after
//! a 2 s settle period, in which the job moved less), and `exitall_on_error`.

mod common;

use ssdlab_drive::{RunSummary, EIO, ETIMEDOUT};
use ssdlab_profile::Profile;

fn small_profile() -> Profile {
    common::small_timing_profile(&[])
}

/// Random 4 KiB reads of the 64 MiB written, with `extra` options.
fn read_job(extra: &[&str]) -> RunSummary {
    let (mut drive, at) = common::written_small_drive();
    let mut items = vec!["rw=randread", "bs=4k", "size=64m", "time_based", "runtime=10"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 7, at).0
}

fn ns(us: f64) -> String {
    format!("{}ns", (us * 1000.0).round() as u64)
}

#[test]
fn a_read_over_max_latency_ends_the_job_with_etimedout() {
    let lone_us = common::lone_read_ns(&small_profile()) as f64 / 1000.0;
    let limit = format!("max_latency={}", ns(1.5 * lone_us));
    // Alone (QD1) every read takes a lone read's time: the job runs its whole runtime.
    let alone = read_job(&["iodepth=1", "runtime=1", &limit]);
    assert_eq!(alone.job_error, None);
    assert!(alone.simulated_seconds >= 1.0, "{}", alone.simulated_seconds);
    // At QD32 reads queue on the dies and the channel: the first one over the limit ends it.
    let queued = read_job(&["iodepth=32", &limit]);
    let error = queued.job_error.clone().expect("fio's error");
    assert_eq!((error.errno, error.job.as_str()), (ETIMEDOUT, "t"));
    let late_ns: u64 = error.message.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(late_ns as f64 > 1.5 * lone_us * 1000.0 - 1000.0, "{}", error.message);
    assert!(error.message.starts_with("fio: latency of ") && error.message.contains(" nsec exceeds specified max ("), "{}", error.message);
    assert!(error.at_seconds < 0.01, "{error:?}");
    // The commands in flight then complete: at most the queue's 32 more than the late one.
    let plain = read_job(&["iodepth=32", "runtime=1"]);
    assert!(queued.ios < 200 && plain.ios > 10_000, "{} reads with the limit, {} without", queued.ios, plain.ios);
    assert!(queued.latency_us.unwrap().max * 1000.0 >= late_ns as f64 - 1.0);
    // fio's values are per direction: a limit on writes only does not touch a read job.
    let writes_only = read_job(&["iodepth=32", "runtime=1", "max_latency=1s,1us"]);
    assert_eq!((writes_only.job_error, writes_only.ios), (None, plain.ios));
}

#[test]
fn a_job_below_its_minimum_rate_ends_with_eio_after_the_settle_period_and_one_cycle() {
    let plain = read_job(&["iodepth=1"]);
    assert_eq!(plain.job_error, None);
    let reachable = plain.iops;
    // Half the rate it reaches: met in every cycle, the job runs its 10 s.
    let met = read_job(&["iodepth=1", &format!("rate_iops_min={}", (reachable / 2.0) as u64)]);
    assert_eq!(met.job_error, None);
    assert_eq!(met.ios, plain.ios, "the check changes nothing while it holds");
    // Twice the rate it reaches: the baseline at 2 s, the first cycle ends at 3 s and fails.
    let unmet = read_job(&["iodepth=1", &format!("rate_iops_min={}", (reachable * 2.0) as u64)]);
    let error = unmet.job_error.clone().expect("fio's error");
    assert_eq!(error.errno, EIO);
    assert!(error.at_seconds >= 3.0 && error.at_seconds < 3.01, "{error:?}");
    assert!(error.message.starts_with(&format!("t: rate_iops_min={} not met, got ", (reachable * 2.0) as u64)), "{}", error.message);
    assert!(unmet.simulated_seconds < 3.01, "{}", unmet.simulated_seconds);
    // rate_cycle sets the window; rate_min counts bytes (4 KiB per read here).
    let longer = read_job(&["iodepth=1", "rate_cycle=2500", &format!("rate_min={}", (reachable * 2.0 * 4096.0) as u64)]);
    let error = longer.job_error.expect("fio's error");
    assert!(error.at_seconds >= 4.5 && error.at_seconds < 4.51, "{error:?}");
    assert!(error.message.contains("B/s not met, got "), "{}", error.message);
    // After a ramp, the settle period counts from the ramp's end.
    let ramped = read_job(&["iodepth=1", "ramp_time=1", &format!("rate_iops_min={}", (reachable * 2.0) as u64)]);
    let error = ramped.job_error.expect("fio's error");
    assert!(error.at_seconds >= 3.0 && error.at_seconds < 3.01, "{error:?}");
}

/// A group of two jobs: `a` cannot meet its minimum rate, `b` reads for 10 s.
fn group(a_extra: &str) -> RunSummary {
    common::run_job_file(
        &format!("[global]\nbs=4k\nsize=64m\nrw=randread\ntime_based\nruntime=10\niodepth=1\n[a]\nrate_iops_min=10000000\n{a_extra}\n[b]\n"),
        3,
    )
}

#[test]
fn exitall_on_error_ends_the_group_with_the_failed_job() {
    let alone = group("");
    assert_eq!(alone.job_error.as_ref().map(|e| (e.job.as_str(), e.errno)), Some(("a", EIO)));
    assert!(alone.simulated_seconds >= 10.0, "b goes on: {}", alone.simulated_seconds);
    let together = group("exitall_on_error=1");
    assert_eq!(together.job_error.as_ref().map(|e| e.job.as_str()), Some("a"));
    assert!(together.simulated_seconds < 3.01, "b stops with a: {}", together.simulated_seconds);
}

#[test]
fn the_limits_follow_the_seed() {
    let a = read_job(&["iodepth=8", "max_latency=150us", "rate_iops_min=1000"]);
    let b = read_job(&["iodepth=8", "max_latency=150us", "rate_iops_min=1000"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..a }, RunSummary { wall_seconds: 0.0, ..b });
}
