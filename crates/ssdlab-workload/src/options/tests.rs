//! Unit tests of option parsing and of the checks on a job as a whole.

use super::*;
use ssdlab_core::time::NS_PER_S;

#[test]
fn options_parse() {
    let job =
        parse_options("cli", &["rw=randrw".into(), "bssplit=4k/50:64k/50".into(), "iodepth=32".into(), "runtime=3m".into(), "rwmixread=70".into()]).unwrap();
    assert_eq!(job.rw, RwKind::RandRw);
    assert_eq!(job.block_sizes, vec![(4096, 50), (65536, 50)]);
    assert_eq!(job.runtime_ns, Some(180 * NS_PER_S));
    assert_eq!(job.rwmixread, 70);
    let job = parse_options("cli", &["random_distribution=zipf:1.2".into(), "bssplit=4k:8k".into()]).unwrap();
    assert_eq!(job.distribution, Distribution::Zipf(1.2));
    assert_eq!(job.block_sizes, vec![(4096, 50), (8192, 50)]);
    // fio 3.33 wrote 855 4k and 8139 64k writes for bssplit=4k/10:64k/40: the unclaimed 50%
    // goes to the largest entry (it was spread: 20% and 80%).
    let job = parse_options("cli", &["bssplit=4k/10:64k/40".into()]).unwrap();
    assert_eq!(job.block_sizes, vec![(4096, 10), (65536, 90)]);
    let job = parse_options("cli", &["bssplit=4k:8k:16k".into()]).unwrap();
    assert_eq!(job.block_sizes, vec![(4096, 33), (8192, 33), (16384, 34)]);
}

#[test]
fn unified_rw_reporting_takes_fio_s_names_and_numbers() {
    let mode = |v: &str| parse_options("cli", &[format!("unified_rw_reporting{v}")]).map(|j| j.unified_rw_reporting);
    assert_eq!(parse_options("cli", &[]).unwrap().unified_rw_reporting, RwReporting::Apart);
    for (v, want) in [("=none", RwReporting::Apart), ("=0", RwReporting::Apart), ("=mixed", RwReporting::Mixed), ("=1", RwReporting::Mixed)] {
        assert_eq!(mode(v).unwrap(), want, "{v}");
    }
    assert_eq!(mode("=Both").unwrap(), RwReporting::Both);
    assert_eq!(mode("=2").unwrap(), RwReporting::Both);
    assert_eq!(mode("").unwrap(), RwReporting::Mixed);
    let err = mode("=sometimes").unwrap_err().to_string();
    assert!(err.contains("unified_rw_reporting") && err.contains("expected none, mixed or both"), "{err}");
    assert!(!parse_options("cli", &["unified_rw_reporting=1".into()]).unwrap().no_effect.iter().any(|k| k == "unified_rw_reporting"));
}

#[test]
fn boolean_options_take_fio_integers_and_words_and_refuse_the_rest() {
    let on = |v: &str| parse_options("cli", &[format!("time_based={v}"), "runtime=1".into()]).map(|j| j.time_based);
    for v in ["1", "2", "0x1", "true", "True", "YES", "on", ""] {
        assert!(on(v).unwrap(), "time_based={v}");
    }
    for v in ["0", "0x0", "false", "False", "NO", "off"] {
        assert!(!on(v).unwrap(), "time_based={v}");
    }
    // fio refuses these; they switched the option on before.
    for v in ["nonsense", "1.5", "tru"] {
        let message = on(v).unwrap_err().to_string();
        assert!(message.contains("time_based") && message.contains("not a boolean"), "{message}");
    }
    assert!(parse_options("cli", &["time_based".into(), "runtime=1".into()]).unwrap().time_based);
    // zero_buffers=False leaves the buffers alone (it wrote zeros before).
    assert_eq!(parse_options("cli", &["zero_buffers=False".into()]).unwrap().named_pattern, None);
    assert!(parse_options("cli", &["zero_buffers=nonsense".into()]).is_err());
}

