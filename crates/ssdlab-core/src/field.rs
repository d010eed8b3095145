//! A typed error about one field of a drive profile: which section and key, and what is wrong.
//!
//! Validators return it without knowing where the field came from; the profile loader then
//! places it (`file:line: section.key: message`, or `--set section.key: message` when an
//! override set the value), so no code ever has to find a field name in an error's text.

use crate::Error;

/// What is wrong with `section.key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Profile section (`nand`, `ftl`, ...).
    pub section: &'static str,
    /// Key within the section.
    pub key: &'static str,
    /// What is wrong and what was expected.
    pub message: String,
}

impl FieldError {
    /// An error about `section.key`.
    pub fn new(section: &'static str, key: &'static str, message: impl Into<String>) -> Self {
        Self { section, key, message: message.into() }
    }

    /// The configuration error, prefixed with where the field was given (`place`), e.g. a file
    /// and line or a command-line override.
    pub fn placed(&self, place: &str) -> Error {
        Error::Config(format!("{place}: {}.{}: {}", self.section, self.key, self.message))
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}: {}", self.section, self.key, self.message)
    }
}

impl From<FieldError> for Error {
    fn from(e: FieldError) -> Self {
        Error::Config(e.to_string())
    }
}

/// Return a [`FieldError`] about `section.key` unless the condition holds.
///
/// `field_ensure!(pages > 0, "nand", "pages_per_block", "must be at least 1 (got {pages})")`
#[macro_export]
macro_rules! field_ensure {
    ($cond:expr, $section:expr, $key:expr, $($arg:tt)+) => {
        if !($cond) {
            return Err($crate::FieldError::new($section, $key, format!($($arg)+)));
        }
    };
}
