//! Python binding of ssdlab: `ssdlab._native`.
//!
//! A thin shim: it converts arguments, releases the GIL around simulation work, checks for
//! Ctrl-C between slices, and maps the core's [`ssdlab_core::Error`] kinds onto typed Python
//! exceptions. Results cross as JSON text and plain lists; the Python package turns them into
//! dicts and data frames.

#![warn(missing_docs)]

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use ssdlab_core::{Error, SimRng};
use ssdlab_drive::{Drive, DriveOptions, Run};
use ssdlab_reduce::ContentMode;
use ssdlab_workload::JobSpec;

create_exception!(_native, SsdlabError, PyException, "Base class of every ssdlab error.");
create_exception!(_native, ConfigError, SsdlabError, "A drive profile is malformed or impossible.");
create_exception!(_native, WorkloadError, SsdlabError, "A workload or job file is malformed or impossible.");
create_exception!(_native, RequestError, SsdlabError, "The drive cannot serve a request.");
create_exception!(_native, InputOutputError, SsdlabError, "A file could not be read or written.");

fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::Config(_) => ConfigError::new_err(message),
        Error::Workload(_) => WorkloadError::new_err(message),
        Error::Request(_) => RequestError::new_err(message),
        Error::Io(_) => InputOutputError::new_err(message),
    }
}

/// Names of the built-in profiles.
#[pyfunction]
fn profile_names() -> Vec<&'static str> {
    ssdlab_profile::builtin_names()
}

/// The TOML text of a profile (built-in name or path), after `overrides`.
#[pyfunction]
#[pyo3(signature = (name_or_path, overrides=Vec::new()))]
fn profile_source(name_or_path: &str, overrides: Vec<String>) -> PyResult<String> {
    let profile = ssdlab_profile::load_profile(name_or_path, &overrides).map_err(to_py)?;
    Ok(profile.source)
}

fn parse_format(format: Option<&str>) -> PyResult<Option<ssdlab_trace::TraceFormat>> {
    match format {
        None => Ok(None),
        Some(name) => ssdlab_trace::TraceFormat::parse(name).map(Some).ok_or_else(|| {
            WorkloadError::new_err(format!("unknown trace format `{name}` (expected msr, snia, blkparse, fio2, fio3, spc, umass or disksim)"))
        }),
    }
}

/// Statistics of a trace file as JSON (streams the file).
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad=false))]
fn trace_stats(py: Python<'_>, path: &str, format: Option<&str>, skip_bad: bool) -> PyResult<String> {
    let format = parse_format(format)?;
    let path = path.to_string();
    py.detach(move || -> Result<String, Error> {
        let mut reader = ssdlab_trace::TraceReader::open(&path, format, skip_bad)?;
        let mut stats = ssdlab_trace::TraceStats::new();
        for record in reader.by_ref() {
            stats.add(&record?);
        }
        if stats.requests() == 0 {
            return Err(Error::Workload(format!("{path}: the trace has no requests")));
        }
        let ops: serde_json::Map<String, serde_json::Value> =
            stats.ops.iter().map(|(op, n)| (format!("{op:?}").to_lowercase(), (*n).into())).collect();
        let sizes: Vec<(u64, u64)> = stats.sizes.iter().map(|(s, n)| (*s, *n)).collect();
        let depths: Vec<(u32, u64)> = stats.queue_depths.iter().map(|(d, n)| (*d, *n)).collect();
        Ok(serde_json::json!({
            "format": reader.format().name(),
            "requests": stats.requests(),
            "ops": ops,
            "sizes": sizes,
            "sequential_share": stats.sequential_share(),
            "queue_depths": depths,
            "mean_queue_depth": stats.mean_queue_depth(),
            "qd1_share": stats.qd1_share(),
            "bytes_read": stats.bytes_read,
            "bytes_written": stats.bytes_written,
            "bytes_trimmed": stats.bytes_trimmed,
            "span_bytes": stats.max_end.saturating_sub(stats.min_offset),
            "min_offset": stats.min_offset,
            "max_end": stats.max_end,
            "duration_seconds": stats.duration_ns as f64 / 1e9,
            "skipped_lines": reader.skipped(),
        })
        .to_string())
    })
    .map_err(to_py)
}

