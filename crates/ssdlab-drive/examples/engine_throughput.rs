//! Benchmark: real-bytes throughput of the data-reduction engine per core, in MB/s of host data
//! per wall second (generating, hashing, compressing and storing real bytes), for compressible
//! and incompressible data, on a scaled-down SF-2281 (8 GiB raw).
//!
//! `cargo run --release -p ssdlab-drive --example engine_throughput`

use ssdlab_drive::{Drive, DriveOptions, Run};
use ssdlab_profile::load_profile;
use ssdlab_reduce::ContentMode;
use ssdlab_workload::parse_options;
use std::time::Instant;

/// Hash and compress pre-generated sectors: the engine alone, without making the data.
fn engine_only(pattern: &str) -> f64 {
    use ssdlab_reduce::{DataPattern, PatternKind, SectorContent};
    let kind = match pattern {
        "repeating" => PatternKind::Repeating,
        "text" => PatternKind::Text,
        _ => PatternKind::Random,
    };
    let p = DataPattern { kind, dedupe_percent: 0 };
    let sectors: Vec<Vec<u8>> = (0..4096u64)
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            p.fill_sector(seed, &mut b);
            b
        })
        .collect();
    let started = Instant::now();
    let mut stored = 0u64;
    for _ in 0..64 {
        for sector in &sectors {
            stored += SectorContent::from_bytes(sector).stored_bytes as u64;
        }
    }
    assert!(stored > 0);
    64.0 * 4096.0 * 4096.0 / 1e6 / started.elapsed().as_secs_f64()
}

fn main() {
    let raw: u64 = 32 * 2 * 64 * 256 * 8192;
    let user = (raw as f64 * 240e9 / (256u64 << 30) as f64) as u64 / 4096 * 4096;
    for pattern in ["repeating", "text", "random"] {
        let profile = load_profile("force-gs-240", &["nand.blocks_per_plane=64".into(), format!("drive.capacity_bytes_user={user}")]).unwrap();
        let mut drive = Drive::with_options(profile, DriveOptions { content: ContentMode::Real, ..DriveOptions::default() }).unwrap();
        let options: Vec<String> = ["rw=write", "bs=128k", "iodepth=32", "size=4g", &format!("data_pattern={pattern}")].iter().map(|s| s.to_string()).collect();
        let job = parse_options("bench", &options).unwrap();
        let mut run = Run::new(&drive, &job, 1, 0).unwrap();
        let started = Instant::now();
        while !run.advance(&mut drive, 1 << 20).unwrap() {}
        let wall = started.elapsed().as_secs_f64();
        let s = run.summary(&drive, wall);
        println!(
            "real bytes, {pattern:>9}: {:.0} MB of host data in {wall:.2} s wall = {:.0} MB/s per core (simulated {:.0} MB/s, WA {:.3})",
            s.host_write_bytes as f64 / 1e6,
            s.host_write_bytes as f64 / 1e6 / wall,
            s.write_mbps,
            s.write_amplification.unwrap_or(0.0)
        );
        println!("           engine alone (XXH3-128 + LZ4 of pre-made sectors): {:.0} MB/s per core", engine_only(pattern));
    }
}
