//! Timing against hand-computed expectations.

mod common;

use ssdlab_core::time::transfer_ns;
use ssdlab_drive::Drive;
use ssdlab_profile::Profile;
use ssdlab_workload::{Io, Op};

fn small_profile(extra: &[&str]) -> Profile {
    common::small_timing_profile(extra)
}

fn run(drive: &mut Drive, items: &[&str], at: u64) -> (ssdlab_drive::RunSummary, u64) {
    common::run_job(drive, items, 11, at)
}

#[test]
fn qd1_random_read_latency_is_the_sum_of_its_parts() {
    let p = small_profile(&[]);
    let expected = common::lone_read_ns(&p);
    let mut drive = Drive::new(p).unwrap();
    let (_, end) = run(&mut drive, &["rw=write", "bs=128k", "size=64m", "iodepth=4"], 0);
    // Let everything settle, then read one sector at a time.
    let mut t = drive.quiesce_ns() + 1_000_000;
    assert!(t > end);
    for i in 0..50u64 {
        let io = Io { op: Op::Read, offset_bytes: (i * 7919 % 16384) * 4096, len_bytes: 4096 };
        let done = drive.submit(&io, t).unwrap();
        assert_eq!(done - t, expected, "read {i}");
        t = done + 10_000_000;
    }
    // A read of never-written space costs no NAND time.
    let io = Io { op: Op::Read, offset_bytes: 1 << 30, len_bytes: 4096 };
    let done = drive.submit(&io, t).unwrap();
    assert!(done - t < expected - 40_000);
}

#[test]
fn a_map_cache_miss_costs_one_map_page_read_before_the_data() {
    // Two cached map pages of 2048 entries (8 MiB of user space each).
    let p = small_profile(&["controller.map_cache_bytes=16384"]);
    let hit = common::lone_read_ns(&p);
    let map_read = p.timing.command_overhead_ns + p.timing.t_read_ns + transfer_ns(8192, p.timing.bus_bytes_per_second);
    let mut drive = Drive::new(p).unwrap();
    let mib = 1u64 << 20;
    // Never-written space: no map page exists in flash, so no map read and no data read.
    let t = 1_000_000;
    let done = drive.submit(&Io { op: Op::Read, offset_bytes: 100 * mib, len_bytes: 4096 }, t).unwrap();
    assert!(done - t < hit - 40_000);
    let (_, end) = run(&mut drive, &["rw=write", "bs=128k", "size=64m", "iodepth=4"], t + 1_000_000);
    let mut t = drive.quiesce_ns().max(end) + 1_000_000;
    let mut read = |offset: u64, t: u64| drive.submit(&Io { op: Op::Read, offset_bytes: offset, len_bytes: 4096 }, t).unwrap() - t;
    // The fill left its last two map pages (48..64 MiB) cached: hits.
    assert_eq!(read(60 * mib, t), hit);
    t += 10_000_000;
    // Map page 0 (0..8 MiB) was evicted: one map read first, then it is cached.
    assert_eq!(read(4 * mib, t), map_read + hit);
    t += 10_000_000;
    assert_eq!(read(4 * mib + 4096 * 7, t), hit);
    t += 10_000_000;
    // Two more misses evict page 0 again.
    assert_eq!(read(20 * mib, t), map_read + hit);
    t += 10_000_000;
    assert_eq!(read(30 * mib, t), map_read + hit);
    t += 10_000_000;
    assert_eq!(read(5 * mib, t), map_read + hit);
    assert_eq!(drive.counters().map_page_reads, 4);
}

fn sequential_write_mbps(p: Profile) -> f64 {
    let mut drive = Drive::new(p).unwrap();
    let (s, _) = run(&mut drive, &["rw=write", "bs=128k", "size=2g", "iodepth=32"], 0);
    s.write_mbps
}

