//! The errors a served operation returns, with the errno the NBD client should see.

use ssdlab_core::Error;

/// An error with the errno the NBD client should see.
#[derive(Debug)]
pub struct ServeError {
    /// errno for the protocol reply.
    pub errno: i32,
    /// What happened.
    pub message: String,
}

impl ServeError {
    /// An error with `errno` and `message`.
    pub(super) fn new(errno: i32, message: impl Into<String>) -> Self {
        Self { errno, message: message.into() }
    }
}

impl From<Error> for ServeError {
    fn from(e: Error) -> Self {
        let errno = match e {
            Error::Request(_) | Error::Workload(_) | Error::Config(_) => libc::EINVAL,
            Error::Io(ref m) if m.contains("No space left") => libc::ENOSPC,
            Error::Io(_) => libc::EIO,
        };
        Self { errno, message: e.to_string() }
    }
}

/// Result of a served operation.
pub type ServeResult<T> = std::result::Result<T, ServeError>;