#[test]
fn fio_forms_parse() {
    let job = parse_options("cli", &["rw=read:-8k".into(), "size=10%".into(), "bsrange=4k-16k".into()]).unwrap();
    assert_eq!(job.rw_step, -8192);
    assert_eq!(job.size_percent, Some(10.0));
    assert_eq!(job.block_sizes, vec![(4096, 1), (8192, 1), (12288, 1), (16384, 1)]);
    let job = parse_options("cli", &["bs=512k".into(), "kb_base=1000".into(), "size=1024k".into()]).unwrap();
    assert_eq!((job.block_sizes[0].0, job.size_bytes), (512_000, Some(1_024_000)));
    let job = parse_options("cli", &["rw=randread".into(), "random_distribution=zoned:50/5:30/15:20/".into(), "numjobs=3".into()]).unwrap();
    match &job.distribution {
        Distribution::Zoned(z) => assert_eq!(z[2].extent, ZoneExtent::Percent(80.0)),
        other => panic!("{other:?}"),
    }
    assert_eq!(job.concurrent.len(), 2);
}

#[test]
fn fio_defaults_of_refused_options_change_nothing() {
    // Job files written out in full carry fio's defaults; those are what ssdlab does.
    let defaults = [
        "fsync=0",
        "fdatasync=0",
        "end_fsync=0",
        "fsync_on_close=0",
        "sync=none",
        "startdelay=0s",
        "rate=0,0",
        "rate_iops=0",
        "rate_min=0",
        "rate_process=linear",
        "thinktime_blocks=1",
        "thinktime_spin=0",
        "percentage_random=100",
        "zonemode=none",
        "latency_target=0",
        "serialize_overlap=0",
    ];
    let mut items: Vec<String> = vec!["rw=randwrite".into()];
    items.extend(defaults.iter().map(|s| s.to_string()));
    let job = parse_options("cli", &items).unwrap();
    assert!(job.no_effect.contains(&"thinktime_spin".to_string()), "{:?}", job.no_effect);
    assert!(!job.flushes.any() && job.limits.is_none());
    // Anything else is still refused with its reason.
    for other in ["thinktime_blocks_type=issue", "zonemode=zbd", "write_barrier=1"] {
        let err = parse_options("cli", &[other.to_string()]).unwrap_err().to_string();
        assert!(err.contains(other.split('=').next().unwrap()) && !err.contains("unknown"), "{other}: {err}");
    }
    // Real fio options that change nothing are accepted, not called unknown.
    let job = parse_options("cli", &["file_service_type=random".into(), "fallocate=none".into(), "ioscheduler=none".into()]).unwrap();
    assert_eq!(job.no_effect, vec!["file_service_type", "fallocate", "ioscheduler"]);
}

