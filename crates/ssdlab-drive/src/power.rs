//! NVMe power states with autonomous power state transitions (APST), in simulated time.
//!
//! The drive works in its operational state (PS0 unless the host chose another with Set
//! Features). Once it is idle (no command outstanding and its own work done: buffered programs,
//! GC, folding), APST moves it down the states of the host's APST table, each after its idle
//! time in the state before, each taking its entry latency. A command arriving in a
//! non-operational state waits for the entry in progress to end (if any) and for the state's
//! exit latency, then the drive serves it as usual from its operational state.
//!
//! Power: idle in an operational state the drive draws its idle power (controller and array,
//! capped at the state's maximum); in a non-operational state it draws the state's power; while
//! entering or leaving a state it draws the idle power of the operational state. Work (NAND
//! operations, the controller's active power) is added by the energy model on top.

use ssdlab_core::Nanoseconds;
use ssdlab_profile::PowerSettings;

/// One step of a rest: the drive starts entering `state` at `entry_start_ns` and is in it from
/// `entered_ns`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stage {
    state: usize,
    entry_start_ns: Nanoseconds,
    entered_ns: Nanoseconds,
}

/// Where the drive is at a moment of a rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestPoint {
    /// The power state the drive is in (or entering).
    pub state: usize,
    /// Whether it is still entering that state.
    pub entering: bool,
    /// When a command arriving now can start: after the entry in progress and the exit.
    pub ready_ns: Nanoseconds,
}

/// The drive's power states in simulated time.
#[derive(Debug, Clone)]
pub struct PowerStates {
    settings: PowerSettings,
    /// Idle power in an operational state (controller and array), milliwatts.
    idle_mw: f64,
    /// The most recent operational state (the host's choice; PS0 at power-on).
    operational: usize,
    /// APST on (the host's table applies).
    apst: bool,
    /// The drive has nothing of its own to do before this time (commands outstanding, a
    /// transition); a rest cannot start earlier.
    busy_until_ns: Nanoseconds,
    /// A non-operational state the host put the drive in, and when (the next rest starts there).
    forced: Option<(usize, Nanoseconds)>,
    /// Base energy (idle and state power) accounted up to `accounted_ns`, nanojoules.
    energy_nj: f64,
    accounted_ns: Nanoseconds,
    /// Scratch path of the rest being walked.
    stages: Vec<Stage>,
}

impl PowerStates {
    /// A drive at power-on: in PS0, APST on when the profile has an APST table.
    pub fn new(settings: PowerSettings, idle_mw: f64) -> Self {
        let apst = settings.apst_path().next().is_some();
        Self { settings, idle_mw, operational: 0, apst, busy_until_ns: 0, forced: None, energy_nj: 0.0, accounted_ns: 0, stages: Vec::new() }
    }

    /// The profile's power states.
    pub fn settings(&self) -> &PowerSettings {
        &self.settings
    }

    /// Whether APST is on.
    pub fn apst(&self) -> bool {
        self.apst
    }

    /// The most recent operational state.
    pub fn operational(&self) -> usize {
        self.operational
    }

    /// Power of the idle drive in operational state `state`, milliwatts.
    fn operational_idle_mw(&self, state: usize) -> f64 {
        self.idle_mw.min(self.settings.states[state].max_mw)
    }

    /// The path of a rest that starts at `rest_from_ns` (the drive idle from then on), into
    /// `stages`.
    fn plan_into(&self, rest_from_ns: Nanoseconds, stages: &mut Vec<Stage>) {
        stages.clear();
        let mut from_state = self.operational;
        let mut in_state_since = rest_from_ns;
        if let Some((state, at_ns)) = self.forced {
            let entered = at_ns + self.settings.states[state].entry_latency_ns;
            stages.push(Stage { state, entry_start_ns: at_ns, entered_ns: entered });
            from_state = state;
            in_state_since = entered;
        }
        if !self.apst {
            return;
        }
        for (state, s) in self.settings.apst_path() {
            if state <= from_state {
                continue;
            }
            let start = in_state_since.saturating_add(s.apst_idle_ns.unwrap_or(0));
            let entered = start.saturating_add(s.entry_latency_ns);
            stages.push(Stage { state, entry_start_ns: start, entered_ns: entered });
            in_state_since = entered;
        }
    }

