//! Content-aware trace replay: a trace that records the hash of each written block (FIU's
//! MD5s) decides what each write holds, so the data-reduction engine deduplicates what the
//! traced system wrote twice. On the Force GS layout scaled down (64 blocks per plane).

use ssdlab_drive::{DriveOptions, ReplayMode, ReplaySummary, Session};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_reduce::{ContentMode, DataPattern, PatternKind};
use ssdlab_trace::{ReadOptions, TraceReader, TraceStats};
use std::io::{BufReader, Cursor};

fn scaled_force_gs() -> Profile {
    let raw: u64 = 32 * 2 * 64 * 256 * 8192;
    let user = (raw as f64 * 240e9 / (256u64 << 30) as f64) as u64 / 4096 * 4096;
    load_profile("force-gs-240", &["nand.blocks_per_plane=64".to_string(), format!("drive.capacity_bytes_user={user}")]).unwrap()
}

/// An FIU trace of `writes` 4 KiB writes to successive blocks, the `i`-th with the content
/// hash `hash_of(i)`.
fn fiu_trace(writes: u64, hash_of: impl Fn(u64) -> u128) -> String {
    (0..writes).map(|i| format!("{} 4242 app {} 8 W 8 0 {:032x}\n", 1_000_000 + i * 50_000, i * 8, hash_of(i))).collect()
}

fn reader(text: &str) -> TraceReader {
    TraceReader::from_reader_with("fiu.trace", Box::new(BufReader::new(Cursor::new(text.to_string()))), ReadOptions::default()).unwrap()
}

fn replay(text: &str, mode: ContentMode, kind: PatternKind) -> ReplaySummary {
    let mut session = Session::new(scaled_force_gs(), DriveOptions { content: mode, ..DriveOptions::default() }, 1).unwrap();
    let pattern = DataPattern { kind, ..DataPattern::default() };
    let mut run = session.start_replay("fiu.trace", Box::new(reader(text)), ReplayMode::QueueDepth, false, pattern, Some(7), None, None).unwrap();
    while !session.advance_replay(&mut run, 100_000).unwrap() {}
    session.replay_summary(&run, 0.0).unwrap()
}

fn stored_bytes(s: &ReplaySummary) -> u64 {
    s.reduction.as_ref().expect("the Force GS reduces data").bytes_stored
}

#[test]
fn one_hash_written_to_many_blocks_stores_far_less_than_distinct_hashes() {
    const WRITES: u64 = 20_000;
    let same = replay(&fiu_trace(WRITES, |_| 0x1234_5678_9abc_def0_0fed_cba9_8765_4321), ContentMode::Modeled, PatternKind::Random);
    let distinct = replay(&fiu_trace(WRITES, |i| 0xabcd_0000_0000_0000_0000_0000_0000_0000 + i as u128), ContentMode::Modeled, PatternKind::Random);
    assert_eq!((same.writes, distinct.writes), (WRITES, WRITES));
    // Random data does not compress: every distinct block stores at least 4 KiB; one content
    // written 20,000 times is stored once.
    assert!(stored_bytes(&distinct) >= WRITES * 4096, "{:?}", distinct.reduction);
    assert!(stored_bytes(&same) <= 8192, "{:?}", same.reduction);
    let hit_rate = same.reduction.as_ref().unwrap().dedup_hit_rate.unwrap();
    assert!((hit_rate - (WRITES - 1) as f64 / WRITES as f64).abs() < 1e-12, "{hit_rate}");
    assert_eq!(distinct.reduction.as_ref().unwrap().dedup_hit_rate, Some(0.0));
}

#[test]
fn the_engine_deduplicates_what_trace_stats_counts_as_duplicates() {
    // Four writes of each content: three of four blocks repeat an earlier one.
    let text = fiu_trace(8_000, |i| 0x5000 + (i % 2_000) as u128);
    let mut stats = TraceStats::new();
    for r in reader(&text) {
        stats.add(&r.unwrap());
    }
    let share = stats.report("fiu", 0).content.unwrap().duplicate_share;
    assert!((share - 0.75).abs() < 1e-12, "{share}");
    let summary = replay(&text, ContentMode::Modeled, PatternKind::Text);
    let reduction = summary.reduction.unwrap();
    assert!((reduction.dedup_hit_rate.unwrap() - share).abs() < 1e-12, "{reduction:?}");
    // Equal contents compress equally: the 2,000 distinct text contents are each stored once,
    // at the size their hash draws from the pattern's distribution, below 4 KiB.
    assert!(reduction.bytes_stored < 2_000 * 4096 && reduction.bytes_stored > 2_000 * 256, "{reduction:?}");
}

#[test]
fn the_zero_block_hash_takes_no_flash_and_real_bytes_dedup_as_modeled_ones() {
    let zero = ssdlab_trace::MD5_OF_ZERO_4096;
    let summary = replay(&fiu_trace(1_000, |_| zero), ContentMode::Modeled, PatternKind::Random);
    let reduction = summary.reduction.unwrap();
    assert_eq!((reduction.bytes_stored, reduction.zero_sector_rate), (0, Some(1.0)));
    // Real bytes: the hash generates the pattern's bytes, which the engine really hashes.
    let text = fiu_trace(2_000, |i| 0x77 + (i % 500) as u128);
    let real = replay(&text, ContentMode::Real, PatternKind::Random).reduction.unwrap();
    let modeled = replay(&text, ContentMode::Modeled, PatternKind::Random).reduction.unwrap();
    assert_eq!(real.dedup_hit_rate, Some(0.75));
    assert_eq!(real.dedup_hit_rate, modeled.dedup_hit_rate);
}

#[test]
fn the_same_trace_replayed_twice_gives_identical_results() {
    let text = fiu_trace(5_000, |i| 0x9000 + (i * i % 1_700) as u128);
    let a = replay(&text, ContentMode::Modeled, PatternKind::Text);
    let b = replay(&text, ContentMode::Modeled, PatternKind::Text);
    assert_eq!(a, b);
    assert!(a.reduction.as_ref().unwrap().dedup_hit_rate.unwrap() > 0.5);
}
