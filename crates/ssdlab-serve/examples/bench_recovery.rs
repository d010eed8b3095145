//! Recovery time and metadata overhead of a served drive (BENCHMARKS.md, "power loss").
//!
//! Serves the default drive (force-gs-240) from a backing file without nbdkit, writes
//! `--stored-gib` GiB of host data in 1 MiB writes (distinct, compressible sectors, as text is),
//! flushing every 256 MiB, then writes 1 GiB more without a flush and drops the server (as
//! `kill -9` leaves it). Reports the metadata written (journal pages, checkpoints, headers) over
//! the host bytes, then starts the server again and times the recovery.
//!
//! cargo run --release -p ssdlab-serve --example bench_recovery -- --stored-gib 64 --backing /tmp/bench.img

use ssdlab_serve::{ServeConfig, Server};
use std::time::Instant;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.to_string())
}

fn mib_of_text(index: u64) -> Vec<u8> {
    let mut data = Vec::with_capacity(1 << 20);
    for sector in 0..256u64 {
        let mut block = format!("sector {} of the recovery benchmark; ", index * 256 + sector).into_bytes();
        while block.len() < 4096 {
            block.extend_from_slice(b"the quick brown fox jumps over the lazy dog, ");
        }
        data.extend_from_slice(&block[..4096]);
    }
    data
}

fn main() {
    let gib: u64 = arg("--stored-gib", "64").parse().expect("--stored-gib N");
    let backing = arg("--backing", "/tmp/ssdlab-bench-recovery.img");
    let _ = std::fs::remove_file(&backing);
    let config = ServeConfig::new("force-gs-240", &backing);
    let server = Server::start(&config).expect("start");
    let started = Instant::now();
    let total_mib = gib * 1024;
    for i in 0..total_mib + 1024 {
        server.write(&mib_of_text(i), (i % (200 * 1024)) << 20, false).expect("write");
        if (i + 1) % 256 == 0 && i < total_mib {
            server.flush().expect("flush");
        }
        if (i + 1) % 4096 == 0 {
            eprintln!("  {} GiB written, {:.0} s", (i + 1) / 1024, started.elapsed().as_secs_f64());
        }
    }
    let write_s = started.elapsed().as_secs_f64();
    let stats: serde_json::Value = serde_json::from_str(&server.stats_json()).unwrap();
    drop(server); // killed: no clean shutdown
    let file = std::fs::metadata(&backing).unwrap();
    let allocated = std::os::unix::fs::MetadataExt::blocks(&file) * 512;
    let started = Instant::now();
    let server = Server::start(&config).expect("recover");
    let start_s = started.elapsed().as_secs_f64();
    let report = server.recovery().expect("an unclean stop is recovered");
    println!("host data written: {} GiB in {write_s:.0} s", gib + 1);
    println!("backing file allocated: {:.2} GiB", allocated as f64 / (1u64 << 30) as f64);
    println!(
        "metadata written: {:.2} GiB = {:.4} of host bytes (host {:.2} GiB)",
        stats["metadata_write_bytes"].as_f64().unwrap() / (1u64 << 30) as f64,
        stats["metadata_write_amplification"].as_f64().unwrap(),
        stats["host_write_bytes"].as_f64().unwrap() / (1u64 << 30) as f64
    );
    println!("recovery: {report}");
    println!("start-up after the kill (recovery included): {start_s:.2} s");
    server.shutdown().unwrap();
    let _ = std::fs::remove_file(&backing);
}
