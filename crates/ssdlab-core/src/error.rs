//! The error type shared by every core crate.
//!
//! Each variant is a kind of mistake; the message already names where it happened (file, line,
//! field) so that a front end can print it as one line. The Python binding maps each kind onto a
//! typed exception (`ssdlab.errors.ConfigError`, ...).

/// Result alias used throughout the core crates.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error a core crate can return.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A drive profile is malformed or describes an impossible drive.
    #[error("{0}")]
    Config(String),
    /// A workload (command-line options or an fio job file) is malformed or impossible.
    #[error("{0}")]
    Workload(String),
    /// A request cannot be served by the drive (out of range, wrong alignment, ...).
    #[error("{0}")]
    Request(String),
    /// An input or output file could not be read or written.
    #[error("{0}")]
    Io(String),
}

impl Error {
    /// The kind's short name, used by front ends to pick an exception class.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Error::Config(_) => "config",
            Error::Workload(_) => "workload",
            Error::Request(_) => "request",
            Error::Io(_) => "io",
        }
    }
}

/// Return early with an error of the given kind and a formatted message.
///
/// `bail!(Config, "{}: field `x` must be positive", file)`
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)+) => {
        return Err($crate::Error::$kind(format!($($arg)+)))
    };
}

/// Return early with an error unless the condition holds.
///
/// `ensure!(pages > 0, Config, "pages_per_block must be at least 1")`
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $kind:ident, $($arg:tt)+) => {
        if !($cond) {
            $crate::bail!($kind, $($arg)+);
        }
    };
}
