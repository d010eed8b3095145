//! The seeded swarm runner shared by the FTL model tests.

/// Number of cases (`SSDLAB_SWARM_CASES`, default 2000).
pub fn cases() -> u64 {
    std::env::var("SSDLAB_SWARM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
}

/// Run `case(seed)` for every seed from `base_seed` on, or only `SSDLAB_SEED` (with a longer
/// case, `replay(seed)`) when it is set. A failing case panics with the seed that reproduces
/// it. Returns each case's result.
pub fn swarm<T>(what: &str, base_seed: u64, case: impl Fn(u64) -> T + std::panic::RefUnwindSafe, replay: impl Fn(u64) -> T) -> Vec<T> {
    if let Some(seed) = std::env::var("SSDLAB_SEED").ok().and_then(|v| v.parse().ok()) {
        return vec![replay(seed)];
    }
    (0..cases())
        .map(|i| {
            let seed = base_seed + i;
            std::panic::catch_unwind(|| case(seed)).unwrap_or_else(|e| {
                let message = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                panic!("{what} swarm case failed; reproduce with SSDLAB_SEED={seed}: {}", message.unwrap_or_default())
            })
        })
        .collect()
}
