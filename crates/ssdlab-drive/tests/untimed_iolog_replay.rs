//! fio's iolog v2 records no timing: replayed in queue-depth mode it goes one request at a
//! time (fio's default iodepth), as fio replays it, not every request in flight at once.

use ssdlab_drive::{DriveOptions, ReplayMode, ReplaySummary, Session};
use ssdlab_profile::{load_profile, Profile};
use ssdlab_reduce::DataPattern;
use ssdlab_trace::{ReadOptions, TraceFormat, TraceReader};
use std::io::{BufReader, Cursor};

fn small_drive() -> Profile {
    let raw: u64 = 32 * 2 * 64 * 256 * 8192;
    let user = (raw as f64 * 240e9 / (256u64 << 30) as f64) as u64 / 4096 * 4096;
    load_profile("force-gs-240", &["nand.blocks_per_plane=64".to_string(), format!("drive.capacity_bytes_user={user}")]).unwrap()
}

/// A v2 log of `n` 4 KiB random reads (fio writes no `wait` actions: no timing at all).
fn v2_log(n: u64) -> String {
    let mut text = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n".to_string();
    for i in 0..n {
        text += &format!("/dev/sdb read {} 4096\n", (i * 7919 % 4096) * 4096);
    }
    text + "/dev/sdb close\n"
}

fn replay(text: &str, by_format: bool) -> ReplaySummary {
    let mut session = Session::new(small_drive(), DriveOptions::default(), 1).unwrap();
    let reader = TraceReader::from_reader_with("v2.log", Box::new(BufReader::new(Cursor::new(text.to_string()))), ReadOptions::default()).unwrap();
    assert_eq!(reader.format(), TraceFormat::FioV2);
    let format = reader.format();
    let run = session.start_replay("v2.log", Box::new(reader), ReplayMode::QueueDepth, false, DataPattern::default(), Some(7), None, None).unwrap();
    let mut run = if by_format { run.for_format(format) } else { run };
    while !session.advance_replay(&mut run, 100_000).unwrap() {}
    session.replay_summary(&run, 0.0).unwrap()
}

#[test]
fn a_v2_iolog_replays_one_request_at_a_time() {
    let text = v2_log(500);
    let one_at_a_time = replay(&text, true);
    assert_eq!(one_at_a_time.reads, 500);
    // At depth 1 the run's time is the sum of its requests' latencies: each waits for none.
    let mean_us = one_at_a_time.latency_us.as_ref().unwrap().mean;
    let sum_s = mean_us * 1e-6 * 500.0;
    assert!((one_at_a_time.simulated_seconds / sum_s - 1.0).abs() < 0.01, "{} s for {sum_s} s of latencies", one_at_a_time.simulated_seconds);
    // Taken from the times (all 0), every request was outstanding at once: the drive's queue
    // full, each request waiting behind the others.
    let all_at_once = replay(&text, false);
    let all_mean_us = all_at_once.latency_us.as_ref().unwrap().mean;
    assert!(all_mean_us > 5.0 * mean_us, "{all_mean_us} us vs {mean_us} us");
}
