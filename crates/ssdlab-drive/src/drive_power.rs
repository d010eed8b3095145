//! The drive's power states and heat around each command (drives whose profile has `[power]` or
//! `[thermal]`; others skip all of this).
//!
//! Before a command: the thermal model catches up with simulated time (every
//! [`THERMAL_STEP_NS`]), and a throttling step it engages or releases sets the dies' duty; a
//! drive resting in a non-operational power state wakes (the command waits for the exit
//! latency). After it: the drive is busy until the command completes (the APST idle timer and
//! the controller's active power count from there).

use crate::drive::Drive;
use crate::power::PowerStates;
use crate::thermal::{Thermal, ThermalState, THERMAL_STEP_NS};
use ssdlab_core::Nanoseconds;

/// When the controller was busy with host commands (the union of their service times).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Activity {
    busy_until_ns: Nanoseconds,
    /// Total busy time so far.
    busy_total_ns: Nanoseconds,
}

/// What a drive's power state is at a moment, for its state report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PowerStateNow {
    /// The state (PS0 = 0).
    pub state: u32,
    /// Whether the drive is still entering it.
    pub entering: bool,
    /// The host's operational state.
    pub operational: u32,
    /// Whether APST is on.
    pub apst: bool,
}

impl Drive {
    /// The power-state and thermal models, when the profile has them.
    pub(crate) fn build_power_models(&mut self) {
        if let Some(settings) = self.profile.power.clone() {
            self.power = Some(PowerStates::new(settings, self.profile.idle_watts() * 1e3));
        }
        if let Some(settings) = self.profile.thermal.clone() {
            self.thermal = Some(Thermal::new(settings));
        }
        self.models_power = self.power.is_some() || self.thermal.is_some();
    }

    /// Before a command arriving at `at_ns`: heat up to now, and wake from a power state.
    /// Returns when the drive starts on the command.
    #[cold]
    #[inline(never)]
    pub(crate) fn before_command(&mut self, at_ns: Nanoseconds) -> Nanoseconds {
        if self.thermal.as_ref().is_some_and(|t| at_ns >= t.next_ns) {
            self.advance_thermal(at_ns, at_ns);
        }
        match self.power.as_ref() {
            Some(power) if power.may_rest(at_ns) => {
                let quiesce = self.quiesce_ns();
                self.power.as_mut().map_or(at_ns, |p| p.wake(at_ns, quiesce))
            }
            _ => at_ns,
        }
    }

    /// After a command that arrived at `at_ns` and completes at `done_ns`.
    #[cold]
    #[inline(never)]
    pub(crate) fn after_command(&mut self, at_ns: Nanoseconds, done_ns: Nanoseconds) {
        let a = &mut self.activity;
        a.busy_total_ns += done_ns.saturating_sub(at_ns.max(a.busy_until_ns));
        a.busy_until_ns = a.busy_until_ns.max(done_ns);
        if let Some(power) = self.power.as_mut() {
            power.busy_until(done_ns);
        }
    }

    /// Bring the temperatures to `to_ns`; the work booked since the last update is spread
    /// evenly until `spread_until_ns`. A throttling step engaged or released sets the dies'
    /// duty.
    pub(crate) fn advance_thermal(&mut self, to_ns: Nanoseconds, spread_until_ns: Nanoseconds) {
        if self.thermal.is_none() {
            return;
        }
        let controller_nj = self.controller_work_nj();
        let thermal = self.thermal.as_mut().expect("checked above");
        thermal.add_work(self.flash.counters().energy_nj, controller_nj, spread_until_ns);
        let quiesce = if self.power.is_some() { self.flash.all_idle_ns().max(self.controller_free_ns) } else { 0 };
        let idle_mw = self.profile.idle_watts() * 1e3;
        let power = self.power.as_ref();
        let base = |from: Nanoseconds, to: Nanoseconds| -> f64 {
            let mw = power.map_or(idle_mw, |p| p.power_mw_at(from + (to - from) / 2, quiesce));
            mw * (to - from) as f64 * 1e-3
        };
        if let Some(duty) = thermal.advance(to_ns, base) {
            self.flash.set_duty(duty);
        }
    }

    /// The controller's work energy since power-on, nanojoules: its active power while host
    /// commands are outstanding and its energy per host byte moved (data path, link).
    pub(crate) fn controller_work_nj(&self) -> f64 {
        let c = &self.profile.controller;
        let moved = (self.counters.host_read_bytes + self.counters.host_write_bytes) as f64;
        c.active_mw * self.activity.busy_total_ns as f64 * 1e-3 + c.data_pj_per_byte * moved * 1e-3
    }

