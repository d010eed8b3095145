//! Which fio options ssdlab simulates, which it accepts without effect, and which it refuses
//! with a reason.

/// Options ssdlab simulates.
pub const SIMULATED: &[&str] = &[
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "bsrange",
    "blocksize_range",
    "bssplit",
    "iodepth",
    "offset",
    "size",
    "filesize",
    "io_size",
    "io_limit",
    "loops",
    "runtime",
    "timeout",
    "ramp_time",
    "thinktime",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "rate_iops",
    "rate",
    "rate_process",
    "startdelay",
    "latency_target",
    "latency_window",
    "latency_percentile",
    "time_based",
    "number_ios",
    "rwmixread",
    "rwmixwrite",
    "random_distribution",
    "percentage_random",
    "blockalign",
    "ba",
    "numjobs",
    "offset_increment",
    "stonewall",
    "wait_for_previous",
    "exitall",
    "fill_device",
    "fill_fs",
    "pre_read",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "log_avg_msec",
    "steadystate",
    "ss",
    "steadystate_duration",
    "ss_dur",
    "steadystate_ramp_time",
    "steadystate_check_interval",
    "ss_interval",
    "ss_ramp",
    "data_pattern",
    "zero_buffers",
    "buffer_compress_percentage",
    "buffer_compress_chunk",
    "dedupe_percentage",
    "kb_base",
];

/// Options accepted that change nothing in a simulation, with why.
pub const NO_EFFECT: &[(&str, &str)] = &[
    ("name", "names the job in fio's output; ssdlab names it by its section"),
    ("description", "text only"),
    ("ioengine", "the simulated drive is the engine"),
    ("direct", "no page cache between the job and the simulated drive"),
    ("buffered", "no page cache between the job and the simulated drive"),
    ("filename", "the job addresses the simulated drive"),
    ("directory", "the job addresses the simulated drive"),
    ("uri", "the job addresses the simulated drive"),
    ("filename_format", "the job addresses the simulated drive"),
    ("nrfiles", "the job addresses the simulated drive"),
    ("unlink", "no file is created"),
    ("create_serialize", "no file is created"),
    ("create_on_open", "no file is created"),
    ("allow_file_create", "no file is created"),
    ("invalidate", "no page cache"),
    ("group_reporting", "ssdlab reports each group of jobs together"),
    ("new_group", "ssdlab reports each group of jobs together"),
    ("thread", "no host processes"),
    ("threads", "no host processes"),
    ("cpus_allowed", "no host processes"),
    ("cpumask", "no host processes"),
    ("nice", "no host processes"),
    ("prio", "no host processes"),
    ("prioclass", "no host processes"),
    ("allow_mounted_write", "the job addresses the simulated drive"),
    ("iomem_align", "ssdlab keeps no data buffers"),
    ("nonvectored", "the simulated drive is the engine"),
    ("atomic", "the simulated drive is the engine"),
    ("error_dump", "the simulated drive returns no errors"),
    ("block_error_percentiles", "the simulated drive returns no errors"),
    ("randrepeat", "every random choice follows --seed"),
    ("randseed", "every random choice follows --seed"),
    ("random_generator", "every random choice follows --seed"),
    ("norandommap", "random offsets are drawn independently, as fio does with norandommap"),
    ("refill_buffers", "written content follows the data pattern"),
    ("scramble_buffers", "written content follows the data pattern"),
    ("iodepth_batch", "the closed loop keeps iodepth in flight at every moment"),
    ("iodepth_batch_submit", "the closed loop keeps iodepth in flight at every moment"),
    ("iodepth_batch_complete", "the closed loop keeps iodepth in flight at every moment"),
    ("iodepth_batch_complete_min", "the closed loop keeps iodepth in flight at every moment"),
    ("iodepth_batch_complete_max", "the closed loop keeps iodepth in flight at every moment"),
    ("iodepth_low", "the closed loop keeps iodepth in flight at every moment"),
    ("gtod_reduce", "simulated time is exact"),
    ("clocksource", "simulated time is exact"),
    ("disable_lat", "latencies are always recorded"),
    ("disable_clat", "latencies are always recorded"),
    ("disable_slat", "latencies are always recorded"),
    ("disable_bw_measurement", "bandwidth is always recorded"),
    ("clat_percentiles", "percentiles are always reported"),
    ("lat_percentiles", "percentiles are always reported"),
    ("percentile_list", "ssdlab reports p50, p99, p99.9 and max"),
    ("per_job_logs", "ssdlab writes one log per group"),
    ("log_offset", "logs carry fio's offset column as 0"),
    ("unified_rw_reporting", "reads and writes are reported apart and together"),
    ("mem", "no host memory"),
    ("iomem", "no host memory"),
    ("hugepage-size", "no host memory"),
    ("lockmem", "no host memory"),
    ("kb_base_display", "figures are reported in fixed units"),
    ("unit_base", "figures are reported in fixed units"),
    ("do_verify", "matters only with verify, which is refused"),
    ("file_service_type", "the job addresses one simulated drive, not files"),
    ("openfiles", "the job addresses one simulated drive, not files"),
    ("fallocate", "no file is created"),
    ("overwrite", "no file is created"),
    ("file_append", "no file is created"),
    ("fadvise_hint", "no page cache"),
    ("cpus_allowed_policy", "no host processes"),
    ("numa_cpu_nodes", "no host processes"),
    ("numa_mem_policy", "no host processes"),
    ("cgroup", "no host processes"),
    ("gtod_cpu", "no host processes"),
    ("ioscheduler", "the host's IO scheduler is not between the job and the simulated drive"),
    ("io_submit_mode", "the simulated drive is the engine"),
    ("hipri", "the simulated drive is the engine"),
    ("fixedbufs", "the simulated drive is the engine"),
    ("registerfiles", "the simulated drive is the engine"),
    ("sqthread_poll", "the simulated drive is the engine"),
    ("sqthread_poll_cpu", "the simulated drive is the engine"),
    ("allrandrepeat", "every random choice follows --seed"),
    ("continue_on_error", "the simulated drive returns no errors"),
    ("ignore_error", "the simulated drive returns no errors"),
    ("exitall_on_error", "the simulated drive returns no errors"),
    ("stats", "figures are always reported"),
    ("disk_util", "ssdlab reports the drive's own utilization"),
    ("significant_figures", "figures are reported in fixed units"),
    ("log_compression", "logs are written as text"),
    ("log_hist_msec", "matters only with write_hist_log, which is refused"),
    ("replay_no_stall", "matters only with read_iolog, which is refused"),
    ("bs_is_seq_rand", "matters only with separate block sizes (bs=4k,8k), which are refused"),
];