    /// The path of a rest that starts at `rest_from_ns`, in the scratch list.
    fn plan(&mut self, rest_from_ns: Nanoseconds) {
        let mut stages = std::mem::take(&mut self.stages);
        self.plan_into(rest_from_ns, &mut stages);
        self.stages = stages;
    }

    /// Where a rest with path `stages` is at `at_ns`.
    fn point_in(&self, stages: &[Stage], at_ns: Nanoseconds) -> RestPoint {
        let mut point = RestPoint { state: self.operational, entering: false, ready_ns: at_ns };
        for stage in stages {
            if at_ns < stage.entry_start_ns {
                break;
            }
            let exit = self.settings.states[stage.state].exit_latency_ns;
            let entering = at_ns < stage.entered_ns;
            point = RestPoint { state: stage.state, entering, ready_ns: at_ns.max(stage.entered_ns) + exit };
        }
        point
    }

    /// Where the rest planned by `plan` is at `at_ns`.
    fn point(&self, at_ns: Nanoseconds) -> RestPoint {
        self.point_in(&self.stages, at_ns)
    }

    /// Power drawn idle in state `state` (operational: the idle power, capped at the state's
    /// maximum; non-operational: the state's power), milliwatts.
    fn state_mw(&self, state: usize) -> f64 {
        let s = &self.settings.states[state];
        if s.operational {
            self.operational_idle_mw(state)
        } else {
            s.max_mw
        }
    }

    /// Base energy of a rest with path `stages` over `[from_ns, to_ns)`, nanojoules: the
    /// operational idle power until each state is entered, then that state's power.
    fn rest_energy_in(&self, stages: &[Stage], from_ns: Nanoseconds, to_ns: Nanoseconds) -> f64 {
        let mut energy = 0.0;
        let mut t = from_ns;
        let mut mw = self.operational_idle_mw(self.operational);
        for stage in stages {
            if stage.entered_ns >= to_ns {
                break;
            }
            if stage.entered_ns > t {
                energy += mw * (stage.entered_ns - t) as f64 * 1e-3;
                t = stage.entered_ns;
            }
            mw = self.state_mw(stage.state);
        }
        if to_ns > t {
            energy += mw * (to_ns - t) as f64 * 1e-3;
        }
        energy
    }

    /// Base energy of the rest planned by `plan` over `[from_ns, to_ns)`, nanojoules.
    fn rest_energy_nj(&self, from_ns: Nanoseconds, to_ns: Nanoseconds) -> f64 {
        self.rest_energy_in(&self.stages, from_ns, to_ns)
    }

    /// Whether a command arriving at `at_ns` may find the drive resting (then the caller needs
    /// the time the drive's own work ends).
    #[inline]
    pub fn may_rest(&self, at_ns: Nanoseconds) -> bool {
        at_ns > self.busy_until_ns || self.forced.is_some()
    }

    /// When the present rest started (or will start): the drive idle since its last command
    /// and its own work (`quiesce_ns`), or since the host put it in a state.
    fn rest_from(&self, quiesce_ns: Nanoseconds) -> Nanoseconds {
        match self.forced {
            Some((_, at_ns)) => at_ns,
            None => self.busy_until_ns.max(quiesce_ns),
        }
    }

    /// Account base energy up to `at_ns` (a rest with the current plan ending at `at_ns`).
    fn account(&mut self, at_ns: Nanoseconds, rest_from_ns: Nanoseconds) {
        if at_ns <= self.accounted_ns {
            return;
        }
        let busy_end = rest_from_ns.clamp(self.accounted_ns, at_ns);
        self.energy_nj += self.operational_idle_mw(self.operational) * (busy_end - self.accounted_ns) as f64 * 1e-3;
        if at_ns > busy_end {
            self.energy_nj += self.rest_energy_nj(busy_end, at_ns);
        }
        self.accounted_ns = at_ns;
    }

