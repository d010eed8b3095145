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