/// Options ssdlab knows and refuses, with why.
pub const NOT_SIMULATED: &[(&str, &str)] = &[
    ("verify", "ssdlab does not check data read back (modeled content has no bytes); write with the Python API's Drive.write/read to compare real data"),
    ("verify_pattern", "ssdlab does not check data read back"),
    ("verify_interval", "ssdlab does not check data read back"),
    ("verify_backlog", "ssdlab does not check data read back"),
    ("verify_fatal", "ssdlab does not check data read back"),
    ("rate_min", "fio's failing of a job below a minimum rate is not simulated (the summary gives the rate reached; rate and rate_iops are)"),
    ("rate_iops_min", "fio's failing of a job below a minimum rate is not simulated (the summary gives the rate reached; rate and rate_iops are)"),
    ("rate_cycle", "matters only with rate_min, which is refused"),
    ("thinktime_spin", "the host's thinktime is one wait (fio's spin and sleep parts are the same simulated time); give thinktime"),
    ("thinktime_iotime", "ssdlab applies thinktime after every thinktime_blocks completions"),
    ("fsync", "flushes inside a job are not simulated"),
    ("fdatasync", "flushes inside a job are not simulated"),
    ("end_fsync", "flushes inside a job are not simulated"),
    ("sync", "flushes inside a job are not simulated"),
    ("write_barrier", "flushes inside a job are not simulated"),
    ("zonemode", "zoned block devices are not simulated"),
    ("zonesize", "zoned block devices are not simulated"),
    ("zonerange", "zoned block devices are not simulated"),
    ("zoneskip", "zoned block devices are not simulated"),
    ("random_distribution_write", "one distribution for every direction"),
    ("flow", "flow control between jobs is not simulated"),
    ("flow_id", "flow control between jobs is not simulated"),
    ("write_hist_log", "histogram logs are not written (bw, lat and iops logs are)"),
    ("exec_prerun", "ssdlab runs no programs"),
    ("exec_postrun", "ssdlab runs no programs"),
    ("trim_percentage", "trims mixed into a verify workload are not simulated"),
    ("bs_unaligned", "block sizes are multiples of 512 bytes"),
    ("replay_redirect", "replay traces with `ssdlab trace replay`"),
    ("read_iolog", "replay traces with `ssdlab trace replay`"),
    ("write_iolog", "IO logs are not written"),
    ("fsync_on_close", "flushes inside a job are not simulated"),
    ("serialize_overlap", "in-flight IOs are not checked for overlap"),
    ("max_latency", "jobs are not stopped on a latency limit"),
    ("log_max_value", "log windows carry the mean, not the maximum"),
    ("log_unix_epoch", "logs carry simulated milliseconds from the job's start"),
    ("lockfile", "file locks between jobs are not simulated"),
    ("rw_sequencer", "`rw=randread:N` issues N sequential IOs per random offset (fio's rw_sequencer=sequential)"),
    ("dedupe_mode", "duplicates repeat earlier blocks (fio's dedupe_mode=repeat)"),
    ("buffer_pattern", "written content follows data_pattern, buffer_compress_percentage and dedupe_percentage"),
    ("offset_align", "a percentage offset is aligned to the smallest block size"),
    ("cmdprio_percentage", "command priorities are not simulated"),
    ("cmdprio_class", "command priorities are not simulated"),
    ("cmdprio", "command priorities are not simulated"),
    ("wait_for", "a job waits for the jobs before it with stonewall (a job file's groups run one after the other)"),
    ("exit_what", "exitall stops the jobs of its group (fio's exit_what=group)"),
];

