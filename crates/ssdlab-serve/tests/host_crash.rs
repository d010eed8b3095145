//! Host crashes against a reference model: the real server logic runs over a [`CrashFile`] (every
//! write since the last `fdatasync` in a volatile layer) on a tiny drive, taking random writes,
//! FUA writes, TRIMs, write-zeroes and flushes; the host crashes at a random event (a write or a
//! sync of the backing file, in the middle of any operation: a commit, a checkpoint, a header
//! write, a recovery), and the disk keeps any subset of the volatile writes, in order or
//! reordered, the last one torn at a sector boundary. Then the server starts again on what the
//! disk holds (sometimes crashing again during that start) and the whole export is read back: it
//! must equal the reference image after some prefix of the operations issued, no shorter than
//! the last acknowledged flush (with power-loss protection, no shorter than every acknowledged
//! operation). So 0 acknowledged flushed writes are lost and 0 wrong bytes are served.
//!
//! A failure names its seed: `SSDLAB_SEED=<seed> cargo test -p ssdlab-serve --test host_crash`.
//! `SSDLAB_HOST_CRASH_CASES=<n>` runs n cases (500 by default; the long run of docs/power-loss.md
//! is `SSDLAB_HOST_CRASH_CASES=10000 cargo test --release -p ssdlab-serve --test host_crash`).

mod common;

use common::{apply, matching_prefix, read_image, sector_bytes, tiny, Change, SECTOR};
use ssdlab_core::SimRng;
use ssdlab_serve::{CrashFile, HostFile, Server};
use std::sync::Arc;

/// What a case saw, summed over the cases.
#[derive(Default, Debug)]
struct Tally {
    crashes: u64,
    crashes_in_start: u64,
    torn_writes: u64,
    header_writes_lost_or_torn: u64,
    operations: u64,
    acknowledged_flushes: u64,
}

/// Issue random operations until the host crashes (or `ops` are done); returns the changes since
/// the last acknowledged durable point (each with whether it was acknowledged) and whether the
/// crash came in the middle of an operation.
#[allow(clippy::too_many_arguments)]
fn operate(
    seed: u64,
    rng: &mut SimRng,
    server: &Server,
    file: &CrashFile,
    durable: &mut [u64],
    since: &mut Vec<Change>,
    next_id: &mut u64,
    protected: bool,
    reduction: bool,
    tally: &mut Tally,
) {
    let sectors = server.size() / SECTOR;
    let ops = 10 + rng.below(120);
    for _ in 0..ops {
        if file.crashed() {
            return;
        }
        let pick = rng.below(100);
        let most = if rng.below(4) == 0 { 96 } else { 16 };
        let count = 1 + rng.below(most);
        let first = rng.below(sectors - count);
        tally.operations += 1;
        match pick {
            0..=64 => {
                let ids: Vec<u64> = (0..count).map(|i| if rng.below(20) == 0 { 0 } else { *next_id + i }).collect();
                *next_id += count;
                let data: Vec<u8> = ids.iter().flat_map(|&id| sector_bytes(id)).collect();
                let fua = rng.below(10) == 0;
                since.push(Change::Set { first, ids });
                let result = server.write(&data, first * SECTOR, fua);
                if file.crashed() {
                    return; // not acknowledged: the host died during it
                }
                result.unwrap_or_else(|e| panic!("seed {seed}: write: {}", e.message));
                if fua || protected {
                    since.drain(..).for_each(|c| apply(durable, &c));
                }
            }
            65..=74 => {
                let first4 = first / 8 * 8;
                let count4 = (count.div_ceil(8) * 8).min(sectors - first4);
                since.push(Change::Zero { first: first4, count: count4 });
                let result = server.trim(count4 * SECTOR, first4 * SECTOR, false);
                if file.crashed() {
                    return;
                }
                result.unwrap_or_else(|e| panic!("seed {seed}: trim: {}", e.message));
                if protected {
                    since.drain(..).for_each(|c| apply(durable, &c));
                }
            }
            75..=84 => {
                let may_trim = rng.below(2) == 0;
                // A drive without data reduction zeroes whole 4 KiB sectors by a TRIM and the
                // partial ones at either end by writes: three operations of the server, each
                // its own record, so a host crash during an unacknowledged zeroing may leave any
                // prefix of them (a zeroing is not atomic, as no NBD command is until its reply).
                let (end, per4) = (first + count, 4096 / SECTOR);
                let (inner_start, inner_end) = (first.div_ceil(per4) * per4, end / per4 * per4);
                if !reduction && may_trim && inner_end > inner_start {
                    since.push(Change::Zero { first: inner_start, count: inner_end - inner_start });
                    if inner_start > first {
                        since.push(Change::Zero { first, count: inner_start - first });
                    }
                    if end > inner_end {
                        since.push(Change::Zero { first: inner_end, count: end - inner_end });
                    }
                } else {
                    since.push(Change::Zero { first, count });
                }
                let result = server.zero(count * SECTOR, first * SECTOR, may_trim, false, false);
                if file.crashed() {
                    return;
                }
                result.unwrap_or_else(|e| panic!("seed {seed}: zero: {}", e.message));
                if protected {
                    since.drain(..).for_each(|c| apply(durable, &c));
                }
            }
            _ => {
                let result = server.flush();
                if file.crashed() {
                    return;
                }
                result.unwrap_or_else(|e| panic!("seed {seed}: flush: {}", e.message));
                tally.acknowledged_flushes += 1;
                since.drain(..).for_each(|c| apply(durable, &c));
            }
        }
    }
}

