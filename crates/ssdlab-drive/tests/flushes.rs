//! fio's flushes in simulated time: `fsync=N` (a FLUSH CACHE after every N writes, the job
//! waiting for it), `end_fsync` (one at the job's end, inside its runtime) and `sync=1` (each
//! write waits for a flush after it). A flush programs the partly filled units, padded, and
//! waits for every buffered write: a 4 KiB write job that flushes pays a program per flush and
//! writes more to flash than it was given.

mod common;

use ssdlab_drive::{Drive, RunSummary};
use ssdlab_profile::Profile;

fn small_profile() -> Profile {
    common::small_timing_profile(&[])
}

/// 4 KiB random writes on a fresh small drive, with `extra` options.
fn write_job(extra: &[&str]) -> RunSummary {
    let mut drive = Drive::new(small_profile()).unwrap();
    let mut items = vec!["rw=randwrite", "bs=4k", "size=256m", "number_ios=2000"];
    items.extend_from_slice(extra);
    common::run_job(&mut drive, &items, 5, 0).0
}

#[test]
fn fsync_after_every_write_waits_for_a_program_and_pads_the_units() {
    let t_prog_us = small_profile().timing.t_prog_ns as f64 / 1000.0;
    let plain = write_job(&["iodepth=1"]);
    assert_eq!(plain.flushes, None);
    let synced = write_job(&["iodepth=1", "fsync=1"]);
    let f = synced.flushes.clone().expect("the flushes");
    // fio issues no flush after the job's last write (it checks the job's bytes first).
    assert_eq!((f.flushes, f.end_flushes, synced.writes), (1999, 0, 2000));
    // Each flush waits for the program of the unit its write is in: at least one t_PROG.
    let lat = f.latency_us.unwrap();
    assert!(lat.p50 >= t_prog_us, "flush p50 {} us against t_PROG {t_prog_us} us", lat.p50);
    // The writes themselves are as fast as before (into the buffer); the job is not.
    assert!(synced.iops < plain.iops / 2.0, "{} IOPS with fsync=1, {} without", synced.iops, plain.iops);
    // Every flush programs a partly filled unit, padded: far more flash written per host byte.
    let (wa_plain, wa_synced) = (plain.write_amplification.unwrap(), synced.write_amplification.unwrap());
    assert!(wa_synced > 1.5 * wa_plain, "WA {wa_synced} with fsync=1, {wa_plain} without");
}

#[test]
fn fsync_every_n_writes_flushes_that_often_and_the_job_waits_at_any_depth() {
    let every8 = write_job(&["iodepth=1", "fsync=8"]);
    assert_eq!(every8.flushes.as_ref().unwrap().flushes, 249);
    let datasync = write_job(&["iodepth=1", "fdatasync=8"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..datasync }, RunSummary { wall_seconds: 0.0, ..every8.clone() }, "fdatasync is the same flush");
    // At QD32 the job issues nothing while its flush runs (fio's fsync is a blocking call).
    let plain32 = write_job(&["iodepth=32"]);
    let synced32 = write_job(&["iodepth=32", "fsync=8"]);
    assert_eq!(synced32.flushes.as_ref().unwrap().flushes, 249);
    assert!(synced32.iops < plain32.iops, "{} IOPS with fsync=8, {} without", synced32.iops, plain32.iops);
}

