//! The served drive's two clocks (`--latency none` or `emulate`) and, for emulated latency, the
//! wait before each reply.
//!
//! Emulated time: a request arrives in simulated time when it reached the plugin (simulated
//! time runs with the host's monotonic clock from the start), and its reply is sent at its
//! simulated completion less the transport's measured round trip, so the client, not the
//! plugin, sees it complete then; the time the server itself spent on the request is inside
//! that latency, not added to it.
//!
//! The wait is one absolute `clock_nanosleep` (timer slack 1 ns) aimed at the due time less the
//! typical time a sleeping thread takes to run again after its timer fires, which the clock
//! keeps measuring (a running median of every wait's overshoot). The wait of the round before
//! slept to shortly before and then called `sched_yield` in a loop: on a loaded machine a
//! yielding thread can lose the processor for a whole scheduler slice (a few ms), which made 2%
//! of replies 1.4 ms late and the emulated QD1 reads 2 to 11% slower than the simulator's by
//! turns. A reply still sent more than [`LATE_NS`] after its due time is counted (`stats`:
//! `late_replies`): where the host cannot keep up, the statistics say so.
//!
//! Aimed at the median, half the wake-ups come after the due time, and on this project's
//! virtual machine the spread of wake-ups is wider than [`LATE_NS`] (a quiet machine: 790 of
//! 8,959 QD1 replies late). So one waiting thread at a time (the only one at QD1) takes the
//! precise path: its sleep is aimed early by a high quantile of the overshoots (about the 98th
//! percentile, tracked the same way) and it then spins on the clock to the due time, a few tens
//! of microseconds of one core. The others, when many replies wait at once, sleep as before:
//! spinning 32 threads would take the cores the server needs.

use ssdlab_core::Nanoseconds;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// A reply sent more than this after its due time counts as late.
pub const LATE_NS: u64 = 10_000;

/// Most a wake-up estimate may be (a sleep aimed this much early at most).
const WAKE_MAX_NS: i64 = 200_000;

/// Step of the running median of wake-up overshoots.
const WAKE_STEP_NS: i64 = 250;

/// Steps of the running high quantile of wake-up overshoots: up by the first when a wake-up
/// came later than the estimate, down by the second otherwise, so the estimate settles where
/// 49 of 50 wake-ups (98%) come earlier.
const WAKE_HIGH_UP_NS: i64 = 2_450;
const WAKE_HIGH_DOWN_NS: i64 = 50;

thread_local! {
    /// Whether this thread's timer slack was set for emulated latency.
    static TIMER_SLACK_SET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The host's monotonic clock in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until the monotonic clock reads `target_ns` (or return at once when it has).
fn sleep_until_monotonic(target_ns: u64) {
    TIMER_SLACK_SET.with(|set| {
        if !set.replace(true) {
            // Timers fire within a nanosecond of when asked, not the default 50 us later (the
            // setting is per thread).
            // SAFETY: prctl with PR_SET_TIMERSLACK takes a plain integer; no memory involved.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        }
    });
    let ts = libc::timespec { tv_sec: (target_ns / 1_000_000_000) as libc::time_t, tv_nsec: (target_ns % 1_000_000_000) as libc::c_long };
    // SAFETY: an absolute sleep on the monotonic clock; the timespec is ours. EINTR just ends
    // the wait early, which the caller sees from the clock.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

/// The clocks of a server.
/// A transport round trip as the start-up probe measured it over its requests: a low
/// percentile (the figure used: the transport's own time, little of it waiting for a busy
/// machine's CPUs) and the median (reported beside it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundTrip {
    /// The low percentile, nanoseconds.
    pub low_ns: u64,
    /// The median, nanoseconds.
    pub median_ns: u64,
}

/// The percentile of the probe's round trips the server uses ([`RoundTrip::low_ns`]).
pub const ROUND_TRIP_PERCENTILE: u32 = 10;

pub struct Clock {
    /// Whether replies wait for their simulated completion.
    emulate: bool,
    /// Monotonic time at the start, and the simulated time it stands for.
    start_ns: u64,
    base_ns: Nanoseconds,
    /// The transport's round trip, subtracted from when a reply is due (held), and for replies
    /// sent at once (reported only).
    transport_ns: AtomicU64,
    quick_round_trip_ns: AtomicU64,
    /// The medians of the same probes (reported only).
    held_median_ns: AtomicU64,
    quick_median_ns: AtomicU64,
    /// The running median of how late a sleeping thread wakes up after its timer.
    wake_ns: AtomicI64,
    /// The running high quantile of the same (the precise path's aim).
    wake_high_ns: AtomicI64,
    /// Whether a thread is on the precise path (sleep early, then spin to the due time).
    spinning: std::sync::atomic::AtomicBool,
    /// Replies answered, late, by how much in all and at most.
    answered: AtomicU64,
    late: AtomicU64,
    late_total_ns: AtomicU64,
    late_max_ns: AtomicU64,
    /// While the start-up probe runs: how long CACHE replies are held.
    probe_hold_ns: AtomicU64,
    /// Requests inside the server now, and when the last one left it (its reply sent).
    in_server: AtomicU64,
    last_reply_ns: AtomicU64,
    /// Client gaps measured ([`Visit`]), and their sum.
    client_gaps: AtomicU64,
    client_gap_total_ns: AtomicU64,
}

/// One request's stay in the server, from its arrival at the plugin to its reply: on arrival
/// with no other request inside, the time since the last reply less the transport's round trip
/// is a *client gap*, the client's own time between a reply and its next request (fio's
/// processing of a completion and issue of the next command), during which the simulated
/// drive sits idle. At QD1 every request measures one; it is what `ssdlab run` must be given as
/// `thinktime` to run the same loop as the client did. The reply time is taken when the visit
/// ends (dropped), after any wait.
pub struct Visit<'a> {
    clock: &'a Clock,
    arrived_ns: u64,
}

impl Visit<'_> {
    /// When the request reached the plugin (monotonic).
    pub fn arrived_ns(&self) -> u64 {
        self.arrived_ns
    }
}

