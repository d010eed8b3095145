//! Firmware metadata written to flash (issue 21): the journal and the map pages a checkpoint
//! writes back cost NAND writes, counted apart in a run's summary; a DRAM-less controller
//! reads each map page before writing it back; WA of highly compressible data is no longer an
//! exact multiple of one ECC unit in eight.

use ssdlab_drive::{DriveOptions, RunSummary, Session};
use ssdlab_profile::load_profile;
use ssdlab_workload::parse_options;

/// A profile shrunk to 32 blocks per plane with 20% spare (enough for any GC schedule's
/// marks on so few blocks), with `extra` overrides.
fn shrunk(name: &str, extra: &[&str]) -> ssdlab_profile::Profile {
    let full = load_profile(name, &[]).unwrap();
    let g = &full.geometry;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * 32;
    let user = raw / 5 * 4 / 4096 * 4096;
    let mut overrides = vec!["nand.blocks_per_plane=32".to_string(), format!("drive.capacity_bytes_user={user}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile(name, &overrides).unwrap()
}

fn run(session: &mut Session, job: &str) -> RunSummary {
    let items: Vec<String> = job.split(' ').map(str::to_string).collect();
    let spec = parse_options("metadata", &items).unwrap();
    let mut run = session.start_run(&spec, Some(7), None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    session.run_summary(&run, 0.0).unwrap()
}

/// Sequential fill, then random 4 KiB writes of the span's size.
fn fill_then_random(name: &str, extra: &[&str], pattern: &str) -> (RunSummary, RunSummary) {
    let profile = shrunk(name, extra);
    let span = profile.usable_bytes();
    let mut session = Session::new(profile, DriveOptions::default(), 3).unwrap();
    session.secure_erase();
    let fill = run(&mut session, &format!("rw=write bs=128k iodepth=32 data_pattern={pattern}"));
    let random = run(&mut session, &format!("rw=randwrite bs=4k iodepth=32 io_size={} data_pattern={pattern}", span / 4096 * 4096));
    (fill, random)
}

#[test]
fn metadata_costs_nand_writes_and_dram_less_controllers_read_map_pages_back() {
    // A conventional drive with DRAM: journal and map write-back, no map reads.
    let (fill, random) = fill_then_random("samsung-830-256", &[], "random");
    let m = random.metadata.clone().expect("the 830 writes its metadata to flash");
    println!("samsung-830-256 random writes: WA {:.3}, metadata {:?}", random.write_amplification.unwrap(), m);
    assert!(m.checkpoints > 0 && m.journal_write_bytes > 0 && m.map_write_bytes > 0, "{m:?}");
    assert_eq!(m.map_pages_read, 0, "a controller with DRAM holds the whole map: no map page is read back");
    let wa_meta = m.wa_metadata.unwrap();
    assert!((0.005..0.10).contains(&wa_meta), "metadata per host byte {wa_meta}");
    // Sequential writes dirty a map page per thousands of sectors: far less.
    let seq = fill.metadata.unwrap().wa_metadata.unwrap();
    assert!(seq < wa_meta / 5.0, "sequential fill metadata {seq} vs random {wa_meta}");

    // The same drive without metadata writes: lower WA.
    let (_, plain) = fill_then_random("samsung-830-256", &["controller.metadata_writes=false"], "random");
    assert!(plain.metadata.is_none());
    assert!(plain.write_amplification.unwrap() < random.write_amplification.unwrap());

    // A DRAM-less SandForce drive reads each map page before writing it back.
    let (_, sf) = fill_then_random("force-gs-240", &[], "random");
    let m = sf.metadata.unwrap();
    println!("force-gs-240 random writes: metadata {m:?}");
    assert!(m.map_pages_read > 0, "{m:?}");
}

#[test]
fn compressible_data_wa_is_no_longer_a_multiple_of_one_ecc_unit_in_eight() {
    // Iometer's repeating bytes compress to one 512-byte ECC unit of eight per 4 KiB sector:
    // without metadata a sequential fill's WA is 1/8 exactly (to rounding at the end).
    let (fill, _) = fill_then_random("force-gs-240", &["controller.metadata_writes=false"], "repeating");
    let bare = fill.write_amplification.unwrap();
    let (fill, _) = fill_then_random("force-gs-240", &[], "repeating");
    let with = fill.write_amplification.unwrap();
    println!("compressible fill: WA {bare:.6} without metadata, {with:.6} with");
    assert!((bare - 0.125).abs() < 1e-4, "{bare}");
    assert!(with > 0.1255, "{with}: metadata adds to a compressible fill's WA");
}
