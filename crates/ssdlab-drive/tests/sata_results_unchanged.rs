//! Guard of the redesign for today's drives (issue 20): every built-in SATA profile, shrunk to a
//! small array, runs a fixed set of jobs, and each run's summary (WA, IOPS, MB/s, latency
//! percentiles, NAND counters, energy, wear) plus the drive's state afterwards must equal, to
//! the last digit, the values the code produced before the redesign (commit 58da2f5), stored in
//! `tests/golden/sata_summaries.json`.
//!
//! The golden file was written by the code of 58da2f5 with
//! `SSDLAB_WRITE_GOLDEN=1 cargo nextest run -p ssdlab-drive --test sata_results_unchanged`;
//! never regenerate it to make this test pass: a difference means a change changed what a
//! SATA drive does. A mechanism that changes SATA results on purpose regenerates it in a
//! commit of its own naming the mechanism and the size of the change
//! (`scripts/golden_diff.py OLD NEW`), so intended changes stay apart from accidents.

use serde_json::{json, Value};
use ssdlab_drive::{DriveOptions, Session};
use ssdlab_profile::{builtin_names, load_profile, HostInterface};
use ssdlab_workload::parse_options;
use std::collections::BTreeMap;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/sata_summaries.json");

/// Blocks per plane of the shrunk drives.
const BLOCKS_PER_PLANE: u64 = 128;

/// The profile shrunk to [`BLOCKS_PER_PLANE`], keeping its user/raw ratio.
fn shrunk(name: &str) -> ssdlab_profile::Profile {
    let full = load_profile(name, &[]).unwrap();
    let g = &full.geometry;
    let raw = g.raw_bytes() / g.blocks_per_plane as u64 * BLOCKS_PER_PLANE;
    let user = (raw as u128 * full.capacity_bytes_user as u128 / g.raw_bytes() as u128) as u64 / 4096 * 4096;
    load_profile(name, &[format!("nand.blocks_per_plane={BLOCKS_PER_PLANE}"), format!("drive.capacity_bytes_user={user}")]).unwrap()
}

/// The jobs every profile runs, in order, on one session (fio options; `SPAN` is the usable
/// span in bytes).
const JOBS: &[&str] = &[
    "rw=write bs=128k iodepth=32 size=SPAN",
    "rw=randwrite bs=4k iodepth=32 size=SPAN io_size=HALF",
    "rw=randread bs=4k iodepth=4 size=SPAN number_ios=20000",
    "rw=randrw rwmixread=70 bs=8k iodepth=8 size=SPAN number_ios=20000",
    "IDLE",
    "rw=read bs=128k iodepth=2 size=SPAN io_size=QUARTER",
    "rw=randtrim bs=1m iodepth=1 size=SPAN number_ios=64",
    "rw=write bs=64k iodepth=1 size=SPAN io_size=QUARTER",
];

/// Everything the jobs report on one profile, as JSON (wall time left out).
fn results_of(name: &str) -> Value {
    let profile = shrunk(name);
    let span = profile.usable_bytes();
    let mut session = Session::new(profile, DriveOptions::default(), 20).unwrap();
    session.secure_erase();
    let mut out = Vec::new();
    for job in JOBS {
        if *job == "IDLE" {
            let reclaimed = session.idle(2_000_000_000).unwrap();
            out.push(json!({ "idle_reclaimed_blocks": reclaimed, "state": session.state() }));
            continue;
        }
        let text = job
            .replace("SPAN", &span.to_string())
            .replace("HALF", &(span / 2 / 4096 * 4096).to_string())
            .replace("QUARTER", &(span / 4 / 4096 * 4096).to_string());
        let items: Vec<String> = text.split(' ').map(str::to_string).collect();
        let spec = parse_options("golden", &items).unwrap();
        let mut run = session.start_run(&spec, None, None).unwrap();
        while !session.advance_run(&mut run, u64::MAX).unwrap() {}
        let summary = session.run_summary(&run, 0.0).unwrap();
        let series_rows = run.series().len();
        let last_row = run.series().last().cloned();
        out.push(json!({ "job": job, "summary": summary, "series_rows": series_rows, "last_series_row": last_row, "state": session.state() }));
    }
    Value::Array(out)
}

/// The built-in SATA profiles of the drives before issue 20 (today's SATA drives, with a media
/// model of their own, are not part of the guard).
fn sata_profiles() -> Vec<&'static str> {
    builtin_names()
        .into_iter()
        .filter(|n| {
            let p = load_profile(n, &[]).unwrap();
            matches!(p.host.interface, HostInterface::Sata3G | HostInterface::Sata6G) && p.media == ssdlab_nand::Media::legacy(&p.timing)
        })
        .collect()
}

#[test]
fn every_sata_profile_gives_the_results_it_gave_before_the_redesign() {
    let names = sata_profiles();
    let mut now = BTreeMap::new();
    for name in &names {
        now.insert(name.to_string(), results_of(name));
    }
    if std::env::var_os("SSDLAB_WRITE_GOLDEN").is_some() {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, serde_json::to_string_pretty(&now).unwrap() + "\n").unwrap();
        return;
    }
    // Compared as text (serde_json's float parsing is not exact to the last bit; its printing
    // is): the same numbers to the last printed digit.
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    let golden_names: BTreeMap<String, Value> = serde_json::from_str(&golden).unwrap();
    for name in golden_names.keys() {
        assert!(now.contains_key(name), "profile {name} has golden results but is no longer a built-in SATA profile");
    }
    for name in now.keys() {
        assert!(golden_names.contains_key(name), "built-in SATA profile {name} has no golden results");
    }
    // Fields added to the summaries after the golden file was written (later issues add
    // figures) are left out; every field the golden file has must print the same.
    let golden_shape: Value = serde_json::from_str(&golden).unwrap();
    let now = only_fields_of(&serde_json::to_value(&now).unwrap(), &golden_shape);
    let text = serde_json::to_string_pretty(&now).unwrap() + "\n";
    if let Some((i, (g, n))) = golden.lines().zip(text.lines()).enumerate().find(|(_, (g, n))| g != n) {
        panic!("line {} of {GOLDEN} differs: golden `{}` now `{}`", i + 1, g.trim(), n.trim());
    }
    assert_eq!(golden.lines().count(), text.lines().count(), "the results have another shape than the golden file");
}

/// `value` with only the object fields that `shape` has, at every depth (arrays element by
/// element); a field of `shape` missing from `value` stays missing, so the comparison fails.
fn only_fields_of(value: &Value, shape: &Value) -> Value {
    match (value, shape) {
        (Value::Object(fields), Value::Object(wanted)) => {
            Value::Object(fields.iter().filter(|(key, _)| wanted.contains_key(*key)).map(|(key, v)| (key.clone(), only_fields_of(v, &wanted[key]))).collect())
        }
        (Value::Array(items), Value::Array(shapes)) => {
            Value::Array(items.iter().enumerate().map(|(i, v)| shapes.get(i).map_or_else(|| v.clone(), |s| only_fields_of(v, s))).collect())
        }
        _ => value.clone(),
    }
}
