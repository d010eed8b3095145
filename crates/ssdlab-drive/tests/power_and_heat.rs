//! NVMe power states with APST and the thermal model (issue 20, item 4), on the Samsung 980 PRO
//! profile: a sustained write heats the drive to its throttle temperature and slows; idle time
//! cools it and the speed comes back; idle power in each state is the profile's; a command
//! arriving in a non-operational state pays the state's exit latency on top of its own time.

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_workload::parse_options;

/// The Samsung 980 PRO shrunk to 300 blocks per plane (56 GiB raw, the same user/raw ratio),
/// with `extra` overrides.
fn shrunk_980_pro(extra: &[&str]) -> Profile {
    let full = load_profile("samsung-980-pro-1tb", &[]).unwrap();
    let g = &full.geometry;
    let blocks = 300u64;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * blocks;
    let user = (raw as u128 * full.capacity_bytes_user as u128 / g.raw_bytes() as u128) as u64 / 4096 * 4096;
    let mut overrides = vec![format!("nand.blocks_per_plane={blocks}"), format!("drive.capacity_bytes_user={user}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile("samsung-980-pro-1tb", &overrides).unwrap()
}

fn run(session: &mut Session, items: &[String]) -> ssdlab_drive::RunSummary {
    let job = parse_options("t", items).unwrap();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    session.run_summary(&run, 0.0).unwrap()
}

/// Write `bytes` sequentially from `offset` (128 KiB at QD32); returns MB/s.
fn write(session: &mut Session, offset: u64, bytes: u64) -> f64 {
    run(session, &["rw=write", "bs=128k", "iodepth=32", &format!("offset={offset}"), &format!("size={bytes}")].map(String::from)).write_mbps
}

#[test]
fn a_sustained_write_throttles_and_idle_time_cools_the_drive_and_restores_the_speed() {
    // No SLC cache (every write programs TLC: one speed throughout), heat capacities an eighth
    // of the profile's (time constants of seconds, so the test runs in seconds of simulated
    // time) and a warm case.
    let profile = shrunk_980_pro(&[
        "slc_cache.static_bytes=0",
        "slc_cache.dynamic_max_bytes=0",
        "thermal.controller_j_per_k=0.5",
        "thermal.nand_j_per_k=1.0",
        "thermal.ambient_c=45.0",
    ]);
    let first_step_c = profile.thermal.as_ref().unwrap().steps[0].at_c;
    let hysteresis_c = profile.thermal.as_ref().unwrap().hysteresis_c;
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let chunk = 1u64 << 30;
    let mut cool_mbps = Vec::new();
    let mut hot_mbps = Vec::new();
    let mut peak_c: f64 = 0.0;
    for i in 0..30 {
        let mbps = write(&mut session, i * chunk, chunk);
        let t = session.state().thermal.unwrap();
        peak_c = peak_c.max(t.controller_c.max(t.nand_c));
        if t.throttle_step == 0 && hot_mbps.is_empty() {
            cool_mbps.push(mbps);
        } else if t.throttle_step > 0 {
            hot_mbps.push(mbps);
        }
    }
    assert!(peak_c >= first_step_c, "the drive never reached its throttle temperature ({peak_c:.1} C < {first_step_c} C)");
    assert!(!hot_mbps.is_empty(), "no chunk was written throttled (peak {peak_c:.1} C)");
    let cool = cool_mbps[cool_mbps.len() / 2];
    let hot = hot_mbps.iter().sum::<f64>() / hot_mbps.len() as f64;
    assert!(hot < 0.9 * cool, "throttled chunks average {hot:.0} MB/s against {cool:.0} MB/s cool: throttling should slow the writes");
    // Two minutes of idle: the drive cools below the step's release point and the step lets go.
    session.idle(120_000_000_000).unwrap();
    let t = session.state().thermal.unwrap();
    assert!(t.throttle_step == 0 && t.controller_c.max(t.nand_c) < first_step_c - hysteresis_c, "after idle: {t:?}");
    // (The first chunk after idle starts with an empty write buffer: the second is compared.)
    write(&mut session, 30 * chunk, chunk);
    let again = write(&mut session, 31 * chunk, chunk);
    assert!((again - cool).abs() < 0.02 * cool, "after cooling the drive writes at {again:.0} MB/s against {cool:.0} MB/s before it heated");
}

#[test]
fn idle_power_in_each_state_is_the_profiles_and_apst_walks_down_the_states() {
    let profile = shrunk_980_pro(&[]);
    let states = profile.power.clone().unwrap().states;
    let idle_mw = profile.idle_watts() * 1e3;
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    // Mean power over an idle window, watts: the state energy over the window.
    let window = |session: &mut Session, from_s: f64, to_s: f64| -> (u32, f64) {
        let now = session.now_ns() as f64 / 1e9;
        session.idle(((from_s - now) * 1e9) as u64).unwrap();
        let e0 = session.state().state_energy_joules.unwrap();
        session.idle(((to_s - from_s) * 1e9) as u64).unwrap();
        let s = session.state();
        (s.power_state.unwrap().state, (s.state_energy_joules.unwrap() - e0) / (to_s - from_s) * 1e3)
    };
    // Linux's APST table of the profile: PS3 after 160 ms of idle (entered 2 ms later), PS4
    // after 500 ms more (0.5 ms to enter).
    let (state, mw) = window(&mut session, 0.0, 0.15);
    assert_eq!(state, 0);
    assert!((mw - idle_mw).abs() < 1e-6, "PS0 idle {mw} mW against the profile's {idle_mw} mW");
    let (state, mw) = window(&mut session, 0.2, 0.6);
    assert_eq!(state, 3);
    assert!((mw - states[3].max_mw).abs() < 1e-6, "PS3 {mw} mW against {}", states[3].max_mw);
    let (state, mw) = window(&mut session, 1.0, 60.0);
    assert_eq!(state, 4);
    assert!((mw - states[4].max_mw).abs() < 1e-6, "PS4 {mw} mW against {}", states[4].max_mw);
    // The host's operational states draw the idle power (below their ceilings).
    for ps in [1u32, 2] {
        session.set_power_state(ps).unwrap();
        session.set_apst(false).unwrap();
        let now = session.now_ns() as f64 / 1e9;
        let (state, mw) = window(&mut session, now, now + 10.0);
        assert_eq!(state, ps);
        assert!((mw - idle_mw.min(states[ps as usize].max_mw)).abs() < 1e-6, "PS{ps} idle {mw} mW");
        session.set_apst(true).unwrap();
    }
}

#[test]
fn working_power_stays_within_ps0_and_wake_up_from_ps4_costs_its_exit_latency() {
    let profile = shrunk_980_pro(&[]);
    let ps0_w = profile.power.as_ref().unwrap().states[0].max_mw / 1e3;
    let exit_ps4 = profile.power.as_ref().unwrap().states[4].exit_latency_ns;
    let mut session = Session::new(profile, DriveOptions::default(), 1).unwrap();
    session.secure_erase();
    let write = run(&mut session, &["rw=write", "bs=128k", "iodepth=32", "size=16g"].map(String::from));
    let read = run(&mut session, &["rw=randread", "bs=4k", "iodepth=32", "size=16g", "runtime=5", "time_based"].map(String::from));
    for (what, s) in [("sequential write", &write), ("random read", &read)] {
        assert!(s.mean_power_watts > 1.0 && s.mean_power_watts <= ps0_w, "{what}: {:.2} W against PS0's {ps0_w} W", s.mean_power_watts);
    }
    // A minute of idle first: folding moves the SLC cache's data into TLC (the drive rests only
    // once its own work is done). Then one 4 KiB read at QD1, three times, of the same sector:
    // right away, after 10 ms of idle (still PS0), and after 2 s (APST took the drive to PS4).
    session.idle(60_000_000_000).unwrap();
    let one_read = |session: &mut Session| run(session, &["rw=randread", "bs=4k", "iodepth=1", "size=4k", "number_ios=1"].map(String::from));
    one_read(&mut session);
    session.idle(10_000_000).unwrap();
    let ps0 = one_read(&mut session);
    session.idle(2_000_000_000).unwrap();
    assert_eq!(session.state().power_state.unwrap().state, 4);
    let ps4 = one_read(&mut session);
    let lat = |s: &ssdlab_drive::RunSummary| (s.latency_us.as_ref().unwrap().mean * 1e3).round() as u64;
    assert_eq!(lat(&ps4), lat(&ps0) + exit_ps4, "wake-up from PS4: {} ns against {} ns in PS0 plus the {} ns exit latency", lat(&ps4), lat(&ps0), exit_ps4);
    assert_eq!(session.state().power_state.unwrap().state, 0);
}

#[test]
fn reads_during_writes_suspend_programs_and_wait_less() {
    // 70/30 random reads and writes at QD4 over data written before, on the drive whose NAND
    // lets host reads go ahead of queued programs and erases and suspend the one in progress (up
    // to four times), on the same drive whose reads go first without suspend (they wait for the
    // program in progress), and first come, first served. No SLC cache: every write is a TLC
    // program (653 us), where a read waiting for it shows.
    let read_tail = |extra: &[&str]| {
        let mut overrides = vec!["slc_cache.static_bytes=0", "slc_cache.dynamic_max_bytes=0"];
        overrides.extend_from_slice(extra);
        let mut session = Session::new(shrunk_980_pro(&overrides), DriveOptions::default(), 3).unwrap();
        session.secure_erase();
        run(&mut session, &["rw=write", "bs=128k", "iodepth=32", "size=8g"].map(String::from));
        session.idle(60_000_000_000).unwrap();
        let s = run(&mut session, &["rw=randrw", "rwmixread=70", "bs=4k", "iodepth=4", "size=8g", "runtime=3", "time_based"].map(String::from));
        let r = s.read_latency_us.unwrap();
        (r.mean, r.p99, session.drive().flash().counters().suspends)
    };
    let (with_mean, with_p99, suspends) = read_tail(&[]);
    let (first_mean, first_p99, no_suspends) = read_tail(&["media.suspend_latency_ns=0"]);
    let (without_mean, without_p99, none) = read_tail(&["media.suspend_latency_ns=0", "controller.reads_first=false"]);
    eprintln!(
        "reads: mean {with_mean:.0} us, p99 {with_p99:.0} us with suspend ({suspends} suspends); mean {first_mean:.0} us, p99 \
         {first_p99:.0} us first without suspend; mean {without_mean:.0} us, p99 {without_p99:.0} us first come, first served"
    );
    assert!(suspends > 0 && no_suspends == 0 && none == 0);
    assert!(with_p99 < 0.5 * without_p99 && with_mean < without_mean, "with suspend p99 {with_p99} us, without {without_p99} us");
    // At QD4 over idle dies little is queued behind the program in progress: reads first
    // without suspend gain little here (tests/reads_first.rs shows where they do), and never lose.
    assert!(with_p99 < first_p99 && first_p99 <= without_p99, "p99 {with_p99} / {first_p99} / {without_p99} us");
}

#[test]
fn a_fast_forwarded_fill_heats_the_drive_as_a_timed_one_and_apst_counts_from_its_end() {
    // The 980 PRO shrunk, filled sequentially (128 KiB QD32) timed and fast-forwarded: the
    // same work heats the drive over the step's time either way (the fast-forward's time is a
    // lower bound of the timed one's), the controller counts busy throughout, and APST's idle
    // timer starts at the step's end. (Where the timed fill would throttle, the fast-forward,
    // not throttled, ends hotter: docs/todays-drives.md.)
    let fill = |fast: bool| {
        let mut session = Session::new(shrunk_980_pro(&[]), DriveOptions::default(), 5).unwrap();
        session.secure_erase();
        let ambient_c = session.drive().profile().thermal.as_ref().unwrap().ambient_c;
        let job = parse_options("fill", &["rw=write", "bs=128k", "iodepth=32"].map(String::from)).unwrap();
        if fast {
            let mut ff = session.start_fast_forward(&job, None, None).unwrap();
            while !session.advance_fast_forward(&mut ff, 1 << 16).unwrap() {}
        } else {
            let mut run = session.start_run(&job, None, None).unwrap();
            while !session.advance_run(&mut run, u64::MAX).unwrap() {}
            session.wait_until_idle();
        }
        let t = session.state().thermal.unwrap();
        // APST's first step (PS3 after 160 ms idle): still PS0 just before it, counted from
        // the step's end, PS3 (entering) just after.
        let first_ns = session.drive().profile().power.as_ref().unwrap().apst_path().next().unwrap().1.apst_idle_ns.unwrap();
        let now = session.now_ns();
        let ps = (
            session.drive().power_state_at(now + first_ns - 1_000_000).unwrap().state,
            session.drive().power_state_at(now + first_ns + 1_000_000).unwrap().state,
        );
        (session, ambient_c, t, ps)
    };
    let (timed, ambient_c, t_timed, ps_timed) = fill(false);
    let (fast, _, t_fast, ps_fast) = fill(true);
    eprintln!("timed: {t_timed:?} {ps_timed:?} at {} s; fast: {t_fast:?} {ps_fast:?} at {} s", timed.now_ns() as f64 / 1e9, fast.now_ns() as f64 / 1e9);
    assert_eq!((ps_timed, ps_fast), ((0, 3), (0, 3)));
    for (what, f, t) in [("controller", t_fast.controller_c, t_timed.controller_c), ("NAND", t_fast.nand_c, t_timed.nand_c)] {
        let (rise_f, rise_t) = (f - ambient_c, t - ambient_c);
        assert!(
            rise_t > 5.0 && (rise_f - rise_t).abs() <= 0.1 * rise_t,
            "{what}: {f:.2} C after the fast-forward against {t:.2} C timed (ambient {ambient_c} C)"
        );
    }
}
