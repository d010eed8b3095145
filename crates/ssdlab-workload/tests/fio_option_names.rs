//! Every option fio 3.33 knows is known here: simulated, accepted as changing nothing, or
//! refused with its reason; never "unknown fio option" (which says the name is a typo).

use ssdlab_workload::parse_options;

/// The option names `fio --cmdhelp=all` lists in fio 3.33, with the options of its block
/// engines (`fio --enghelp=libaio`, io_uring, io_uring_cmd, pvsync2, sg, sgunmap, null, nbd,
/// rbd, libiscsi, mmap, posixaio, splice, sync, psync, dev-dax, libpmem, mtd) and of its other
/// engines (`--enghelp=gfapi`, cpuio, net, exec, e4defrag, filestat, rdma, rados, and the
/// option tables of engines/libhdfs.c, dfs.c, http.c, librpma_fio.c, aliases included).
const FIO_3_33_OPTIONS: &[&str] = &[
    "allow_file_create",
    "allow_mounted_write",
    "allrandrepeat",
    "arguments",
    "atomic",
    "ba",
    "bindname",
    "block_error_percentiles",
    "brick",
    "bs",
    "bs_unaligned",
    "bsrange",
    "bssplit",
    "buffer_compress_chunk",
    "buffer_compress_percentage",
    "buffer_pattern",
    "buffered",
    "busy_poll",
    "bwavgtime",
    "cgroup",
    "cgroup_nodelete",
    "cgroup_weight",
    "chunck_size",
    "chunk_size",
    "clat_percentiles",
    "clientname",
    "clocksource",
    "clustername",
    "cmd_type",
    "cmdprio",
    "cmdprio_bssplit",
    "cmdprio_class",
    "cmdprio_percentage",
    "conf",
    "cont",
    "continue_on_error",
    "cpuchunks",
    "cpuload",
    "cpumask",
    "cpumode",
    "cpus_allowed",
    "cpus_allowed_policy",
    "create_fsync",
    "create_on_open",
    "create_only",
    "create_serialize",
    "dedupe_global",
    "dedupe_mode",
    "dedupe_percentage",
    "dedupe_working_set_percentage",
    "description",
    "direct",
    "direct_write_to_pmem",
    "directory",
    "disable_bw_measurement",
    "disable_clat",
    "disable_lat",
    "disable_slat",
    "disk_util",
    "do_verify",
    "donorname",
    "end_fsync",
    "error_dump",
    "exec_postrun",
    "exec_prerun",
    "exit_on_io_done",
    "exit_what",
    "exitall",
    "exitall_on_error",
    "experimental_verify",
    "fadvise_hint",
    "fallocate",
    "fdatasync",
    "file_append",
    "file_service_type",
    "filename",
    "filename_format",
    "filesize",
    "fill_device",
    "fixedbufs",
    "flow",
    "flow_id",
    "flow_sleep",
    "force_async",
    "fsync",
    "fsync_on_close",
    "gid",
    "grace_time",
    "group_reporting",
    "gtod_cpu",
    "gtod_reduce",
    "hdfs_use_direct",
    "hdfsdirectory",
    "hipri",
    "hipri_percentage",
    "hostname",
    "http_host",
    "http_mode",
    "http_pass",
    "http_s3_key",
    "http_s3_keyid",
    "http_s3_region",
    "http_s3_sse_customer_algorithm",
    "http_s3_sse_customer_key",
    "http_s3_storage_class",
    "http_swift_auth_token",
    "http_user",
    "http_verbose",
    "https",
    "hugepage-size",
    "ignore_error",
    "ignore_zone_limits",
    "initiator",
    "inplace",
    "interface",
    "invalidate",
    "io_size",
    "io_submit_mode",
    "iodepth",
    "iodepth_batch",
    "iodepth_batch_complete_max",
    "iodepth_batch_complete_min",
    "iodepth_low",
    "ioengine",
    "iopsavgtime",
    "ioscheduler",
    "job_max_open_zones",
    "kb_base",
    "lat_percentiles",
    "latency_percentile",
    "latency_run",
    "latency_target",
    "latency_window",
    "listen",
    "lockfile",
    "lockmem",
    "log_alternate_epoch",
    "log_alternate_epoch_clock_id",
    "log_avg_msec",
    "log_compression",
    "log_compression_cpus",
    "log_entries",
    "log_hist_coarseness",
    "log_hist_msec",
    "log_max_value",
    "log_offset",
    "log_prio",
    "log_store_compressed",
    "log_unix_epoch",
    "loops",
    "max_latency",
    "max_open_zones",
    "mem",
    "merge_blktrace_file",
    "merge_blktrace_iters",
    "merge_blktrace_scalars",
    "mss",
    "name",
    "namenode",
    "new_group",
    "nice",
    "nodelay",
    "nonvectored",
    "norandommap",
    "nowait",
    "nrfiles",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "number_ios",
    "numjobs",
    "object_class",
    "offset",
    "offset_align",
    "offset_increment",
    "opendir",
    "openfiles",
    "overwrite",
    "per_job_logs",
    "percentage_random",
    "percentile_list",
    "pingpong",
    "pool",
    "port",
    "pre_read",
    "prio",
    "prioclass",
    "profile",
    "program",
    "proto",
    "protocol",
    "ramp_time",
    "random_distribution",
    "random_generator",
    "randrepeat",
    "randseed",
    "rate",
    "rate_cycle",
    "rate_ignore_thinktime",
    "rate_iops",
    "rate_iops_min",
    "rate_min",
    "rate_process",
    "rbdname",
    "read_beyond_wp",
    "read_iolog",
    "read_iolog_chunked",
    "readfua",
    "refill_buffers",
    "registerfiles",
    "replay_align",
    "replay_no_stall",
    "replay_redirect",
    "replay_scale",
    "replay_skip",
    "replay_time_scale",
    "runtime",
    "rw",
    "rw_sequencer",
    "rwmixread",
    "rwmixwrite",
    "scramble_buffers",
    "serialize_overlap",
    "serverip",
    "sg_write_mode",
    "significant_figures",
    "single-instance",
    "single_instance",
    "size",
    "skip_bad",
    "slat_percentiles",
    "sqthread_poll",
    "sqthread_poll_cpu",
    "startdelay",
    "stat_type",
    "stats",
    "std_redirect",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "stonewall",
    "stream_id",
    "svcl",
    "sync",
    "sync_file_range",
    "thinktime",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "thinktime_iotime",
    "thinktime_spin",
    "thp",
    "thread",
    "time_based",
    "touch_objects",
    "trim_backlog",
    "trim_backlog_batch",
    "trim_percentage",
    "trim_verify_zero",
    "ttl",
    "uid",
    "uncached",
    "unified_rw_reporting",
    "unique_filename",
    "unit_base",
    "unlink",
    "unlink_each_loop",
    "uri",
    "userspace_reap",
    "verb",
    "verify",
    "verify_async",
    "verify_backlog",
    "verify_backlog_batch",
    "verify_dump",
    "verify_fatal",
    "verify_interval",
    "verify_offset",
    "verify_only",
    "verify_pattern",
    "verify_state_load",
    "verify_state_save",
    "volume",
    "wait_for",
    "window_size",
    "write_barrier",
    "write_bw_log",
    "write_hint",
    "write_hist_log",
    "write_iolog",
    "write_iops_log",
    "write_lat_log",
    "writefua",
    "zero_buffers",
    "zone_reset_frequency",
    "zone_reset_threshold",
    "zonecapacity",
    "zonemode",
    "zonerange",
    "zonesize",
    "zoneskip",
];

