//! fio's `verify` in a run: a job with verify reads back each distinct block it wrote, once, in
//! ascending offset order, after its writes, and checks that each sector holds, through the
//! drive's map (after GC moved it), what the host last wrote there with a verify header.

mod common;

use ssdlab_drive::{Drive, RunSummary, VerifyReport};
use ssdlab_profile::Profile;
use ssdlab_workload::{parse_options, IoGenerator};
use std::collections::BTreeSet;

/// The small hand-timed drive (page FTL), or the same layout with its data-reduction engine.
fn small(reduction: bool) -> Profile {
    if reduction {
        common::small_timing_profile(&["reduction.enabled=true"])
    } else {
        common::small_timing_profile(&[])
    }
}

fn run(drive: &mut Drive, items: &[&str], seed: u64) -> RunSummary {
    let at = drive.quiesce_ns() + 1_000_000;
    common::run_job(drive, items, seed, at).0
}

/// Distinct 4 KiB blocks a job's generator writes with `seed` (what the verify phase must read).
fn distinct_blocks(drive: &Drive, items: &[&str], seed: u64) -> u64 {
    let job = parse_options("t", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let mut generator = IoGenerator::new(&job, drive.usable_bytes(), seed).unwrap();
    let mut offsets = BTreeSet::new();
    while let Some(io) = generator.next_io() {
        offsets.insert(io.offset_bytes);
    }
    offsets.len() as u64
}

/// The drive written whole sequentially (so every overwrite after it needs GC).
fn full_drive(reduction: bool) -> Drive {
    let mut drive = Drive::new(small(reduction)).unwrap();
    run(&mut drive, &["rw=write", "bs=128k", "iodepth=32"], 3);
    drive
}

const RANDWRITE: &[&str] = &["rw=randwrite", "bs=4k", "iodepth=32", "size=512m", "io_size=2g", "verify=crc32c"];

fn randwrite_then_verify(reduction: bool) {
    let mut drive = full_drive(reduction);
    let spare = drive.profile().geometry.total_slots() * 4096 - drive.usable_bytes();
    let s = run(&mut drive, RANDWRITE, 7);
    let v = s.verify.clone().expect("a verify report");
    // GC ran: the job wrote more than the drive's spare area, on a full drive.
    assert!(s.host_write_bytes > spare && s.nand_write_bytes_gc > 0, "{} written, spare {spare}, GC {}", s.host_write_bytes, s.nand_write_bytes_gc);
    // Each distinct block once, every one as written.
    let distinct = distinct_blocks(&drive, RANDWRITE, 7);
    assert_eq!(
        v,
        VerifyReport {
            method: "crc32c".into(),
            jobs: 1,
            phase_ran: true,
            do_verify: true,
            blocks_verified: distinct,
            bytes_verified: distinct * 4096,
            failures: 0,
            first_failure_offset: None,
            stopped_at_failure: false,
        }
    );
    // fio counts the verify phase's reads in the job's read figures.
    assert_eq!((s.writes, s.reads, s.host_read_bytes), (2 * 262_144, distinct, distinct * 4096));
    assert!(distinct > 100_000 && distinct < 131_072, "{distinct}");
}

#[test]
fn randwrite_with_verify_on_a_full_page_mapped_drive_reads_each_distinct_block_once_and_all_pass() {
    randwrite_then_verify(false);
}

#[test]
fn randwrite_with_verify_on_a_full_data_reduction_drive_reads_each_distinct_block_once_and_all_pass() {
    randwrite_then_verify(true);
}

/// Write 64 MiB sequentially with verify headers but no verify phase, then `between`, then read
/// the 64 MiB back with verify (fio's surface-scan example: two groups).
fn write_then_read_verify(reduction: bool, between: impl FnOnce(&mut Drive), read_extra: &[&str]) -> (RunSummary, RunSummary) {
    let mut drive = Drive::new(small(reduction)).unwrap();
    let first = run(&mut drive, &["rw=write", "bs=64k", "size=64m", "iodepth=4", "verify=meta", "verify_pattern=0xaa555aa5", "do_verify=0"], 5);
    between(&mut drive);
    let mut items = vec!["rw=read", "bs=64k", "size=64m", "iodepth=4", "verify=meta", "verify_pattern=0xaa555aa5"];
    items.extend_from_slice(read_extra);
    let second = run(&mut drive, &items, 6);
    (first, second)
}

#[test]
fn a_read_job_with_verify_checks_what_an_earlier_group_wrote() {
    for reduction in [false, true] {
        let (first, second) = write_then_read_verify(reduction, |_| {}, &[]);
        // The writing group has verify headers but do_verify=0: nothing read back.
        let w = first.verify.unwrap();
        assert_eq!((w.phase_ran, w.blocks_verified, first.reads), (false, 0, 0));
        let r = second.verify.unwrap();
        assert_eq!((r.blocks_verified, r.bytes_verified, r.failures, r.phase_ran), (1024, 64 << 20, 0, false), "reduction {reduction}");
        if reduction {
            // verify_pattern fills the buffers: compressible data on the SandForce engine.
            assert!(first.reduction.unwrap().data_reduction_ratio.unwrap() > 2.0);
        }
    }
}

#[test]
fn blocks_overwritten_by_a_job_without_verify_fail_and_verify_fatal_stops_at_the_first() {
    for reduction in [false, true] {
        // Another job overwrites 1 MiB at 32 MiB with its own data and no headers.
        let overwrite = |drive: &mut Drive| {
            run(drive, &["rw=write", "bs=4k", "offset=32m", "size=1m", "iodepth=8"], 9);
        };
        let (_, s) = write_then_read_verify(reduction, overwrite, &[]);
        let v = s.verify.unwrap();
        assert_eq!((v.blocks_verified, v.failures, v.first_failure_offset), (1024, 16, Some(32 << 20)), "reduction {reduction}");
        let (_, s) = write_then_read_verify(reduction, overwrite, &["verify_fatal=1"]);
        let v = s.verify.unwrap();
        assert_eq!((v.failures, v.first_failure_offset, v.stopped_at_failure), (1, Some(32 << 20), true));
        // The job stopped there: the 512 blocks before it (checked as they were issued) and the
        // failed one.
        assert_eq!(v.blocks_verified, 513);
    }
}

#[test]
fn a_wrong_expectation_in_the_host_record_is_detected() {
    for reduction in [false, true] {
        // The test's mutation: the host record of one sector (in the block at 8 MiB) altered.
        let corrupt = |drive: &mut Drive| {
            let lba = (8 << 20) / 4096 + 3;
            let record = drive.verify_record_mut().expect("the record of a run with verify");
            let id = record.get(lba);
            assert_ne!(id, 0);
            record.set(lba, id ^ 1);
        };
        let (_, s) = write_then_read_verify(reduction, corrupt, &[]);
        let v = s.verify.unwrap();
        assert_eq!((v.failures, v.first_failure_offset), (1, Some(8 << 20)), "reduction {reduction}");
    }
}

#[test]
fn unwritten_and_trimmed_blocks_fail_and_verify_null_only_pretends() {
    for reduction in [false, true] {
        let mut drive = Drive::new(small(reduction)).unwrap();
        run(&mut drive, &["rw=write", "bs=4k", "size=1m", "iodepth=4", "verify=md5", "do_verify=0"], 1);
        run(&mut drive, &["rw=trim", "bs=4k", "size=64k", "iodepth=1"], 2);
        // 1 MiB written with headers, 64 KiB of it trimmed, 1 MiB after it never written.
        let s = run(&mut drive, &["rw=read", "bs=4k", "size=2m", "iodepth=4", "verify=md5"], 3);
        let v = s.verify.unwrap();
        assert_eq!((v.blocks_verified, v.failures, v.first_failure_offset), (512, 16 + 256, Some(0)), "reduction {reduction}");
        let s = run(&mut drive, &["rw=read", "bs=4k", "size=2m", "iodepth=4", "verify=null"], 3);
        let v = s.verify.unwrap();
        assert_eq!((v.method.as_str(), v.blocks_verified, v.failures), ("null", 512, 0));
    }
}

#[test]
fn a_run_with_verify_follows_the_seed_and_one_without_keeps_no_record() {
    let once = |seed: u64| {
        let mut drive = Drive::new(small(true)).unwrap();
        let s = run(&mut drive, &["rw=randwrite", "bs=4k", "size=32m", "iodepth=16", "verify=sha256"], seed);
        RunSummary { wall_seconds: 0.0, ..s }
    };
    assert_eq!(once(4), once(4));
    assert_ne!(once(4).verify, None);
    let mut drive = Drive::new(small(false)).unwrap();
    let s = run(&mut drive, &["rw=randwrite", "bs=4k", "size=32m", "iodepth=16"], 4);
    assert!(s.verify.is_none() && drive.verify_record().is_none() && s.reads == 0);
}

#[test]
fn a_write_phase_cut_by_its_runtime_has_no_verify_phase() {
    let mut drive = Drive::new(small(false)).unwrap();
    let s = run(&mut drive, &["rw=randwrite", "bs=4k", "size=1g", "runtime=50ms", "iodepth=8", "verify=crc32c"], 2);
    let v = s.verify.unwrap();
    assert_eq!((v.phase_ran, v.blocks_verified, s.reads), (false, 0, 0));
}

#[test]
fn verify_backlog_verifies_while_writing_and_the_phase_after_reads_the_rest() {
    for reduction in [false, true] {
        let mut drive = Drive::new(small(reduction)).unwrap();
        // Sequential: each block is written once and verified once, some during the writes.
        let s = run(&mut drive, &["rw=write", "bs=4k", "size=4m", "iodepth=8", "verify=crc32c", "verify_backlog=16"], 1);
        let v = s.verify.unwrap();
        assert_eq!((v.blocks_verified, v.failures, s.reads, s.writes), (1024, 0, 1024, 1024), "reduction {reduction}");
        // The same cut by its runtime: no verify phase, but the backlog verified blocks already.
        let s = run(&mut drive, &["rw=write", "bs=4k", "size=1g", "runtime=20ms", "iodepth=8", "verify=crc32c", "verify_backlog=16"], 1);
        let v = s.verify.unwrap();
        assert!(!v.phase_ran && v.blocks_verified > 100 && v.failures == 0 && s.reads == v.blocks_verified, "{v:?}");
        // Random: a block verified during the writes and written again is logged and verified
        // again, so more blocks are read than the distinct ones written.
        let items = ["rw=randwrite", "bs=4k", "size=4m", "io_size=16m", "iodepth=8", "verify=crc32c", "verify_backlog=32", "verify_backlog_batch=8"];
        let s = run(&mut drive, &items, 2);
        let distinct = distinct_blocks(&drive, &items, 2);
        let v = s.verify.unwrap();
        assert!(v.phase_ran && v.failures == 0 && v.blocks_verified > distinct && s.writes == 4096, "{v:?} against {distinct} distinct blocks");
    }
}

#[test]
fn progress_counts_the_verify_phase_and_never_goes_back() {
    let mut drive = Drive::new(small(false)).unwrap();
    let job = parse_options("t", &["rw=randwrite", "bs=4k", "size=64m", "iodepth=8", "verify=crc32c"].map(String::from)).unwrap();
    let mut run = ssdlab_drive::Run::new(&drive, &job, 3, 0).unwrap();
    let mut seen = vec![];
    while !run.advance(&mut drive, 500).unwrap() {
        seen.push(run.progress().fraction);
    }
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress went back");
    // Half-way when the writes are issued; below 1 until the verify phase has read everything.
    assert!(seen.iter().any(|&f| f > 0.45 && f <= 0.5) && seen.iter().any(|&f| f > 0.9) && seen.iter().all(|&f| f < 1.0), "{seen:?}");
}

#[test]
fn a_rate_limited_write_job_reads_back_at_the_drive_s_pace() {
    let mut drive = Drive::new(small(false)).unwrap();
    // 1,000 writes at 1,000 IOPS take a second; the verify phase's reads are not paced.
    let s = run(&mut drive, &["rw=write", "bs=4k", "size=4000k", "iodepth=4", "rate_iops=1000", "verify=crc32c"], 1);
    let v = s.verify.unwrap();
    assert_eq!((v.blocks_verified, v.failures, s.reads), (1000, 0, 1000));
    assert!(s.simulated_seconds > 0.99 && s.simulated_seconds < 1.1, "{} s", s.simulated_seconds);
}
