//! Python binding of ssdlab: `ssdlab._native`.
//!
//! A thin shim over the core crates: it converts arguments and typed results (summaries become
//! dicts built directly from the typed structs), releases the GIL around simulation work,
//! checks for Ctrl-C between slices, and maps the core's [`ssdlab_core::Error`] kinds onto typed
//! Python exceptions. Simulated time and seeds live in [`ssdlab_drive::Session`], not here.
//! Modules mirror the Python package: `drive` and `jobs` and `profiles` for `ssdlab.drive`,
//! `preconditions` for `ssdlab.preconditions`, `traces` for `ssdlab.traces`.

#![warn(missing_docs)]

mod convert;
mod drive;
mod errors;
mod jobs;
mod preconditions;
mod profiles;
mod traces;

use pyo3::prelude::*;

/// The extension's allocator: a review, a sweep or a calibration builds drive after drive in
/// the same process, and the next drive's tables take the freed memory of the last one instead
/// of fresh pages the kernel must zero ([`ssdlab_core::recycling_alloc`]).
#[global_allocator]
static ALLOCATOR: ssdlab_core::RecyclingAllocator = ssdlab_core::RecyclingAllocator::new();

/// Give the memory of freed drives' tables, kept for the next drive, back to the system;
/// returns the bytes given back.
#[pyfunction]
fn release_memory() -> usize {
    ALLOCATOR.release()
}

/// The memory this process and the processes it starts may still take together, in bytes, and
/// the limit that sets it (the machine's or the control group's, as the drive's memory check
/// reads them: [`ssdlab_core::memory_room::shared_room`]); `None` where neither can be read.
#[pyfunction]
fn shared_memory_room() -> Option<(u64, String)> {
    ssdlab_core::memory_room::shared_room().map(|room| (room.bytes, room.limit))
}

/// The `ssdlab._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(release_memory, m)?)?;
    m.add_function(wrap_pyfunction!(shared_memory_room, m)?)?;
    m.add_function(wrap_pyfunction!(profiles::profile_names, m)?)?;
    m.add_function(wrap_pyfunction!(profiles::profile_source, m)?)?;
    m.add_function(wrap_pyfunction!(profiles::profile_info, m)?)?;
    m.add_function(wrap_pyfunction!(profiles::greedy_wa, m)?)?;
    m.add_function(wrap_pyfunction!(profiles::toml_line, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::job_from_options, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::jobs_from_file, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::jobs_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::jobs_from_options, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::parse_time_ns, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::fio_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(preconditions::precondition_kind, m)?)?;
    m.add_function(wrap_pyfunction!(preconditions::precondition_options, m)?)?;
    m.add("PRECONDITION_STEPS", ssdlab_drive::PRECONDITION_STEPS.to_vec())?;
    m.add_class::<jobs::NativeJob>()?;
    m.add_class::<drive::NativeDrive>()?;
    m.add_class::<drive::NativeRun>()?;
    m.add_class::<drive::NativeReplay>()?;
    m.add_class::<drive::NativeFastForward>()?;
    m.add_function(wrap_pyfunction!(traces::trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(traces::trace_workloads, m)?)?;
    m.add_function(wrap_pyfunction!(traces::trace_generate, m)?)?;
    let py = m.py();
    m.add("SsdlabError", py.get_type::<errors::SsdlabError>())?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("WorkloadError", py.get_type::<errors::WorkloadError>())?;
    m.add("RequestError", py.get_type::<errors::RequestError>())?;
    m.add("InputOutputError", py.get_type::<errors::InputOutputError>())?;
    Ok(())
}
