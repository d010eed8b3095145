//! A fuzzer over the recovery reader: real backing images (a tiny drive written, flushed now and
//! then, and stopped by a power cut, a kill or a clean shutdown) damaged by seeded mutations
//! (flipped bits, wiped or overwritten stretches, extreme numbers, truncation) in the header
//! slots, the journal and the checkpoint, then served again.
//!
//! Every case must end in one of two ways, and never in a panic or a hang:
//! * the start is refused with a message, or
//! * the drive starts, and the whole export reads back as the image after some prefix of the
//!   operations written (every sector holds a value once written, or zeros); a prefix shorter
//!   than the last durable point is only allowed when recovery reported what it discarded.
//!
//! The seeds in `fuzz/seeds.txt` (the corpus: one per line, each choosing a base image and its
//! mutations) run first, then new seeds for `SSDLAB_FUZZ_SECONDS` (default 10). A failure names
//! its seed: add it to the corpus and rerun one case with
//! `SSDLAB_SEED=<seed> cargo test --release -p ssdlab-serve --test fuzz_recovery`.
//! `scripts/fuzz_recovery.sh` runs the long campaign (10 minutes by default).

mod common;

use common::{sector_bytes, sector_value, tiny, SECTOR};
use ssdlab_core::SimRng;
use ssdlab_serve::{Layout, Server, JOURNAL_OFFSET};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

fn config(backing: &Path, reduction: bool) -> ssdlab_serve::ServeConfig {
    tiny(backing, reduction, false)
}

/// A base image and what was written to it.
struct Base {
    path: PathBuf,
    reduction: bool,
    /// Per operation: (first sector, ids); zeros for TRIM and write-zeroes.
    ops: Vec<(u64, Vec<u64>)>,
    /// Operations covered by the last flush before the stop.
    durable: usize,
    sectors: u64,
    /// File ranges worth damaging: header slots, journal, checkpoint.
    regions: Vec<(u64, u64)>,
}

fn build_base(dir: &Path, n: u64) -> Base {
    let mut rng = SimRng::new(0xF022 + n);
    let reduction = n % 3 != 2;
    let path = dir.join(format!("base-{n}.img"));
    let cfg = config(&path, reduction);
    let mut server = Server::start(&cfg).unwrap();
    let sectors = server.size() / SECTOR;
    let mut ops = Vec::new();
    let mut durable = 0;
    let mut next = (n + 1) << 32 | 1;
    // Two sessions, so some bases have a checkpoint from a restart and a journal after it.
    for session in 0..2 {
        for _ in 0..150 + rng.below(200) {
            let count = 1 + rng.below(64);
            let first = rng.below(sectors - count) / 8 * 8;
            match rng.below(10) {
                0..=6 => {
                    let ids: Vec<u64> = (0..count).map(|i| next + i).collect();
                    next += count;
                    let data: Vec<u8> = ids.iter().flat_map(|&id| sector_bytes(id)).collect();
                    server.write(&data, first * SECTOR, false).unwrap();
                    ops.push((first, ids));
                }
                7 => {
                    let count = count.div_ceil(8) * 8;
                    server.trim(count * SECTOR, first * SECTOR, false).unwrap();
                    ops.push((first, vec![0; count as usize]));
                }
                _ => {
                    server.flush().unwrap();
                    durable = ops.len();
                }
            }
        }
        if session == 0 {
            server.flush().unwrap();
            durable = ops.len();
            drop(server); // killed: the next start recovers and checkpoints
            server = Server::start(&cfg).unwrap();
        }
    }
    match n % 3 {
        0 => {
            server.power_cut();
        }
        1 => server.shutdown().unwrap(),
        _ => {}
    }
    if n % 3 == 1 {
        durable = ops.len();
    }
    drop(server);
    let layout = Layout::new(12 << 20, 256 << 10);
    let mut regions = vec![(0, 8192), (JOURNAL_OFFSET, JOURNAL_OFFSET + (512 << 10))];
    for slot in 0..2 {
        regions.push((layout.checkpoint_offset(slot), layout.checkpoint_offset(slot) + (4 << 20)));
    }
    Base { path, reduction, ops, durable, sectors, regions }
}

/// Copy `from` to `to`, holes kept as holes.
fn sparse_copy(from: &Path, to: &Path) {
    let src = std::fs::File::open(from).unwrap();
    let dst = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(to).unwrap();
    let len = src.metadata().unwrap().len();
    dst.set_len(len).unwrap();
    let fd = src.as_raw_fd();
    let mut at = 0i64;
    let mut buf = vec![0u8; 1 << 20];
    while (at as u64) < len {
        // SAFETY: lseek on a valid descriptor; no memory involved.
        let data = unsafe { libc::lseek(fd, at, libc::SEEK_DATA) };
        if data < 0 {
            break;
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
        let mut pos = data as u64;
        while pos < hole as u64 {
            let n = ((hole as u64 - pos) as usize).min(buf.len());
            src.read_exact_at(&mut buf[..n], pos).unwrap();
            dst.write_all_at(&buf[..n], pos).unwrap();
            pos += n as u64;
        }
        at = hole;
    }
}

/// Damage `path` as seed `rng` says; returns a description.
fn mutate(path: &Path, base: &Base, rng: &mut SimRng) -> String {
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let mut done = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let (start, end) = base.regions[rng.below(base.regions.len() as u64) as usize];
        let at = start + rng.below(end - start);
        match rng.below(5) {
            0 | 1 => {
                let mut byte = [0u8; 1];
                file.read_exact_at(&mut byte, at).unwrap_or(());
                byte[0] ^= 1 << rng.below(8);
                file.write_all_at(&byte, at).unwrap();
                done.push(format!("flip at {at}"));
            }
            2 => {
                let n = 1 + rng.below(4096);
                file.write_all_at(&vec![0u8; n as usize], at).unwrap();
                done.push(format!("zero {n} bytes at {at}"));
            }
            3 => {
                let value: u64 = [0, u32::MAX as u64, u64::MAX, 1 << 40][rng.below(4) as usize];
                let width = if rng.below(2) == 0 { 4 } else { 8 };
                file.write_all_at(&value.to_le_bytes()[..width], at).unwrap();
                done.push(format!("write {value} ({width} bytes) at {at}"));
            }
            _ => {
                let cut = rng.below(len);
                file.set_len(cut).unwrap();
                done.push(format!("truncate at {cut}"));
                break;
            }
        }
    }
    done.join(", ")
}

