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

    fn __repr__(&self) -> String {
        format!("NativeJob(name={:?}, rw={}, iodepth={})", self.spec.name, self.spec.rw.name(), self.spec.iodepth)
    }
}

/// Build one job from fio-style `key=value` options.
#[pyfunction]
pub fn job_from_options(name: &str, options: Vec<String>) -> PyResult<NativeJob> {
    let spec = ssdlab_workload::parse_options(name, &options).map_err(to_py)?;
    Ok(NativeJob { spec })
}

/// Read the jobs of an fio job file.
#[pyfunction]
pub fn jobs_from_file(path: &str) -> PyResult<Vec<NativeJob>> {
    let specs = ssdlab_workload::parse_job_file(path).map_err(to_py)?;
    Ok(specs.into_iter().map(|spec| NativeJob { spec }).collect())
}
