//! Power loss against a reference model: a swarm of seeded cases, each a tiny drive (12 MiB raw,
//! so garbage collection runs all the time) taking random writes (512 B to 64 KiB, partial
//! sectors included), FUA writes, TRIMs, write-zeroes and flushes, cut off at random moments
//! (the server dropped as `kill -9` would leave it, or a simulated power cut that tears the
//! journal batch and the data program in flight), then restarted.
//!
//! After each restart the whole export is read back and must equal the reference image after
//! some prefix of the operations that were issued, no shorter than the last acknowledged flush
//! (with power-loss protection: no shorter than every acknowledged operation). So every write
//! acknowledged before the last acknowledged flush reads back exactly, trimmed sectors read as
//! zeros, and nothing reads back that was never written. A failure names its seed; rerun one
//! case with `SSDLAB_SEED=<seed> cargo test -p ssdlab-serve --test crash_recovery`;
//! `SSDLAB_CRASH_CASES=<n>` runs more cases.

mod common;

use common::{apply, matching_prefix, read_image, sector_bytes, tiny, tiny_today, Change, TempDir, SECTOR, TODAYS_DRIVES};
use ssdlab_core::SimRng;
use ssdlab_serve::Server;

/// One case on the tiny Force GS (`today`: `None`), or on the tiny form of one of today's drives.
fn run_case(seed: u64, today: Option<&str>) {
    let mut rng = SimRng::new(seed);
    let dir = TempDir::new("crash");
    let reduction = rng.below(3) != 0;
    let protected = rng.below(4) == 0;
    let cfg = match today {
        None => tiny(&dir.path().join("drive.img"), reduction, protected),
        Some(profile) => tiny_today(&dir.path().join("drive.img"), profile, protected),
    };
    let drive = today.unwrap_or(if reduction { "force-gs-240" } else { "force-gs-240, reduction off" });
    let mut server = Server::start(&cfg).unwrap_or_else(|e| panic!("seed {seed} ({drive}): start: {e}"));
    let sectors = server.size() / SECTOR;
    // The image as of the last durable point, and the changes issued since (with whether each
    // was acknowledged).
    let mut durable = vec![0u64; sectors as usize];
    let mut since: Vec<Change> = Vec::new();
    let mut next_id = seed << 24 | 1;
    let rounds = 3 + rng.below(3);
    for round in 0..rounds {
        let ops = 20 + rng.below(400);
        for _ in 0..ops {
            let pick = rng.below(100);
            let most = if rng.below(4) == 0 { 128 } else { 16 };
            let count = 1 + rng.below(most);
            let first = rng.below(sectors - count);
            match pick {
                0..=69 => {
                    let ids: Vec<u64> = (0..count).map(|i| if rng.below(20) == 0 { 0 } else { next_id + i }).collect();
                    next_id += count;
                    let data: Vec<u8> = ids.iter().flat_map(|&id| sector_bytes(id)).collect();
                    let fua = rng.below(15) == 0;
                    since.push(Change::Set { first, ids });
                    server.write(&data, first * SECTOR, fua).unwrap_or_else(|e| panic!("seed {seed} ({drive}): write: {}", e.message));
                    if fua {
                        // FUA covers the write itself and, since it flushes the drive, all before.
                        since.drain(..).for_each(|c| apply(&mut durable, &c));
                    }
                }
                70..=79 => {
                    // TRIM whole 4 KiB sectors.
                    let first4 = first / 8 * 8;
                    let count4 = (count.div_ceil(8) * 8).min(sectors - first4);
                    since.push(Change::Zero { first: first4, count: count4 });
                    server.trim(count4 * SECTOR, first4 * SECTOR, false).unwrap_or_else(|e| panic!("seed {seed} ({drive}): trim: {}", e.message));
                }
                80..=87 => {
                    since.push(Change::Zero { first, count });
                    server
                        .zero(count * SECTOR, first * SECTOR, rng.below(2) == 0, false, false)
                        .unwrap_or_else(|e| panic!("seed {seed} ({drive}): zero: {}", e.message));
                }
                _ => {
                    server.flush().unwrap_or_else(|e| panic!("seed {seed} ({drive}): flush: {}", e.message));
                    since.drain(..).for_each(|c| apply(&mut durable, &c));
                }
            }
        }
        // Cut: a simulated power cut, a dropped server (as kill -9 leaves the file), or a
        // dropped server right after a flush (the recovered map must then be the same map).
        let mode = rng.below(3);
        match mode {
            0 => {
                server.power_cut();
            }
            1 => {}
            _ => {
                server.flush().unwrap();
                since.drain(..).for_each(|c| apply(&mut durable, &c));
            }
        }
        let digest = server.mapping_digest();
        drop(server);
        server = Server::start(&cfg).unwrap_or_else(|e| panic!("seed {seed} ({drive}) round {round}: restart after the cut: {e}"));
        assert!(server.recovery().is_some(), "seed {seed} ({drive}): an unclean stop is recovered");
        if mode == 2 {
            assert_eq!(digest, server.mapping_digest(), "seed {seed} ({drive}) round {round}: a flushed drive comes back with the same map");
        }
        let back = read_image(&server, sectors);
        if let Some(bad) = back.iter().position(|v| v.is_none()) {
            panic!("seed {seed} ({drive}) round {round}: sector {bad} holds bytes that were never written");
        }
        let back: Vec<u64> = back.into_iter().map(|v| v.unwrap()).collect();
        // Find the prefix of the changes since the durable point that the drive came back with.
        let k = matching_prefix(&durable, &since, &back).unwrap_or_else(|diff| {
            panic!(
                "seed {seed} ({drive}) round {round} (reduction {reduction}, protection {protected}, cut mode {mode}): the recovered image is no prefix of the {} operations since the last flush (first difference from the flushed image at sector {diff}: {} vs {})",
                since.len(),
                durable[diff],
                back[diff]
            )
        });
        if protected {
            assert_eq!(k, since.len(), "seed {seed} ({drive}) round {round}: with power-loss protection every acknowledged operation survives");
        }
        durable = back;
        since.clear();
    }
    server.shutdown().unwrap();
    drop(server);
    // A clean restart: no recovery, same data.
    let server = Server::start(&cfg).unwrap();
    assert!(server.recovery().is_none());
    let back: Vec<u64> = read_image(&server, sectors).into_iter().map(|v| v.expect("written data")).collect();
    assert_eq!(back, durable, "seed {seed} ({drive}): a clean restart keeps everything");
    server.shutdown().unwrap();
}

