//! A review's whole-drive fill: secure erase, then 128 KiB sequential writes at QD32 over the
//! whole user space. Prints the SLC cache written at full speed, the rate after the cliff, the
//! average, the write amplification by tier, wall time and peak RSS.
//!
//! `cargo run --release -p ssdlab-drive --example whole_drive_fill -- PROFILE [section.field=value ...]`

use ssdlab_drive::{DriveOptions, FillFigures, Session};
use ssdlab_profile::load_profile;
use std::time::Instant;

mod common;
use common::{fill_job, peak_rss_bytes, Args};

fn main() {
    let args = Args::from_env();
    let name = args.text(0, "samsung-980-pro-1tb");
    let overrides = args.rest(1);
    let profile = load_profile(&name, &overrides).unwrap();
    let raw_gib = profile.raw_bytes() as f64 / (1u64 << 30) as f64;
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let job = fill_job("fill", &["rw=write", "bs=128k", "iodepth=32"]);
    let wall = Instant::now();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    let summary = session.run_summary(&run, wall.elapsed().as_secs_f64()).unwrap();
    let f = FillFigures::from_series(run.series());
    println!(
        "{name}: fill of {:.1} GB in {:.1} simulated s, wall {:.1} s",
        summary.host_write_bytes as f64 / 1e9,
        summary.simulated_seconds,
        summary.wall_seconds
    );
    println!(
        "  cache {:.1} GB at {:.0} MB/s, post-cache {:.0} MB/s, average {:.0} MB/s (cliff {})",
        f.cache_bytes / 1e9,
        f.cache_mbps,
        f.post_cache_mbps,
        f.average_mbps,
        f.cliff
    );
    println!("  WA {:.3}; tiers {}", summary.write_amplification.unwrap_or(0.0), serde_json::to_string(&summary.tiers).unwrap());
    let step = (run.series().len() / 40).max(1);
    let rows: Vec<String> = run.series().iter().step_by(step).map(|r| format!("{}s:{:.0}", r.second, r.write_mbps)).collect();
    println!("  series (MB/s): {}", rows.join(" "));
    println!("  peak RSS {:.0} MiB = {:.2} MiB per raw GiB", peak_rss_bytes() as f64 / 1048576.0, peak_rss_bytes() as f64 / 1048576.0 / raw_gib);
}