#[test]
fn end_fsync_flushes_once_after_the_last_write_inside_the_runtime() {
    let plain = write_job(&["iodepth=4"]);
    let ended = write_job(&["iodepth=4", "end_fsync=1"]);
    let f = ended.flushes.clone().unwrap();
    // fio leaves the end's flush out of its sync figures; ssdlab counts it apart.
    assert_eq!((f.flushes, f.end_flushes, f.latency_us), (0, 1, None));
    // Everything but the end is the same; the run ends when the flush does, after the program
    // of what was left in the buffer.
    assert_eq!((ended.writes, ended.nand_write_bytes_gc), (plain.writes, plain.nand_write_bytes_gc));
    let longer_us = (ended.simulated_seconds - plain.simulated_seconds) * 1e6;
    let t_prog_us = small_profile().timing.t_prog_ns as f64 / 1000.0;
    assert!(longer_us > 0.5 * t_prog_us, "{longer_us} us longer (t_PROG {t_prog_us} us)");
    assert!(ended.nand_write_bytes > plain.nand_write_bytes, "the flush programs what was left in the buffer, padded");
    let on_close = write_job(&["iodepth=4", "fsync_on_close=1"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..on_close }, RunSummary { wall_seconds: 0.0, ..ended });
}

#[test]
fn sync_writes_wait_for_their_own_flush() {
    let t_prog_us = small_profile().timing.t_prog_ns as f64 / 1000.0;
    let plain = write_job(&["iodepth=1"]);
    let synced = write_job(&["iodepth=1", "sync=1"]);
    // No separate flush commands (fio issues none with O_SYNC): the time is in each write.
    assert_eq!(synced.flushes.as_ref().map(|f| f.flushes), Some(0));
    let (p, s) = (plain.write_latency_us.unwrap(), synced.write_latency_us.unwrap());
    assert!(s.p50 >= p.p50 + t_prog_us, "write p50 {} us with sync=1, {} us without", s.p50, p.p50);
    assert!(synced.write_amplification.unwrap() > 1.5 * plain.write_amplification.unwrap());
}

/// The end flushes of a job file's group of jobs on a fresh small drive.
fn group_end_flushes(text: &str) -> (u64, RunSummary) {
    let mut drive = Drive::new(small_profile()).unwrap();
    let job = ssdlab_workload::parse_job_text("t.fio", text).unwrap().remove(0);
    let mut run = ssdlab_drive::Run::new(&drive, &job, 3, 0).unwrap();
    while !run.advance(&mut drive, u64::MAX).unwrap() {}
    let s = run.summary(&drive, 0.0);
    (s.flushes.as_ref().map_or(0, |f| f.end_flushes), s)
}

#[test]
fn every_job_that_wrote_flushes_at_its_end_as_fio_decides() {
    // Four copies deeper than the drive's queue of 32: jobs end while others' commands
    // complete; each still flushes once.
    let (n, _) = group_end_flushes("[w]\nrw=randwrite\nbs=4k\nsize=16m\niodepth=32\nnumjobs=4\nend_fsync=1\n");
    assert_eq!(n, 4);
    // A job stopped by another's exitall flushes too (fio's terminated job has no error).
    let (n, _) = group_end_flushes(
        "[global]\nrw=randwrite\nbs=4k\nsize=64m\n[short]\nnumber_ios=2000\nexitall\n[slow]\nrate_iops=100\nend_fsync=1\ntime_based\nruntime=10\n",
    );
    assert_eq!(n, 1);
    // Not: a job that only reads, one that ended in error, one whose last command was a flush.
    let (n, _) = group_end_flushes("[r]\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=100\nend_fsync=1\n");
    assert_eq!(n, 0);
    let (n, s) = group_end_flushes("[w]\nrw=randwrite\nbs=4k\nsize=16m\niodepth=8\nmax_latency=1us\nend_fsync=1\n");
    assert_eq!((n, s.job_error.is_some()), (0, true));
    let (n, s) = group_end_flushes("[w]\nrw=randwrite\nbs=4k\nsize=16m\nnumber_ios=100\nfsync=1\nend_fsync=1\n");
    // The last write is not followed by an fsync (the job has nothing after it), so fio's
    // end_fsync runs.
    assert_eq!((n, s.flushes.unwrap().flushes), (1, 99));
}

