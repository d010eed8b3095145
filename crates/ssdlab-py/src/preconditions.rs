//! Preconditioning steps for `ssdlab.preconditions`: the one definition of the steps
//! ([`ssdlab_drive::PreconditionStep`]) seen from Python (what the CLI checks and lists); what
//! a step does to a drive is `NativeDrive.start_precondition`.

use crate::errors::to_py;
use pyo3::prelude::*;
use ssdlab_drive::PreconditionStep;

/// Check a `--precondition` step; returns its kind (`secure-erase`, `seq-fill`, `rand-fill`,
/// `trim-all` or `idle`). Raises `WorkloadError` naming the choices.
#[pyfunction]
pub fn precondition_kind(step: &str) -> PyResult<&'static str> {
    PreconditionStep::parse(step).map(PreconditionStep::kind).map_err(to_py)
}

/// The fio options of a fill or TRIM step on a drive of `usable_bytes` (None for a step that
/// is not a job: `secure-erase`, `idle:SECONDS`).
#[pyfunction]
pub fn precondition_options(step: &str, usable_bytes: u64) -> PyResult<Option<Vec<String>>> {
    Ok(PreconditionStep::parse(step).map_err(to_py)?.job_options(usable_bytes))
}
