//! Heat and thermal throttling, in simulated time.
//!
//! Two thermal nodes, the controller and the NAND packages, each a heat capacity `C` with a
//! thermal resistance `R` to the ambient air: `C dT/dt = P - (T - T_ambient) / R`. The power
//! heating each comes from the energy model: the controller node takes the drive's idle or
//! power-state power and the controller's active power while commands are outstanding; the
//! NAND node takes the energy of every NAND operation and channel transfer. Over each step of
//! simulated time the power is taken as constant and the equation solved exactly.
//!
//! The composite temperature (what an NVMe drive reports and its firmware throttles on) is the
//! hotter node. When it reaches a throttling step's temperature the firmware lets each die work
//! only that step's share of the time (it rests a die after each operation in proportion:
//! fewer dies active at once on average, as power-budget schedulers do), so NAND power falls
//! and the drive cools; a step disengages once the temperature is its hysteresis below it.

use ssdlab_core::Nanoseconds;
use ssdlab_profile::ThermalSettings;

/// Length of one thermal step of simulated time (10 ms: far shorter than any node's time
/// constant of seconds, so taking power as constant over a step loses nothing).
pub const THERMAL_STEP_NS: Nanoseconds = 10_000_000;

/// Temperatures and throttling state of a drive.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ThermalState {
    /// Controller temperature, degrees Celsius.
    pub controller_c: f64,
    /// NAND temperature, degrees Celsius.
    pub nand_c: f64,
    /// Throttling step engaged (0: none).
    pub throttle_step: u32,
    /// Share of time each die may work now (1: no throttling).
    pub nand_duty: f64,
}

/// The thermal model of a drive.
#[derive(Debug, Clone)]
pub struct Thermal {
    settings: ThermalSettings,
    controller_c: f64,
    nand_c: f64,
    step: usize,
    /// Temperatures are known up to here.
    updated_ns: Nanoseconds,
    /// The next update is due at this time (the hot path only compares against it).
    pub next_ns: Nanoseconds,
    /// Energy heating each node that arrived since `updated_ns` and is not yet spent, nJ.
    pending_controller_nj: f64,
    pending_nand_nj: f64,
    /// The pending energy is spread evenly up to this time.
    pending_until_ns: Nanoseconds,
    /// Counters already taken into account.
    ops_nj_seen: f64,
    controller_nj_seen: f64,
}

impl Thermal {
    /// A drive at ambient temperature at time zero.
    pub fn new(settings: ThermalSettings) -> Self {
        let ambient = settings.ambient_c;
        Self {
            settings,
            controller_c: ambient,
            nand_c: ambient,
            step: 0,
            updated_ns: 0,
            next_ns: THERMAL_STEP_NS,
            pending_controller_nj: 0.0,
            pending_nand_nj: 0.0,
            pending_until_ns: 0,
            ops_nj_seen: 0.0,
            controller_nj_seen: 0.0,
        }
    }

    /// Temperatures and throttling now.
    pub fn state(&self) -> ThermalState {
        ThermalState { controller_c: self.controller_c, nand_c: self.nand_c, throttle_step: self.step as u32, nand_duty: self.duty() }
    }

    /// The composite temperature (the hotter node), degrees Celsius.
    pub fn composite_c(&self) -> f64 {
        self.controller_c.max(self.nand_c)
    }

    /// Share of time a die may work in the engaged step.
    pub fn duty(&self) -> f64 {
        if self.step == 0 {
            1.0
        } else {
            self.settings.steps[self.step - 1].nand_duty
        }
    }

    /// Take in the work done since the last call, from two running totals: the flash array's
    /// operation energy (`ops_nj_total`, heating the NAND) and the controller's work energy
    /// (`controller_nj_total`: its active power while busy and its energy per byte moved), to be
    /// spread evenly until `until_ns`.
    pub fn add_work(&mut self, ops_nj_total: f64, controller_nj_total: f64, until_ns: Nanoseconds) {
        self.pending_nand_nj += ops_nj_total - self.ops_nj_seen;
        self.pending_controller_nj += controller_nj_total - self.controller_nj_seen;
        self.ops_nj_seen = ops_nj_total;
        self.controller_nj_seen = controller_nj_total;
        self.pending_until_ns = self.pending_until_ns.max(until_ns);
    }