#[test]
fn the_fsync_count_starts_again_after_the_ramp() {
    // 1,500 writes in the ramp, 3,000 measured: with the count restarted at the ramp's end
    // (fio's reset_all_stats) the measured flushes follow the 1,000th and 2,000th measured
    // writes; counted on from the ramp they would follow its 500th, 1,500th and 2,500th.
    let (_, s) = group_end_flushes("[w]\nrw=randwrite\nbs=4k\nsize=64m\nfsync=1000\nrate_iops=1500\nramp_time=1\nruntime=2\ntime_based\n");
    let f = s.flushes.unwrap();
    assert!((2990..=3010).contains(&s.writes), "{} measured writes", s.writes);
    assert_eq!(f.flushes, 2);
}

#[test]
fn flushes_follow_the_seed() {
    let a = write_job(&["iodepth=8", "fsync=3", "end_fsync=1"]);
    let b = write_job(&["iodepth=8", "fsync=3", "end_fsync=1"]);
    assert_eq!(RunSummary { wall_seconds: 0.0, ..a }, RunSummary { wall_seconds: 0.0, ..b });
}

/// A flush after every small write pads the GC block's partly filled unit as well as the
/// host's; with the one-shot word lines of QLC (32 slots a program here) the padding once
/// filled GC blocks faster than paced GC finished its victim, until GC had no free block to
/// copy into and the drive panicked ("free pool empty"). A GC block taken as the die's last
/// free block now finishes its victim at once: the job runs to its end.
#[test]
fn flushes_after_every_write_on_qlc_never_leave_gc_without_a_block() {
    let profile = ssdlab_profile::load_profile(
        "samsung-870-qvo-1tb",
        &[
            "nand.channels=1",
            "nand.packages_per_channel=1",
            "nand.dies_per_package=2",
            "nand.blocks_per_plane=24",
            "nand.pages_per_block=32",
            "drive.capacity_bytes_user=33554432",
            "slc_cache.static_bytes=1048576",
            "slc_cache.dynamic_max_bytes=4194304",
            "controller.write_buffer_bytes=1048576",
        ]
        .map(String::from),
    )
    .unwrap();
    let mut drive = Drive::new(profile).unwrap();
    let (summary, _) = common::run_job(&mut drive, &["rw=randwrite", "bsrange=512-8k", "size=32m", "io_size=256m", "iodepth=1", "fsync=1"], 1, 0);
    assert!(summary.writes > 50_000, "{} writes", summary.writes);
    // Every flush pads a 128 KiB word line for a write of at most 8 KiB.
    assert!(summary.write_amplification.unwrap() > 10.0, "WA {:?}", summary.write_amplification);
}

/// 512-byte sequential writes (fio's `t/jobs/t0004`, `mtd.fio`): each read-modify-write of a
/// sector whose old data still waits in the unit being filled merges in the buffer, so every
/// write rewrites its 4 KiB sector once (write amplification 8), with no padded program per
/// write (it was 28 on the Force GS and 56 on the 980 PRO), with and without the engine.
#[test]
fn sub_sector_sequential_writes_merge_with_buffered_data_instead_of_programming_it() {
    for (name, overrides) in [("small page FTL", vec![]), ("small Force GS with its engine", vec!["reduction.enabled=true"])] {
        let mut drive = Drive::new(common::small_timing_profile(&overrides)).unwrap();
        let (s, _) = common::run_job(&mut drive, &["rw=write", "bs=512", "size=4m", "iodepth=1"], 3, 0);
        let wa = s.write_amplification.unwrap();
        assert!(wa < 8.5, "{name}: write amplification {wa} for 512-byte sequential writes");
    }
    let mut drive = Drive::new(ssdlab_profile::load_profile("samsung-980-pro-1tb", &[]).unwrap()).unwrap();
    let (s, _) = common::run_job(&mut drive, &["rw=write", "bs=512", "size=4m", "iodepth=1"], 3, 0);
    let wa = s.write_amplification.unwrap();
    assert!(wa < 8.5, "980 PRO: write amplification {wa} for 512-byte sequential writes");
}