    /// A command arrives at `at_ns`; the drive's own work ends at `quiesce_ns`. Returns when the
    /// drive can start on it: at once in an operational state, else after the entry in
    /// progress and the exit latency. The drive is busy from then on.
    pub fn wake(&mut self, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) -> Nanoseconds {
        let rest_from = self.rest_from(quiesce_ns);
        if at_ns <= rest_from && self.forced.is_none() {
            self.account(at_ns, at_ns);
            return at_ns;
        }
        self.plan(rest_from);
        let point = self.point(at_ns);
        self.account(at_ns, rest_from);
        self.forced = None;
        self.busy_until_ns = self.busy_until_ns.max(point.ready_ns);
        point.ready_ns
    }

    /// The drive is busy until `done_ns` (a command's completion).
    #[inline]
    pub fn busy_until(&mut self, done_ns: Nanoseconds) {
        self.busy_until_ns = self.busy_until_ns.max(done_ns);
    }

    /// The state the drive is in at `at_ns` (if nothing arrives before), given its own work
    /// ends at `quiesce_ns`.
    pub fn state_at(&self, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) -> RestPoint {
        let rest_from = self.rest_from(quiesce_ns);
        if at_ns <= rest_from && self.forced.is_none() {
            return RestPoint { state: self.operational, entering: false, ready_ns: at_ns };
        }
        let mut stages = Vec::new();
        self.plan_into(rest_from, &mut stages);
        self.point_in(&stages, at_ns)
    }

    /// Base power at `at_ns` (idle or state power), milliwatts, if nothing arrives before.
    pub fn power_mw_at(&self, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) -> f64 {
        let point = self.state_at(at_ns, quiesce_ns);
        if point.entering {
            // Entering a state: the power of the state before it (the last one entered).
            let mut stages = Vec::new();
            self.plan_into(self.rest_from(quiesce_ns), &mut stages);
            let before = stages.iter().take_while(|s| s.entered_ns <= at_ns).last().map_or(self.operational, |s| s.state);
            return self.state_mw(before);
        }
        self.state_mw(point.state)
    }

    /// Base energy since power-on up to `at_ns` (idle and state power), nanojoules, if nothing
    /// arrives before `at_ns`.
    pub fn energy_until_nj(&self, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) -> f64 {
        if at_ns <= self.accounted_ns {
            return self.energy_nj;
        }
        let rest_from = self.rest_from(quiesce_ns);
        let busy_end = rest_from.clamp(self.accounted_ns, at_ns);
        let mut energy = self.energy_nj + self.operational_idle_mw(self.operational) * (busy_end - self.accounted_ns) as f64 * 1e-3;
        if at_ns > busy_end {
            let mut stages = Vec::new();
            self.plan_into(rest_from, &mut stages);
            energy += self.rest_energy_in(&stages, busy_end, at_ns);
        }
        energy
    }

    /// Set Features (Power Management) at `at_ns`: move to `state`. From the state the drive
    /// is in (or entering), that costs the rest of the entry, the exit latency of a
    /// non-operational state or of an operational state left, and the new state's entry
    /// latency. An operational state becomes the drive's working state; a non-operational one
    /// is a rest the drive stays in (APST may take it deeper) until a command arrives. Returns
    /// when the transition is done.
    pub fn set_state(&mut self, state: usize, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) -> Nanoseconds {
        let rest_from = self.rest_from(quiesce_ns);
        let resting = at_ns > rest_from || self.forced.is_some();
        let now = if resting {
            self.plan(rest_from);
            let point = self.point(at_ns);
            self.account(at_ns, rest_from);
            point
        } else {
            self.account(at_ns, at_ns);
            RestPoint { state: self.operational, entering: false, ready_ns: at_ns }
        };
        let target = &self.settings.states[state];
        if now.state == state && !now.entering {
            return at_ns;
        }
        // Leaving the state the drive is in: the entry in progress, then its exit latency.
        let left_ns = if now.state == self.operational && !now.entering {
            at_ns + if now.state == state { 0 } else { self.settings.states[now.state].exit_latency_ns }
        } else {
            now.ready_ns
        };
        let done = left_ns + target.entry_latency_ns;
        if target.operational {
            self.operational = state;
            self.forced = None;
            self.busy_until_ns = self.busy_until_ns.max(done);
        } else {
            self.forced = Some((state, left_ns));
        }
        done
    }

