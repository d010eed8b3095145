//! Typed settings of NVMe power states with APST (`[power]`) and of the thermal model with its
//! throttling steps (`[thermal]`), both optional (issue 20): a profile without them behaves as
//! before (one idle power, no heat).

use ssdlab_core::Nanoseconds;

/// One NVMe power state descriptor (Identify Controller, PSD0 first), with the host's APST
/// idle time for it.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerState {
    /// Most power the drive draws in this state, milliwatts (the descriptor's MP). In a
    /// non-operational state the drive draws this; in an operational one it is a ceiling.
    pub max_mw: f64,
    /// Whether the drive processes commands in this state.
    pub operational: bool,
    /// Time to enter the state (ENLAT).
    pub entry_latency_ns: Nanoseconds,
    /// Time to leave the state (EXLAT): a command arriving in a non-operational state waits
    /// this long before the drive starts on it.
    pub exit_latency_ns: Nanoseconds,
    /// APST: idle time spent in the state before it (the previous state APST entered, or the
    /// operational state) before the drive moves to this one; `None`: APST never enters it.
    pub apst_idle_ns: Option<Nanoseconds>,
}

/// The drive's power states (`[power]`).
#[derive(Debug, Clone, PartialEq)]
pub struct PowerSettings {
    /// PS0 first; PS0 is operational.
    pub states: Vec<PowerState>,
}

impl PowerSettings {
    /// The states APST visits from an operational state, in order (deeper and deeper).
    pub fn apst_path(&self) -> impl Iterator<Item = (usize, &PowerState)> {
        self.states.iter().enumerate().filter(|(_, s)| s.apst_idle_ns.is_some())
    }
}

/// One throttling step: from `at_c` of composite temperature up, the firmware lets each die
/// work at most `nand_duty` of the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleStep {
    /// Composite temperature at which the step engages, degrees Celsius.
    pub at_c: f64,
    /// Share of time each die may be busy while the step is engaged (0 < duty <= 1).
    pub nand_duty: f64,
}

/// Heat: two thermal nodes (controller, NAND), each a heat capacity with a thermal resistance to
/// the ambient air, and the firmware's throttling steps (`[thermal]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ThermalSettings {
    /// Ambient (air) temperature, degrees Celsius (an input of the thermal test).
    pub ambient_c: f64,
    /// Thermal resistance from the controller to the ambient air, kelvin per watt.
    pub controller_k_per_w: f64,
    /// Heat capacity of the controller node (package, board share), joules per kelvin.
    pub controller_j_per_k: f64,
    /// Thermal resistance from the NAND packages to the ambient air, kelvin per watt.
    pub nand_k_per_w: f64,
    /// Heat capacity of the NAND node, joules per kelvin.
    pub nand_j_per_k: f64,
    /// Throttling steps, lowest temperature first, each slower than the one before.
    pub steps: Vec<ThrottleStep>,
    /// A step disengages once the composite temperature falls this far below its `at_c`.
    pub hysteresis_c: f64,
}
