//! Drive-level swarm test: random mixes of reads, writes (aligned and not), TRIMs, flushes,
//! idle gaps and secure erases through the full timed drive (write buffer, engine, map cache,
//! GC booked on the array), against a shadow map of what every logical sector must hold, with
//! both translation layers (the page FTL with content tags, the data-reduction FTL with real
//! bytes).
//!
//! Each case draws a small drive (geometry, spare, GC policy and low-water mark, buffer size,
//! map cache, engine on or off) and a command mix from its seed. After every command: its
//! completion is not before its arrival; every sector it wrote reads back what was written;
//! every few commands, every sector reads back its last write (zeros after TRIM) and the FTL's
//! structures agree with a full recount; every read completes no earlier than the program of
//! the data it reads (the drive records each unit's program end: data still in a partly filled
//! unit must be programmed before it is read). At the end everything is trimmed: nothing may
//! stay live. `SSDLAB_DRIVE_SWARM_CASES` sets the number of cases (default 250, 100,000
//! commands); `SSDLAB_SEED=<seed>` replays one case. A failure names its seed.
//!
//! A second swarm does the same on today's drives shrunk (page FTL with an SLC cache and one-shot
//! word lines, DRAM-less drives with their map cache in host memory).

use ssdlab_core::SimRng;
use ssdlab_drive::{DataPlane, Drive, DriveOptions};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_reduce::{fingerprint, ContentMode, ContentSource, DataPattern, PatternKind, SectorContent};
use ssdlab_workload::{Io, Op};

const SECTOR: u64 = 4096;

/// What a sector must hold: never written or trimmed (zeros), a content tag (page FTL), or a
/// content fingerprint (data-reduction FTL; `None` for an all-zero sector).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expected {
    Zeros,
    Tag(u64),
    Content(Option<u128>),
}

/// Real bytes of random patterns, often repeating earlier content (dedup), sometimes zeros;
/// remembers what it handed out.
struct RecordingContent {
    rng: SimRng,
    handed_out: Vec<Option<u128>>,
}

impl ContentSource for RecordingContent {
    fn next_content(&mut self) -> SectorContent {
        let kind = match self.rng.below(6) {
            0 => PatternKind::Random,
            1 => PatternKind::Repeating,
            2 => PatternKind::Text,
            3 => PatternKind::Zeros,
            _ => PatternKind::FioCompress { percent: 60, chunk_bytes: 512 },
        };
        // Few distinct content seeds, so the same content lands at many addresses.
        let content_seed = self.rng.below(40);
        let mut bytes = vec![0u8; SECTOR as usize];
        DataPattern { kind, dedupe_percent: 0 }.fill_sector(content_seed, &mut bytes);
        let content = SectorContent::from_bytes(&bytes);
        self.handed_out.push((!content.zero).then_some(content.fingerprint));
        content
    }
}

/// A data plane in memory: 4 KiB pages of the physical byte space, created on first write and
/// dropped when discarded (as holes in a backing file).
#[derive(Default)]
struct MemoryPlane {
    pages: std::collections::HashMap<u64, Box<[u8; 4096]>>,
}

