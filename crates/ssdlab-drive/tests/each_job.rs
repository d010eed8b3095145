//! Each job's own figures in a group of jobs side by side (`RunSummary::each_job`, fio's
//! per-job report): they add up to the group's, each names its job, and a job alone has none.

mod common;

use ssdlab_drive::RunSummary;

/// Run a job file's first group on the small drive with 64 MiB written.
fn run_file(text: &str) -> RunSummary {
    common::run_job_file(text, 7)
}

#[test]
fn each_jobs_figures_add_up_to_the_groups() {
    let s = run_file(
        "[global]\nsize=64m\nbs=4k\n[reader]\nrw=randread\niodepth=2\nruntime=2\ntime_based\n[writer]\nrw=randwrite\niodepth=8\nnumber_ios=3000\n[trimmer]\nrw=randtrim\niodepth=1\nnumber_ios=500\n",
    );
    assert_eq!(s.jobs_in_group, 3);
    let names: Vec<_> = s.each_job.iter().map(|j| (j.job.as_str(), j.rw.as_str(), j.iodepth)).collect();
    assert_eq!(names, [("reader", "randread", 2), ("writer", "randwrite", 8), ("trimmer", "randtrim", 1)]);
    let (r, w, t) = (&s.each_job[0], &s.each_job[1], &s.each_job[2]);
    assert_eq!((r.writes, r.trims, w.reads, w.trims, t.reads, t.writes), (0, 0, 0, 0, 0, 0));
    assert_eq!((w.writes, t.trims), (3000, 500));
    assert_eq!(r.reads + w.reads + t.reads, s.reads);
    assert_eq!(r.writes + w.writes + t.writes, s.writes);
    assert_eq!(s.each_job.iter().map(|j| j.ios).sum::<u64>(), s.ios);
    assert_eq!(s.each_job.iter().map(|j| j.host_read_bytes).sum::<u64>(), s.host_read_bytes);
    assert_eq!(s.each_job.iter().map(|j| j.host_write_bytes).sum::<u64>(), s.host_write_bytes);
    assert_eq!(s.each_job.iter().map(|j| j.host_trim_bytes).sum::<u64>(), s.host_trim_bytes);
    // Each job's time is its own: the writer's 3,000 commands end well before the reader's
    // two seconds, and its IOPS are over its own time, not the group's.
    assert!(w.simulated_seconds < r.simulated_seconds, "{} {}", w.simulated_seconds, r.simulated_seconds);
    assert!((w.iops - w.ios as f64 / w.simulated_seconds).abs() < 1e-6 * w.iops);
    assert!((r.simulated_seconds - s.simulated_seconds).abs() < 1e-3, "{} {}", r.simulated_seconds, s.simulated_seconds);
    // Latencies are each job's own kinds, figured as the group's: the only reader's reads are
    // the group's reads.
    assert_eq!(r.read_latency_us, s.read_latency_us);
    assert!(r.read_latency_us.is_some() && r.write_latency_us.is_none() && r.trim_latency_us.is_none());
    assert!(t.trim_latency_us.is_some() && t.read_latency_us.is_none());
    let group_max = s.latency_us.as_ref().unwrap().max;
    let jobs_max = s.each_job.iter().filter_map(|j| j.latency_us.as_ref()).map(|l| l.max).fold(0.0, f64::max);
    assert_eq!(group_max, jobs_max);
}

#[test]
fn a_job_alone_and_numjobs_copies() {
    let alone = run_file("[w]\nrw=randwrite\nsize=64m\nbs=4k\nnumber_ios=2000\n");
    assert!(alone.each_job.is_empty());
    let copies = run_file("[w]\nrw=randwrite\nsize=64m\nbs=4k\nnumber_ios=1000\nnumjobs=3\n");
    assert_eq!(copies.each_job.len(), 3);
    assert!(copies.each_job.iter().all(|j| j.job == "w" && j.writes == 1000));
}

/// A job another job's `exitall` stopped runs to where it stood then, as fio's does: its
/// figures are over the time it ran, not to its last completion. fio 3.33 (null engine) on
/// this file: b 1 read and 1 write in 1,001 ms; before, ssdlab gave b 40,763 IOPS over 0.00 s.
#[test]
fn a_job_stopped_by_exitall_counts_the_time_it_ran() {
    let s = run_file("[global]\nbs=4k\nsize=64m\n[a]\nrw=read\nnumber_ios=100\nthinktime=1000\nexitall\n[b]\nrw=randrw\niodepth=4\nrate_iops=1\n");
    let (a, b) = (&s.each_job[0], &s.each_job[1]);
    assert_eq!((a.ios, b.reads, b.writes), (100, 1, 1));
    // a thinks 1 ms after each command (of 93 us on this drive): about 0.11 s. b was waiting for its rate's next slot,
    // at 1 s, when a stopped it: fio sleeps that wait out (a second at most) before it sees
    // the stop.
    assert!((0.1..0.11).contains(&a.simulated_seconds), "{}", a.simulated_seconds);
    assert!((b.simulated_seconds - 1.0).abs() < 0.001, "{}", b.simulated_seconds);
    assert!((b.iops - 2.0).abs() < 0.01, "{}", b.iops);
    // The group ran as long as its longest job.
    assert!((s.simulated_seconds - b.simulated_seconds).abs() < 1e-9, "{} {}", s.simulated_seconds, b.simulated_seconds);
    // A job a limit ended runs to its last completion; one that ran alongside to the group's
    // end (a's exitall at its last think) ends there.
    let s = run_file("[global]\nbs=4k\nsize=64m\n[a]\nrw=read\nnumber_ios=100\nthinktime=1000\nexitall\n[b]\nrw=randread\ntime_based\nruntime=10\n");
    let (a, b) = (&s.each_job[0], &s.each_job[1]);
    assert!((b.simulated_seconds - a.simulated_seconds).abs() < 0.0001, "{} {}", a.simulated_seconds, b.simulated_seconds);
}

