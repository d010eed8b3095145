//! Array and bus timing.

use ssdlab_core::{field_ensure, FieldError, Nanoseconds};

/// The NAND interface kind, which sets the default channel bus rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusKind {
    /// ONFi 1.0 asynchronous interface, about 50 MB/s per channel.
    Onfi1Async,
    /// ONFi 2.x synchronous interface, 133 to 200 MB/s per channel (200 by default).
    Onfi2Sync,
    /// Toggle-mode DDR 1.0, about 166 MB/s per channel.
    Toggle1,
    /// Toggle-mode DDR 2.0, about 400 MB/s per channel.
    Toggle2,
}

impl BusKind {
    /// Parse the profile spelling (`onfi1-async`, `onfi2-sync`, `toggle1`, `toggle2`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "onfi1-async" => Some(Self::Onfi1Async),
            "onfi2-sync" => Some(Self::Onfi2Sync),
            "toggle1" => Some(Self::Toggle1),
            "toggle2" => Some(Self::Toggle2),
            _ => None,
        }
    }

    /// The profile spelling of this kind.
    pub fn name(self) -> &'static str {
        match self {
            Self::Onfi1Async => "onfi1-async",
            Self::Onfi2Sync => "onfi2-sync",
            Self::Toggle1 => "toggle1",
            Self::Toggle2 => "toggle2",
        }
    }

    /// The usual per-channel transfer rate of this interface in bytes per second.
    pub fn default_bytes_per_second(self) -> u64 {
        match self {
            Self::Onfi1Async => 50_000_000,
            Self::Onfi2Sync => 200_000_000,
            Self::Toggle1 => 166_000_000,
            Self::Toggle2 => 400_000_000,
        }
    }
}

/// Timing of array operations and of the channel bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timing {
    /// Page read time (array to page register), tR.
    pub t_read_ns: Nanoseconds,
    /// Page program time (page register to array), tPROG.
    pub t_prog_ns: Nanoseconds,
    /// Block erase time, tBERS.
    pub t_erase_ns: Nanoseconds,
    /// Command and address cycles on the bus before each operation.
    pub command_overhead_ns: Nanoseconds,
    /// The interface kind.
    pub bus: BusKind,
    /// Channel transfer rate in bytes per second.
    pub bus_bytes_per_second: u64,
}

impl Timing {
    /// Check the timings are usable: positive, and no longer than any real flash takes (so the
    /// nanosecond arithmetic of a long run can never overflow).
    pub fn validate(&self) -> Result<(), FieldError> {
        for (key, value, max) in [
            ("t_read_ns", self.t_read_ns, MAX_OPERATION_NS),
            ("t_prog_ns", self.t_prog_ns, MAX_OPERATION_NS),
            ("t_erase_ns", self.t_erase_ns, MAX_OPERATION_NS),
        ] {
            field_ensure!((1..=max).contains(&value), "nand", key, "must be 1 to {max} ns (got {value})");
        }
        field_ensure!(
            self.command_overhead_ns <= MAX_OPERATION_NS,
            "nand",
            "command_overhead_ns",
            "must be at most {MAX_OPERATION_NS} ns (got {})",
            self.command_overhead_ns
        );
        field_ensure!(
            (1_000_000..=MAX_BUS_BYTES_PER_SECOND).contains(&self.bus_bytes_per_second),
            "nand",
            "bus_mbps",
            "must be 1 to {} MB/s (got {} MB/s)",
            MAX_BUS_BYTES_PER_SECOND / 1_000_000,
            self.bus_bytes_per_second as f64 / 1e6
        );
        Ok(())
    }
}

/// Longest time one flash operation may take in a profile (10 s; real ones take milliseconds).
pub const MAX_OPERATION_NS: Nanoseconds = 10_000_000_000;

/// Fastest channel bus a profile may describe (100 GB/s).
pub const MAX_BUS_BYTES_PER_SECOND: u64 = 100_000_000_000;
