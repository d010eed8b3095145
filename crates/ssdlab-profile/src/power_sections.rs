//! Validation of `[power]` (NVMe power states with the host's APST table) and `[thermal]` (two
//! thermal nodes and the firmware's throttling steps). Both are optional: without them a
//! profile behaves as before.

use crate::power_settings::{PowerSettings, PowerState, ThermalSettings, ThrottleStep};
use crate::raw::{RawPower, RawThermal};
use ssdlab_core::{field_ensure, FieldError};

type FieldResult<T> = Result<T, FieldError>;

/// NVMe allows 32 power state descriptors.
const MAX_STATES: usize = 32;
/// Longest entry or exit latency a profile may give (10 s; real ones take milliseconds).
const MAX_LATENCY_US: u64 = 10_000_000;
/// Longest APST idle time (one day).
const MAX_APST_MS: u64 = 86_400_000;

/// `[power]`: the states, PS0 first, each list one entry per state.
pub(crate) fn power(p: Option<&RawPower>) -> FieldResult<Option<PowerSettings>> {
    let Some(p) = p else { return Ok(None) };
    let n = p.state_mw.len();
    field_ensure!((1..=MAX_STATES).contains(&n), "power", "state_mw", "give 1 to {MAX_STATES} power states, PS0 first (got {n})");
    for (key, len) in [("operational", p.operational.len()), ("entry_latency_us", p.entry_latency_us.len()), ("exit_latency_us", p.exit_latency_us.len())] {
        field_ensure!(len == n, "power", key, "give one entry per power state ({n}, as state_mw has; got {len})");
    }
    field_ensure!(
        p.apst_idle_ms.is_empty() || p.apst_idle_ms.len() == n,
        "power",
        "apst_idle_ms",
        "give one entry per power state ({n}; 0 where APST does not enter the state), or none for no APST (got {})",
        p.apst_idle_ms.len()
    );
    field_ensure!(p.operational[0], "power", "operational", "PS0 must be an operational state");
    let mut states = Vec::with_capacity(n);
    for i in 0..n {
        let mw = p.state_mw[i];
        field_ensure!(mw > 0.0 && mw <= 1e6, "power", "state_mw", "PS{i}: must be more than 0 and at most 1000000 mW (got {mw})");
        // A non-operational state is a rest: drawing more there than PS0's maximum is a typo
        // (a lab's "idle power with APST" of 50 W for a 50,000 mW PS4 beside an 8,490 mW PS0).
        field_ensure!(
            p.operational[i] || mw <= p.state_mw[0],
            "power",
            "state_mw",
            "PS{i}: a non-operational state draws at most PS0's {} mW (got {mw})",
            p.state_mw[0]
        );
        for (key, value) in [("entry_latency_us", p.entry_latency_us[i]), ("exit_latency_us", p.exit_latency_us[i])] {
            field_ensure!(value <= MAX_LATENCY_US, "power", key, "PS{i}: must be from 0 to {MAX_LATENCY_US} us (got {value})");
        }
        let apst_ms = p.apst_idle_ms.get(i).copied().unwrap_or(0);
        field_ensure!(apst_ms <= MAX_APST_MS, "power", "apst_idle_ms", "PS{i}: must be from 0 to {MAX_APST_MS} ms (got {apst_ms})");
        field_ensure!(
            apst_ms == 0 || !p.operational[i],
            "power",
            "apst_idle_ms",
            "PS{i}: APST only enters non-operational states (PS{i} is operational: give 0)"
        );
        states.push(PowerState {
            max_mw: mw,
            operational: p.operational[i],
            entry_latency_ns: p.entry_latency_us[i] * 1_000,
            exit_latency_ns: p.exit_latency_us[i] * 1_000,
            apst_idle_ns: (apst_ms > 0).then_some(apst_ms * 1_000_000),
        });
    }
    Ok(Some(PowerSettings { states }))
}

/// `[thermal]`: thermal resistances and capacities, the throttling steps.
pub(crate) fn thermal(t: Option<&RawThermal>) -> FieldResult<Option<ThermalSettings>> {
    let Some(t) = t else { return Ok(None) };
    field_ensure!((-40.0..=100.0).contains(&t.ambient_c), "thermal", "ambient_c", "must be -40 to 100 degrees C (got {})", t.ambient_c);
    for (key, value) in [
        ("controller_k_per_w", t.controller_k_per_w),
        ("controller_j_per_k", t.controller_j_per_k),
        ("nand_k_per_w", t.nand_k_per_w),
        ("nand_j_per_k", t.nand_j_per_k),
    ] {
        field_ensure!(value > 0.0 && value <= 1e4, "thermal", key, "must be more than 0 and at most 10000 (got {value})");
    }
    let n = t.throttle_c.len();
    field_ensure!(
        t.throttle_nand_duty.len() == n,
        "thermal",
        "throttle_nand_duty",
        "give one duty per throttle temperature ({n}, as throttle_c has; got {})",
        t.throttle_nand_duty.len()
    );
    let mut steps: Vec<ThrottleStep> = Vec::with_capacity(n);
    for (i, (&at_c, &nand_duty)) in t.throttle_c.iter().zip(&t.throttle_nand_duty).enumerate() {
        field_ensure!((0.0..=150.0).contains(&at_c), "thermal", "throttle_c", "step {}: must be 0 to 150 degrees C (got {at_c})", i + 1);
        field_ensure!(
            nand_duty > 0.0 && nand_duty <= 1.0,
            "thermal",
            "throttle_nand_duty",
            "step {}: must be more than 0 and at most 1 (got {nand_duty})",
            i + 1
        );
        if let Some(before) = steps.last() {
            field_ensure!(at_c > before.at_c, "thermal", "throttle_c", "step {}: must be above the step before ({} C; got {at_c})", i + 1, before.at_c);
            field_ensure!(
                nand_duty < before.nand_duty,
                "thermal",
                "throttle_nand_duty",
                "step {}: must be below the step before ({}; got {nand_duty})",
                i + 1,
                before.nand_duty
            );
        }
        steps.push(ThrottleStep { at_c, nand_duty });
    }
    field_ensure!(
        (0.0..=50.0).contains(&t.throttle_hysteresis_c),
        "thermal",
        "throttle_hysteresis_c",
        "must be 0 to 50 degrees C (got {})",
        t.throttle_hysteresis_c
    );
    Ok(Some(ThermalSettings {
        ambient_c: t.ambient_c,
        controller_k_per_w: t.controller_k_per_w,
        controller_j_per_k: t.controller_j_per_k,
        nand_k_per_w: t.nand_k_per_w,
        nand_j_per_k: t.nand_j_per_k,
        steps,
        hysteresis_c: t.throttle_hysteresis_c,
    }))
}