#[test]
fn every_fio_3_33_option_is_known() {
    let unknown: Vec<&str> = FIO_3_33_OPTIONS
        .iter()
        .copied()
        .filter(|name| {
            let err = parse_options("cli", &[format!("{name}=1")]).err().map(|e| e.to_string()).unwrap_or_default();
            err.contains("unknown fio option")
        })
        .collect();
    assert!(unknown.is_empty(), "fio 3.33 options reported as unknown: {unknown:?}");
}

#[test]
fn later_fio_engines_and_their_options_are_named() {
    // libcufile moves data to files (it runs on the drive); its own options change nothing.
    let job = parse_options("cli", &["ioengine=libcufile".into(), "gpu_dev_ids=0:1".into(), "cuda_io=posix".into()]).unwrap();
    assert_eq!(job.no_effect, ["ioengine", "gpu_dev_ids", "cuda_io"]);
    let job = parse_options("cli", &["ioengine=libhipfile".into(), "rocm_io=posix".into()]).unwrap();
    assert_eq!(job.no_effect, ["ioengine", "rocm_io"]);
    let job = parse_options("cli", &["ioengine=nfs".into(), "nfs_url=nfs://127.0.0.1/nfs".into()]).unwrap();
    assert_eq!(job.no_effect, ["ioengine", "nfs_url"]);
    // fio's filelistxattr engine (examples/filexattr-ioengine.fio) moves no data: refused as
    // such, not as an engine fio lacks.
    let err = parse_options("cli", &["ioengine=filelistxattr".into()]).unwrap_err().to_string();
    assert!(err.contains("lists files' extended attributes") && err.contains("moves no data"), "{err}");
    // Refused options say why; at fio's default they change nothing.
    let err = parse_options("cli", &["create_only=1".into()]).unwrap_err().to_string();
    assert!(err.contains("runs no IO"), "{err}");
    assert!(parse_options("cli", &["create_only=0".into(), "write_hint=none".into(), "rate_ignore_thinktime=0".into()]).is_ok());
    let err = parse_options("cli", &["write_hint=long".into()]).unwrap_err().to_string();
    assert!(err.contains("placement hints"), "{err}");
}