#[test]
fn flow_options_as_fio_reads_them() {
    let parse = |items: &[&str]| parse_options("cli", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let job = parse(&["flow=8", "flow_id=3", "flow_sleep=1000"]).unwrap();
    assert_eq!(job.flow, Some(Flow { id: 3, weight: 8, sleep_ns: 1_000_000 }));
    assert_eq!(parse(&["flow=2"]).unwrap().flow, Some(Flow { id: 0, weight: 2, sleep_ns: 0 }));
    // A negative weight wraps as fio's unsigned int (fio's butterfly.fio: flow=-2).
    assert_eq!(parse(&["flow=-2"]).unwrap().flow, Some(Flow { id: 0, weight: u32::MAX - 1, sleep_ns: 0 }));
    // flow=0 is fio's default: no flow control; its id and sleep then change nothing.
    let job = parse(&["flow=0", "flow_id=3", "flow_sleep=5ms"]).unwrap();
    assert!(job.flow.is_none() && job.no_effect.contains(&"flow_id".to_string()) && job.no_effect.contains(&"flow_sleep".to_string()), "{:?}", job.no_effect);
    for (items, says) in [
        (vec!["flow=1001"], "must be 0 to 1000"),
        (vec!["flow=-2147483649"], "from -2147483648 to 1000"),
        (vec!["flow=-x"], "from -2147483648 to 1000"),
        (vec!["flow_id=x"], "whole number"),
        (vec!["flow_sleep=soon"], "flow_sleep"),
    ] {
        let err = parse(&items).unwrap_err().to_string();
        assert!(err.contains(says), "{items:?}: {err}");
    }
}

#[test]
fn rate_limits_are_read_per_direction_as_fio() {
    let job = parse_options("cli", &["rw=randread".into(), "rate_iops=500".into()]).unwrap();
    let rate = job.rate.clone().unwrap();
    assert_eq!((rate.commands_per_second(), rate.linear_offset_ns(3), rate.poisson), (Some(500.0), Some(6_000_000), false));
    // `rate=10m` at bs=4k: 2,560 commands per second.
    let job = parse_options("cli", &["rw=write".into(), "bs=4k".into(), "rate=10m".into(), "rate_process=poisson".into()]).unwrap();
    let rate = job.rate.clone().unwrap();
    assert!((rate.commands_per_second().unwrap() - 2560.0).abs() < 1e-9 && rate.poisson, "{rate:?}");
    // READ,WRITE: a write job takes the second value; `,100` limits only writes.
    let job = parse_options("cli", &["rw=randwrite".into(), "rate_iops=500,100".into()]).unwrap();
    assert_eq!(job.rate.unwrap().commands_per_second(), Some(100.0));
    let job = parse_options("cli", &["rw=randread".into(), "rate_iops=,100".into()]).unwrap();
    assert_eq!(job.rate, None);
    // With two values trims take the second, as fio.
    let job = parse_options("cli", &["rw=trim".into(), "rate_iops=500,100".into()]).unwrap();
    assert_eq!(job.rate.unwrap().commands_per_second(), Some(100.0));
    // A mixed job: each direction its own rate, paced one command at a time; a direction
    // without a rate leaves no commands-per-second figure.
    let job = parse_options("cli", &["rw=randrw".into(), "rate_iops=500,200".into()]).unwrap();
    let rate = job.rate.unwrap();
    assert_eq!((rate.uniform, rate.commands_per_second(), rate.issued), (None, Some(700.0), [true, true, false]));
    let job = parse_options("cli", &["rw=randrw".into(), "rate_iops=500,".into()]).unwrap();
    assert_eq!(job.rate.unwrap().commands_per_second(), None);
    let job = parse_options("cli", &["rw=randrw".into(), "rwmixread=100".into(), "rate_iops=500,".into()]).unwrap();
    assert_eq!(job.rate.unwrap().commands_per_second(), Some(500.0));
    // Several block sizes: paced by bytes at the smallest size (rate_iops x 4 KiB).
    let job = parse_options("cli", &["rw=randread".into(), "bsrange=4k-16k".into(), "rate_iops=500".into()]).unwrap();
    let rate = job.rate.unwrap();
    assert_eq!((rate.uniform, rate.directions[0].unwrap().bytes_per_second), (None, 500 * 4096));
    // Sizes per direction: a read job of one read size is paced slot by slot.
    let job = parse_options("cli", &["rw=randread".into(), "bs=4k,64k".into(), "rate=8m".into()]).unwrap();
    assert_eq!(job.rate.unwrap().uniform, Some(0));
    // Refused clearly: both options (fio: mutually exclusive, whatever the directions),
    // trimwrite, verify with a rate paced by bytes.
    for (items, says) in [
        (vec!["rw=randread", "rate_iops=500", "rate=1m"], "mutually exclusive"),
        (vec!["rw=randrw", "rate_iops=,500", "rate=1m,"], "mutually exclusive"),
        (vec!["rw=trimwrite", "rate_iops=500"], "rw=trimwrite is not simulated"),
        (vec!["rw=randrw", "rate_iops=500", "verify=crc32c"], "with verify, is not simulated"),
        (vec!["rw=randread", "rate_process=bursty"], "unknown process"),
        (vec!["rw=randread", "rate_iops=fast"], "whole number"),
        (vec!["rw=randread", "rate_iops=100", "rate_iops_min=500"], "rate_iops_min (500) exceeds rate_iops (100) for reads"),
        (vec!["rw=randread", "rate_min=1m", "rate_iops_min=5"], "not both"),
        (vec!["rw=randread", "rate_iops_min=-1"], "whole number"),
        (vec!["rw=randread", "max_latency=soon"], "max_latency"),
        (vec!["rw=randread", "max_latency=1,2,3,4"], "READ[,WRITE[,TRIM]]"),
        (vec!["rw=randread", "rate_cycle=x"], "rate_cycle"),
        (vec!["rw=randread", "max_latency=1ms", "continue_on_error=all"], "continue_on_error with max_latency"),
    ] {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        let err = parse_options("cli", &items).unwrap_err().to_string();
        assert!(err.contains(says), "{items:?}: {err}");
    }
}

#[test]
fn error_ending_limits_are_read_per_direction_as_fio() {
    let job = parse_options("cli", &["rw=randrw".into(), "max_latency=2ms,500".into(), "rate_iops_min=,100".into(), "ratecycle=250".into()]).unwrap();
    let limits = job.limits.unwrap();
    assert_eq!(limits.max_latency_ns, [2_000_000, 500_000, 500_000]);
    assert_eq!((limits.min_iops, limits.min_bytes_per_s, limits.rate_cycle_ms), ([0, 100, 100], [0; 3], 250));
    let job = parse_options("cli", &["rw=read".into(), "rate_min=1m".into(), "continue_on_error=none".into(), "exitall_on_error".into()]).unwrap();
    assert_eq!(job.limits.unwrap().min_bytes_per_s, [1 << 20; 3]);
    assert!(job.exitall_on_error);
    // fio's defaults limit nothing; rate_cycle alone changes nothing.
    let job = parse_options("cli", &["rw=read".into(), "max_latency=0".into(), "rate_min=0".into(), "rate_cycle=500".into()]).unwrap();
    assert_eq!(job.limits, None);
    assert!(job.no_effect.contains(&"rate_cycle".to_string()), "{:?}", job.no_effect);
}

#[test]
fn flushes_are_read_as_fio_gives_them() {
    let job = parse_options("cli", &["rw=randwrite".into(), "fsync=4".into(), "fdatasync=6".into(), "end_fsync".into(), "sync=dsync".into()]).unwrap();
    assert_eq!(job.flushes, Flushes { fsync_every: 4, fdatasync_every: 6, end_fsync: true, fsync_on_close: false, sync_writes: true });
    assert!(!job.flushes.due_after(0) && job.flushes.due_after(4) && job.flushes.due_after(6) && !job.flushes.due_after(5));
    for (items, says) in [
        (vec!["rw=randwrite", "fsync=-1"], "whole number"),
        (vec!["rw=randwrite", "sync=sometimes"], "sync: unknown value"),
        (vec!["rw=randwrite", "fsync=1", "verify=crc32c"], "verify with fsync"),
    ] {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        let err = parse_options("cli", &items).unwrap_err().to_string();
        assert!(err.contains(says), "{items:?}: {err}");
    }
}

#[test]
fn buffer_pattern_makes_every_buffer_the_same_unless_compression_or_dedupe_is_asked() {
    let job = parse_options("cli", &["rw=write".into(), "buffer_pattern=0xdeadbeef".into(), "zero_buffers".into()]).unwrap();
    assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 100));
    let job = parse_options("cli", &["rw=write".into(), "buffer_pattern=\"abc\"".into(), "buffer_compress_percentage=50".into()]).unwrap();
    assert!(matches!(job.pattern.kind, PatternKind::FioCompress { percent: 50, .. }) && job.no_effect.contains(&"buffer_pattern".to_string()));
    for (items, says) in
        [(vec!["rw=write", "buffer_pattern='data.bin'"], "file's contents"), (vec!["rw=write", "buffer_pattern=0xab", "data_pattern=text"], "not both")]
    {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        let err = parse_options("cli", &items).unwrap_err().to_string();
        assert!(err.contains(says), "{items:?}: {err}");
    }
    let job = parse_options("cli", &["rw=write".into(), "thinktime=100".into(), "thinktime_spin=50".into()]).unwrap();
    assert_eq!(job.thinktime_ns, 100_000);
    assert!(job.no_effect.contains(&"thinktime_spin".to_string()));
}

