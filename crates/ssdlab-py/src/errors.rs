//! The typed Python exceptions and the mapping of core error kinds onto them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;
use ssdlab_core::Error;

create_exception!(_native, SsdlabError, PyException, "Base class of every ssdlab error.");
create_exception!(_native, ConfigError, SsdlabError, "A drive profile is malformed or impossible.");
create_exception!(_native, WorkloadError, SsdlabError, "A workload or job file is malformed or impossible.");
create_exception!(_native, RequestError, SsdlabError, "The drive cannot serve a request.");
create_exception!(_native, InputOutputError, SsdlabError, "A file could not be read or written.");

/// The Python exception for a core error.
pub fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::Config(_) => ConfigError::new_err(message),
        Error::Workload(_) => WorkloadError::new_err(message),
        Error::Request(_) => RequestError::new_err(message),
        Error::Io(_) => InputOutputError::new_err(message),
    }
}