/// Names of the generated workloads.
#[pyfunction]
fn trace_workloads() -> Vec<(&'static str, &'static str)> {
    ssdlab_trace::Workload::names().into_iter().map(|n| (n, ssdlab_trace::Workload::by_name(n).unwrap().source)).collect()
}

/// Generate a workload's trace into `path` (MSR CSV, gzip when the name ends in .gz).
#[pyfunction]
#[pyo3(signature = (name, path, seed=1))]
fn trace_generate(py: Python<'_>, name: &str, path: &str, seed: u64) -> PyResult<u64> {
    let workload = ssdlab_trace::Workload::by_name(name).ok_or_else(|| {
        WorkloadError::new_err(format!("unknown workload `{name}` (expected one of: {})", ssdlab_trace::Workload::names().join(", ")))
    })?;
    let path = path.to_string();
    py.detach(move || -> Result<u64, Error> {
        let io = |e: std::io::Error| Error::Io(format!("{path}: cannot write: {e}"));
        let file = std::fs::File::create(&path).map_err(io)?;
        let records = ssdlab_trace::generate(workload, seed);
        if path.ends_with(".gz") {
            let mut out = std::io::BufWriter::new(flate2::write::GzEncoder::new(file, flate2::Compression::fast()));
            let n = ssdlab_trace::write_msr(&mut out, records)?;
            use std::io::Write;
            out.flush().map_err(io)?;
            out.into_inner().map_err(|e| io(e.into_error()))?.finish().map_err(io)?;
            Ok(n)
        } else {
            let mut out = std::io::BufWriter::new(file);
            let n = ssdlab_trace::write_msr(&mut out, records)?;
            use std::io::Write;
            out.flush().map_err(io)?;
            Ok(n)
        }
    })
    .map_err(to_py)
}

/// A trace replay in progress (advance it with `NativeDrive.advance_replay`).
#[pyclass(module = "ssdlab._native", unsendable)]
struct NativeReplay {
    run: ssdlab_drive::TraceRun,
    skipped: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// Counts the bad lines a reader skipped, for the summary.
struct CountingReader {
    reader: ssdlab_trace::TraceReader,
    skipped: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Iterator for CountingReader {
    type Item = ssdlab_core::Result<ssdlab_trace::TraceRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        let item = self.reader.next();
        self.skipped.store(self.reader.skipped(), std::sync::atomic::Ordering::Relaxed);
        item
    }
}

/// A validated workload job.
#[pyclass(module = "ssdlab._native", frozen)]
struct NativeJob {
    spec: JobSpec,
}

#[pymethods]
impl NativeJob {
    /// Job name.
    #[getter]
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    /// fio `rw` kind.
    #[getter]
    fn rw(&self) -> &'static str {
        self.spec.rw.name()
    }

    /// Commands kept in flight.
    #[getter]
    fn iodepth(&self) -> u32 {
        self.spec.iodepth
    }

    /// Run-time limit in simulated seconds, if any.
    #[getter]
    fn runtime_seconds(&self) -> Option<f64> {
        self.spec.runtime_ns.map(|ns| ns as f64 / 1e9)
    }

    fn __repr__(&self) -> String {
        format!("NativeJob(name={:?}, rw={}, iodepth={})", self.spec.name, self.spec.rw.name(), self.spec.iodepth)
    }
}

/// Build one job from fio-style `key=value` options.
#[pyfunction]
fn job_from_options(name: &str, options: Vec<String>) -> PyResult<NativeJob> {
    let spec = ssdlab_workload::parse_options(name, &options).map_err(to_py)?;
    Ok(NativeJob { spec })
}

/// Read the jobs of an fio job file.
#[pyfunction]
fn jobs_from_file(path: &str) -> PyResult<Vec<NativeJob>> {
    let specs = ssdlab_workload::parse_job_file(path).map_err(to_py)?;
    Ok(specs.into_iter().map(|spec| NativeJob { spec }).collect())
}

/// A simulated drive.
#[pyclass(module = "ssdlab._native", unsendable)]
struct NativeDrive {
    drive: Drive,
    seeds: SimRng,
    now_ns: u64,
    master_seed: u64,
}

