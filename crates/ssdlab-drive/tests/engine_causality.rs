//! Causality of the data-reduction engine: nothing reaches the flash before the engine's back
//! end has encoded it, and garbage collection's copies pass through the same back end.

mod common;

use ssdlab_drive::Drive;
use ssdlab_profile::{load_profile, Profile};
use ssdlab_workload::{Io, Op};

/// The Force GS layout shrunk to 64 blocks per plane (8 GiB raw), engine on, the whole map in
/// DRAM, with extra overrides.
fn small_sandforce(extra: &[&str]) -> Profile {
    let raw: u64 = 32 * 2 * 64 * 256 * 8192;
    let user = raw * 88 / 100 / 4096 * 4096;
    let mut overrides = vec!["nand.blocks_per_plane=64".to_string(), format!("drive.capacity_bytes_user={user}"), "controller.map_cache_bytes=0".to_string()];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    load_profile("force-gs-240", &overrides).unwrap()
}

#[test]
fn a_program_never_starts_before_its_data_has_left_the_engine_back_end() {
    // Regression: programs were booked when the front end (hash, compress) finished, up to
    // milliseconds before the back end (encryption, ECC) had encoded the data.
    let p = small_sandforce(&[]);
    let t_prog = p.timing.t_prog_ns;
    let mut drive = Drive::new(p).unwrap();
    // 1 MiB of incompressible data at QD1 on an idle drive: the back end (280 MB/s) is the
    // slowest stage, so the command completes when its last sector leaves it.
    let io = Io { op: Op::Write, offset_bytes: 0, len_bytes: 1 << 20 };
    let acknowledged = drive.submit(&io, 0).unwrap();
    // The unit holding the last sector cannot start programming before that sector was
    // encoded, so the flush that waits for it ends at least a tPROG later.
    let flushed = drive.flush(acknowledged);
    assert!(
        flushed >= acknowledged + t_prog,
        "the last program ended at {flushed} ns, less than tPROG ({t_prog} ns) after its data left the back end at {acknowledged} ns"
    );
}

#[test]
fn garbage_collection_copies_pass_through_the_engine_back_end() {
    // Regression: GC moved data between blocks without the engine, so a tortured SandForce
    // drive wrote faster than its back end could have encoded host data and GC copies.
    let backend_mbps = 100u64;
    let p = small_sandforce(&[&format!("reduction.backend_write_mbps={backend_mbps}"), &format!("reduction.backend_read_mbps={backend_mbps}")]);
    let mut drive = Drive::new(p).unwrap();
    let (_, end) = common::run_job(&mut drive, &["rw=write", "bs=128k", "iodepth=32"], 1, 0);
    let (_, end) = common::run_job(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=32", "runtime=20", "time_based"], 2, end);
    let (s, _) = common::run_job(&mut drive, &["rw=randwrite", "bs=4k", "iodepth=32", "runtime=20", "time_based"], 3, end);
    assert!(s.nand_write_bytes_gc > s.nand_write_bytes_host, "the drive must be in GC-heavy steady state (WA {:?})", s.write_amplification);
    // Every host byte stored is encoded once; every GC byte is decoded and encoded again.
    let back_end_bytes_per_second = (s.nand_write_bytes_host + 2 * s.nand_write_bytes_gc) as f64 / s.simulated_seconds;
    assert!(
        back_end_bytes_per_second <= backend_mbps as f64 * 1e6 * 1.02,
        "host and GC data need {:.1} MB/s of back end, more than its {backend_mbps} MB/s",
        back_end_bytes_per_second / 1e6
    );
    let engine = drive.engine_counters().expect("a data-reduction drive has an engine");
    assert!(engine.gc_recoded_bytes > 0);
}