/// Whether `value` is fio's own default for a refused option, so giving it changes nothing:
/// `fsync=0`, `end_fsync=0`, `rate_min=0`, `thinktime_blocks=1`,
/// `percentage_random=100`, `zonemode=none`, ... (job files written out in full carry them).
pub fn is_fio_default(key: &str, value: &str) -> bool {
    let value = value.trim();
    // Zero, with a unit or not, for each direction given (`rate=0`, `startdelay=0s`, `rate=0,0`).
    let zero = || {
        value.split(',').all(|part| {
            let number = part.trim().trim_end_matches(|c: char| c.is_ascii_alphabetic());
            number.parse::<f64>().is_ok_and(|n| n == 0.0) || matches!(part.trim(), "false" | "no" | "off")
        })
    };
    let every = |default: &str| value.split(',').all(|part| part.trim() == default);
    match key {
        "thinktime_blocks" => every("1"),
        "rate_process" => every("linear"),
        "rate_cycle" => every("1000"),
        "zonemode" => every("none"),
        "sync" => every("none") || zero(),
        "lockfile" => every("none"),
        "rw_sequencer" => every("sequential"),
        "dedupe_mode" => every("repeat"),
        "exit_what" => every("group"),
        "verify_pattern" | "buffer_pattern" | "exec_prerun" | "exec_postrun" | "write_hist_log" | "read_iolog" | "write_iolog" | "replay_redirect"
        | "cmdprio_class" | "verify_interval" => false,
        _ => zero(),
    }
}

/// Why an option changes nothing in a simulation, if it is one of those.
pub fn no_effect_reason(key: &str) -> Option<&'static str> {
    NO_EFFECT.iter().find(|(k, _)| *k == key).map(|(_, why)| *why)
}

/// Why ssdlab refuses a known fio option, if it does.
pub fn not_simulated_reason(key: &str) -> Option<&'static str> {
    NOT_SIMULATED.iter().find(|(k, _)| *k == key).map(|(_, why)| *why)
}

/// The option closest to `key` (a typo or a hyphenated spelling), if one is close.
pub fn suggest(key: &str) -> Option<&'static str> {
    let wanted = key.replace('-', "_");
    let candidates = SIMULATED.iter().copied().chain(NO_EFFECT.iter().map(|(k, _)| *k));
    if let Some(exact) = candidates.clone().find(|c| *c == wanted) {
        return Some(exact);
    }
    candidates.map(|c| (strsim::damerau_levenshtein(&wanted, c), c)).filter(|(d, c)| *d <= 2.max(c.len() / 5)).min().map(|(_, c)| c)
}