#[pymethods]
impl NativeDrive {
    #[new]
    #[pyo3(signature = (profile, overrides=Vec::new(), seed=1, track_tags=false, content="modeled"))]
    fn new(py: Python<'_>, profile: &str, overrides: Vec<String>, seed: u64, track_tags: bool, content: &str) -> PyResult<Self> {
        let content = match content {
            "modeled" => ContentMode::Modeled,
            "real" => ContentMode::Real,
            other => return Err(WorkloadError::new_err(format!("unknown content mode `{other}` (expected modeled or real)"))),
        };
        let profile = ssdlab_profile::load_profile(profile, &overrides).map_err(to_py)?;
        let drive = py.detach(|| Drive::with_options(profile, DriveOptions { track_tags, content })).map_err(to_py)?;
        Ok(Self { drive, seeds: SimRng::new(seed), now_ns: 0, master_seed: seed })
    }

    /// Simulated time now, nanoseconds.
    #[getter]
    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// The seed the drive's workload seeds are drawn from.
    #[getter]
    fn seed(&self) -> u64 {
        self.master_seed
    }

    /// Profile facts as JSON: names, capacities, spare ratios, geometry.
    fn info_json(&self) -> String {
        let p = self.drive.profile();
        let g = &p.geometry;
        serde_json::json!({
            "name": p.name,
            "model": p.model,
            "origin": p.origin,
            "capacity_bytes_user": p.capacity_bytes_user,
            "usable_bytes": p.usable_bytes(),
            "raw_bytes": p.raw_bytes(),
            "reserved_user_fraction": p.reserved_user_fraction,
            "spare_over_user": p.spare_over_user(),
            "spare_over_raw": p.spare_over_raw(),
            "channels": g.channels,
            "dies": g.dies(),
            "planes_per_die": g.planes_per_die,
            "page_bytes": g.page_bytes,
            "pages_per_block": g.pages_per_block,
            "blocks_per_die": g.blocks_per_die(),
            "bus": p.timing.bus.name(),
            "bus_mbps": p.timing.bus_bytes_per_second as f64 / 1e6,
            "host_interface": p.host.interface.name(),
            "link_mbps": p.host.link_bytes_per_second as f64 / 1e6,
            "gc_policy": p.ftl.gc_policy.name(),
            "data_reduction": p.reduction.is_some(),
            "idle_watts": (p.controller.idle_mw + p.energy.idle_mw) / 1000.0,
            "ecc_unit_bytes": p.reduction.as_ref().map(|r| r.chunk.ecc_unit_bytes),
            "content_mode": match self.drive.options().content { ContentMode::Modeled => "modeled", ContentMode::Real => "real" },
            "source": p.source,
        })
        .to_string()
    }

    /// ATA SECURE ERASE. Returns the simulated seconds it took.
    fn secure_erase(&mut self, py: Python<'_>) -> f64 {
        let start = self.now_ns.max(self.drive.quiesce_ns());
        let drive = &mut self.drive;
        let done = py.detach(|| drive.secure_erase(start));
        self.now_ns = done;
        (done - start) as f64 / 1e9
    }

    /// FLUSH CACHE. Returns the simulated seconds it took.
    fn flush(&mut self) -> f64 {
        let start = self.now_ns;
        self.now_ns = self.drive.flush(start).max(start);
        (self.now_ns - start) as f64 / 1e9
    }

    /// Sit idle for `seconds` of simulated time (idle-time GC runs). Returns blocks reclaimed.
    fn idle(&mut self, py: Python<'_>, seconds: f64) -> PyResult<u64> {
        if !(seconds >= 0.0 && seconds.is_finite()) {
            return Err(WorkloadError::new_err(format!("idle time must be a non-negative number of seconds (got {seconds})")));
        }
        let from = self.now_ns;
        let until = from + (seconds * 1e9) as u64;
        let drive = &mut self.drive;
        let reclaimed = py.detach(|| drive.idle(from, until));
        self.now_ns = until;
        Ok(reclaimed)
    }

    /// Wear, free blocks and WA counters as JSON.
    fn state_json(&self) -> String {
        let mapper = self.drive.mapper();
        let wear = mapper.wear();
        let f = self.drive.flash().counters();
        let d = self.drive.counters();
        serde_json::json!({
            "now_seconds": self.now_ns as f64 / 1e9,
            "free_blocks": mapper.free_blocks_total(),
            "valid_sectors": mapper.live_data_sectors(),
            "wear": {"min": wear.min, "mean": wear.mean, "max": wear.max},
            "host_write_bytes": d.host_write_bytes,
            "host_read_bytes": d.host_read_bytes,
            "nand_write_bytes": f.bytes_programmed_host + f.bytes_programmed_internal,
            "nand_read_bytes": f.bytes_read,
            "block_erases": f.block_erases,
            "operation_energy_joules": f.energy_nj / 1e9,
            "gc_moved": mapper.gc_moved(),
        })
        .to_string()
    }