/// A job's `ramp_time` counts from its own start (after its `startdelay`), as fio's: fio 3.33
/// (null engine) gives a 3,001 reads over 3,001 ms; before, ssdlab counted a's ramp as measured
/// (4,000 reads over 3,999 ms).
#[test]
fn a_delayed_job_ramps_from_its_own_start() {
    let s = run_file("[global]\nrw=randread\nbs=4k\nsize=64m\nrate_iops=1000\ntime_based\nruntime=3\nramp_time=1\n[a]\nstartdelay=1\n[b]\n");
    let (a, b) = (&s.each_job[0], &s.each_job[1]);
    assert!(a.ios.abs_diff(3000) <= 1 && (a.simulated_seconds - 3.0).abs() < 0.002, "{} IOs in {} s", a.ios, a.simulated_seconds);
    assert!(b.ios.abs_diff(3000) <= 1 && (b.simulated_seconds - 3.0).abs() < 0.002, "{} IOs in {} s", b.ios, b.simulated_seconds);
    // The group's figures are its jobs' (a's ramp is left out of the drive's counts too), from
    // b's measured start to a's end.
    assert_eq!((a.ios + b.ios, a.reads + b.reads, a.host_read_bytes + b.host_read_bytes), (s.ios, s.reads, s.host_read_bytes));
    assert!((s.simulated_seconds - 4.0).abs() < 0.002 && s.ramp_seconds == 1.0, "{} {}", s.simulated_seconds, s.ramp_seconds);
}

/// Each job carries its own error: two jobs of one group that both miss their minimum rate are
/// both named (the group's `job_error` keeps the first in time), and each job's verify counts are its
/// own.
#[test]
fn each_job_has_its_own_error_and_verify_counts() {
    let s = run_file("[global]\nbs=4k\nsize=64m\nrw=randread\ntime_based\nruntime=5\niodepth=1\nrate_iops_min=10000000\n[a]\n[b]\n[c]\nrate_iops_min=0\n");
    let errors: Vec<_> = s.each_job.iter().map(|j| j.job_error.as_ref().map(|e| (e.job.as_str(), e.errno))).collect();
    assert_eq!(errors, [Some(("a", 5)), Some(("b", 5)), None]);
    assert!(s.job_error.as_ref().is_some_and(|e| e.errno == 5), "{:?}", s.job_error);
    // Blocks nobody wrote with a verify header fail: each job's own, 256 and 512.
    let s = run_file("[global]\nbs=4k\nrw=read\nverify=crc32c\n[a]\nsize=1m\n[b]\noffset=8m\nsize=2m\n");
    let failures: Vec<_> = s.each_job.iter().map(|j| j.verify.as_ref().map(|v| (v.blocks_verified, v.failures))).collect();
    assert_eq!(failures, [Some((256, 256)), Some((512, 512))]);
    assert_eq!(s.verify.as_ref().map(|v| v.failures), Some(768));
}

#[test]
fn each_jobs_flushes_are_its_own_and_add_up_to_the_groups() {
    // Two writers that flush (fio's fsync=N, end_fsync) beside a reader that does not.
    let s = run_file(
        "[global]\nsize=64m\nbs=4k\n[a]\nrw=randwrite\nnumber_ios=400\nfsync=4\nend_fsync=1\n[b]\nrw=randwrite\nnumber_ios=300\nfsync=10\n[r]\nrw=randread\nnumber_ios=200\n",
    );
    let group = s.flushes.clone().expect("the group's flushes");
    let (a, b) = (s.each_job[0].flushes.clone().expect("a's flushes"), s.each_job[1].flushes.clone().expect("b's flushes"));
    assert!(s.each_job[2].flushes.is_none(), "a job that does not flush has no flush figures");
    // fio issues no flush after a job's last write: 99 for a (400 / 4 - 1), 29 for b.
    assert_eq!((a.flushes, a.end_flushes, b.flushes, b.end_flushes), (99, 1, 29, 0));
    assert_eq!((group.flushes, group.end_flushes), (a.flushes + b.flushes, a.end_flushes + b.end_flushes));
    let (la, lb, lg) = (a.latency_us.unwrap(), b.latency_us.unwrap(), group.latency_us.unwrap());
    assert!(lg.max == la.max.max(lb.max), "the group's longest flush is one of its jobs'");
}
