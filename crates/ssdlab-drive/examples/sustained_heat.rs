//! A review's thermal test: a sustained 128 KiB sequential write at QD32 from a secure-erased
//! drive for a given time (the whole drive again and again), printing write speed, temperatures
//! and the throttling step every few seconds, with wall time.
//!
//! `cargo run --release -p ssdlab-drive --example sustained_heat -- PROFILE SECONDS [section.field=value ...]`

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::load_profile;

mod common;
use common::{job, Args};
use std::time::Instant;

fn main() {
    let args = Args::from_env();
    let name = args.text(0, "samsung-980-pro-1tb");
    let seconds = args.number(1, "seconds", 1200);
    let overrides = args.rest(2);
    let profile = load_profile(&name, &overrides).unwrap();
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let job = job("heat", &["rw=write", "bs=128k", "iodepth=32", &format!("runtime={seconds}"), "time_based"]);
    let wall = Instant::now();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    let summary = session.run_summary(&run, wall.elapsed().as_secs_f64()).unwrap();
    println!(
        "{name}: {seconds} s sustained write, wall {:.1} s, mean {:.0} MB/s, mean power {:.2} W",
        summary.wall_seconds, summary.write_mbps, summary.mean_power_watts
    );
    let step = (run.series().len() / 40).max(1);
    for r in run.series().iter().step_by(step) {
        println!(
            "  {:>5} s {:>6.0} MB/s  controller {:>5.1} C  NAND {:>5.1} C  step {}",
            r.second,
            r.write_mbps,
            r.controller_c.unwrap_or(f64::NAN),
            r.nand_c.unwrap_or(f64::NAN),
            r.throttle_step.unwrap_or(0)
        );
    }
    println!("  state after: {}", serde_json::to_string(&session.state().thermal).unwrap());
}