#[test]
fn startdelay_in_seconds_or_a_range() {
    let job = parse_options("cli", &["startdelay=5".into()]).unwrap();
    assert_eq!(job.startdelay_ns, (5_000_000_000, 5_000_000_000));
    let job = parse_options("cli", &["startdelay=500ms-2".into()]).unwrap();
    assert_eq!(job.startdelay_ns, (500_000_000, 2_000_000_000));
    let err = parse_options("cli", &["startdelay=5-1".into()]).unwrap_err().to_string();
    assert!(err.contains("ends before it starts"), "{err}");
}

#[test]
fn thinktime_blocks_as_fio() {
    let job = parse_options("cli", &["thinktime=10".into(), "thinktime_blocks=8".into(), "thinktime_blocks_type=complete".into()]).unwrap();
    assert_eq!((job.thinktime_ns, job.thinktime_blocks), (10_000, 8));
    for (item, says) in [("thinktime_blocks=0", "at least 1"), ("thinktime_blocks_type=issue", "not simulated")] {
        let err = parse_options("cli", &[item.to_string()]).unwrap_err().to_string();
        assert!(err.contains(says), "{item}: {err}");
    }
}

#[test]
fn every_problem_is_named_at_once() {
    let err = parse_options("cli", &["rw=randwrite".into(), "iodeph=4".into(), "bogus=1".into()]).unwrap_err().to_string();
    assert!(err.contains("unknown fio option `iodeph`") && err.contains("`bogus`"), "{err}");
    let err = parse_options("cli", &["rw=sideways".into()]).unwrap_err().to_string();
    assert!(err.contains("sideways"), "{err}");
    let err = parse_options("cli", &["bs=1000".into()]).unwrap_err().to_string();
    assert!(err.contains("multiple of 512"), "{err}");
    let err = parse_options("cli", &["rwmixread=150".into()]).unwrap_err().to_string();
    assert!(err.contains("rwmixread"), "{err}");
    let err = parse_options("cli", &["rwmixread=60".into(), "rwmixwrite=30".into()]).unwrap_err().to_string();
    assert!(err.contains("disagree"), "{err}");
    // fio caps a synchronous engine's queue depth at 1 (it printed QD32 and ran 32 deep),
    // every one of them (ime_psync ran 32 deep).
    let job = parse_options("cli", &["ioengine=psync".into(), "iodepth=32".into()]).unwrap();
    assert!(job.iodepth == 1 && job.no_effect.is_empty(), "{job:?}");
    let job = parse_options("cli", &["ioengine=ime_psync".into(), "iodepth=32".into()]).unwrap();
    assert_eq!(job.iodepth, 1);
    // An engine fio does not have, or one that moves no data to a drive, is refused (both ran
    // as block reads).
    let err = parse_options("cli", &["ioengine=bogus".into()]).unwrap_err().to_string();
    assert!(err.contains("ioengine: `bogus` is not one of fio's IO engines"), "{err}");
    let err = parse_options("cli", &["ioengine=dircreate".into()]).unwrap_err().to_string();
    assert!(err.contains("creates directories") && err.contains("moves no data"), "{err}");
    // An option ssdlab does not know is named as such, whatever its value (an unset
    // variable in it was reported first); fio's alias nr_files changes nothing, as nrfiles.
    let err = parse_options("cli", &["frobnicate=${SSDLAB_SURELY_UNSET_VARIABLE}".into()]).unwrap_err().to_string();
    assert!(err.contains("unknown fio option `frobnicate`"), "{err}");
    // exit_what=stonewall is group's when one group runs at a time; all is refused.
    assert!(parse_options("cli", &["exit_what=stonewall".into()]).is_ok());
    assert!(parse_options("cli", &["exit_what=all".into()]).is_err());
    let job = parse_options("cli", &["nr_files=4".into()]).unwrap();
    assert_eq!(job.no_effect, vec!["nr_files".to_string()]);
    // fio's zone units need its zoned mode.
    let err = parse_options("cli", &["size=4z".into()]).unwrap_err().to_string();
    assert!(err.contains("counts zones"), "{err}");
    let job = parse_options("cli", &["iodepth=32".into(), "ioengine=libaio".into()]).unwrap();
    assert_eq!((job.iodepth, job.no_effect.clone()), (32, vec!["ioengine".to_string()]));
    let err = parse_options("cli", &["numjobs=$ncpus".into(), "bs=$pagesize".into()]).unwrap_err().to_string();
    assert!(err.contains("numjobs: fio's `$ncpus` is a property of the machine") && err.contains("bs: fio's `$pagesize`"), "{err}");
    // fio's values per direction (reads, writes, trims; a value without a comma after it
    // goes on to the directions after it; an empty one is 4k).
    let by_op = |item: &str| -> Vec<Vec<u64>> {
        let job = parse_options("cli", &[item.to_string()]).unwrap();
        job.block_sizes_by_op.expect("per direction").iter().map(|sizes| sizes.iter().map(|s| s.0).collect()).collect()
    };
    assert_eq!(by_op("bs=8k,32k"), vec![vec![8192], vec![32768], vec![32768]]);
    assert_eq!(by_op("bs=8k,32k,"), vec![vec![8192], vec![32768], vec![4096]]);
    assert_eq!(by_op("bs=,8k"), vec![vec![4096], vec![8192], vec![8192]]);
    assert_eq!(by_op("bsrange=4k-8k,16k-32k"), vec![vec![4096, 8192], vec![16384, 32768], vec![16384, 32768]]);
    assert_eq!(by_op("bssplit=4k/50:64k/50,1m"), vec![vec![4096, 65536], vec![1 << 20], vec![1 << 20]]);
    let job = parse_options("cli", &["bs=8k,32k".into(), "bs=16k".into()]).unwrap();
    assert!(job.block_sizes_by_op.is_none() && job.block_sizes == vec![(16384, 100)]);
    let err = parse_options("cli", &["bs=4k,8k,16k,32k".into()]).unwrap_err().to_string();
    assert!(err.contains("at most three values"), "{err}");
    // An empty field keeps what came before ([global]'s bs=16k), not fio's 4k; one trailing
    // comma after three values is dropped, as fio does.
    let job = parse_options("cli", &["bs=16k".into(), "bs=,64k".into()]).unwrap();
    assert_eq!(job.block_sizes_by_op.unwrap().map(|sizes| sizes[0].0), [16384, 65536, 65536]);
    assert_eq!(by_op("bs=4k,8k,16k,"), vec![vec![4096], vec![8192], vec![16384]]);
    let job = parse_options("cli", &["verify=crc32c".into(), "rw=randwrite".into()]).unwrap();
    assert_eq!(job.verify, Some(Verify { method: "crc32c".into(), do_verify: true, fatal: false, pattern: None, backlog: 0, backlog_batch: 0 }));
    let err = parse_options("cli", &["verify=crc99".into()]).unwrap_err().to_string();
    assert!(err.contains("verify: unknown method `crc99`"), "{err}");
    let err = parse_options("cli", &["verify=md5".into(), "rw=write".into(), "time_based".into(), "runtime=5".into()]).unwrap_err().to_string();
    assert!(err.contains("verify with time_based"), "{err}");
    // verify_pattern fills the buffers with a repeated pattern; verify=pattern repeats blocks.
    let job = parse_options("cli", &["verify=meta".into(), "verify_pattern=0xaa555aa5".into()]).unwrap();
    assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 0));
    let job = parse_options("cli", &["verify=pattern".into(), "verify_pattern=0xaa".into()]).unwrap();
    assert_eq!((job.pattern.kind, job.pattern.dedupe_percent), (PatternKind::Repeating, 100));
    // Without verify its companions do nothing.
    let job = parse_options("cli", &["verify=0".into(), "do_verify=0".into(), "verify_fatal=1".into()]).unwrap();
    assert!(job.verify.is_none() && ["verify", "do_verify", "verify_fatal"].iter().all(|k| job.no_effect.contains(&k.to_string())), "{job:?}");
}