    /// Check that `job` can run on this drive (span, queue depth) without running it.
    fn check_job(&self, job: &NativeJob) -> PyResult<()> {
        Run::new(&self.drive, &job.spec, 0, self.now_ns).map(|_| ()).map_err(to_py)
    }

    /// Start a closed-loop run of `job`; `seed` defaults to the next seed of the drive's stream.
    #[pyo3(signature = (job, seed=None))]
    fn start_run(&mut self, job: &NativeJob, seed: Option<u64>) -> PyResult<NativeRun> {
        let seed = seed.unwrap_or_else(|| self.seeds.next_u64() >> 1);
        let run = Run::new(&self.drive, &job.spec, seed, self.now_ns).map_err(to_py)?;
        Ok(NativeRun { run: Some(run), seed })
    }

    /// Advance `run` by up to `max_completions` completions, without the GIL. Returns
    /// `(done, simulated_seconds, fraction, completed_ios)`. Raises `KeyboardInterrupt` on Ctrl-C.
    fn advance(&mut self, py: Python<'_>, run: &mut NativeRun, max_completions: u64) -> PyResult<(bool, f64, f64, u64)> {
        py.check_signals()?;
        let inner = run.run.as_mut().ok_or_else(|| RequestError::new_err("this run has finished and was summarized"))?;
        let drive = &mut self.drive;
        let done = py.detach(|| inner.advance(drive, max_completions)).map_err(to_py)?;
        let progress = inner.progress();
        if done {
            self.now_ns = self.now_ns.max(inner.end_ns());
        }
        Ok((done, progress.simulated_ns as f64 / 1e9, progress.fraction, progress.completed_ios))
    }

    /// Summary of a finished run as JSON.
    fn summary_json(&self, run: &NativeRun, wall_seconds: f64) -> PyResult<String> {
        let inner = run.run.as_ref().ok_or_else(|| RequestError::new_err("run is gone"))?;
        if !inner.is_done() {
            return Err(RequestError::new_err("the run has not finished"));
        }
        serde_json::to_string(&inner.summary(&self.drive, wall_seconds)).map_err(|e| RequestError::new_err(e.to_string()))
    }

