//! A drive of today in steady state under 4 KiB random writes against the greedy-GC model
//! (docs/validation.md): sequential fill, then random writes QD32 over the whole span, several
//! drive writes; prints WA in total and per tier of the last pass beside the analytic greedy WA
//! at the drive's spare factor (Desnoyers' finite-block model, `ssdlab_ftl::analytic`).
//!
//! `cargo run --release -p ssdlab-drive --example greedy_wa_today -- [profile] [passes] [section.field=value ...]`

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_ftl::analytic::{greedy_wa_asymptotic, greedy_wa_finite};
use ssdlab_profile::load_profile;

mod common;
use common::Args;

fn main() {
    let args = Args::from_env();
    let name = args.text(0, "samsung-980-pro-1tb");
    let passes = args.number(1, "passes", 4);
    let overrides = args.rest(2);
    let profile = load_profile(&name, &overrides).unwrap();
    let user = profile.usable_bytes();
    let raw = profile.raw_bytes();
    let slots_per_block = profile.geometry.slots_per_block();
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let run = |session: &mut Session, job: ssdlab_workload::JobSpec| {
        let mut r = session.start_run(&job, None, None).unwrap();
        while !session.advance_run(&mut r, u64::MAX).unwrap() {}
        session.run_summary(&r, 0.0).unwrap()
    };
    run(&mut session, common::fill_job("t", &["rw=write", "bs=128k", "iodepth=32"]));
    for pass in 1..=passes {
        let s = run(&mut session, common::job("t", &["rw=randwrite", "bs=4k", "iodepth=32", &format!("io_size={}", user / 4096 * 4096)]));
        let t = s.tiers.clone().unwrap();
        println!(
            "pass {pass}: {:.0} IOPS, WA {:.3} (host into SLC {:.1} GB, native {:.1} GB, folding {:.1} GB, GC {:.1} GB)",
            s.iops,
            s.write_amplification.unwrap_or(0.0),
            t.slc_write_bytes as f64 / 1e9,
            t.native_write_bytes as f64 / 1e9,
            t.fold_write_bytes as f64 / 1e9,
            t.gc_write_bytes as f64 / 1e9
        );
    }
    let sf = 1.0 - user as f64 / raw as f64;
    println!(
        "spare factor (raw - user) / raw = {sf:.4}; greedy model: {:.3} with {slots_per_block} slots per block, {:.3} asymptotic",
        greedy_wa_finite(sf, slots_per_block),
        greedy_wa_asymptotic(sf)
    );
}