impl Drop for Visit<'_> {
    fn drop(&mut self) {
        self.clock.last_reply_ns.fetch_max(monotonic_ns(), Ordering::Relaxed);
        self.clock.in_server.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Clock {
    /// Clocks starting now at simulated time `base_ns`.
    pub fn new(emulate: bool, base_ns: Nanoseconds) -> Self {
        Self {
            emulate,
            start_ns: monotonic_ns(),
            base_ns,
            transport_ns: AtomicU64::new(0),
            quick_round_trip_ns: AtomicU64::new(0),
            held_median_ns: AtomicU64::new(0),
            quick_median_ns: AtomicU64::new(0),
            wake_ns: AtomicI64::new(0),
            wake_high_ns: AtomicI64::new(0),
            spinning: std::sync::atomic::AtomicBool::new(false),
            answered: AtomicU64::new(0),
            late: AtomicU64::new(0),
            late_total_ns: AtomicU64::new(0),
            late_max_ns: AtomicU64::new(0),
            probe_hold_ns: AtomicU64::new(0),
            in_server: AtomicU64::new(0),
            last_reply_ns: AtomicU64::new(0),
            client_gaps: AtomicU64::new(0),
            client_gap_total_ns: AtomicU64::new(0),
        }
    }

    /// A request reached the plugin now: its visit, ended by dropping it once it is answered.
    pub fn visit(&self) -> Visit<'_> {
        let arrived_ns = monotonic_ns();
        if self.in_server.fetch_add(1, Ordering::Relaxed) == 0 {
            let last = self.last_reply_ns.load(Ordering::Relaxed);
            // The transport's round trip as replies travel in this mode (held or at once).
            let transport = if self.emulate { self.transport_ns.load(Ordering::Relaxed) } else { self.quick_round_trip_ns.load(Ordering::Relaxed) };
            if last > 0 && transport > 0 && arrived_ns > last {
                self.client_gaps.fetch_add(1, Ordering::Relaxed);
                self.client_gap_total_ns.fetch_add((arrived_ns - last).saturating_sub(transport), Ordering::Relaxed);
            }
        }
        Visit { clock: self, arrived_ns }
    }

    /// Whether replies wait for their simulated completion.
    pub fn emulates(&self) -> bool {
        self.emulate
    }

    /// Milliseconds since the start (for coarse checks).
    pub fn elapsed_ms(&self) -> u64 {
        monotonic_ns().saturating_sub(self.start_ns) / 1_000_000
    }

    /// The simulated time of a request that reached the plugin at monotonic time `arrived_ns`
    /// (emulated time).
    pub fn simulated_ns(&self, arrived_ns: u64) -> Nanoseconds {
        self.base_ns + arrived_ns.saturating_sub(self.start_ns)
    }

    /// Set the transport's measured round trips (client to plugin and back, without the
    /// plugin's own time): `quick` for a reply sent at once, `held` for a reply held as an
    /// emulated one is. Their low percentiles are used; the medians are reported.
    pub fn set_transport_round_trip(&self, quick: RoundTrip, held: RoundTrip) {
        self.quick_round_trip_ns.store(quick.low_ns, Ordering::Relaxed);
        self.transport_ns.store(held.low_ns, Ordering::Relaxed);
        self.quick_median_ns.store(quick.median_ns, Ordering::Relaxed);
        self.held_median_ns.store(held.median_ns, Ordering::Relaxed);
    }

    /// Sleep until monotonic time `due_ns`, aimed early by the running wake-up estimate, and
    /// update the estimates with how late this wake-up was. Returns the time the wait ended.
    fn sleep_to(&self, due_ns: u64) -> u64 {
        let wake = self.wake_ns.load(Ordering::Relaxed).clamp(0, WAKE_MAX_NS) as u64;
        self.sleep_aimed(due_ns.saturating_sub(wake))
    }

    /// Sleep until monotonic time `target`; update both wake-up estimates with the overshoot.
    fn sleep_aimed(&self, target: u64) -> u64 {
        if monotonic_ns() >= target {
            return monotonic_ns();
        }
        sleep_until_monotonic(target);
        let now = monotonic_ns();
        let overshoot = now as i64 - target as i64;
        // The running median: one step towards each overshoot.
        let wake = self.wake_ns.load(Ordering::Relaxed);
        let step = if overshoot > wake { WAKE_STEP_NS } else { -WAKE_STEP_NS };
        let _ = self.wake_ns.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some((w + step).clamp(0, WAKE_MAX_NS)));
        // The high quantile: a large step up, a small one down.
        let high = self.wake_high_ns.load(Ordering::Relaxed);
        let step = if overshoot > high { WAKE_HIGH_UP_NS } else { -WAKE_HIGH_DOWN_NS };
        let _ = self.wake_high_ns.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some((w + step).clamp(0, WAKE_MAX_NS)));
        now
    }

    /// The precise path: sleep until `due_ns` less the high quantile of wake-ups, then spin on
    /// the clock until `due_ns`.
    fn sleep_then_spin(&self, due_ns: u64) -> u64 {
        let high = self.wake_high_ns.load(Ordering::Relaxed).clamp(0, WAKE_MAX_NS) as u64;
        let mut now = self.sleep_aimed(due_ns.saturating_sub(high));
        while now < due_ns {
            std::hint::spin_loop();
            now = monotonic_ns();
        }
        now
    }

    /// Wait (emulated latency) until the host time matching simulated time `done_ns`, less the
    /// transport's round trip; count the reply as late when it goes out more than [`LATE_NS`]
    /// after that. One waiting thread at a time sleeps early and spins to the due time; the
    /// others sleep aimed at the median wake-up.
    pub fn wait_until(&self, done_ns: Nanoseconds) {
        if !self.emulate {
            return;
        }
        let due = self.start_ns + done_ns.saturating_sub(self.base_ns).saturating_sub(self.transport_ns.load(Ordering::Relaxed));
        let now = if self.spinning.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok() {
            let now = self.sleep_then_spin(due);
            self.spinning.store(false, Ordering::Release);
            now
        } else {
            self.sleep_to(due)
        };
        self.answered.fetch_add(1, Ordering::Relaxed);
        let late = now.saturating_sub(due);
        if late > LATE_NS {
            self.late.fetch_add(1, Ordering::Relaxed);
            self.late_total_ns.fetch_add(late, Ordering::Relaxed);
            self.late_max_ns.fetch_max(late, Ordering::Relaxed);
        }
    }

    /// A CACHE request: answered at once, except while the start-up probe times held replies.
    pub fn cache_hold(&self) {
        let hold = self.probe_hold_ns.load(Ordering::Relaxed);
        if hold > 0 {
            self.sleep_to(monotonic_ns() + hold);
        }
    }

    /// While the start-up probe runs: hold each CACHE reply this long (0: not at all).
    pub fn set_probe_hold(&self, ns: u64) {
        self.probe_hold_ns.store(ns, Ordering::Relaxed);
    }

    /// The client gaps ([`Visit`]) for `stats`: how many, and their mean in microseconds.
    pub fn client_gaps(&self) -> serde_json::Value {
        let gaps = self.client_gaps.load(Ordering::Relaxed);
        serde_json::json!({
            "count": gaps,
            "mean_us": if gaps > 0 { self.client_gap_total_ns.load(Ordering::Relaxed) as f64 / gaps as f64 / 1e3 } else { 0.0 },
        })
    }

    /// The clock's part of `stats`: the transport's round trip and the late replies.
    pub fn stats(&self) -> (serde_json::Value, serde_json::Value) {
        let (quick, held) = (self.quick_round_trip_ns.load(Ordering::Relaxed), self.transport_ns.load(Ordering::Relaxed));
        let transport = if quick > 0 {
            serde_json::json!({
                "quick": quick as f64 / 1e3,
                "held": held as f64 / 1e3,
                "percentile": ROUND_TRIP_PERCENTILE,
                "quick_median": self.quick_median_ns.load(Ordering::Relaxed) as f64 / 1e3,
                "held_median": self.held_median_ns.load(Ordering::Relaxed) as f64 / 1e3,
                "subtracted": if self.emulate { held as f64 / 1e3 } else { 0.0 },
                "wake_up": self.wake_ns.load(Ordering::Relaxed) as f64 / 1e3,
                "wake_up_high": self.wake_high_ns.load(Ordering::Relaxed) as f64 / 1e3,
            })
        } else {
            serde_json::Value::Null
        };
        let (answered, late) = (self.answered.load(Ordering::Relaxed), self.late.load(Ordering::Relaxed));
        let replies = serde_json::json!({
            "answered": answered,
            "late": late,
            "late_fraction": if answered > 0 { late as f64 / answered as f64 } else { 0.0 },
            "mean_late_us": if late > 0 { self.late_total_ns.load(Ordering::Relaxed) as f64 / late as f64 / 1e3 } else { 0.0 },
            "max_late_us": self.late_max_ns.load(Ordering::Relaxed) as f64 / 1e3,
        });
        (transport, replies)
    }
}
