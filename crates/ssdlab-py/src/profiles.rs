//! Profile functions for `ssdlab.drive`: built-in names and effective TOML text.

use crate::errors::to_py;
use pyo3::prelude::*;

/// Names of the built-in profiles.
#[pyfunction]
pub fn profile_names() -> Vec<&'static str> {
    ssdlab_profile::builtin_names()
}

/// The TOML text of a profile (built-in name or path), after `overrides`.
#[pyfunction]
#[pyo3(signature = (name_or_path, overrides=Vec::new()))]
pub fn profile_source(name_or_path: &str, overrides: Vec<String>) -> PyResult<String> {
    let profile = ssdlab_profile::load_profile(name_or_path, &overrides).map_err(to_py)?;
    Ok(profile.source)
}

/// The facts `NativeDrive.info` gives for a drive of this profile (after `overrides`) and
/// content mode, without building the drive.
#[pyfunction]
#[pyo3(signature = (name_or_path, overrides=Vec::new(), content="modeled"))]
pub fn profile_info<'py>(py: Python<'py>, name_or_path: &str, overrides: Vec<String>, content: &str) -> PyResult<Bound<'py, PyAny>> {
    let content = crate::drive::content_mode(content)?;
    let profile = ssdlab_profile::load_profile(name_or_path, &overrides).map_err(to_py)?;
    crate::convert::to_object(py, &ssdlab_drive::DriveInfo::of(&profile, content))
}

/// Steady-state write amplification of greedy GC under uniform random single-sector writes, by
/// the finite-block analytic model (Desnoyers), for spare factor `(T - U) / T` and
/// `slots_per_block` 4 KiB slots per block; with `slots_per_block = 0`, the asymptotic
/// (Lambert W) form.
#[pyfunction]
pub fn greedy_wa(spare_factor: f64, slots_per_block: u32) -> PyResult<f64> {
    if !(spare_factor > 0.0 && spare_factor < 1.0) {
        return Err(crate::errors::WorkloadError::new_err(format!("spare factor must be between 0 and 1 (got {spare_factor})")));
    }
    Ok(if slots_per_block == 0 {
        ssdlab_ftl::analytic::greedy_wa_asymptotic(spare_factor)
    } else {
        ssdlab_ftl::analytic::greedy_wa_finite(spare_factor, slots_per_block)
    })
}

/// 1-based line of `key` in the `index`-th table headed `[table]` or `[[table]]` of the TOML
/// text `source` (else of that table's header; None without it): the line finder of profile
/// errors, for the errors of other TOML files (a sweep spec's `[sweep]` keys and `[[axis]]`
/// tables).
#[pyfunction]
pub fn toml_line(source: &str, table: &str, index: usize, key: &str) -> Option<usize> {
    ssdlab_profile::line_in_table(source, table, index, key)
}
