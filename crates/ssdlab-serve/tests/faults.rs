//! The failure modes of the flawed drives of the era (Zheng et al., FAST'13), each at a power
//! cut on a tiny drive: what a lying flush, an unserializable write, a map that goes back in
//! time and a dead drive do, and that a fault with probability P strikes at some cuts only.

mod common;

use common::{sector_bytes, sector_value, tiny, TempDir, SECTOR};
use ssdlab_serve::{Faults, ServeConfig, Server};

fn config(dir: &TempDir, faults: &str, seed: u64) -> ServeConfig {
    let mut cfg = tiny(&dir.path().join("drive.img"), false, false);
    cfg.faults = Faults::parse(faults).unwrap();
    cfg.seed = seed;
    cfg
}

/// Write 4 KiB sector `lba` (eight 512-byte values from `id`).
fn put(server: &Server, lba: u64, id: u64) {
    let data: Vec<u8> = (0..8).flat_map(|k| sector_bytes(id * 8 + k)).collect();
    server.write(&data, lba * 4096, false).unwrap();
}

/// Whether 4 KiB sector `lba` holds what `put(lba, id)` wrote; `None` when it reads as zeros.
fn holds(server: &Server, lba: u64, id: u64) -> Option<bool> {
    let mut buf = vec![0u8; 4096];
    server.read(&mut buf, lba * 4096).unwrap();
    if buf.iter().all(|&b| b == 0) {
        return None;
    }
    Some(buf.chunks(SECTOR as usize).enumerate().all(|(k, c)| sector_value(c) == Some(id * 8 + k as u64)))
}

fn restart(cfg: &ServeConfig) -> (Server, ssdlab_serve::CutReport) {
    let server = Server::start(cfg).unwrap();
    let cut = server.recovery().and_then(|r| r.power_cut).expect("the cut is in the journal");
    (server, cut)
}

#[test]
fn a_lying_flush_loses_flushed_data_an_honest_one_never_does() {
    for faults in ["", "lying-flush"] {
        let dir = TempDir::new("fault-lying");
        let cfg = config(&dir, faults, 1);
        let server = Server::start(&cfg).unwrap();
        // Three sectors: less than a program unit, so they wait in the buffer for more.
        for lba in 0..3 {
            put(&server, lba, 100 + lba);
        }
        server.flush().unwrap();
        server.power_cut();
        drop(server);
        let (server, cut) = restart(&cfg);
        let back: Vec<Option<bool>> = (0..3).map(|lba| holds(&server, lba, 100 + lba)).collect();
        if faults.is_empty() {
            assert_eq!(cut.lost_flushed_sectors, 0, "{cut}");
            assert_eq!(back, vec![Some(true); 3]);
        } else {
            assert_eq!(cut.lost_flushed_sectors, 3, "{cut}");
            assert_eq!(back, vec![None; 3], "{cut}");
            assert_eq!(cut.faults, vec!["lying-flush".to_string()]);
        }
    }
}