#[test]
fn every_flushed_write_survives_power_loss() {
    for seed in seeds(12) {
        eprintln!("crash_recovery case seed {seed}");
        run_case(seed, None);
    }
}

/// The same on today's drives (SLC caches folding, one-shot TLC and QLC programs, a DRAM-less
/// map cache). Rerun one case with `SSDLAB_SEED=<seed> SSDLAB_DRIVE=<profile>`.
#[test]
fn every_flushed_write_survives_power_loss_on_todays_drives() {
    let only = std::env::var("SSDLAB_DRIVE").ok();
    for profile in TODAYS_DRIVES.iter().filter(|p| only.as_deref().is_none_or(|o| o == **p)) {
        for seed in seeds(4) {
            eprintln!("crash_recovery case seed {seed} on {profile}");
            run_case(seed, Some(profile));
        }
    }
}

/// The seeds to run: `SSDLAB_SEED` alone, else 1 to `SSDLAB_CRASH_CASES` (default `cases`).
fn seeds(cases: u64) -> Vec<u64> {
    match std::env::var("SSDLAB_SEED") {
        Ok(s) => vec![s.parse().expect("SSDLAB_SEED is a number")],
        Err(_) => {
            let cases: u64 = std::env::var("SSDLAB_CRASH_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(cases);
            (1..=cases).collect()
        }
    }
}

/// A WRITE ZEROES that trims whole 4 KiB sectors and writes zeros into a partial one is one
/// operation at a power cut: cut while its partial sector is still in the drive's write buffer,
/// the drive comes back with none of it, not with the TRIM alone (it once kept the TRIM, which
/// was done and recorded as an operation of its own).
#[test]
fn a_write_zeroes_is_kept_or_lost_whole() {
    for today in [None, Some(TODAYS_DRIVES[0])] {
        let dir = TempDir::new("zero");
        let backing = dir.path().join("drive.img");
        let cfg = match today {
            None => tiny(&backing, false, false),
            Some(profile) => tiny_today(&backing, profile, false),
        };
        let drive = today.unwrap_or("force-gs-240, reduction off");
        let server = Server::start(&cfg).unwrap();
        // 4 KiB sectors 10 and 11 (512-byte sectors 80 to 95) hold values 1 to 16, flushed.
        let ids: Vec<u64> = (1..=16).collect();
        let data: Vec<u8> = ids.iter().flat_map(|&id| sector_bytes(id)).collect();
        server.write(&data, 80 * SECTOR, false).unwrap();
        server.flush().unwrap();
        // Zeros from 512-byte sector 86 to 95: the tail of 4 KiB sector 10 written, sector 11
        // trimmed. Then the power goes.
        server.zero(10 * SECTOR, 86 * SECTOR, true, false, false).unwrap();
        let report = server.power_cut();
        assert!(report.contains("1 sectors were in the write buffer"), "{drive}: the zeroed partial sector was still buffered: {report}");
        drop(server);
        let server = Server::start(&cfg).unwrap();
        let back: Vec<u64> = read_image(&server, 96)[80..].iter().map(|v| v.expect("written data")).collect();
        let zeroed: Vec<u64> = ids.iter().map(|&id| if id <= 6 { id } else { 0 }).collect();
        assert!(back == ids || back == zeroed, "{drive}: the write zeroes came back in part: {back:?}");
        server.shutdown().unwrap();
    }
}

/// Writes of zeros over a filled, flushed drive: absorbed by the engine, they take write
/// buffer positions without a program. The buffer did not count them as pushes, so it looked
/// for every later sector one position off, no record after them counted as programmed, nothing
/// committed, and a `kill -9` lost every such write however many (a probe, 2026-12-07: 20,000
/// acknowledged 1 MiB writes of zeros all gone; the server's memory grew all the while).
#[test]
fn writes_of_zeros_are_committed_as_they_go() {
    let dir = TempDir::new("zeros");
    let backing = dir.path().join("drive.img");
    let cfg = tiny(&backing, true, false);
    let server = Server::start(&cfg).unwrap();
    let sectors = server.size() / SECTOR;
    // The whole drive written with values, flushed.
    let data: Vec<u8> = (1..=sectors).flat_map(sector_bytes).collect();
    server.write(&data, 0, false).unwrap();
    server.flush().unwrap();
    // Then 1 MiB writes of zeros over it, never flushed.
    let zeros = vec![0u8; 1 << 20];
    let mibs = server.size() >> 20;
    for i in 0..20_000u64 {
        server.write(&zeros, (i % mibs) << 20, false).unwrap();
    }
    // The server dropped as kill -9 leaves it: only committed records are in the journal.
    drop(server);
    let server = Server::start(&cfg).unwrap();
    let back = read_image(&server, sectors);
    let old = back.iter().enumerate().filter(|(i, v)| **v == Some(*i as u64 + 1)).count();
    assert_eq!(old, 0, "{old} of {sectors} sectors still hold the data 20,000 acknowledged writes of zeros overwrote");
    assert!(back.iter().all(|v| *v == Some(0)), "a sector reads neither its zeros nor its old data");
    server.shutdown().unwrap();
}

/// Operations that put nothing in the write buffer (TRIMs) behind a partly filled program unit:
/// no record after the unit's can commit until it programs, and nothing makes it program. The
/// server flushes the drive of its own accord once 16 MiB of records wait (before, they waited
/// without bound, in memory, and a `kill -9` lost them all).
#[test]
fn records_stuck_behind_a_parked_unit_are_committed_by_a_flush_of_the_server() {
    let dir = TempDir::new("stuck");
    let backing = dir.path().join("drive.img");
    let cfg = tiny(&backing, false, false);
    let server = Server::start(&cfg).unwrap();
    let sectors = server.size() / SECTOR;
    let data: Vec<u8> = (1..=sectors).flat_map(sector_bytes).collect();
    server.write(&data, 0, false).unwrap();
    server.flush().unwrap();
    // One 4 KiB sector rewritten (parked in a partly filled unit), then TRIMs of the rest of
    // the drive, over and over, never flushed.
    let first: Vec<u8> = (0..8).flat_map(|i| sector_bytes(sectors + 1 + i)).collect();
    server.write(&first, 0, false).unwrap();
    let span = 8 * SECTOR;
    let trimmed = (sectors - 8) / 8;
    for i in 0..400_000u64 {
        server.trim(span, (1 + i % trimmed) * span, false).unwrap();
    }
    drop(server);
    let server = Server::start(&cfg).unwrap();
    let back = read_image(&server, sectors);
    let kept = back[8..].iter().filter(|v| v.is_some_and(|id| id != 0)).count();
    assert_eq!(kept, 0, "{kept} trimmed sectors came back with their data after 400,000 acknowledged TRIMs");
    assert_eq!(back[..8], (0..8).map(|i| Some(sectors + 1 + i)).collect::<Vec<_>>()[..], "the rewrite before the TRIMs");
    server.shutdown().unwrap();
}

/// A power cut after writes the engine absorbed (zeros) finds a data write still in the write
/// buffer, and loses it (the buffer counted absorbed sectors apart from its positions, so it
/// read a zero sector's past release time for the data sector: the cut kept a write that was
/// only in the volatile buffer and said nothing was there).
#[test]
fn a_cut_after_absorbed_writes_finds_the_data_still_buffered() {
    let dir = TempDir::new("absorbed");
    let backing = dir.path().join("drive.img");
    let cfg = tiny(&backing, true, false);
    let server = Server::start(&cfg).unwrap();
    server.write(&vec![0u8; 1 << 20], 0, false).unwrap();
    let data: Vec<u8> = (1..=8).flat_map(sector_bytes).collect();
    server.write(&data, 4 << 20, false).unwrap();
    let report = server.power_cut();
    assert!(report.contains("1 sectors were in the write buffer"), "{report}");
    drop(server);
    let server = Server::start(&cfg).unwrap();
    let back = read_image(&server, (4 << 20) / SECTOR + 8);
    assert!(back[((4 << 20) / SECTOR) as usize..].iter().all(|v| *v == Some(0)), "the buffered write survived the cut");
    server.shutdown().unwrap();
}
