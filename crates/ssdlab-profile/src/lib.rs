//! Drive profiles.
//!
//! A profile is a TOML file whose field names carry their units (`t_prog_ns`,
//! `capacity_bytes_user`). [`load_profile`] reads one (a built-in name or a path), applies
//! `--set key=value` overrides, and validates it once into a [`Profile`] of typed settings. Every
//! error names the file, the line where it can be found and the field.
//!
//! Built-in profiles live in `profiles/*.toml` inside this crate ([`builtin_names`]).

#![warn(missing_docs)]

mod builtin;
mod consistency;
mod file;
mod locate;
mod media_sections;
mod power_sections;
mod power_settings;
mod raw;
mod sections;
mod settings;

pub use builtin::{builtin_names, builtin_source, DEFAULT_PROFILE};
pub use file::{load_profile, parse_profile};
pub use locate::{line_in_table, line_of};
pub use power_settings::{PowerSettings, PowerState, ThermalSettings, ThrottleStep};
pub use settings::{ControllerSettings, HostInterface, HostSettings, Profile, ReductionSettings};