    /// Temperatures and throttling at `at_ns` if nothing arrives before (`None` without a
    /// thermal model). Does not change the drive.
    pub fn thermal_state_at(&self, at_ns: Nanoseconds) -> Option<ThermalState> {
        let mut thermal = self.thermal.clone()?;
        thermal.add_work(self.flash.counters().energy_nj, self.controller_work_nj(), at_ns);
        let quiesce = self.quiesce_ns();
        let idle_mw = self.profile.idle_watts() * 1e3;
        let power = self.power.as_ref();
        thermal.advance(at_ns, |from, to| power.map_or(idle_mw, |p| p.power_mw_at(from + (to - from) / 2, quiesce)) * (to - from) as f64 * 1e-3);
        Some(thermal.state())
    }

    /// Temperatures and throttling as of the last command (`None` without a thermal model).
    #[inline]
    pub fn thermal_state(&self) -> Option<ThermalState> {
        self.thermal.as_ref().map(Thermal::state)
    }

    /// The power state at `at_ns` if nothing arrives before (`None` without power states).
    pub fn power_state_at(&self, at_ns: Nanoseconds) -> Option<PowerStateNow> {
        let power = self.power.as_ref()?;
        let point = power.state_at(at_ns, self.quiesce_ns());
        Some(PowerStateNow { state: point.state as u32, entering: point.entering, operational: power.operational() as u32, apst: power.apst() })
    }

    /// Energy of the drive's base power (idle power in operational states, each
    /// non-operational state's power) since power-on up to `at_ns`, nanojoules; `None` without
    /// power states.
    pub fn state_energy_nj(&self, at_ns: Nanoseconds) -> Option<f64> {
        Some(self.power.as_ref()?.energy_until_nj(at_ns, self.quiesce_ns()))
    }

    /// Set Features, Power Management, arriving at `at_ns`: move to power state `state`.
    /// Returns when the transition is done (an operational state: the drive works in it; a
    /// non-operational one: the drive rests there until a command arrives).
    pub fn set_power_state(&mut self, state: u32, at_ns: Nanoseconds) -> ssdlab_core::Result<Nanoseconds> {
        let quiesce = self.quiesce_ns();
        let Some(power) = self.power.as_mut() else {
            ssdlab_core::bail!(Request, "{}: the profile has no power states ([power])", self.profile.origin);
        };
        let n = power.settings().states.len();
        ssdlab_core::ensure!((state as usize) < n, Request, "power state {state} does not exist (the drive has PS0 to PS{})", n - 1);
        self.advance_thermal(at_ns, at_ns);
        let power = self.power.as_mut().expect("checked above");
        Ok(power.set_state(state as usize, at_ns, quiesce))
    }

    /// Set Features, Autonomous Power State Transition, at `at_ns`: APST on or off.
    pub fn set_apst(&mut self, on: bool, at_ns: Nanoseconds) -> ssdlab_core::Result<()> {
        let quiesce = self.quiesce_ns();
        let Some(power) = self.power.as_mut() else {
            ssdlab_core::bail!(Request, "{}: the profile has no power states ([power])", self.profile.origin);
        };
        ssdlab_core::ensure!(
            !on || power.settings().apst_path().next().is_some(),
            Request,
            "{}: the profile has no APST table (power.apst_idle_ms)",
            self.profile.origin
        );
        power.set_apst(on, at_ns, quiesce);
        Ok(())
    }

    /// The drive is busy with work of its own until `until_ns` (a secure erase): no rest before
    /// it, and the work's energy heats the drive evenly until then.
    pub(crate) fn busy_with_work(&mut self, until_ns: Nanoseconds) {
        if let Some(power) = self.power.as_mut() {
            power.busy_until(until_ns);
        }
        let controller_nj = self.controller_work_nj();
        if let Some(thermal) = self.thermal.as_mut() {
            thermal.add_work(self.flash.counters().energy_nj, controller_nj, until_ns);
        }
    }

    /// Idle time from `from_ns` to `until_ns` for the heat model: the work booked meanwhile
    /// (idle GC, folding) heats the drive until it ends; then the drive cools.
    pub(crate) fn idle_heat(&mut self, from_ns: Nanoseconds, until_ns: Nanoseconds) {
        if self.thermal.is_none() {
            return;
        }
        let work_end = self.quiesce_ns().clamp(from_ns + THERMAL_STEP_NS.min(until_ns - from_ns), until_ns);
        self.advance_thermal(until_ns, work_end);
    }
}
