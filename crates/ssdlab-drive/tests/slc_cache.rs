//! The SLC cache by mechanism (issue 20): a fuller drive has a smaller dynamic cache, and idle
//! time restores the cache at the rate the NAND's timing allows folding.

use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_workload::parse_options;

/// The Samsung 980 PRO layout shrunk to 300 blocks per plane (56 GiB raw, the same user/raw
/// ratio), no static SLC and no firmware cap on the dynamic part: the cache is what free space
/// allows.
fn shrunk_980_pro() -> Profile {
    let full = load_profile("samsung-980-pro-1tb", &[]).unwrap();
    let g = &full.geometry;
    let blocks = 300u64;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * blocks;
    let user = (raw as u128 * full.capacity_bytes_user as u128 / g.raw_bytes() as u128) as u64 / 4096 * 4096;
    load_profile(
        "samsung-980-pro-1tb",
        &[
            format!("nand.blocks_per_plane={blocks}"),
            format!("drive.capacity_bytes_user={user}"),
            "slc_cache.static_bytes=0".to_string(),
            format!("slc_cache.dynamic_max_bytes={}", raw / 3),
        ],
    )
    .unwrap()
}

/// Write `bytes` sequentially from `offset` (128 KiB at QD32).
fn write(session: &mut Session, offset: u64, bytes: u64) -> ssdlab_drive::RunSummary {
    let items: Vec<String> = ["rw=write", "bs=128k", "iodepth=32", &format!("offset={offset}"), &format!("size={bytes}")].map(String::from).to_vec();
    let job = parse_options("t", &items).unwrap();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    session.run_summary(&run, 0.0).unwrap()
}

/// Bytes that land in SLC blocks from `offset` on until the cache is exhausted (a 64 MiB step
/// writes nothing into SLC), writing in 64 MiB steps; steps before the first SLC write (the
/// dies' open native blocks filling up) are skipped. Returns them with the offset reached.
fn slc_bytes_until_exhausted(session: &mut Session, mut offset: u64) -> (u64, u64) {
    let step = 64 << 20;
    let end = session.drive().usable_bytes();
    let mut slc = 0;
    while offset + step <= end {
        let tiers = write(session, offset, step).tiers.unwrap();
        offset += step;
        if tiers.slc_write_bytes == 0 && slc > 0 {
            break;
        }
        slc += tiers.slc_write_bytes;
    }
    (slc, offset)
}

/// Fill `fraction` of the user space and let idle time fold it all, so the data sits in native
/// blocks; then measure how much lands in SLC.
fn cache_at_fill(fraction: f64) -> u64 {
    let profile = shrunk_980_pro();
    let span = (profile.usable_bytes() as f64 * fraction) as u64 / (128 << 10) * (128 << 10);
    let mut session = Session::new(profile, DriveOptions::default(), 5).unwrap();
    session.secure_erase();
    write(&mut session, 0, span);
    session.idle(600_000_000_000).unwrap();
    let tiers = session.drive().translation().tier_stats().unwrap();
    assert_eq!(tiers.slc_sectors_now, 0, "idle time folded everything");
    slc_bytes_until_exhausted(&mut session, span).0
}

#[test]
fn a_fuller_drive_has_a_smaller_dynamic_cache() {
    let half = cache_at_fill(0.5);
    let ninety = cache_at_fill(0.9);
    let raw = shrunk_980_pro().raw_bytes() as f64;
    eprintln!("cache at 50% full {:.2} GB, at 90% full {:.2} GB (raw {:.1} GB)", half as f64 / 1e9, ninety as f64 / 1e9, raw / 1e9);
    assert!(ninety > 0 && (ninety as f64) < 0.6 * half as f64, "50%: {half} bytes, 90%: {ninety} bytes");
    // Free space over three: at 50% the free blocks hold about (raw - half the user space) / 3
    // in pSLC mode, less GC's reserve.
    let user = shrunk_980_pro().usable_bytes() as f64;
    let expected_half = (raw - 0.5 * user) / 3.0;
    assert!((half as f64 - expected_half).abs() < 0.1 * expected_half, "50%: {half} bytes, free space / 3 = {expected_half:.0}");
}

