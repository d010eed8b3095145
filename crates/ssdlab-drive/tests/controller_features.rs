//! Controller features: the small-random-write cap, read-modify-write of partial sectors,
//! idle-time GC, flush and secure erase.

mod common;

use ssdlab_drive::Drive;
use ssdlab_profile::{load_profile, Profile};
use ssdlab_workload::{Io, Op};

fn small_profile(extra: &[&str]) -> Profile {
    let raw: u64 = 8 * 2 * 64 * 256 * 8192;
    let user = raw * 85 / 100 / 4096 * 4096;
    let mut overrides: Vec<String> = vec![
        "nand.channels=4".into(),
        "nand.packages_per_channel=1".into(),
        "nand.blocks_per_plane=64".into(),
        format!("drive.capacity_bytes_user={user}"),
        "reduction.enabled=false".into(),
    ];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile("force-gs-240", &overrides).unwrap()
}

fn run(drive: &mut Drive, items: &[&str], at: u64) -> (ssdlab_drive::RunSummary, u64) {
    common::run_job(drive, items, 5, at)
}

#[test]
fn small_random_write_cap_limits_sustained_iops_after_the_burst() {
    let capped = small_profile(&["controller.small_random_write_cap_iops=2000", "controller.small_random_write_burst_ios=5000"]);
    let mut drive = Drive::new(capped).unwrap();
    let (s, _) = run(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=32", "runtime=10", "time_based", "size=256m"], 0);
    // 5000 at once, then 2000 per second: about 25,000 in 10 s.
    assert!(s.ios > 24_000 && s.ios < 26_500, "{}", s.ios);
    // Sequential writes are not small random writes: not capped.
    let (seq, _) = run(
        &mut drive,
        &["rw=write", "bs=4k", "iodepth=32", "runtime=1", "time_based", "size=256m"],
        s.simulated_seconds as u64 * 1_000_000_000 + 1_000_000_000,
    );
    assert!(seq.iops > 20_000.0, "{}", seq.iops);
    // Without the cap the same random job runs far faster.
    let mut free = Drive::new(small_profile(&[])).unwrap();
    let (u, _) = run(&mut free, &["rw=randwrite", "bs=4k", "iodepth=32", "runtime=10", "time_based", "size=256m"], 0);
    assert!(u.iops > 4.0 * s.iops, "{} vs {}", u.iops, s.iops);
}

#[test]
fn unaligned_writes_read_modify_write_mapped_sectors_only() {
    let mut drive = Drive::new(small_profile(&[])).unwrap();
    // Into empty space: nothing to read back.
    let t = drive.submit(&Io { op: Op::Write, offset_bytes: 512, len_bytes: 4096 }, 0).unwrap();
    assert_eq!(drive.counters().read_modify_writes, 0);
    // Over mapped data: both partial sectors are read first.
    drive.submit(&Io { op: Op::Write, offset_bytes: 1024, len_bytes: 4096 }, t).unwrap();
    assert_eq!(drive.counters().read_modify_writes, 2);
    // The 512 B-aligned random write job over filled space: nearly every write straddles two
    // mapped sectors.
    let (_, end) = run(&mut drive, &["rw=write", "bs=128k", "iodepth=4", "size=64m"], t + 1_000_000_000);
    let (s, _) = run(&mut drive, &["rw=randwrite", "bs=4k", "blockalign=512", "iodepth=4", "number_ios=2000", "size=64m"], end);
    assert_eq!(s.writes, 2000);
    assert!(drive.counters().read_modify_writes > 3000, "{}", drive.counters().read_modify_writes);
}

#[test]
fn idle_time_gc_refills_the_free_pool_and_secure_erase_resets() {
    let mut drive = Drive::new(small_profile(&[])).unwrap();
    let span = drive.usable_bytes();
    let (_, end) = run(&mut drive, &["rw=write", "bs=128k", "iodepth=32"], 0);
    let (_, end) = run(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=32", &format!("io_size={span}")], end);
    let before = drive.translation().free_blocks_total();
    let reclaimed = drive.idle(end, end + 60_000_000_000);
    let after = drive.translation().free_blocks_total();
    assert!(reclaimed > 0 && after > before, "{before} -> {after} ({reclaimed})");
    let target = drive.profile().ftl.gc_idle_target_free_blocks_per_die as u64 * drive.profile().geometry.dies() as u64;
    assert!(after >= target, "{after} < {target}");
    let flushed = drive.flush(end + 60_000_000_000);
    assert!(flushed >= end);
    let wear_before = drive.translation().wear();
    let done = drive.secure_erase(flushed);
    assert!(done > flushed);
    assert_eq!(drive.translation().live_data_sectors(), 0);
    assert_eq!(drive.translation().free_blocks_total(), drive.profile().geometry.total_blocks() as u64);
    assert!(drive.translation().wear().min > wear_before.min);
}
