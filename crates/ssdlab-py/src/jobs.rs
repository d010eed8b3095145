//! Workload jobs for `ssdlab.drive`: fio options and job files, validated once.

use crate::errors::to_py;
use pyo3::prelude::*;
use ssdlab_workload::JobSpec;

/// A validated workload job.
#[pyclass(module = "ssdlab._native", frozen)]
pub struct NativeJob {
    /// The validated job.
    pub spec: JobSpec,
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

    /// fio's rate option as given (`("rate_iops", "1000")`), if the job has a rate limit.
    #[getter]
    fn rate_given(&self) -> Option<(String, String)> {
        self.spec.rate.as_ref().map(|r| r.given.clone())
    }

    /// Jobs run side by side in this group (numjobs copies and the jobs before the next
    /// stonewall).
    #[getter]
    fn jobs(&self) -> usize {
        1 + self.spec.concurrent.len()
    }

    /// Whether every job of the group has fio's `group_reporting` (the group is then reported
    /// as a whole; otherwise job by job, as fio does).
    #[getter]
    fn group_reporting(&self) -> bool {
        self.spec.group().all(|j| j.group_reporting)
    }

    /// Each job's fio `unified_rw_reporting` mode (`none`, `mixed` or `both`), in the group's
    /// order (this job, then the jobs run beside it).
    #[getter]
    fn unified_rw_reporting(&self) -> Vec<&'static str> {
        self.spec.group().map(|j| j.unified_rw_reporting.name()).collect()
    }

    /// Each job's fio `clat_percentiles` and `lat_percentiles` (whether its completion and its
    /// total latency carry percentiles in fio's JSON), in the group's order.
    #[getter]
    fn latency_percentiles(&self) -> Vec<(bool, bool)> {
        self.spec.group().map(|j| (j.percentiles.clat, j.percentiles.lat)).collect()
    }

    /// The same job with each latency's histogram in fio's buckets in its summaries (fio's
    /// `--output-format=json+` `bins`).
    fn with_fio_bins(&self) -> NativeJob {
        NativeJob { spec: self.spec.with_fio_bins() }
    }

    /// Each job's percentiles (fio's `percentile_list`, ascending), in the group's order.
    #[getter]
    fn percentile_lists(&self) -> Vec<Vec<f64>> {
        self.spec.group().map(|j| j.percentiles.list.clone()).collect()
    }

    /// Whether each job, in the group's order, has fio's `continue_on_error` (other than
    /// `none`): fio's terse output then ends with the job's error count and first error.
    #[getter]
    fn continues_on_error(&self) -> Vec<bool> {
        self.spec.group().map(|j| j.continue_on_error).collect()
    }

    /// Whether each job, in the group's order, starts one of fio's reporting groups (its
    /// `stonewall` or `new_group`, not the stonewall ssdlab gives a `wait_for`; a `numjobs`
    /// copy never does, as fio clears both on its clones): fio's `groupid` counts these, where
    /// the group before has jobs.
    #[getter]
    fn starts_fio_group(&self) -> Vec<bool> {
        self.spec.group().map(|j| j.copy_index == 0 && ((j.stonewall && !j.stonewall_for_wait) || j.new_group)).collect()
    }

    /// Each job's options as given, in the group's order: (those of `[global]` and of the
    /// command line beside a job file, those of its own section), each a list of (key, value),
    /// for fio's JSON echo (`global options`, `job options`).
    #[getter]
    fn options_given(&self) -> Vec<GivenOptions> {
        self.spec.group().map(|j| (j.echo.global.clone(), j.echo.job.clone())).collect()
    }

    /// Options given that change nothing in a simulation, over the whole group, once each.
    #[getter]
    fn no_effect(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for key in self.spec.group().flat_map(|j| j.no_effect.iter()) {
            if !out.contains(key) {
                out.push(key.clone());
            }
        }
        out
    }

    /// Whether any job of the group reads.
    #[getter]
    fn reads(&self) -> bool {
        self.spec.group().any(|j| j.rw.reads())
    }

    /// Whether any job of the group asks for `pre_read`.
    #[getter]
    fn pre_read(&self) -> bool {
        self.spec.group().any(|j| j.pre_read)
    }

    /// Log prefixes asked for: `{"bw": ..., "lat": ..., "iops": ...}` (absent keys: none),
    /// `avg_msec`, and `shared` (`"1"`) when a job has fio's `per_job_logs=0`.
    #[getter]
    fn logs(&self) -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        for job in self.spec.group() {
            for (kind, prefix) in [("bw", &job.logs.bw), ("lat", &job.logs.lat), ("iops", &job.logs.iops)] {
                if let Some(prefix) = prefix {
                    out.entry(kind.to_string()).or_insert_with(|| prefix.clone());
                }
            }
            if job.logs.avg_msec > 0 {
                out.entry("avg_msec".to_string()).or_insert_with(|| job.logs.avg_msec.to_string());
            }
            if job.logs.shared {
                out.insert("shared".to_string(), "1".to_string());
            }
        }
        out
    }

    /// The byte spans `(start, length)` the group's jobs work on, on a device of
    /// `capacity_bytes`.
    fn spans(&self, capacity_bytes: u64) -> PyResult<Vec<(u64, u64)>> {
        self.spec
            .group()
            .map(|j| ssdlab_workload::IoGenerator::new(j, capacity_bytes, 0).map(|g| (g.span_start_bytes(), g.span_bytes())).map_err(to_py))
            .collect()
    }

    /// Equal for two jobs that run the same simulation, however their options were spelt
    /// (`JobSpec::simulation_key`).
    fn simulation_key(&self) -> String {
        self.spec.simulation_key()
    }

    fn __repr__(&self) -> String {
        format!("NativeJob(name={:?}, rw={}, iodepth={})", self.spec.name, self.spec.rw.name(), self.spec.iodepth)
    }
}