#[test]
fn engine_options_are_known_with_their_engine() {
    // fio's examples/gfapi.fio and a libhdfs job: their engines run on the drive, and the
    // options naming where the data goes change nothing (they were "unknown", `port` with "did
    // you mean `pool`?").
    let items = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let job = parse_options("cli", &items(&["ioengine=gfapi", "volume=vol", "brick=localhost", "single-instance=1"])).unwrap();
    assert_eq!(job.no_effect, ["ioengine", "volume", "brick", "single-instance"]);
    let hdfs = ["ioengine=libhdfs", "namenode=localhost", "port=9000", "hdfsdirectory=/fio", "chunk_size=64m", "hdfs_use_direct=1"];
    let job = parse_options("cli", &items(&hdfs)).unwrap();
    assert_eq!(job.no_effect.len(), 6);
    assert!(crate_reason("port").contains("the simulated drive replaces"));
    // The options of an engine that moves no data to a drive are refused with it.
    let err = parse_options("cli", &items(&["cpuload=50"])).unwrap_err().to_string();
    assert!(err.contains("cpuload: matters only with fio's cpuio engine, which is refused"), "{err}");
    let err = parse_options("cli", &items(&["ioengine=net", "protocol=udp"])).unwrap_err().to_string();
    assert!(err.contains("sends data over a network socket") && err.contains("protocol: matters only with fio's net"), "{err}");
}

fn crate_reason(name: &str) -> &'static str {
    ssdlab_workload::catalogue::no_effect_reason(name).unwrap_or_default()
}

#[test]
fn old_and_later_names_get_one_clear_reason() {
    let err = |list: &[&str]| parse_options("cli", &list.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap_err().to_string();
    // fio's old rate_poisson (fio 3.33 rejects it too) points to its replacement.
    let e = err(&["rate_poisson=1"]);
    assert!(e.contains("unknown fio option `rate_poisson` (did you mean `rate_process=poisson`?)"), "{e}");
    // The falloc engine's reason says once that it moves no data.
    let e = err(&["ioengine=falloc"]);
    assert!(e.contains("(fallocate): it moves no data to a drive") && e.matches("no data").count() == 1, "{e}");
    // A later fio's random_distribution=sequence: one reason, its stride no second one.
    let e = err(&["rw=randread", "random_distribution=sequence:2,0,1", "random_sequence_stride=1"]);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("random_distribution: sequence") && e.contains("is not simulated"), "{e}");
}