#[test]
fn an_unserializable_write_is_lost_while_a_later_one_survives() {
    let dir = TempDir::new("fault-unserializable");
    let mut cfg = config(&dir, "unserializable-writes", 3);
    // Emulated time, and a pause before the cut: the drive programs what it took meanwhile.
    cfg.latency = ssdlab_serve::Latency::Emulate;
    let server = Server::start(&cfg).unwrap();
    for lba in 0..40 {
        put(&server, lba * 3, 200 + lba);
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    server.power_cut();
    drop(server);
    cfg.latency = ssdlab_serve::Latency::None;
    let (server, cut) = restart(&cfg);
    assert_eq!(cut.faults, vec!["unserializable-writes".to_string()], "{cut}");
    let back: Vec<Option<bool>> = (0..40).map(|lba| holds(&server, lba * 3, 200 + lba)).collect();
    assert!(back.iter().all(|b| *b != Some(false)), "wrong bytes: {back:?}");
    let first_lost = back.iter().position(|b| b.is_none()).expect("a write was lost");
    assert!(back[first_lost + 1..].contains(&Some(true)), "no later write survived the lost one: {back:?}");
}

#[test]
fn a_corrupted_map_comes_back_older_and_a_dead_drive_answers_nothing_until_erased() {
    let dir = TempDir::new("fault-metadata");
    let cfg = config(&dir, "metadata-corruption", 5);
    let server = Server::start(&cfg).unwrap();
    for round in 0..3 {
        for lba in 0..8 {
            put(&server, round * 100 + lba, 300 + round * 100 + lba);
        }
        server.flush().unwrap();
    }
    server.power_cut();
    drop(server);
    let (server, cut) = restart(&cfg);
    assert_eq!(cut.faults, vec!["metadata-corruption".to_string()], "{cut}");
    // The last flushed round is forgotten (the journal went back at least one batch).
    assert!((0..8).all(|lba| holds(&server, 200 + lba, 500 + lba).is_none()), "the map did not go back");
    drop(server);

    let dir = TempDir::new("fault-dead");
    let mut cfg = config(&dir, "dead-device", 1);
    let server = Server::start(&cfg).unwrap();
    put(&server, 1, 9);
    server.flush().unwrap();
    server.power_cut();
    drop(server);
    let server = Server::start(&cfg).unwrap();
    let mut buf = vec![0u8; 4096];
    let refused = server.read(&mut buf, 4096).unwrap_err();
    assert!(refused.errno == libc::EIO && refused.message.contains("--secure-erase"), "{}", refused.message);
    assert!(server.write(&buf, 0, false).is_err());
    drop(server);
    cfg.secure_erase = true;
    let server = Server::start(&cfg).unwrap();
    assert_eq!(holds(&server, 1, 9), None, "a secure erase empties the drive");
    put(&server, 1, 10);
    assert_eq!(holds(&server, 1, 10), Some(true));
}

#[test]
fn a_map_gone_back_several_batches_is_served_again_and_again() {
    // Twelve flushed rounds: twelve journal batches, so the fault mostly goes back more than
    // one. The batches after the one it goes back to must be gone, not left after the end
    // marker, where recovery took them for damage and refused the file.
    for seed in 1..=6 {
        let dir = TempDir::new("fault-metadata-deep");
        let cfg = config(&dir, "metadata-corruption", seed);
        let server = Server::start(&cfg).unwrap();
        for round in 0..12 {
            for lba in 0..4 {
                put(&server, round * 10 + lba, 1000 + round * 10 + lba);
            }
            server.flush().unwrap();
        }
        server.power_cut();
        drop(server);
        let server = Server::start(&cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let cut = server.recovery().and_then(|r| r.power_cut).expect("the cut is in the journal");
        assert_eq!(cut.faults, vec!["metadata-corruption".to_string()], "seed {seed}: {cut}");
        // What comes back is a prefix of the rounds: every round up to some point, none after.
        let kept: Vec<bool> = (0..12).map(|round| (0..4).all(|lba| holds(&server, round * 10 + lba, 1000 + round * 10 + lba) == Some(true))).collect();
        let first_lost = kept.iter().position(|k| !k).unwrap_or_else(|| panic!("seed {seed}: the map did not go back"));
        assert!(kept[first_lost..].iter().all(|k| !k), "seed {seed}: not a prefix: {kept:?}");
        // Written after recovery, then stopped and started again: served, with the new write.
        put(&server, 500, 77);
        server.flush().unwrap();
        drop(server);
        let server = Server::start(&cfg).unwrap_or_else(|e| panic!("seed {seed}, second start: {e}"));
        assert_eq!(holds(&server, 500, 77), Some(true), "seed {seed}");
    }
}

#[test]
fn a_power_cut_is_reported_at_the_start_after_it_not_after_later_unclean_stops() {
    let dir = TempDir::new("cut-report-once");
    let cfg = config(&dir, "", 1);
    let server = Server::start(&cfg).unwrap();
    for lba in 0..5 {
        put(&server, lba, 40 + lba);
    }
    server.power_cut();
    drop(server);
    let server = Server::start(&cfg).unwrap();
    assert!(server.recovery().and_then(|r| r.power_cut).is_some(), "the cut is reported at the start after it");
    put(&server, 100, 7);
    server.flush().unwrap();
    // An unclean stop (the process killed): the next start recovers, and the old cut is not
    // reported as if it had happened at this stop.
    drop(server);
    let server = Server::start(&cfg).unwrap();
    let recovery = server.recovery().expect("an unclean stop is recovered");
    assert!(recovery.power_cut.is_none(), "an earlier cut reported again: {recovery:?}");
    assert_eq!(holds(&server, 100, 7), Some(true));
}

#[test]
fn a_fault_with_probability_strikes_at_some_cuts() {
    let mut struck = 0;
    for seed in 1..=16 {
        let dir = TempDir::new("fault-p");
        let cfg = config(&dir, "dead-device=0.5", seed);
        let server = Server::start(&cfg).unwrap();
        put(&server, 0, 1);
        server.power_cut();
        drop(server);
        let server = Server::start(&cfg).unwrap();
        let mut buf = vec![0u8; 4096];
        struck += server.read(&mut buf, 0).is_err() as u32;
    }
    assert!((3..=13).contains(&struck), "dead-device=0.5 struck at {struck} of 16 cuts");
    assert!(Faults::parse("dead-device=0").is_err() && Faults::parse("dead-device=1.5").is_err() && Faults::parse("melted").is_err());
}