    /// Turn APST on or off (the host's Set Features, Autonomous Power State Transition).
    pub fn set_apst(&mut self, on: bool, at_ns: Nanoseconds, quiesce_ns: Nanoseconds) {
        // Account what happened so far under the old setting.
        let rest_from = self.rest_from(quiesce_ns);
        self.plan(rest_from);
        self.account(at_ns, rest_from);
        self.apst = on;
        // A rest under the new setting counts from now.
        self.busy_until_ns = self.busy_until_ns.max(at_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_profile::PowerState;

    /// The Samsung 980 PRO's descriptors with Linux's APST table (PS3 after 160 ms, PS4 500 ms
    /// later).
    fn states() -> PowerStates {
        let s = |mw: f64, op: bool, entry_us: u64, exit_us: u64, apst_ms: u64| PowerState {
            max_mw: mw,
            operational: op,
            entry_latency_ns: entry_us * 1_000,
            exit_latency_ns: exit_us * 1_000,
            apst_idle_ns: (apst_ms > 0).then_some(apst_ms * 1_000_000),
        };
        PowerStates::new(
            PowerSettings {
                states: vec![
                    s(8490.0, true, 0, 0, 0),
                    s(4480.0, true, 0, 200, 0),
                    s(3180.0, true, 0, 1000, 0),
                    s(40.0, false, 2000, 1200, 160),
                    s(5.0, false, 500, 9500, 500),
                ],
            },
            1000.0,
        )
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn apst_walks_down_and_a_command_pays_the_exit_latency() {
        let mut p = states();
        p.busy_until(10 * MS);
        // Within the first idle time: no penalty.
        assert_eq!(p.wake(100 * MS, 0), 100 * MS);
        p.busy_until(100 * MS);
        // PS3 entered at 100 + 160 + 2 ms; a command at 300 ms pays its 1.2 ms exit.
        assert_eq!(p.state_at(300 * MS, 0).state, 3);
        assert_eq!(p.wake(300 * MS, 0), 300 * MS + 1_200_000);
        p.busy_until(301 * MS);
        // Busy until 301.2 ms (the wake); PS4's entry runs from 301.2 + 160 + 2 + 500 = 963.2 ms
        // to 963.7 ms; a command during it waits for it, then for the exit.
        assert_eq!(p.state_at(963 * MS, 0).state, 3);
        assert_eq!(p.state_at(963_500_000, 0), RestPoint { state: 4, entering: true, ready_ns: 963_700_000 + 9_500_000 });
        assert_eq!(p.wake(2_000 * MS, 0), 2_000 * MS + 9_500_000);
    }

    #[test]
    fn base_energy_follows_the_states() {
        let p = states();
        // Idle from 0: 162 ms at 1 W, then PS3 (40 mW) until 662 ms, PS4 entry (still 40 mW)
        // until 662.5 ms, then 5 mW.
        let e = p.energy_until_nj(10_000 * MS, 0);
        let expected = 1000.0 * 162.0 * 1e3 + 40.0 * 500.5 * 1e3 + 5.0 * (10_000.0 - 662.5) * 1e3;
        assert!((e - expected).abs() < 1.0, "{e} vs {expected}");
        // Accounting at a wake gives the same.
        let mut woken = p.clone();
        assert_eq!(woken.wake(10_000 * MS, 0), 10_000 * MS + 9_500_000);
        assert!((woken.energy_until_nj(10_000 * MS, 0) - expected).abs() < 1.0);
    }

    #[test]
    fn the_host_sets_states() {
        let mut p = states();
        // PS2 from PS0: no entry latency, now operational.
        assert_eq!(p.set_state(2, 0, 0), 0);
        assert_eq!(p.operational(), 2);
        // Back to PS0: PS2's exit latency.
        assert_eq!(p.set_state(0, 5 * MS, 0), 5 * MS + 1_000_000);
        // PS4 set directly, then a command: PS4's entry then exit.
        let entered = p.set_state(4, 20 * MS, 0);
        assert_eq!(entered, 20 * MS + 500_000);
        assert_eq!(p.wake(20 * MS, 0), 20 * MS + 500_000 + 9_500_000);
    }
}