impl DataPlane for MemoryPlane {
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        let mut done = 0;
        while done < bytes.len() {
            let a = addr + done as u64;
            let (page, at) = (a / 4096, (a % 4096) as usize);
            let n = (4096 - at).min(bytes.len() - done);
            self.pages.entry(page).or_insert_with(|| Box::new([0; 4096]))[at..at + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
        Ok(())
    }
    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let a = addr + done as u64;
            let (page, at) = (a / 4096, (a % 4096) as usize);
            let n = (4096 - at).min(buf.len() - done);
            match self.pages.get(&page) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[at..at + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
        Ok(())
    }
    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()> {
        let mut buf = vec![0; len as usize];
        self.read_at(from, &mut buf)?;
        self.write_at(to, &buf)
    }
    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()> {
        assert!(addr.is_multiple_of(4096) && len.is_multiple_of(4096), "discards are whole blocks");
        for page in addr / 4096..(addr + len) / 4096 {
            self.pages.remove(&page);
        }
        Ok(())
    }
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Case {
    drive: Drive,
    shadow: Vec<Expected>,
    /// Sectors are checked by their bytes (data-reduction FTL in memory, or any FTL storing
    /// its data in a data plane), otherwise by content tags.
    by_bytes: bool,
    now_ns: u64,
}

fn build(seed: u64, rng: &mut SimRng) -> Case {
    let reduction = rng.below(2) == 0;
    let channels = [1u64, 2, 4][rng.below(3) as usize];
    let dies_per_package = 1 + rng.below(2);
    let planes = 1 + rng.below(2);
    let blocks_per_plane = 16 + rng.below(32);
    let pages_per_block = [8u64, 16, 32][rng.below(3) as usize];
    let page_bytes = [4096u64, 8192][rng.below(2) as usize];
    let low = 1 + rng.below(2);
    let dies = channels * dies_per_package;
    let block_bytes = planes * pages_per_block * page_bytes;
    let raw = dies * planes * blocks_per_plane * pages_per_block * page_bytes;
    // Spare from the least GC can work with (low-water mark, two open blocks, one more) to half.
    let reserve = (low + 4) * block_bytes * dies;
    let max_user = raw - reserve;
    let user = (max_user / 2 + rng.below(max_user / 2)) / SECTOR * SECTOR;
    let unit_bytes = planes * page_bytes;
    let buffer = unit_bytes * (2 + rng.below(8));
    let policy = ["greedy", "cost-benefit", "windowed"][rng.below(3) as usize];
    let map_cache = if rng.below(2) == 0 { 0 } else { page_bytes * (1 + rng.below(4)) };
    let overrides = vec![
        format!("nand.channels={channels}"),
        "nand.packages_per_channel=1".to_string(),
        format!("nand.dies_per_package={dies_per_package}"),
        format!("nand.planes_per_die={planes}"),
        format!("nand.blocks_per_plane={blocks_per_plane}"),
        format!("nand.pages_per_block={pages_per_block}"),
        format!("nand.page_bytes={page_bytes}"),
        format!("drive.capacity_bytes_user={user}"),
        format!("controller.write_buffer_bytes={buffer}"),
        format!("controller.map_cache_bytes={map_cache}"),
        format!("ftl.gc_policy={policy}"),
        format!("ftl.gc_window_blocks={}", 1 + rng.below(6)),
        format!("ftl.gc_low_free_blocks_per_die={low}"),
        format!("ftl.gc_idle_target_free_blocks_per_die={}", low + rng.below(3)),
        format!("reduction.enabled={reduction}"),
        format!("reduction.dedup_index_entries={}", 1 + rng.below(512)),
        format!("reduction.partial_page_reads={}", rng.below(2) == 0),
        // Host reads first on half the drives: a read must still wait for its data's program.
        format!("controller.reads_first={}", rng.below(2) == 0),
    ];
    let profile = load_profile("force-gs-240", &overrides).unwrap_or_else(|e| panic!("seed {seed}: drawn profile invalid: {e}"));
    with_drive(profile, reduction, rng)
}

/// Today's drives (page FTL, SLC cache, one-shot word lines; DRAM-less ones with a map cache in
/// host memory) the second swarm draws from.
const TODAYS_DRIVES: [&str; 6] =
    ["samsung-980-pro-1tb", "samsung-970-evo-500", "samsung-980-1tb", "wd-sn580-1tb", "samsung-870-evo-4tb", "samsung-870-qvo-1tb"];

/// One of today's drives, shrunk: its own cells, page size, planes and timing, on 1 to 4 dies
/// of 24 to 39 blocks of 4 to 8 one-shot word lines, with an SLC cache of a few blocks static
/// and up to a few more dynamic (as drawn), a small write buffer and map cache, and 10 to 45%
/// spare.
fn build_today(seed: u64, rng: &mut SimRng) -> Case {
    let name = TODAYS_DRIVES[rng.below(TODAYS_DRIVES.len() as u64) as usize];
    let full = load_profile(name, &[]).unwrap();
    let channels = 1 + rng.below(2);
    let dies_per_package = 1 + rng.below(2);
    let blocks_per_plane = 24 + rng.below(16);
    let pages_per_block = full.media.native_pages_per_program() as u64 * (4 + rng.below(5));
    let (planes, page_bytes) = (full.geometry.planes_per_die as u64, full.geometry.page_bytes as u64);
    let dies = channels * dies_per_package;
    let block_bytes = planes * pages_per_block * page_bytes;
    let raw = dies * blocks_per_plane * block_bytes;
    let spare = 0.10 + rng.below(36) as f64 / 100.0;
    let user = ((raw as f64 * (1.0 - spare)) as u64).min(raw - (full.ftl.gc_low_free_blocks_per_die as u64 + 6) * block_bytes * dies) / SECTOR * SECTOR;
    let slc_block_bytes = block_bytes / full.media.pslc_ratio() as u64;
    let mut overrides = vec![
        format!("nand.channels={channels}"),
        "nand.packages_per_channel=1".to_string(),
        format!("nand.dies_per_package={dies_per_package}"),
        format!("nand.blocks_per_plane={blocks_per_plane}"),
        format!("nand.pages_per_block={pages_per_block}"),
        format!("drive.capacity_bytes_user={user}"),
        format!("controller.write_buffer_bytes={}", planes * page_bytes * full.media.native_pages_per_program() as u64 * (1 + rng.below(4))),
        format!("slc_cache.static_bytes={}", slc_block_bytes * dies * rng.below(3)),
        format!("slc_cache.dynamic_max_bytes={}", slc_block_bytes * dies * rng.below(6)),
        format!("slc_cache.when_full={}", ["native", "fold", "flush"][rng.below(3) as usize]),
        format!("slc_cache.idle_fold={}", rng.below(2) == 0),
        format!("ftl.gc_policy={}", ["greedy", "cost-benefit", "windowed"][rng.below(3) as usize]),
    ];
    // NAND that suspends programs for reads always lets reads go first.
    if full.media.suspend.is_none() && rng.below(2) == 0 {
        overrides.push("controller.reads_first=false".into());
    }
    if full.controller.map_cache_bytes > 0 {
        overrides.push(format!("controller.map_cache_bytes={}", page_bytes * (1 + rng.below(4))));
    }
    let profile = load_profile(name, &overrides).unwrap_or_else(|e| panic!("seed {seed}: drawn profile of {name} invalid: {e}"));
    with_drive(profile, false, rng)
}

/// The case's drive from `profile`: a third of the cases store their data in a data plane (as a
/// served drive does), the others keep content tags unless the drive reduces data.
fn with_drive(profile: Profile, reduction: bool, rng: &mut SimRng) -> Case {
    let store_data = rng.below(3) == 0;
    let options =
        DriveOptions { track_tags: !reduction && !store_data, content: ContentMode::Real, store_data, record_programs: true, ..DriveOptions::default() };
    let mut drive = Drive::with_options(profile, options).unwrap();
    if store_data {
        drive.attach_data_plane(Box::new(MemoryPlane::default()));
    }
    let sectors = drive.translation().user_sectors() as usize;
    Case { drive, shadow: vec![Expected::Zeros; sectors], by_bytes: reduction || store_data, now_ns: 0 }
}

impl Case {
    fn actual(&self, lba: u64) -> Expected {
        if self.by_bytes {
            let bytes = self.drive.read_sector_bytes(lba).unwrap();
            if bytes.iter().all(|&b| b == 0) {
                Expected::Zeros
            } else {
                Expected::Content(Some(fingerprint(&bytes)))
            }
        } else {
            match self.drive.read_tag(lba) {
                0 => Expected::Zeros,
                tag => Expected::Tag(tag),
            }
        }
    }

    fn check_sector(&self, lba: u64, step: usize) {
        let expected = match self.shadow[lba as usize] {
            // An all-zero written sector reads as zeros.
            Expected::Content(None) => Expected::Zeros,
            other => other,
        };
        let actual = self.actual(lba);
        assert_eq!(actual, expected, "step {step}: sector {lba} holds {actual:?}, expected {expected:?}");
    }

    fn check_all(&self, step: usize) {
        for lba in 0..self.shadow.len() as u64 {
            self.check_sector(lba, step);
        }
        self.drive.translation().check_invariants().unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
}

/// A command's byte range: mostly 4 KiB aligned, sometimes in 512-byte sectors.
fn draw_range(rng: &mut SimRng, capacity: u64) -> (u64, u64) {
    let max_sectors = (capacity / SECTOR).min(64);
    let bound = if rng.below(4) == 0 { max_sectors } else { 8.min(max_sectors) };
    let sectors = 1 + rng.below(bound);
    let mut len = sectors * SECTOR;
    let mut offset = rng.below(capacity / SECTOR - sectors + 1) * SECTOR;
    if rng.below(5) == 0 {
        // Unaligned: shift the start and trim the length by whole 512-byte sectors.
        offset += 512 * rng.below(8);
        len = (len - 512 * rng.below(8)).max(512).min(capacity - offset);
    }
    (offset, len)
}

/// What a case did, for the test's output.
#[derive(Debug, Default, Clone, Copy)]
struct CaseStats {
    commands: u64,
    /// Sectors read whose data was on the flash, each checked against its program's end.
    reads_of_programmed_data: u64,
}

fn run_case(seed: u64, commands: usize, build: fn(u64, &mut SimRng) -> Case) -> CaseStats {
    let mut stats = CaseStats { commands: commands as u64, ..CaseStats::default() };
    let mut rng = SimRng::new(seed);
    let mut case = build(seed, &mut rng);
    let capacity = case.drive.profile().capacity_bytes_user;
    let mut content = RecordingContent { rng: SimRng::new(seed ^ 0x5eed), handed_out: Vec::new() };
    for step in 0..commands {
        // Arrival: back to back (queued behind earlier commands), a short gap, or a long one.
        case.now_ns += match rng.below(10) {
            0..=5 => 0,
            6..=8 => rng.below(200_000),
            _ => rng.below(50_000_000),
        };
        match rng.below(20) {
            0..=9 => {
                let (offset, len) = draw_range(&mut rng, capacity);
                let io = Io { op: Op::Write, offset_bytes: offset, len_bytes: len };
                content.handed_out.clear();
                let done = case.drive.submit_with(&io, case.now_ns, &mut content).unwrap_or_else(|e| panic!("step {step}: write failed: {e}"));
                assert!(done >= case.now_ns, "step {step}: write completes at {done} before it arrived at {}", case.now_ns);
                let first = offset / SECTOR;
                let last = (offset + len - 1) / SECTOR;
                let first_tag = case.drive.last_write_first_tag();
                for lba in first..=last {
                    case.shadow[lba as usize] =
                        if case.by_bytes { Expected::Content(content.handed_out[(lba - first) as usize]) } else { Expected::Tag(first_tag + (lba - first)) };
                    case.check_sector(lba, step);
                }
            }
            10..=13 => {
                let (offset, len) = draw_range(&mut rng, capacity);
                let io = Io { op: Op::Read, offset_bytes: offset, len_bytes: len };
                let done = case.drive.submit(&io, case.now_ns).unwrap();
                assert!(done > case.now_ns, "step {step}: read completes at {done}, not after it arrived at {}", case.now_ns);
                for lba in offset / SECTOR..=(offset + len - 1) / SECTOR {
                    case.check_sector(lba, step);
                    let programmed = case.drive.data_programmed_ns(lba, case.now_ns).unwrap_or_else(|e| panic!("step {step}: read of sector {lba}: {e}"));
                    if let Some(programmed) = programmed {
                        assert!(done >= programmed, "step {step}: read of sector {lba} completes at {done}, before its data's program ends at {programmed}");
                        stats.reads_of_programmed_data += 1;
                    }
                }
            }
            14..=15 => {
                let (offset, len) = draw_range(&mut rng, capacity);
                let io = Io { op: Op::Trim, offset_bytes: offset, len_bytes: len };
                let done = case.drive.submit(&io, case.now_ns).unwrap();
                assert!(done >= case.now_ns);
                // Only whole sectors inside the range are deallocated.
                for lba in offset.div_ceil(SECTOR)..(offset + len) / SECTOR {
                    case.shadow[lba as usize] = Expected::Zeros;
                }
            }
            16 => {
                let done = case.drive.flush(case.now_ns);
                assert!(done >= case.now_ns);
                case.now_ns = done;
            }
            17 => {
                let until = case.now_ns + rng.below(2_000_000_000);
                case.drive.idle(case.now_ns, until);
                case.now_ns = until;
            }
            18 if rng.below(10) == 0 => {
                case.now_ns = case.drive.secure_erase(case.now_ns);
                case.shadow.fill(Expected::Zeros);
            }
            _ => {}
        }
        if step % 50 == 49 {
            case.check_all(step);
        }
    }
    case.check_all(commands);
    if case.drive.options().store_data {
        // A clean shutdown and restart: the restored drive serves the same data.
        case.now_ns = case.drive.flush(case.now_ns);
        let mut saved = Vec::new();
        case.drive.save_state(&mut saved).unwrap();
        let plane = case.drive.detach_data_plane().unwrap();
        let mut restored = Drive::load(case.drive.profile().clone(), case.drive.options(), &mut saved.as_slice()).unwrap();
        restored.attach_data_plane(plane);
        // (Every counter but the bytes read from unmapped sectors, which a saved state does not
        // keep: `DriveCounters::unmapped_read_bytes`.)
        let unsaved = ssdlab_drive::DriveCounters { unmapped_read_bytes: 0, ..case.drive.counters().clone() };
        assert_eq!(restored.counters(), &unsaved);
        case.drive = restored;
        case.check_all(commands);
    }
    // Trim everything: nothing may stay live.
    let io = Io { op: Op::Trim, offset_bytes: 0, len_bytes: capacity };
    case.drive.submit(&io, case.now_ns).unwrap();
    case.shadow.fill(Expected::Zeros);
    case.check_all(commands + 1);
    assert_eq!(case.drive.translation().live_data_sectors(), 0, "data left live after trimming everything");
    stats
}

/// Run the swarm's cases of drives from `build`, or only `SSDLAB_SEED` (a longer case) when set.
fn swarm(name: &str, first_seed: u64, build: fn(u64, &mut SimRng) -> Case) {
    if let Some(seed) = std::env::var("SSDLAB_SEED").ok().and_then(|v| v.parse().ok()) {
        run_case(seed, 3000, build);
        return;
    }
    let cases: u64 = std::env::var("SSDLAB_DRIVE_SWARM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(250);
    let mut total = CaseStats::default();
    for seed in first_seed..first_seed + cases {
        match std::panic::catch_unwind(|| run_case(seed, 400, build)) {
            Ok(stats) => {
                total.commands += stats.commands;
                total.reads_of_programmed_data += stats.reads_of_programmed_data;
            }
            Err(e) => {
                let message = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                panic!(
                    "drive swarm case failed; reproduce with SSDLAB_SEED={seed} cargo nextest run -p ssdlab-drive --test drive_swarm {name}: {}",
                    message.unwrap_or_default()
                );
            }
        }
    }
    println!(
        "{cases} cases, {} commands; {} sectors read from the flash, none before its data's program ended",
        total.commands, total.reads_of_programmed_data
    );
}

#[test]
fn swarm_timed_drive_agrees_with_shadow_map() {
    swarm("swarm_timed_drive_agrees_with_shadow_map", 1, build);
}

/// The same on today's drives, shrunk ([`build_today`]); seeds from 1,000,001 so a seed names
/// one case of one swarm.
#[test]
fn swarm_todays_drives_agree_with_shadow_map() {
    swarm("swarm_todays_drives_agree_with_shadow_map", 1_000_001, build_today);
}