#[test]
fn sequential_write_is_bounded_by_link_dies_and_channels() {
    // Die-bound: 32 dies x 16 KiB / (1.3 ms + transfer) < link 550 MB/s < channels 8 x 166 MB/s.
    let p = small_profile(&[]);
    let unit = p.geometry.unit_bytes() as f64;
    let dies = p.geometry.dies() as f64;
    let per_program_s = (p.timing.t_prog_ns + p.timing.command_overhead_ns + transfer_ns(unit as u64, p.timing.bus_bytes_per_second)) as f64 / 1e9;
    let die_bound = dies * unit / per_program_s / 1e6;
    // The run ends when the last command is acknowledged, with up to a write buffer of data
    // still to program: allow that share above the bound.
    let slack = 1.0 + p.controller.write_buffer_bytes as f64 / (2u64 << 30) as f64;
    let got = sequential_write_mbps(p);
    assert!(got <= die_bound * slack && got > die_bound * 0.93, "die-bound: got {got:.1}, bound {die_bound:.1}");

    // Link-bound: fast programs, SATA 3 Gb/s (275 MB/s).
    let p = small_profile(&["nand.t_prog_ns=200000", "host.interface=\"sata-3g\""]);
    let got = sequential_write_mbps(p);
    assert!(got <= 275.0 && got > 275.0 * 0.9, "link-bound: got {got:.1}");

    // Channel-bound: ONFi 1.0 async at 50 MB/s per channel, 8 channels = 400 MB/s, fast programs.
    let p = small_profile(&["nand.t_prog_ns=200000", "nand.bus=\"onfi1-async\""]);
    let channel_bound = 8.0 * 50.0;
    let got = sequential_write_mbps(p);
    assert!(got <= channel_bound && got > channel_bound * 0.85, "channel-bound: got {got:.1}");
}

#[test]
fn random_read_iops_rise_with_queue_depth_until_saturation() {
    let p = small_profile(&[]);
    let mut drive = Drive::new(p).unwrap();
    let (_, mut t) = run(&mut drive, &["rw=write", "bs=128k", "size=4g", "iodepth=32"], 0);
    t = t.max(drive.quiesce_ns());
    let mut iops = Vec::new();
    for depth in [1, 2, 4, 8, 16, 32] {
        let (s, end) = run(&mut drive, &["rw=randread", "bs=4k", "size=4g", "number_ios=20000", &format!("iodepth={depth}")], t);
        iops.push(s.iops);
        t = end;
    }
    // Nearly linear while few of the 32 dies are busy...
    for pair in iops.windows(2).take(3) {
        assert!(pair[1] > pair[0] * 1.6, "IOPS should rise with queue depth: {iops:?}");
    }
    // ...then flattening as dies collide and the controller's command processor (8 us per
    // command, 125K IOPS) becomes the limit, never exceeded.
    assert!(iops[4] > iops[3] * 1.1, "{iops:?}");
    assert!(iops[5] >= iops[4] * 0.98, "{iops:?}");
    assert!(iops[5] <= 125_000.0, "{iops:?}");
    assert!(iops[5] / iops[4] < iops[1] / iops[0], "the curve should flatten: {iops:?}");
}

#[test]
fn thinktime_adds_the_hosts_time_to_every_command_at_qd1_but_not_to_its_latency() {
    // fio's thinktime: after each completion the job waits before issuing the next command
    // (reads: nothing runs in the background meanwhile).
    let mut plain = Drive::new(small_profile(&[])).unwrap();
    let (fast, _) = run(&mut plain, &["rw=read", "bs=128k", "iodepth=1", "number_ios=200"], 0);
    let mut thinking = Drive::new(small_profile(&[])).unwrap();
    let (slow, _) = run(&mut thinking, &["rw=read", "bs=128k", "iodepth=1", "number_ios=200", "thinktime=100"], 0);
    let per_command = |s: &ssdlab_drive::RunSummary| s.simulated_seconds / s.ios as f64;
    let added = per_command(&slow) - per_command(&fast);
    assert!((added - 100e-6).abs() < 2e-6, "thinktime=100 (us) added {added} s per command");
    let mean = |s: &ssdlab_drive::RunSummary| s.latency_us.as_ref().unwrap().mean;
    assert!((mean(&slow) - mean(&fast)).abs() < 1.0, "the drive's latency does not include the host's time");
}
