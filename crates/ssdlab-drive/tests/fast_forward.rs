//! Fast-forwarded preconditioning against timed preconditioning, on every built-in profile
//! shrunk to a small array: the same FTL state byte for byte (placements, GC, wear, counters),
//! the same array and host counters, and measured phases after it that agree (WA to three
//! significant digits, IOPS and latency percentiles within 1%).

use ssdlab_drive::{DriveOptions, RunSummary, Session};
use ssdlab_profile::{builtin_names, load_profile, Profile};
use ssdlab_workload::parse_options;

const SEED: u64 = 23;

/// `name` shrunk to a small array that keeps its spare ratio, GC settings, media, cache share
/// and interface: fewer pages per block and blocks per plane (enough spare blocks per die for
/// its GC marks).
fn shrunk(name: &str) -> Profile {
    let full = load_profile(name, &[]).unwrap();
    let g = &full.geometry;
    let per_program = full.media.native_pages_per_program().max(1);
    let pages = (32 / per_program * per_program).max(per_program).min(g.pages_per_block);
    let spare = 1.0 - full.capacity_bytes_user as f64 / g.raw_bytes() as f64;
    let high = match full.ftl.gc_schedule {
        ssdlab_ftl::GcSchedule::Paced => 0,
        ssdlab_ftl::GcSchedule::Burst { high_free } => high_free,
        ssdlab_ftl::GcSchedule::Background { start_free, .. } => start_free,
    };
    let needed = full.ftl.gc_low_free_blocks_per_die.max(high) as f64 + 4.0;
    let blocks = ((needed / spare).ceil() as u64 + 2).max(32).min(g.blocks_per_plane as u64);
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 / g.pages_per_block as u64 * blocks * pages as u64;
    let ratio = raw as f64 / g.raw_bytes() as f64;
    let user = (full.capacity_bytes_user as f64 * ratio) as u64 / 4096 * 4096;
    let mut overrides = vec![format!("nand.pages_per_block={pages}"), format!("nand.blocks_per_plane={blocks}"), format!("drive.capacity_bytes_user={user}")];
    let text: toml::Value = toml::from_str(&full.source).unwrap();
    if let Some(slc) = text.get("slc_cache") {
        for key in ["static_bytes", "dynamic_max_bytes"] {
            if let Some(bytes) = slc.get(key).and_then(toml::Value::as_integer) {
                overrides.push(format!("slc_cache.{key}={}", (bytes as f64 * ratio) as u64));
            }
        }
    }
    let page = g.page_bytes as u64;
    if full.controller.map_cache_bytes > 0 {
        overrides.push(format!("controller.map_cache_bytes={}", ((full.controller.map_cache_bytes as f64 * ratio) as u64 / page).max(1) * page));
    }
    if full.controller.hmb_bytes > 0 {
        overrides.push(format!("controller.hmb_bytes={}", ((full.controller.hmb_bytes as f64 * ratio) as u64 / page).max(1) * page));
    }
    load_profile(name, &overrides).unwrap_or_else(|e| panic!("{name} shrunk with {overrides:?}: {e}"))
}

fn job(text: &str) -> ssdlab_workload::JobSpec {
    parse_options("ff", &text.split(' ').map(str::to_string).collect::<Vec<_>>()).unwrap()
}

fn run(session: &mut Session, text: &str) -> RunSummary {
    let spec = job(text);
    let mut r = session.start_run(&spec, None, None).unwrap();
    while !session.advance_run(&mut r, u64::MAX).unwrap() {}
    session.run_summary(&r, 0.0).unwrap()
}

/// Secure erase, sequential fill, random fill of twice the span: timed (each step ending once
/// the drive is idle, as `Drive.precondition` does) or fast-forwarded.
fn precondition(session: &mut Session, fast: bool) {
    session.secure_erase();
    let span = session.drive().usable_bytes();
    for text in ["rw=write bs=128k iodepth=32".to_string(), format!("rw=randwrite bs=4k iodepth=32 io_size={}", 2 * span)] {
        if fast {
            let spec = job(&text);
            let mut ff = session.start_fast_forward(&spec, None, None).unwrap();
            while !session.advance_fast_forward(&mut ff, 1 << 16).unwrap() {}
        } else {
            run(session, &text);
            session.wait_until_idle();
        }
    }
}

