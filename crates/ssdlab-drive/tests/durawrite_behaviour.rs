//! The data-reduction engine's behaviour on a scaled-down SF-2281 (Force GS layout, 64 blocks
//! per plane: 8 GiB raw, same spare ratio). Everything here must come out of the mechanism:
//! where chunks land, what GC moves, what the buses carry.

mod common;

use ssdlab_drive::{Drive, DriveOptions, RunSummary};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_reduce::ContentMode;
use ssdlab_workload::{Io, Op};

const RAW: u64 = 32 * 2 * 64 * 256 * 8192;

fn scaled_sf2281(extra: &[&str]) -> Profile {
    // The Force GS keeps 240 GB of 256 GiB; keep the same share.
    let user = (RAW as f64 * 240e9 / (256u64 << 30) as f64) as u64 / 4096 * 4096;
    let mut overrides = vec!["nand.blocks_per_plane=64".to_string(), format!("drive.capacity_bytes_user={user}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile("force-gs-240", &overrides).unwrap()
}

struct Bench {
    drive: Drive,
    now: u64,
}

impl Bench {
    fn new(content: ContentMode) -> Self {
        let drive = Drive::with_options(scaled_sf2281(&[]), DriveOptions { content, ..DriveOptions::default() }).unwrap();
        Self { drive, now: 0 }
    }

    fn run(&mut self, items: &[&str], seed: u64) -> RunSummary {
        let (summary, end) = common::run_job(&mut self.drive, items, seed, self.now);
        self.now = end.max(self.drive.quiesce_ns());
        summary
    }
}

#[test]
fn compressible_writes_amplify_below_one_and_incompressible_at_or_above() {
    let mut b = Bench::new(ContentMode::Modeled);
    let s = b.run(&["rw=write", "bs=128k", "iodepth=32", "size=2g", "data_pattern=repeating"], 1);
    let wa = s.write_amplification.unwrap();
    assert!(wa < 0.2, "compressible sequential WA {wa}");
    let r = s.reduction.unwrap();
    assert!(r.data_reduction_ratio.unwrap() > 5.0, "{r:?}");
    let s = b.run(&["rw=write", "bs=128k", "iodepth=32", "offset=2g", "size=2g", "data_pattern=random"], 2);
    let wa = s.write_amplification.unwrap();
    assert!(wa >= 1.0, "incompressible sequential WA {wa}");
    // Text sits in between.
    let s = b.run(&["rw=write", "bs=128k", "iodepth=32", "offset=4g", "size=1g", "data_pattern=text"], 3);
    let wa = s.write_amplification.unwrap();
    assert!(wa > 0.3 && wa < 0.9, "text WA {wa}");
}

#[test]
fn incompressible_sequential_writes_are_clearly_slower() {
    let mut b = Bench::new(ContentMode::Modeled);
    let fast = b.run(&["rw=write", "bs=128k", "iodepth=32", "size=2g", "data_pattern=repeating"], 1);
    let slow = b.run(&["rw=write", "bs=128k", "iodepth=32", "offset=2g", "size=2g", "data_pattern=random"], 2);
    assert!(slow.write_mbps < 0.8 * fast.write_mbps, "incompressible {:.1} vs compressible {:.1} MB/s", slow.write_mbps, fast.write_mbps);
}

#[test]
fn random_write_torture_scatters_data_so_low_qd_sequential_reads_slow_down_but_writes_hold() {
    let mut b = Bench::new(ContentMode::Modeled);
    let span = "size=4g";
    b.run(&["rw=write", "bs=128k", "iodepth=32", span, "data_pattern=repeating"], 1);
    let read_clean = b.run(&["rw=read", "bs=128k", "iodepth=1", span, "number_ios=8000"], 2);
    let write_clean = b.run(&["rw=write", "bs=128k", "iodepth=1", "offset=5g", "size=1g", "data_pattern=repeating"], 3);
    // Torture: 4 KiB random writes of compressible data over the span.
    b.run(&["rw=randwrite", "bs=4k", "iodepth=32", span, "io_size=6g", "data_pattern=repeating"], 4);
    let read_tortured = b.run(&["rw=read", "bs=128k", "iodepth=1", span, "number_ios=8000"], 5);
    let write_tortured = b.run(&["rw=write", "bs=128k", "iodepth=1", "offset=5g", "size=1g", "data_pattern=repeating"], 6);
    assert!(
        read_tortured.read_mbps < 0.8 * read_clean.read_mbps,
        "sequential read {:.1} MB/s clean vs {:.1} tortured",
        read_clean.read_mbps,
        read_tortured.read_mbps
    );
    assert!(read_tortured.nand_reads_per_read_sector.unwrap() > 3.0 * read_clean.nand_reads_per_read_sector.unwrap());
    assert!(
        write_tortured.write_mbps > 0.9 * write_clean.write_mbps,
        "sequential write {:.1} MB/s clean vs {:.1} tortured",
        write_clean.write_mbps,
        write_tortured.write_mbps
    );
}

#[test]
fn writing_the_same_gibibyte_twice_adds_almost_no_nand_writes() {
    let mut b = Bench::new(ContentMode::Modeled);
    let first = b.run(&["rw=write", "bs=128k", "iodepth=32", "size=1g", "data_pattern=text"], 42);
    let second = b.run(&["rw=write", "bs=128k", "iodepth=32", "offset=1g", "size=1g", "data_pattern=text"], 42);
    assert!(first.nand_write_bytes > 300 << 20);
    assert!(second.nand_write_bytes < first.nand_write_bytes / 50, "{} then {}", first.nand_write_bytes, second.nand_write_bytes);
    assert!(second.reduction.unwrap().dedup_hit_rate.unwrap() > 0.99);
}

#[test]
fn trim_of_one_of_two_addresses_sharing_content_keeps_the_other_readable() {
    let mut b = Bench::new(ContentMode::Real);
    b.run(&["rw=write", "bs=64k", "iodepth=4", "size=64m", "data_pattern=text"], 9);
    b.run(&["rw=write", "bs=64k", "iodepth=4", "offset=64m", "size=64m", "data_pattern=text"], 9);
    let sector = 1000u64;
    let twin = sector + (64 << 20) / 4096;
    let original = b.drive.read_sector_bytes(sector).unwrap();
    assert!(original.iter().any(|&x| x != 0));
    assert_eq!(b.drive.read_sector_bytes(twin).unwrap(), original);
    b.drive.submit(&Io { op: Op::Trim, offset_bytes: sector * 4096, len_bytes: 4096 }, b.now).unwrap();
    assert!(b.drive.read_sector_bytes(sector).unwrap().iter().all(|&x| x == 0));
    assert_eq!(b.drive.read_sector_bytes(twin).unwrap(), original);
    // And after heavy GC the survivor still reads back.
    b.run(&["rw=randwrite", "bs=4k", "iodepth=32", "offset=256m", "size=2g", "io_size=6g", "data_pattern=random"], 10);
    assert_eq!(b.drive.read_sector_bytes(twin).unwrap(), original);
}

#[test]
fn modeled_and_real_content_agree_on_write_amplification() {
    for pattern in ["text", "repeating", "random"] {
        let mut was = Vec::new();
        for mode in [ContentMode::Modeled, ContentMode::Real] {
            let mut b = Bench::new(mode);
            let data = format!("data_pattern={pattern}");
            b.run(&["rw=write", "bs=128k", "iodepth=32", "size=1g", &data, "dedupe_percentage=20"], 1);
            let s = b.run(&["rw=randwrite", "bs=4k", "iodepth=32", "size=1g", "io_size=2g", &data, "dedupe_percentage=20"], 2);
            was.push(s.write_amplification.unwrap());
        }
        let diff = (was[0] - was[1]).abs() / was[1];
        assert!(diff < 0.05, "{pattern}: modeled WA {:.3} vs real {:.3}", was[0], was[1]);
    }
}