#[test]
fn idle_time_restores_the_cache_at_the_folding_rate_nand_timing_allows() {
    let profile = shrunk_980_pro();
    let m = profile.media.clone();
    let g = profile.geometry.clone();
    let t = profile.timing.clone();
    let mut session = Session::new(profile, DriveOptions::default(), 7).unwrap();
    session.secure_erase();
    let (cached, offset) = slc_bytes_until_exhausted(&mut session, 0);
    session.flush();
    let before = session.drive().translation().tier_stats().unwrap();
    assert!(before.slc_sectors_now * 4096 > cached / 2);
    // Folding one full pSLC block on a die: sense each of its pages (pSLC read, then the
    // multi-plane page over the channel), program its data as one-shot word lines, erase it.
    let unit_bytes = g.unit_bytes();
    let slc_pages = g.pages_per_block as u64 / m.pslc_ratio() as u64;
    let word_lines = slc_pages / m.native_pages_per_program() as u64;
    let bus = |bytes: u64| ssdlab_core::time::transfer_ns(bytes, t.bus_bytes_per_second);
    let read_ns = slc_pages * (t.command_overhead_ns + m.read_ns(true, 0) + bus(unit_bytes));
    let program_ns = word_lines * (t.command_overhead_ns + bus(unit_bytes * m.native_pages_per_program() as u64) + m.t_prog_ns);
    let erase_ns = t.command_overhead_ns + t.t_erase_ns;
    let block_bytes = slc_pages * unit_bytes;
    let nand_rate = block_bytes as f64 * g.dies() as f64 / ((read_ns + program_ns + erase_ns) as f64 / 1e9);
    let idle_ns = 3_000_000_000;
    session.idle(idle_ns).unwrap();
    let after = session.drive().translation().tier_stats().unwrap();
    let folded = (after.fold_sectors - before.fold_sectors) * 4096;
    let rate = folded as f64 / (idle_ns as f64 / 1e9);
    eprintln!(
        "folded {:.2} GB in {:.0} s idle: {:.0} MB/s; NAND timing allows {:.0} MB/s",
        folded as f64 / 1e9,
        idle_ns as f64 / 1e9,
        rate / 1e6,
        nand_rate / 1e6
    );
    assert!(folded > 0 && after.slc_sectors_now > 0, "the idle time was shorter than folding everything");
    assert!((rate - nand_rate).abs() < 0.05 * nand_rate, "folding ran at {rate:.0} B/s, NAND timing allows {nand_rate:.0}");
    // The folded blocks are cache again, less the native blocks their data now fills: each
    // folded block frees (ratio - 1) / ratio of a block, taken again in pSLC mode.
    let (restored, _) = slc_bytes_until_exhausted(&mut session, offset);
    let ratio = m.pslc_ratio() as f64;
    let freed = (after.slc_blocks_folded - before.slc_blocks_folded) as f64 * block_bytes as f64 * (ratio - 1.0) / ratio;
    eprintln!("restored cache {:.2} GB; folding freed {:.2} GB of pSLC blocks net", restored as f64 / 1e9, freed / 1e9);
    assert!((restored as f64 - freed).abs() < 0.1 * freed, "restored {restored}, folding freed {freed:.0}");
}

#[test]
fn random_overwrites_of_cached_data_keep_the_ftl_consistent() {
    // Overwrites invalidate data in SLC blocks waiting for folding: GC must not take those
    // blocks as victims behind folding's back (they would be reclaimed twice).
    let profile = shrunk_980_pro();
    let span = profile.usable_bytes();
    let mut session = Session::new(profile, DriveOptions::default(), 9).unwrap();
    session.secure_erase();
    write(&mut session, 0, span / 2 / (128 << 10) * (128 << 10));
    let items: Vec<String> =
        ["rw=randwrite", "bs=4k", "iodepth=32", &format!("size={span}"), &format!("io_size={}", span / 4096 * 4096)].map(String::from).to_vec();
    let job = parse_options("t", &items).unwrap();
    let mut run = session.start_run(&job, None, None).unwrap();
    while !session.advance_run(&mut run, u64::MAX).unwrap() {}
    let summary = session.run_summary(&run, 0.0).unwrap();
    let tiers = summary.tiers.unwrap();
    eprintln!("random writes: WA {:.3}, tiers {tiers:?}", summary.write_amplification.unwrap());
    assert!(tiers.fold_write_bytes > 0 && tiers.gc_write_bytes > 0, "both folding and GC ran");
    session.drive().translation().check_invariants().unwrap();
    session.idle(600_000_000_000).unwrap();
    session.drive().translation().check_invariants().unwrap();
}