fn saved(session: &Session) -> Vec<u8> {
    let mut out = Vec::new();
    session.drive().save_state(&mut out).unwrap();
    out
}

fn close(name: &str, what: &str, fast: f64, timed: f64, tolerance: f64) {
    let diff = if timed == 0.0 { fast.abs() } else { (fast - timed).abs() / timed.abs() };
    assert!(diff <= tolerance, "{name}: {what} after fast-forward {fast} vs after timed preconditioning {timed} ({:+.3}%)", diff * 100.0);
}

fn compare_measured(name: &str, fast: &RunSummary, timed: &RunSummary) {
    if let (Some(f), Some(t)) = (fast.write_amplification, timed.write_amplification) {
        close(name, &format!("{} WA", fast.job), f, t, 0.0005);
    }
    close(name, &format!("{} IOPS", fast.job), fast.iops, timed.iops, 0.01);
    let (f, t) = (fast.latency_us.as_ref().unwrap(), timed.latency_us.as_ref().unwrap());
    close(name, &format!("{} mean latency", fast.job), f.mean, t.mean, 0.01);
    close(name, &format!("{} median latency", fast.job), f.p50, t.p50, 0.01);
    close(name, &format!("{} p99 latency", fast.job), f.p99, t.p99, 0.01);
}

#[test]
fn fast_forward_leaves_the_state_timed_preconditioning_leaves_on_every_profile() {
    for name in builtin_names() {
        let profile = shrunk(name);
        let mut timed = Session::new(profile.clone(), DriveOptions::default(), SEED).unwrap();
        let mut fast = Session::new(profile, DriveOptions::default(), SEED).unwrap();
        precondition(&mut timed, false);
        precondition(&mut fast, true);
        assert!(saved(&timed) == saved(&fast), "{name}: the FTL state or counters after fast-forward differ from timed preconditioning");
        assert_eq!(timed.drive().flash().counters(), fast.drive().flash().counters(), "{name}: array counters");
        assert_eq!(timed.drive().counters(), fast.drive().counters(), "{name}: host counters");
        assert!(
            fast.now_ns() > 0 && fast.now_ns() <= timed.now_ns(),
            "{name}: the fast-forward's end {} is no lower bound of the timed {}",
            fast.now_ns(),
            timed.now_ns()
        );
        let span = timed.drive().usable_bytes();
        // Enough commands for the measured phases to be figures (a few hundred thousand).
        let writes = format!("rw=randwrite bs=4k iodepth=32 number_ios={}", (span / 4096 / 4).min(400_000));
        let reads = "rw=randread bs=4k iodepth=32 number_ios=100000";
        for text in [writes.as_str(), reads] {
            let (f, t) = (run(&mut fast, text), run(&mut timed, text));
            eprintln!(
                "{name}: {}: IOPS {:.0} vs {:.0}, WA {:?} vs {:?}, p99 {:.1} vs {:.1} us",
                f.rw,
                f.iops,
                t.iops,
                f.write_amplification,
                t.write_amplification,
                f.latency_us.as_ref().unwrap().p99,
                t.latency_us.as_ref().unwrap().p99
            );
            compare_measured(name, &f, &t);
        }
    }
}

#[test]
fn jobs_whose_commands_depend_on_time_are_refused() {
    let mut session = Session::new(shrunk("conventional-240"), DriveOptions::default(), SEED).unwrap();
    for text in ["rw=randwrite bs=4k runtime=10 time_based", "rw=randread bs=4k", "rw=randwrite bs=4k numjobs=2", "rw=randwrite bs=4k ramp_time=1"] {
        let message = session.start_fast_forward(&job(text), None, None).err().unwrap_or_else(|| panic!("{text}: accepted")).to_string();
        assert!(message.contains("cannot be fast-forwarded"), "{text}: {message}");
    }
}
