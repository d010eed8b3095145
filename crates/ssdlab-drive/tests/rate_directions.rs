//! fio's rate limits on mixed jobs (each direction paced to its own rate, fio's `rate_ddir`) and
//! on jobs of several block sizes (paced by bytes at the smallest size, fio 3.33's
//! `usec_for_io`): the rates asked for are met in steady state.

mod common;

use ssdlab_drive::RunSummary;

/// A 10-second time-based job on the small drive with 64 MiB written (reads find data).
fn run(extra: &[&str]) -> RunSummary {
    let (mut drive, at) = common::written_small_drive();
    let mut items = vec!["size=64m", "time_based", "runtime=10"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 7, at).0
}

/// Within 1% of `asked`.
fn near(got: f64, asked: f64) -> bool {
    (got - asked).abs() <= asked * 0.01
}

#[test]
fn a_mixed_job_paces_each_direction_to_its_own_rate() {
    for mix in ["rwmixread=50", "rwmixread=90", "rwmixread=20"] {
        let s = run(&["rw=randrw", "bs=4k", "iodepth=32", "rate_iops=500,200", mix]);
        let (reads, writes) = (s.reads as f64 / s.simulated_seconds, s.writes as f64 / s.simulated_seconds);
        // fio 3.33 on its null engine gives 499.9 and 200.0 for every mix (the mix only orders
        // the commands when both directions are behind their rates).
        assert!(near(reads, 500.0) && near(writes, 200.0), "{mix}: {reads} reads/s, {writes} writes/s");
        assert_eq!(s.rate_iops_limit, Some(700.0));
    }
    // The same in bytes, sequential: rw=rw with rate=2m,1m at 4 KiB.
    let s = run(&["rw=rw", "bs=4k", "iodepth=8", "rate=2m,1m"]);
    let (read_bps, write_bps) = (s.host_read_bytes as f64 / s.simulated_seconds, s.host_write_bytes as f64 / s.simulated_seconds);
    assert!(near(read_bps, 2.0 * 1048576.0) && near(write_bps, 1048576.0), "{read_bps} {write_bps}");
}

#[test]
fn a_direction_without_a_rate_takes_the_rest() {
    // Reads limited to 300/s (fio's trailing comma leaves writes free): a read drawn while
    // reads are ahead of their rate becomes a write, so writes fill the drive's time.
    let s = run(&["rw=randrw", "bs=4k", "iodepth=1", "rate_iops=300,"]);
    let (reads, writes) = (s.reads as f64 / s.simulated_seconds, s.writes as f64 / s.simulated_seconds);
    assert!(near(reads, 300.0), "{reads} reads/s");
    let free = run(&["rw=randwrite", "bs=4k", "iodepth=1"]);
    assert!(writes > 10.0 * reads && writes < free.iops, "{writes} writes/s, {} alone", free.iops);
    assert_eq!(s.rate_iops_limit, None);
    // rwmixread=100: no write is ever drawn, so the reads wait for their rate.
    let s = run(&["rw=randrw", "bs=4k", "iodepth=1", "rwmixread=100", "rate_iops=300,"]);
    assert!(s.writes == 0 && near(s.reads as f64 / s.simulated_seconds, 300.0), "{} {}", s.reads, s.writes);
}

#[test]
fn several_block_sizes_are_paced_by_bytes() {
    // rate=10m over 4k and 64k commands: 10 MiB/s, whatever the sizes drawn.
    let s = run(&["rw=randread", "bssplit=4k/50:64k/50", "iodepth=16", "rate=10m"]);
    assert!(near(s.host_read_bytes as f64 / s.simulated_seconds, 10.0 * 1048576.0), "{} B/s", s.host_read_bytes as f64 / s.simulated_seconds);
    // rate_iops with a range counts commands of the smallest size (fio 3.33: 100 x 4 KiB per
    // second), so fewer, larger commands go (over 60 s: the last command's up to 64 KiB is
    // within 0.3% of the bytes).
    let s = run(&["rw=randread", "bsrange=4k-64k", "iodepth=16", "rate_iops=100", "runtime=60"]);
    let bps = s.host_read_bytes as f64 / s.simulated_seconds;
    assert!(near(bps, 409_600.0) && (s.ios as f64 / s.simulated_seconds) < 20.0, "{bps} B/s over {} IOs", s.ios);
    // Mixed and several sizes at once (fio 3.33 on its null engine: 10,488,257 and 5,254,878 B/s).
    let s = run(&["rw=randrw", "bssplit=4k/50:64k/50", "iodepth=16", "rate=10m,5m"]);
    let (read_bps, write_bps) = (s.host_read_bytes as f64 / s.simulated_seconds, s.host_write_bytes as f64 / s.simulated_seconds);
    assert!(near(read_bps, 10.0 * 1048576.0) && near(write_bps, 5.0 * 1048576.0), "{read_bps} {write_bps}");
    // Sizes per direction: 4k reads at 1,000/s; 64k writes at 50/s (their only size).
    let s = run(&["rw=randrw", "bs=4k,64k", "iodepth=16", "rate_iops=1000,50"]);
    let (reads, write_bps) = (s.reads as f64 / s.simulated_seconds, s.host_write_bytes as f64 / s.simulated_seconds);
    assert!(near(reads, 1000.0) && near(write_bps, 50.0 * 65536.0), "{reads} {write_bps}");
}

#[test]
fn poisson_pacing_keeps_each_directions_mean_and_follows_the_seed() {
    let a = run(&["rw=randrw", "bs=4k", "iodepth=32", "rate_iops=500,200", "rate_process=poisson"]);
    let b = run(&["rw=randrw", "bs=4k", "iodepth=32", "rate_iops=500,200", "rate_process=poisson"]);
    assert_eq!(a, b);
    // Poisson counts of means 5,000 and 2,000 (standard deviations about 71 and 45).
    assert!(a.reads.abs_diff(5_000) <= 300 && a.writes.abs_diff(2_000) <= 200, "{} {}", a.reads, a.writes);
    assert!(a.reads != 5_000 || a.writes != 2_000);
}

#[test]
fn a_paced_job_bounded_by_its_size_ends_and_a_runaway_one_is_refused() {
    let (mut drive, at) = common::written_small_drive();
    // 1 MiB at 1 MiB/s of reads and writes together (rwmixread=50 at 512 KiB/s each): 1 s.
    let (s, end) = common::run_job(&mut drive, &["rw=randrw", "bs=4k", "size=1m", "iodepth=4", "rate=512k"], 7, at);
    assert_eq!(s.host_read_bytes + s.host_write_bytes, 1 << 20);
    let seconds = (end - at) as f64 / 1e9;
    assert!((0.9..1.2).contains(&seconds), "{seconds} s");
    // 64 GiB (64 MiB 1,000 times) at 2 bytes per second (reads and writes together) is past the
    // simulated clock's limit (292 years).
    let items: Vec<String> = ["rw=randrw", "bsrange=4k-8k", "size=64m", "loops=1000", "rate=1,1"].iter().map(|s| s.to_string()).collect();
    let job = ssdlab_workload::parse_options("t", &items).unwrap();
    let err = ssdlab_drive::Run::new(&drive, &job, 7, at).err().expect("refused").to_string();
    assert!(err.contains("rate=1,1") && err.contains("limit"), "{err}");
}