#[test]
fn numjobs_range_in_the_message_is_the_range_accepted() {
    // 0 and one past the limit get the same message, naming 1 as the least: it had said "must
    // be 0 to 1024" above the limit and "must be positive" for 0.
    for value in ["0", "1025"] {
        let err = parse_options("cli", &[format!("numjobs={value}")]).unwrap_err().to_string();
        assert!(err.contains(&format!("numjobs: must be 1 to {MAX_NUMJOBS} (got {value})")), "{err}");
    }
    assert_eq!(parse_options("cli", &["numjobs=1".into()]).unwrap().numjobs, 1);
    assert_eq!(parse_options("cli", &[format!("numjobs={MAX_NUMJOBS}")]).unwrap().numjobs, MAX_NUMJOBS);
}

#[test]
fn log_avg_msec_takes_any_window() {
    // fio's common 100 and 500 as well as whole seconds (the run keeps windows of its own for
    // the ones the per-second series cannot give).
    for (value, ms) in [("100", 100), ("500", 500), ("1500", 1500), ("1000", 1000), ("2000", 2000), ("0", 0)] {
        let job = parse_options("cli", &["write_bw_log=x".into(), format!("log_avg_msec={value}")]).unwrap();
        assert_eq!(job.logs.avg_msec, ms, "{value}");
    }
}