fn image_after(base: &Base, k: usize) -> Vec<u64> {
    let mut image = vec![0u64; base.sectors as usize];
    for (first, ids) in &base.ops[..k] {
        image[*first as usize..*first as usize + ids.len()].copy_from_slice(ids);
    }
    image
}

/// One case: Ok(description of the outcome) or Err(what went wrong).
fn run_case(dir: &Path, bases: &[Base], seed: u64) -> Result<String, String> {
    let mut rng = SimRng::new(seed);
    let base = &bases[rng.below(bases.len() as u64) as usize];
    let work = dir.join(format!("work-{seed}.img"));
    sparse_copy(&base.path, &work);
    let damage = mutate(&work, base, &mut rng);
    let cfg = config(&work, base.reduction);
    let outcome = std::panic::catch_unwind(|| -> Result<String, String> {
        let server = match Server::start(&cfg) {
            Ok(s) => s,
            Err(e) => {
                let message = e.to_string();
                return if message.is_empty() { Err("refused with an empty message".into()) } else { Ok(format!("refused: {message}")) };
            }
        };
        let mut back = Vec::with_capacity(base.sectors as usize);
        let mut offset = 0;
        while offset < base.sectors * SECTOR {
            let mut buf = vec![0u8; 1 << 20];
            server.read(&mut buf, offset).map_err(|e| format!("served, but a read at {offset} fails: {}", e.message))?;
            for chunk in buf.chunks(SECTOR as usize) {
                let id = sector_value(chunk).ok_or_else(|| format!("served, but sector {} holds bytes never written", back.len()))?;
                back.push(id);
            }
            offset += 1 << 20;
        }
        let report = server.recovery();
        let _ = server.shutdown();
        let k = (0..=base.ops.len()).rev().find(|&k| image_after(base, k) == back).ok_or("served an image that is no prefix of the writes")?;
        if k < base.durable && report.as_ref().and_then(|r| r.discarded.as_ref()).is_none() {
            return Err(format!("served a prefix of {k} operations, short of the {} made durable, without reporting a discard", base.durable));
        }
        Ok(format!("served {k} of {} operations", base.ops.len()))
    })
    .unwrap_or_else(|p| {
        Err(format!("panicked: {}", p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()))
    });
    let _ = std::fs::remove_file(&work);
    outcome.map_err(|e| format!("seed {seed} ({damage}): {e}"))
}

#[test]
fn damaged_backing_files_never_crash_recovery() {
    let dir = std::env::temp_dir().join(format!("ssdlab-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bases: std::sync::Arc<Vec<Base>> = std::sync::Arc::new((0..6).map(|n| build_base(&dir, n)).collect());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds.txt");
    let mut seeds: Vec<u64> = std::fs::read_to_string(&corpus).unwrap_or_default().lines().filter_map(|l| l.split('#').next()?.trim().parse().ok()).collect();
    if let Ok(one) = std::env::var("SSDLAB_SEED") {
        seeds = vec![one.parse().expect("SSDLAB_SEED is a number")];
    }
    let seconds: u64 = std::env::var("SSDLAB_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let started = std::time::Instant::now();
    let mut next = 1u64 << 40 | (std::process::id() as u64) << 20;
    let (mut cases, mut refused) = (0u64, 0u64);
    let mut i = 0;
    loop {
        let seed = if i < seeds.len() {
            seeds[i]
        } else if std::env::var("SSDLAB_SEED").is_err() && started.elapsed().as_secs() < seconds {
            next += 1;
            next
        } else {
            break;
        };
        i += 1;
        // A hang is a failure too: each case gets a minute.
        let (tx, rx) = std::sync::mpsc::channel();
        let case_dir = dir.clone();
        let case_bases = bases.clone();
        std::thread::spawn(move || {
            let _ = tx.send(run_case(&case_dir, &case_bases, seed));
        });
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(Ok(outcome)) => {
                refused += outcome.starts_with("refused") as u64;
                if std::env::var("SSDLAB_SEED").is_ok() {
                    eprintln!("seed {seed}: {outcome}");
                }
            }
            Ok(Err(e)) => panic!("{e}\nrerun: SSDLAB_SEED={seed} cargo test --release -p ssdlab-serve --test fuzz_recovery"),
            Err(_) => panic!("seed {seed}: recovery hung for a minute\nrerun: SSDLAB_SEED={seed} cargo test --release -p ssdlab-serve --test fuzz_recovery"),
        }
        cases += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "fuzz_recovery: {cases} cases ({} from the corpus), {refused} refused, the rest served a consistent prefix, in {:.0} s",
        seeds.len(),
        started.elapsed().as_secs_f64()
    );
}