    /// The bytes of a 4 KiB logical sector (data-reduction drives in real-bytes mode).
    fn read_sector<'py>(&self, py: Python<'py>, sector: u64) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        if sector >= self.drive.mapper().user_sectors() {
            return Err(RequestError::new_err(format!("sector {sector} is beyond the drive")));
        }
        let bytes = self.drive.read_sector_bytes(sector).map_err(to_py)?;
        Ok(pyo3::types::PyBytes::new(py, &bytes))
    }

    /// Start replaying a trace file. `mode` is `queue-depth` or `timestamps`.
    #[pyo3(signature = (path, format=None, mode="queue-depth", time_scale=1.0, remap=false, skip_bad=false, pattern="text", seed=None, max_requests=None))]
    #[allow(clippy::too_many_arguments)]
    fn start_replay(
        &mut self,
        path: &str,
        format: Option<&str>,
        mode: &str,
        time_scale: f64,
        remap: bool,
        skip_bad: bool,
        pattern: &str,
        seed: Option<u64>,
        max_requests: Option<usize>,
    ) -> PyResult<NativeReplay> {
        let format = parse_format(format)?;
        let mode = match mode {
            "queue-depth" => ssdlab_drive::ReplayMode::QueueDepth,
            "timestamps" => ssdlab_drive::ReplayMode::Timestamps { scale: time_scale },
            other => return Err(WorkloadError::new_err(format!("unknown replay mode `{other}` (expected queue-depth or timestamps)"))),
        };
        let job = ssdlab_workload::parse_options("replay", &[format!("data_pattern={pattern}")]).map_err(to_py)?;
        let reader = ssdlab_trace::TraceReader::open(path, format, skip_bad).map_err(to_py)?;
        let skipped = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counting = CountingReader { reader, skipped: skipped.clone() };
        let records: Box<dyn Iterator<Item = ssdlab_core::Result<ssdlab_trace::TraceRecord>> + Send> = match max_requests {
            Some(n) => Box::new(counting.take(n)),
            None => Box::new(counting),
        };
        let seed = seed.unwrap_or_else(|| self.seeds.next_u64() >> 1);
        let run = ssdlab_drive::TraceRun::new(&self.drive, records, mode, remap, job.pattern, seed, self.now_ns).map_err(to_py)?;
        Ok(NativeReplay { run, skipped })
    }

    /// Advance a replay by up to `max_steps` events, without the GIL. Returns
    /// `(done, simulated_seconds, completed_requests)`.
    fn advance_replay(&mut self, py: Python<'_>, replay: &mut NativeReplay, max_steps: u64) -> PyResult<(bool, f64, u64)> {
        py.check_signals()?;
        let drive = &mut self.drive;
        let run = &mut replay.run;
        let done = py.detach(|| run.advance(drive, max_steps)).map_err(to_py)?;
        if done {
            self.now_ns = self.now_ns.max(replay.run.end_ns());
        }
        Ok((done, replay.run.simulated_ns() as f64 / 1e9, replay.run.completed()))
    }

    /// Summary of a finished replay as JSON.
    fn replay_summary_json(&self, replay: &NativeReplay, wall_seconds: f64) -> PyResult<String> {
        if !replay.run.is_done() {
            return Err(RequestError::new_err("the replay has not finished"));
        }
        let mut value = serde_json::to_value(replay.run.summary(&self.drive, wall_seconds)).map_err(|e| RequestError::new_err(e.to_string()))?;
        value["skipped_lines"] = replay.skipped.load(std::sync::atomic::Ordering::Relaxed).into();
        Ok(value.to_string())
    }

    /// Content tag of a 4 KiB logical sector (drives built with `track_tags`).
    fn read_tag(&self, sector: u64) -> PyResult<u64> {
        if sector >= self.drive.mapper().user_sectors() {
            return Err(RequestError::new_err(format!("sector {sector} is beyond the drive")));
        }
        Ok(self.drive.read_tag(sector))
    }
}

/// A run in progress (advance it with `NativeDrive.advance`).
#[pyclass(module = "ssdlab._native", unsendable)]
struct NativeRun {
    run: Option<Run>,
    seed: u64,
}

#[pymethods]
impl NativeRun {
    /// Seed of the run's workload.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The per-second series as columns.
    fn series_columns(&self) -> PyResult<Vec<(String, Vec<f64>)>> {
        let inner = self.run.as_ref().ok_or_else(|| RequestError::new_err("run is gone"))?;
        let rows = inner.series();
        let column = |f: &dyn Fn(&ssdlab_drive::SeriesRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
        Ok(vec![
            ("second".into(), column(&|r| r.second as f64)),
            ("span_seconds".into(), column(&|r| r.span_seconds)),
            ("iops".into(), column(&|r| r.iops)),
            ("read_mbps".into(), column(&|r| r.read_mbps)),
            ("write_mbps".into(), column(&|r| r.write_mbps)),
            ("mean_latency_us".into(), column(&|r| r.mean_latency_us)),
            ("max_latency_us".into(), column(&|r| r.max_latency_us)),
            ("free_blocks".into(), column(&|r| r.free_blocks as f64)),
            ("write_amplification".into(), column(&|r| r.write_amplification)),
        ])
    }
}

/// The `ssdlab._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(profile_names, m)?)?;
    m.add_function(wrap_pyfunction!(profile_source, m)?)?;
    m.add_function(wrap_pyfunction!(job_from_options, m)?)?;
    m.add_function(wrap_pyfunction!(jobs_from_file, m)?)?;
    m.add_class::<NativeJob>()?;
    m.add_class::<NativeDrive>()?;
    m.add_class::<NativeRun>()?;
    m.add_class::<NativeReplay>()?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(trace_workloads, m)?)?;
    m.add_function(wrap_pyfunction!(trace_generate, m)?)?;
    let py = m.py();
    m.add("SsdlabError", py.get_type::<SsdlabError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("RequestError", py.get_type::<RequestError>())?;
    m.add("InputOutputError", py.get_type::<InputOutputError>())?;
    Ok(())
}