/// A job's options as given: (global ones, its own), each a list of (key, value).
type GivenOptions = (Vec<(String, String)>, Vec<(String, String)>);

/// Build one job from fio-style `key=value` options. With `fill`, a sequential pass's last
/// block is cut to the span's end, so every byte of the span is written (ssdlab's own fills, as
/// the `seq-fill` step; a job's own passes issue whole blocks only, as fio's).
#[pyfunction]
#[pyo3(signature = (name, options, fill = false))]
pub fn job_from_options(name: &str, options: Vec<String>, fill: bool) -> PyResult<NativeJob> {
    let mut spec = ssdlab_workload::parse_options(name, &options).map_err(to_py)?;
    spec.cut_last_block = fill;
    Ok(NativeJob { spec })
}

/// The groups of jobs of fio's command line (no job file): options before the first `name=` are
/// global, every `name=NAME` starts a job (`name=global` goes back to the global options).
#[pyfunction]
pub fn jobs_from_options(options: Vec<String>) -> PyResult<Vec<NativeJob>> {
    let specs = ssdlab_workload::parse_command_line(&options).map_err(to_py)?;
    Ok(specs.into_iter().map(|spec| NativeJob { spec }).collect())
}

/// Read the groups of jobs of an fio job file; `overrides` (`key=value`) apply to every job
/// after the file's own options, as fio's command line does.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
pub fn jobs_from_file(path: &str, overrides: Vec<String>) -> PyResult<Vec<NativeJob>> {
    let specs = ssdlab_workload::parse_job_file_with(path, &overrides).map_err(to_py)?;
    Ok(specs.into_iter().map(|spec| NativeJob { spec }).collect())
}

/// The groups of jobs of a job file's bytes read from standard input (`ssdlab run -`, as
/// `fio -`): `origin` names them in messages; includes are relative to the current folder.
#[pyfunction]
#[pyo3(signature = (origin, data, overrides = Vec::new()))]
pub fn jobs_from_bytes(origin: &str, data: Vec<u8>, overrides: Vec<String>) -> PyResult<Vec<NativeJob>> {
    let specs = ssdlab_workload::parse_job_bytes_with(origin, data, &overrides).map_err(to_py)?;
    Ok(specs.into_iter().map(|spec| NativeJob { spec }).collect())
}

/// Parse a size as fio does (`4k`, `10GB`, `128KiB`; `kb_base` 1024 or 1000) into bytes.
#[pyfunction]
#[pyo3(signature = (text, kb_base = 1024))]
pub fn parse_size(text: &str, kb_base: u32) -> PyResult<u64> {
    let base = ssdlab_core::units::KbBase::parse(&kb_base.to_string()).map_err(pyo3::exceptions::PyValueError::new_err)?;
    ssdlab_core::units::parse_size_bytes_with(text, base).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Parse a time as fio does (`180`, `500ms`, `3m`) into nanoseconds; a bare number is in
/// `bare` (`s`, `ms` or `us`).
#[pyfunction]
#[pyo3(signature = (text, bare = "s"))]
pub fn parse_time_ns(text: &str, bare: &str) -> PyResult<u64> {
    use ssdlab_core::units::TimeUnit;
    let unit = match bare {
        "s" => TimeUnit::Seconds,
        "ms" => TimeUnit::Milliseconds,
        "us" => TimeUnit::Microseconds,
        other => return Err(pyo3::exceptions::PyValueError::new_err(format!("bare unit `{other}`: expected s, ms or us"))),
    };
    ssdlab_core::units::parse_time_ns(text, unit).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// Option names with why ssdlab treats them so.
type Reasons = Vec<(&'static str, &'static str)>;

/// fio options by how ssdlab treats them: `simulated` (names), `no_effect` and `refused`
/// (name and reason), and the accepted `rw` values.
#[pyfunction]
pub fn fio_catalogue() -> (Vec<&'static str>, Reasons, Reasons, &'static str) {
    use ssdlab_workload::catalogue::{NOT_SIMULATED, NO_EFFECT, SIMULATED};
    (SIMULATED.to_vec(), NO_EFFECT.to_vec(), NOT_SIMULATED.to_vec(), ssdlab_workload::RW_VALUES)
}
