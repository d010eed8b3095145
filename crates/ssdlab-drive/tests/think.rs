//! fio's `thinktime` as fio runs it: once due, the whole job waits for its commands, sleeps,
//! then fills its queue again (so the drive really idles); ssdlab's `host_time` is the per-slot
//! host time of the review lab. At QD1 the two are the same.

mod common;

use ssdlab_drive::RunSummary;

/// Random 4 KiB reads of 64 MiB written first, with `extra` options.
fn read_job(extra: &[&str]) -> RunSummary {
    let (mut drive, at) = common::written_small_drive();
    let mut items = vec!["rw=randread", "bs=4k", "size=64m"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 7, at).0
}

#[test]
fn at_qd1_fios_thinktime_is_the_hosts_time_per_command() {
    let think = read_job(&["iodepth=1", "number_ios=500", "thinktime=300us"]);
    let host = read_job(&["iodepth=1", "number_ios=500", "host_time=300us"]);
    // The same commands at the same times; fio's think after the last one counts in the job's
    // time (see below), ssdlab's host_time after it does not.
    assert_eq!((think.reads, &think.read_latency_us), (host.reads, &host.read_latency_us));
    let added = think.simulated_seconds - host.simulated_seconds;
    assert!((added - 300e-6).abs() < 1e-9, "{added} s");
}

#[test]
fn a_think_begun_counts_in_the_jobs_time_to_its_end_as_fios() {
    // fio 3.33, ioengine=null: `--rw=randwrite --bs=4k --iodepth=1 --thinktime=900ms --runtime=2
    // --time_based --size=1g`: 3 IOs, runtime 2701 ms, 1.11 IOPS (the think after the third
    // IO is slept to its end before fio checks the runtime). ssdlab gave 1.8 s and 1.67 IOPS,
    // ending the job at its last completion.
    let (mut drive, at) = common::written_small_drive();
    let run = common::run_job(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=1", "thinktime=900ms", "runtime=2", "time_based", "size=64m"], 7, at).0;
    assert_eq!(run.writes, 3);
    assert!((run.simulated_seconds - 2.7).abs() < 0.001, "{} s", run.simulated_seconds);
    assert!((run.iops - 3.0 / 2.7).abs() < 0.001, "{} IOPS", run.iops);
    // Ended by its count (fio: `--number_ios=3`, 2703 ms): the think after the last IO counts.
    let (mut drive, at) = common::written_small_drive();
    let run = common::run_job(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=1", "thinktime=900ms", "number_ios=3", "size=64m"], 7, at).0;
    assert!((run.simulated_seconds - 2.7).abs() < 0.001, "{} s", run.simulated_seconds);
}

#[test]
fn a_due_think_pauses_the_whole_job_and_the_drive_idles() {
    let plain = read_job(&["iodepth=8", "number_ios=4000"]);
    // Three thinks of 100 ms between four batches of 1,000 (the fourth, due at the end, adds
    // nothing: the job has no command left).
    let think = read_job(&["iodepth=8", "number_ios=4000", "thinktime=100ms", "thinktime_blocks=1000"]);
    assert_eq!(think.reads, 4000);
    let added = think.simulated_seconds - plain.simulated_seconds;
    assert!((added - 0.3).abs() < 0.005, "{added} s added by three 100 ms thinks");
    // Over a second the job idles in each think: cycles of 1,000 reads (about 13 ms here) and
    // 100 ms of nothing, about 9,000 reads.
    let plain = read_job(&["iodepth=8", "time_based", "runtime=1"]);
    let think = read_job(&["iodepth=8", "time_based", "runtime=1", "thinktime=100ms", "thinktime_blocks=1000"]);
    assert!((8_000..10_000).contains(&think.reads), "{} reads with thinks, {} without", think.reads, plain.reads);
    // Only the thinking job pauses: a job beside it keeps the drive busy (a think must not hold
    // the drive's queue for everyone, as a command issued ahead of its time would).
    let both = common::run_job_file(
        "[global]\nrw=randread\nbs=4k\nsize=64m\niodepth=8\ntime_based\nruntime=1\n[think]\nthinktime=100ms\nthinktime_blocks=1000\n[busy]\n",
        7,
    );
    assert!(both.reads as f64 > 0.8 * plain.reads as f64, "{} reads by the two jobs, {} by one without thinks", both.reads, plain.reads);
}

#[test]
fn thinktime_iotime_alternates_io_and_idle_time() {
    let plain = read_job(&["iodepth=4", "time_based", "runtime=2"]);
    let half = read_job(&["iodepth=4", "time_based", "runtime=2", "thinktime=50ms", "thinktime_iotime=50ms"]);
    let share = half.reads as f64 / plain.reads as f64;
    assert!((0.45..0.55).contains(&share), "{} reads against {}: {share}", half.reads, plain.reads);
}

#[test]
fn thinking_follows_the_seed() {
    let a = read_job(&["iodepth=16", "number_ios=3000", "thinktime=2ms", "thinktime_blocks=100"]);
    let b = read_job(&["iodepth=16", "number_ios=3000", "thinktime=2ms", "thinktime_blocks=100"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..a }, RunSummary { wall_seconds: 0.0, ..b });
}
