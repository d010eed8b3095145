//! What a server is started with: its configuration, clock mode and fault probabilities.

use ssdlab_core::{bail, Error, Result};

/// How request completion relates to wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    /// Reply as soon as the host's request is done; simulated time still runs and counts.
    None,
    /// Reply at the wall time matching the simulated completion (simulated time anchored to
    /// wall time at start).
    Emulate,
}

impl Latency {
    /// Parse `none` or `emulate`.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "none" => Ok(Self::None),
            "emulate" => Ok(Self::Emulate),
            other => bail!(Config, "latency: unknown mode `{other}` (expected none or emulate)"),
        }
    }
}

/// What a server is started with.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Built-in profile name or TOML path.
    pub profile: String,
    /// `section.field=value` overrides.
    pub overrides: Vec<String>,
    /// Path of the backing file (created when missing).
    pub backing: String,
    /// The clock.
    pub latency: Latency,
    /// Seed of the session (a new backing file) and of the power cut's moment.
    pub seed: u64,
    /// Cut the power during a write drawn at random (from `seed`) among the first this many.
    pub power_cut_after: Option<u64>,
    /// Failure modes of the flawed drives of the era (off by default).
    pub faults: Faults,
    /// Start from a secure-erased drive (empty, factory fresh), whatever the backing file held:
    /// the way back from the dead-device fault.
    pub secure_erase: bool,
    /// Preconditioning steps done at start by the untimed fast-forward, as `ssdlab run
    /// --precondition` does them (crate::precondition); refused on a file that holds data
    /// unless with `secure_erase`.
    pub precondition: Vec<String>,
    /// Write whole 128 KiB units of data bypassing the page cache (`O_DIRECT`) where the file
    /// system allows it (`serve --direct-data`; off by default: reads then come from the disk,
    /// docs/backing-file.md).
    pub direct_data: bool,
}

impl ServeConfig {
    /// Profile `profile` served from `backing` as `ssdlab serve` serves it by default: no
    /// overrides, no emulated latency (`Latency::None`), seed 1, no power cut, no faults, no
    /// secure erase, no preconditioning, data written through the page cache.
    pub fn new(profile: &str, backing: &str) -> Self {
        Self {
            profile: profile.into(),
            overrides: Vec::new(),
            backing: backing.into(),
            latency: Latency::None,
            seed: 1,
            power_cut_after: None,
            faults: Faults::default(),
            secure_erase: false,
            precondition: Vec::new(),
            direct_data: false,
        }
    }
}

/// Failure modes of flawed drives, for the power-cut lab (docs/power-loss.md): the failure
/// classes of Zheng et al., "Understanding the robustness of SSDs under power fault" (FAST'13),
/// each with the probability that it strikes at a power cut (0: off, the default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Faults {
    /// FLUSH and FUA are acknowledged without programming anything; at a cut the acknowledged
    /// data still in the volatile buffer is lost (else the drive happened to keep it).
    pub lying_flush: f64,
    /// A cut during a multi-sector write leaves its first half written (a shorn write).
    pub shorn_writes: f64,
    /// A later write survives while an earlier acknowledged one is lost (its data unreadable).
    pub unserializable_writes: f64,
    /// The drive's map reverts to an older state: operations after an earlier journal batch
    /// are forgotten though their blocks were reused since (older mappings, wrong data).
    pub metadata_corruption: f64,
    /// The drive is dead after the cut: every request fails until a secure erase.
    pub dead_device: f64,
}

/// The fault names `--fault` takes.
pub const FAULT_NAMES: [&str; 5] = ["lying-flush", "shorn-writes", "unserializable-writes", "metadata-corruption", "dead-device"];

impl Faults {
    /// Parse a comma-separated list of `NAME` or `NAME=P` (P the probability per cut, in
    /// (0, 1]; 1 when not given); empty: none.
    pub fn parse(text: &str) -> Result<Self> {
        let mut faults = Self::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let (name, p) = match word.split_once('=') {
                Some((name, p)) => {
                    let p: f64 = p
                        .trim()
                        .parse()
                        .ok()
                        .filter(|p: &f64| *p > 0.0 && *p <= 1.0)
                        .ok_or_else(|| Error::Config(format!("fault {name}: probability `{p}` is not a number in (0, 1]")))?;
                    (name.trim(), p)
                }
                None => (word, 1.0),
            };
            let slot = match name {
                "lying-flush" => &mut faults.lying_flush,
                "shorn-writes" => &mut faults.shorn_writes,
                "unserializable-writes" => &mut faults.unserializable_writes,
                "metadata-corruption" => &mut faults.metadata_corruption,
                "dead-device" => &mut faults.dead_device,
                other => bail!(Config, "fault: unknown failure mode `{other}` (expected {})", FAULT_NAMES.join(", ")),
            };
            *slot = p;
        }
        Ok(faults)
    }
}