/// Start a server on `file` (the host may crash during the start: then `None`).
fn start(seed: u64, cfg: &ssdlab_serve::ServeConfig, file: &Arc<CrashFile>) -> Option<Server> {
    let server = Server::start_on(cfg, file.clone() as Arc<dyn HostFile>);
    if file.crashed() {
        return None;
    }
    Some(server.unwrap_or_else(|e| panic!("seed {seed}: start after a host crash: {e}")))
}

fn run_case(seed: u64, tally: &mut Tally) {
    let mut rng = SimRng::new(seed);
    let reduction = rng.below(3) != 0;
    let protected = rng.below(5) == 0;
    let cfg = tiny(std::path::Path::new("host-crash.img"), reduction, protected);
    let mut file = Arc::new(CrashFile::new());
    let mut server = start(seed, &cfg, &file).expect("no crash armed");
    let sectors = server.size() / SECTOR;
    let mut durable = vec![0u64; sectors as usize];
    let mut since: Vec<Change> = Vec::new();
    let mut next_id = seed << 24 | 1;
    for round in 0..1 + rng.below(3) {
        // The host crashes at a random event ahead (or, rarely, after a clean shutdown began).
        let within = if rng.below(3) == 0 { 8 } else { 400 };
        let ahead = 1 + rng.below(within);
        file.crash_after_event(file.events() + ahead);
        operate(seed, &mut rng, &server, &file, &mut durable, &mut since, &mut next_id, protected, reduction, tally);
        if !file.crashed() && rng.below(4) == 0 {
            // A clean shutdown the host may not live through (a checkpoint, then the header).
            let _ = server.shutdown();
        }
        file.crash_after_event(file.events()); // at the latest now
        drop(server);
        // The host comes back, maybe crashing again while the server starts (recovery, the
        // header marked in use); each time the disk keeps what it may.
        let mut restarts = 0;
        server = loop {
            let (after, outcome) = file.crash(&mut rng);
            tally.crashes += 1;
            tally.torn_writes += outcome.torn as u64;
            tally.header_writes_lost_or_torn += outcome.not_whole.iter().filter(|&&at| at < 8192).count() as u64;
            file = Arc::new(after);
            if restarts < 2 && rng.below(4) == 0 {
                restarts += 1;
                file.crash_after_event(1 + rng.below(6));
                if start(seed, &cfg, &file).is_none() {
                    tally.crashes_in_start += 1;
                    continue;
                }
                // The start finished before the armed event: crash it right away.
                file.crash_after_event(file.events());
                continue;
            }
            break start(seed, &cfg, &file).expect("no crash armed");
        };
        let back = read_image(&server, sectors);
        if let Some(bad) = back.iter().position(|v| v.is_none()) {
            panic!("seed {seed} round {round}: sector {bad} holds bytes that were never written");
        }
        let back: Vec<u64> = back.into_iter().map(|v| v.unwrap()).collect();
        if let Err(diff) = matching_prefix(&durable, &since, &back) {
            panic!(
                "seed {seed} round {round} (reduction {reduction}, protection {protected}): after the host crash the image is no prefix of the {} operations since the last durable point (first difference from it at sector {diff}: {} vs {})",
                since.len(),
                durable[diff],
                back[diff]
            );
        }
        durable = back;
        since.clear();
    }
    server.shutdown().unwrap_or_else(|e| panic!("seed {seed}: clean shutdown: {e}"));
}

#[test]
fn no_host_crash_loses_a_flushed_write_or_serves_wrong_bytes() {
    let seeds: Vec<u64> = match std::env::var("SSDLAB_SEED") {
        Ok(s) => vec![s.parse().expect("SSDLAB_SEED is a number")],
        Err(_) => {
            let cases: u64 = std::env::var("SSDLAB_HOST_CRASH_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(500);
            (1..=cases).collect()
        }
    };
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    for (done, &seed) in seeds.iter().enumerate() {
        if done > 0 && done % 1000 == 0 {
            // The long run shows its progress.
            eprintln!("host_crash: {done} of {} cases in {:.0} s", seeds.len(), started.elapsed().as_secs_f64());
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(seed, &mut tally)));
        if let Err(e) = result {
            eprintln!("host_crash: case seed {seed} failed (rerun: SSDLAB_SEED={seed} cargo test -p ssdlab-serve --test host_crash)");
            std::panic::resume_unwind(e);
        }
    }
    eprintln!("host_crash: {} cases in {:.1} s: {tally:?}", seeds.len(), started.elapsed().as_secs_f64());
    if seeds.len() >= 100 {
        // The swarm reached what it is for.
        assert!(tally.torn_writes > 0 && tally.crashes_in_start > 0 && tally.header_writes_lost_or_torn > 0, "{tally:?}");
    }
}