#[test]
fn a_flushing_drive_folds_one_slc_block_per_native_block_then_writes_faster_and_caches_again_after_a_pause() {
    let full = shrunk_980_pro();
    let user = full.usable_bytes();
    let g = &full.geometry;
    let profile = load_profile(
        "samsung-980-pro-1tb",
        &[
            format!("nand.blocks_per_plane={}", g.blocks_per_plane),
            format!("drive.capacity_bytes_user={}", full.capacity_bytes_user),
            "slc_cache.static_bytes=0".to_string(),
            "slc_cache.dynamic_max_bytes=6000000000".to_string(),
            "slc_cache.when_full=flush".to_string(),
        ],
    )
    .unwrap();
    let ratio = profile.media.pslc_ratio() as f64;
    let mut session = Session::new(profile, DriveOptions::default(), 11).unwrap();
    session.secure_erase();
    let (cached, mut offset) = slc_bytes_until_exhausted(&mut session, 0);
    assert!(cached > 4_000_000_000, "cache {cached}");
    // While SLC blocks remain, every native block the host fills brings one SLC block's data
    // (a third of it, on TLC) into native blocks; then the drive writes TLC alone, faster.
    let chunk = 1u64 << 30;
    let (mut flushing, mut alone) = (vec![], vec![]);
    while offset + chunk <= user && alone.len() < 2 {
        let slc_before = session.drive().translation().tier_stats().unwrap().slc_blocks_now;
        let summary = write(&mut session, offset, chunk);
        offset += chunk;
        let tiers = summary.tiers.unwrap();
        assert_eq!(tiers.slc_write_bytes, 0, "no host data goes into SLC until the host pauses");
        let slc_after = session.drive().translation().tier_stats().unwrap().slc_blocks_now;
        if slc_after > 0 && slc_before > 0 {
            let share = tiers.fold_write_bytes as f64 / tiers.native_write_bytes as f64;
            assert!((share - 1.0 / ratio).abs() < 0.03, "folded {share:.3} of the native bytes written, expected {:.3}", 1.0 / ratio);
            flushing.push(summary.write_mbps);
        } else if slc_before == 0 {
            assert_eq!(tiers.fold_write_bytes, 0);
            alone.push(summary.write_mbps);
        }
    }
    assert!(flushing.len() >= 3 && alone.len() == 2, "flushing {flushing:?}, alone {alone:?}");
    let (f, a) = (flushing[1], alone[1]);
    eprintln!("flushing {f:.0} MB/s, TLC alone {a:.0} MB/s");
    assert!(a > 1.25 * f, "writing TLC alone ({a:.0} MB/s) should be faster than while flushing ({f:.0} MB/s)");
    // After a pause the drive takes host data into SLC again.
    session.idle(1_000_000).unwrap();
    let again = write(&mut session, offset, chunk).tiers.unwrap();
    assert!(again.slc_write_bytes > chunk / 2, "after a pause: {again:?}");
}

#[test]
fn pslc_cycles_are_counted_apart_from_native_wear() {
    let profile = shrunk_980_pro();
    let (native_rating, pslc_rating) = (profile.media.native_endurance_cycles as f64, profile.media.pslc.as_ref().unwrap().endurance_cycles as f64);
    let mut session = Session::new(profile, DriveOptions::default(), 13).unwrap();
    session.secure_erase();
    let wear_before = session.state().wear;
    // Write into the cache and fold it away three times: each round erases only pSLC blocks.
    let mut offset = 0;
    let mut slc_erases = 0;
    for _ in 0..3 {
        write(&mut session, offset, 2 << 30);
        offset += 2 << 30;
        let before = session.drive().translation().tier_stats().unwrap();
        session.idle(60_000_000_000).unwrap();
        let after = session.drive().translation().tier_stats().unwrap();
        assert_eq!(after.slc_block_erases - before.slc_block_erases, after.slc_blocks_folded - before.slc_blocks_folded);
        assert_eq!(after.native_block_erases, before.native_block_erases, "folding erased no native block");
        slc_erases += after.slc_block_erases - before.slc_block_erases;
    }
    assert!(slc_erases > 0);
    // Native wear (what `wear` reports) did not move; the most worn block's life counts its pSLC
    // cycles against the pSLC rating: a secure erase (one native cycle) plus a few pSLC cycles.
    assert_eq!(session.state().wear.max, wear_before.max);
    let life = session.drive().translation().tier_stats().unwrap().life_used_max_ppm as f64 / 1e6;
    let most_slc = (1..=3).map(|k| 1.0 / native_rating + k as f64 / pslc_rating).collect::<Vec<_>>();
    assert!(most_slc.iter().any(|l| (l - life).abs() < 1e-6), "life used {life}, expected one of {most_slc:?}");
}