    /// Advance the temperatures to `to_ns`; `base_nj(from, to)` gives the drive's idle or
    /// power-state energy over an interval (it heats the controller). Returns the share of time
    /// a die may work from now on when the throttling step changed.
    pub fn advance(&mut self, to_ns: Nanoseconds, mut base_nj: impl FnMut(Nanoseconds, Nanoseconds) -> f64) -> Option<f64> {
        let before = self.step;
        while self.updated_ns < to_ns {
            let from = self.updated_ns;
            let to = (from + THERMAL_STEP_NS).min(to_ns);
            let dt_ns = to - from;
            // The share of the pending work that falls in this step.
            let (work_c, work_n) = if self.pending_until_ns > from {
                let share = (dt_ns as f64 / (self.pending_until_ns - from) as f64).min(1.0);
                let (c, n) = (self.pending_controller_nj * share, self.pending_nand_nj * share);
                self.pending_controller_nj -= c;
                self.pending_nand_nj -= n;
                (c, n)
            } else {
                let (c, n) = (self.pending_controller_nj, self.pending_nand_nj);
                self.pending_controller_nj = 0.0;
                self.pending_nand_nj = 0.0;
                (c, n)
            };
            let dt_s = dt_ns as f64 * 1e-9;
            let p_controller_w = (base_nj(from, to) + work_c) * 1e-9 / dt_s;
            let p_nand_w = work_n * 1e-9 / dt_s;
            let s = &self.settings;
            self.controller_c =
                relax(self.controller_c, s.ambient_c + p_controller_w * s.controller_k_per_w, dt_s / (s.controller_k_per_w * s.controller_j_per_k));
            self.nand_c = relax(self.nand_c, s.ambient_c + p_nand_w * s.nand_k_per_w, dt_s / (s.nand_k_per_w * s.nand_j_per_k));
            self.updated_ns = to;
            self.step = self.throttle_step();
        }
        self.next_ns = self.updated_ns + THERMAL_STEP_NS;
        (self.step != before).then(|| self.duty())
    }

    /// The step the firmware engages at the composite temperature now, from the one engaged:
    /// the highest step whose temperature is reached; an engaged step holds until the
    /// temperature falls its hysteresis below it.
    fn throttle_step(&self) -> usize {
        let t = self.composite_c();
        let reached = self.settings.steps.iter().take_while(|s| t >= s.at_c).count();
        let mut step = reached.max(self.step.min(self.settings.steps.len()));
        while step > reached && t < self.settings.steps[step - 1].at_c - self.settings.hysteresis_c {
            step -= 1;
        }
        step
    }
}

/// A first-order node after `tau_fraction` = dt / (R C) of its time constant at constant power:
/// it moves from `t` towards its steady temperature `steady` exactly.
fn relax(t: f64, steady: f64, tau_fraction: f64) -> f64 {
    steady + (t - steady) * (-tau_fraction).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_profile::ThrottleStep;

    fn model() -> Thermal {
        Thermal::new(ThermalSettings {
            ambient_c: 25.0,
            controller_k_per_w: 10.0,
            controller_j_per_k: 5.0,
            nand_k_per_w: 20.0,
            nand_j_per_k: 5.0,
            steps: vec![ThrottleStep { at_c: 70.0, nand_duty: 0.5 }, ThrottleStep { at_c: 80.0, nand_duty: 0.25 }],
            hysteresis_c: 3.0,
        })
    }

    #[test]
    fn a_node_reaches_ambient_plus_power_times_resistance() {
        let mut t = model();
        // 2 W of idle power on the controller for 10 time constants (R C = 50 s).
        t.advance(500_000_000_000, |a, b| 2.0 * (b - a) as f64);
        assert!((t.state().controller_c - 45.0).abs() < 0.01, "{:?}", t.state());
        assert_eq!(t.state().nand_c, 25.0);
        // After one time constant at 5 W the controller has gone 63% of the way to 75 C.
        let mut t = model();
        t.advance(50_000_000_000, |a, b| 5.0 * (b - a) as f64);
        let expected = 75.0 - 50.0 * (-1.0f64).exp();
        assert!((t.state().controller_c - expected).abs() < 1e-6, "{} vs {expected}", t.state().controller_c);
    }

    #[test]
    fn throttling_engages_and_releases_with_hysteresis() {
        let mut t = model();
        // 4 W of NAND work spread over 200 s heats the NAND node towards 105 C.
        t.add_work(4.0 * 200e9, 0.0, 200_000_000_000);
        let mut changes = vec![];
        for s in 1..=200u64 {
            if let Some(duty) = t.advance(s * 1_000_000_000, |_, _| 0.0) {
                changes.push((s, duty));
            }
        }
        assert_eq!(changes.iter().map(|c| c.1).collect::<Vec<_>>(), vec![0.5, 0.25], "{changes:?}");
        // Cooling: step 2 holds until 77 C, step 1 until 67 C.
        let mut released = vec![];
        for s in 201..=600u64 {
            if t.advance(s * 1_000_000_000, |_, _| 0.0).is_some() {
                released.push((t.state().throttle_step, t.composite_c()));
            }
        }
        assert_eq!(released.len(), 2, "{released:?}");
        assert!(released[0].0 == 1 && released[0].1 < 77.0 && released[0].1 > 76.0, "{released:?}");
        assert!(released[1].0 == 0 && released[1].1 < 67.0 && released[1].1 > 66.0, "{released:?}");
    }
}