#[test]
fn per_job_logs_0_shares_one_log_file() {
    // fio's default (1) is a file per job; 0 puts every job's rows in one file of the prefix.
    let shared = |extra: &[&str]| {
        let mut options = vec!["write_lat_log=x".to_string()];
        options.extend(extra.iter().map(|o| o.to_string()));
        parse_options("cli", &options).unwrap().logs.shared
    };
    assert!(!shared(&[]));
    assert!(!shared(&["per_job_logs=1"]));
    assert!(shared(&["per_job_logs=0"]));
    assert!(shared(&["per_job_logs=false"]));
    assert!(parse_options("cli", &["per_job_logs=maybe".into()]).is_err());
}

#[test]
fn percentile_list_is_fios_sorted_and_checked() {
    let job = |items: &[&str]| parse_options("cli", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let default = job(&[]).unwrap().percentiles;
    assert_eq!((default.list.len(), default.list[16], default.clat, default.lat), (17, 99.99, true, false));
    let given = job(&["percentile_list=99.9999:50:99:50", "lat_percentiles=1", "clat_percentiles=0"]).unwrap().percentiles;
    assert_eq!((given.list, given.clat, given.lat), (vec![50.0, 99.0, 99.9999], false, true));
    assert!(!job(&["percentile_list=99"]).unwrap().no_effect.iter().any(|k| k.contains("percentile")));
    for (value, says) in
        [("abc", "`abc` is not a number"), ("0", "0 is not a percentile"), ("100.5", "100.5 is not a percentile"), ("50:", "`` is not a number")]
    {
        let err = job(&[&format!("percentile_list={value}")]).unwrap_err().to_string();
        assert!(err.contains("percentile_list") && err.contains(says), "{value}: {err}");
    }
    let many = (1..=21).map(|p| p.to_string()).collect::<Vec<_>>().join(":");
    assert!(job(&[&format!("percentile_list={many}")]).unwrap_err().to_string().contains("21 percentiles given; fio takes at most 20"));
    assert_eq!(job(&["percentile_list=100"]).unwrap().percentiles.list, vec![100.0]);
}
