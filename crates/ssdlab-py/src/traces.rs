//! Trace functions for `ssdlab.traces`: statistics, generated workloads.

use crate::convert::to_object;
use crate::errors::{to_py, WorkloadError};
use pyo3::prelude::*;
use ssdlab_core::Error;

/// Parse a trace format name (`None`: detect it from the file).
pub fn parse_format(format: Option<&str>) -> PyResult<Option<ssdlab_trace::TraceFormat>> {
    match format {
        None => Ok(None),
        Some(name) => ssdlab_trace::TraceFormat::parse(name)
            .map(Some)
            .ok_or_else(|| WorkloadError::new_err(format!("unknown trace format `{name}` (expected {})", ssdlab_trace::TraceFormat::NAMES))),
    }
}

/// Parse a time unit name (`None`: the format's own).
pub fn parse_time_unit(unit: Option<&str>) -> PyResult<Option<ssdlab_trace::TimeUnit>> {
    match unit {
        None => Ok(None),
        Some(name) => ssdlab_trace::TimeUnit::parse(name)
            .map(Some)
            .ok_or_else(|| WorkloadError::new_err(format!("unknown time unit `{name}` (expected ns, us, ms or s)"))),
    }
}

/// The volume to read (`None`: the first request's; `all`: every volume).
pub fn parse_volume(volume: Option<&str>) -> PyResult<ssdlab_trace::VolumeChoice> {
    match volume {
        None => Ok(ssdlab_trace::VolumeChoice::First),
        Some(id) if id.trim().is_empty() => Err(WorkloadError::new_err("--volume: expected a volume identifier as the trace writes it, or `all`")),
        Some(id) => Ok(ssdlab_trace::VolumeChoice::parse(id)),
    }
}

/// Statistics of a trace file (streams the file); `volume` picks one volume of a trace of
/// several, `all` reads them all (the report lists them with their request counts).
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad=false, time_unit=None, volume=None))]
pub fn trace_stats<'py>(
    py: Python<'py>,
    path: &str,
    format: Option<&str>,
    skip_bad: bool,
    time_unit: Option<&str>,
    volume: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let format = parse_format(format)?;
    let time_unit = parse_time_unit(time_unit)?;
    let volume = parse_volume(volume)?;
    let path = path.to_string();
    let report = py
        .detach(move || -> Result<ssdlab_trace::TraceStatsReport, Error> {
            let mut reader = ssdlab_trace::TraceReader::open_with(&path, ssdlab_trace::ReadOptions { format, skip_bad, time_unit, volume })?;
            let mut stats = ssdlab_trace::TraceStats::for_format(reader.format());
            for record in reader.by_ref() {
                stats.add(&record?);
            }
            if stats.requests() == 0 {
                return Err(Error::Workload(format!("{path}: the trace has no requests")));
            }
            Ok(stats.report_for(&reader))
        })
        .map_err(to_py)?;
    to_object(py, &report)
}

/// The generated workloads: `(name, where their statistics come from, requests)`.
#[pyfunction]
pub fn trace_workloads() -> Vec<(&'static str, &'static str, u64)> {
    ssdlab_trace::Workload::names().into_iter().filter_map(|n| ssdlab_trace::Workload::by_name(n).map(|w| (n, w.source, w.requests()))).collect()
}

/// Generate a workload's trace into `path` (MSR CSV, gzip when the name ends in .gz).
#[pyfunction]
#[pyo3(signature = (name, path, seed=1))]
pub fn trace_generate(py: Python<'_>, name: &str, path: &str, seed: u64) -> PyResult<u64> {
    let workload = ssdlab_trace::Workload::by_name(name)
        .ok_or_else(|| WorkloadError::new_err(format!("unknown workload `{name}` (expected one of: {})", ssdlab_trace::Workload::names().join(", "))))?;
    let path = path.to_string();
    py.detach(move || ssdlab_trace::write_msr_file(&path, ssdlab_trace::generate(workload, seed))).map_err(to_py)
}
