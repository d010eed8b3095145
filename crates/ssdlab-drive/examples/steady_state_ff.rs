//! Benchmark: steady state by fast-forward. Secure erase, sequential fill and random fill of
//! twice the span, both fast-forwarded (or timed with `--timed`), then a measured run of 4 KiB
//! random writes at QD32. Prints wall time per phase, flash writes per wall second of the
//! fast-forward, the measured phase and peak RAM.
//!
//! `cargo run --release -p ssdlab-drive --example steady_state_ff -- [--timed] PROFILE MEASURED_IOS [section.field=value ...]`

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::load_profile;
use std::time::Instant;

mod common;
use common::{peak_rss_bytes, Args};

fn job(text: &str) -> ssdlab_workload::JobSpec {
    common::job("bench", &text.split(' ').collect::<Vec<_>>())
}

fn main() {
    let mut args = Args::from_env();
    let timed = args.take_flag("--timed");
    let profile_name = args.text(0, "conventional-240");
    let measured = args.number(1, "measured_writes", 10_000_000);
    let overrides = args.rest(2);
    let started = Instant::now();
    let profile = load_profile(&profile_name, &overrides).unwrap();
    let raw_gib = profile.raw_bytes() as f64 / (1u64 << 30) as f64;
    println!("profile {profile_name} {overrides:?}: {raw_gib:.0} GiB raw, preconditioning {}", if timed { "timed" } else { "fast-forwarded" });
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let span = session.drive().usable_bytes();
    for text in ["rw=write bs=128k iodepth=32".to_string(), format!("rw=randwrite bs=4k iodepth=32 io_size={}", 2 * span)] {
        let t = Instant::now();
        let before = session.drive().flash().counters().clone();
        let host_before = session.drive().counters().host_write_bytes;
        let spec = job(&text);
        if timed {
            let mut run = session.start_run(&spec, None, None).unwrap();
            while !session.advance_run(&mut run, 1 << 20).unwrap() {}
            session.wait_until_idle();
        } else {
            let mut ff = session.start_fast_forward(&spec, None, None).unwrap();
            while !session.advance_fast_forward(&mut ff, 1 << 20).unwrap() {}
        }
        let wall = t.elapsed().as_secs_f64();
        let after = session.drive().flash().counters();
        let unit = session.drive().profile().geometry.page_bytes as f64 * session.drive().profile().geometry.planes_per_die as f64;
        let programs = (after.bytes_programmed_host + after.bytes_programmed_internal - before.bytes_programmed_host - before.bytes_programmed_internal) as f64;
        let slots = programs / 4096.0;
        println!(
            "{}: {wall:.2} s wall, {slots:.0} 4 KiB slots programmed = {:.2} million per wall second ({:.0} units), WA {:.3}, clock now {:.0} s",
            text.split(' ').next().unwrap(),
            slots / wall / 1e6,
            programs / unit,
            programs / ((session.drive().counters().host_write_bytes - host_before) as f64).max(1.0),
            session.now_ns() as f64 / 1e9
        );
    }
    let t = Instant::now();
    let spec = job(&format!("rw=randwrite bs=4k iodepth=32 number_ios={measured}"));
    let mut run = session.start_run(&spec, None, None).unwrap();
    while !session.advance_run(&mut run, 1 << 20).unwrap() {}
    let wall = t.elapsed().as_secs_f64();
    let s = session.run_summary(&run, wall).unwrap();
    println!(
        "measured: {} IOs, {:.0} IOPS, WA {:.3}, {wall:.2} s wall = {:.2} million host writes per wall second",
        s.ios,
        s.iops,
        s.write_amplification.unwrap_or(0.0),
        s.ios as f64 / wall / 1e6
    );
    let rss = peak_rss_bytes();
    println!(
        "all-in {:.1} s wall; peak RSS {:.0} MiB = {:.2} MiB per raw GiB",
        started.elapsed().as_secs_f64(),
        rss as f64 / 1048576.0,
        rss as f64 / 1048576.0 / raw_gib
    );
}
