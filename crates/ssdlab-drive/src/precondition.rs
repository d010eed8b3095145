//! Preconditioning steps: the one definition of what `--precondition STEP` takes and does, for
//! every front end (`ssdlab run`, `trace replay` and sweeps through the Python binding,
//! `ssdlab serve` through `ssdlab-serve`).
//!
//! - `secure-erase`: ATA SECURE ERASE (every block erased, every mapping dropped).
//! - `seq-fill`: the whole usable span written once, 128 KiB sequential at QD32.
//! - `rand-fill`: 4 KiB random writes at QD32 amounting to twice the usable span (the SNIA
//!   steady-state convention), after which GC is in steady state for uniform random writes.
//! - `trim-all`: TRIM of the whole usable span (what a format does), 1 GiB commands.
//! - `idle:SECONDS`: the drive left idle so idle-time GC can work (a number of seconds, or a time
//!   as fio writes it: `idle:500ms`, `idle:5m`).
//!
//! A fill or TRIM step is a job ([`PreconditionStep::job`]) the caller runs fast-forwarded
//! (docs/fast-forward.md) or timed; [`Session::start_precondition`] does a step that is not a
//! job and hands back the job of one that is, and [`Session::precondition_untimed`] does a
//! whole step without timing (what the server does at its start).

use crate::session::{Session, MAX_SIMULATED_NS};
use ssdlab_core::units::{parse_time_ns, TimeUnit};
use ssdlab_core::{bail, Nanoseconds, Result};
use ssdlab_workload::JobSpec;

/// The steps `--precondition` takes, as help texts and error messages list them.
pub const PRECONDITION_STEPS: [&str; 5] = ["secure-erase", "seq-fill", "rand-fill", "trim-all", "idle:SECONDS"];

/// Largest TRIM command of `trim-all`: 1 GiB.
const TRIM_ALL_COMMAND_BYTES: u64 = 1 << 30;

/// One preconditioning step, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreconditionStep {
    /// ATA SECURE ERASE.
    SecureErase,
    /// The usable span written once, 128 KiB sequential at QD32.
    SeqFill,
    /// 4 KiB random writes at QD32, twice the usable span.
    RandFill,
    /// TRIM of the whole usable span.
    TrimAll,
    /// Idle for this many nanoseconds.
    Idle(Nanoseconds),
}

/// What [`Session::start_precondition`] did or left to do.
#[derive(Debug, Clone)]
pub enum PreconditionStart {
    /// The step is done (a secure erase, an idle period); an idle period says how many blocks
    /// idle-time GC reclaimed.
    Done {
        /// Blocks reclaimed during an idle step (`None` for a secure erase).
        blocks_reclaimed: Option<u64>,
    },
    /// The step is this job, for the caller to run fast-forwarded or timed.
    Job(Box<JobSpec>),
}

impl PreconditionStep {
    /// Parse a step as `--precondition` takes it; an unknown step or a bad idle time is a
    /// one-line error naming the choices.
    pub fn parse(text: &str) -> Result<Self> {
        Ok(match text {
            "secure-erase" => Self::SecureErase,
            "seq-fill" => Self::SeqFill,
            "rand-fill" => Self::RandFill,
            "trim-all" => Self::TrimAll,
            other => match other.strip_prefix("idle:") {
                Some(time) => Self::Idle(idle_ns(text, time)?),
                None => bail!(Workload, "unknown precondition '{}' (expected one of: {})", text.escape_debug(), PRECONDITION_STEPS.join(", ")),
            },
        })
    }

    /// The step's kind, also the name of its job: `secure-erase`, `seq-fill`, `rand-fill`,
    /// `trim-all` or `idle`.
    pub fn kind(self) -> &'static str {
        match self {
            Self::SecureErase => "secure-erase",
            Self::SeqFill => "seq-fill",
            Self::RandFill => "rand-fill",
            Self::TrimAll => "trim-all",
            Self::Idle(_) => "idle",
        }
    }

    /// The fio options of a fill or TRIM step on a drive of `usable_bytes` (`None` for a step
    /// that is not a job). `trim-all` TRIMs in 1 GiB commands, or in one command of the whole
    /// span on a drive smaller than that.
    pub fn job_options(self, usable_bytes: u64) -> Option<Vec<String>> {
        Some(match self {
            Self::SeqFill => vec!["rw=write".into(), "bs=128k".into(), "iodepth=32".into()],
            Self::RandFill => vec!["rw=randwrite".into(), "bs=4k".into(), "iodepth=32".into(), format!("io_size={}", 2 * usable_bytes)],
            Self::TrimAll => {
                let bs = TRIM_ALL_COMMAND_BYTES.min(usable_bytes / 4096 * 4096);
                vec!["rw=trim".into(), format!("bs={bs}"), "iodepth=1".into()]
            }
            Self::SecureErase | Self::Idle(_) => return None,
        })
    }

    /// The job of a fill or TRIM step on a drive of `usable_bytes`, named by its kind (`None`
    /// for a step that is not a job).
    pub fn job(self, usable_bytes: u64) -> Result<Option<JobSpec>> {
        let Some(options) = self.job_options(usable_bytes) else { return Ok(None) };
        let mut job = ssdlab_workload::parse_options(self.kind(), &options)?;
        // The fills and trims cover the whole span, its last block cut to the end.
        job.cut_last_block = true;
        Ok(Some(job))
    }
}

/// The nanoseconds of the idle time `time` of the step `step`: a number of seconds (`2.5`,
/// `1e3`) or a time with a unit (`500ms`, `5m`), at most what the simulated clock can count.
fn idle_ns(step: &str, time: &str) -> Result<Nanoseconds> {
    let time = time.trim();
    match time.parse::<f64>() {
        Ok(seconds) if seconds >= 0.0 => idle_seconds_ns(seconds),
        Ok(_) => Err(not_seconds(step)),
        Err(_) => {
            let ns = parse_time_ns(time, TimeUnit::Seconds).map_err(|_| not_seconds(step))?;
            if ns > MAX_SIMULATED_NS {
                return Err(too_long(ns as f64 / 1e9));
            }
            Ok(ns)
        }
    }
}

/// An idle period of `seconds` in nanoseconds (rounded to the nearest), refused when it is not
/// a non-negative number no larger than what the simulated clock can count (`Drive.idle` and
/// the `idle:SECONDS` step).
pub fn idle_seconds_ns(seconds: f64) -> Result<Nanoseconds> {
    if !(seconds >= 0.0 && seconds.is_finite() && seconds <= MAX_SIMULATED_NS as f64 / 1e9) {
        return Err(too_long(seconds));
    }
    Ok((seconds * 1e9).round() as Nanoseconds)
}

/// The error of an idle time that is not a non-negative time (the step's text escaped, so the
/// message stays one line whatever the step holds).
fn not_seconds(step: &str) -> ssdlab_core::Error {
    ssdlab_core::Error::Workload(format!("precondition '{}': expected idle:SECONDS with a non-negative number", step.escape_debug()))
}

/// The error of an idle time beyond what the simulated clock can count.
fn too_long(seconds: f64) -> ssdlab_core::Error {
    // (Past 1e15 as a power of ten: `idle(1e300)` printed all 301 digits.)
    let got = if seconds.abs() < 1e15 { format!("{seconds}") } else { format!("{seconds:e}") };
    ssdlab_core::Error::Workload(format!("idle time must be a non-negative number of seconds no larger than {:.0} (got {got})", MAX_SIMULATED_NS as f64 / 1e9))
}

impl Session {
    /// Start a preconditioning step now: a secure erase or an idle period is done here; a fill
    /// or TRIM comes back as its job (on this drive's usable span) for the caller to run,
    /// fast-forwarded ([`Session::start_fast_forward`]) or timed ([`Session::start_run`]), with
    /// the next seed of the stream.
    pub fn start_precondition(&mut self, step: PreconditionStep) -> Result<PreconditionStart> {
        Ok(match step {
            PreconditionStep::SecureErase => {
                self.secure_erase();
                PreconditionStart::Done { blocks_reclaimed: None }
            }
            PreconditionStep::Idle(ns) => PreconditionStart::Done { blocks_reclaimed: Some(self.idle(ns)?) },
            _ => PreconditionStart::Job(Box::new(step.job(self.drive().usable_bytes())?.expect("a fill or TRIM step is a job"))),
        })
    }

    /// Do a whole step without timing: a fill or TRIM is fast-forwarded in slices of
    /// `slice_ios` commands, `between_slices` called after each (to report progress or stop
    /// with an error). The drive is idle at the end.
    pub fn precondition_untimed(&mut self, step: PreconditionStep, slice_ios: u64, between_slices: &mut dyn FnMut(&Session) -> Result<()>) -> Result<()> {
        if let PreconditionStart::Job(job) = self.start_precondition(step)? {
            let mut run = self.start_fast_forward(&job, None, None)?;
            while !self.advance_fast_forward(&mut run, slice_ios)? {
                between_slices(self)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_step_parses_and_others_are_refused_naming_the_choices() {
        for name in PRECONDITION_STEPS.iter().filter(|n| !n.starts_with("idle")) {
            assert_eq!(PreconditionStep::parse(name).unwrap().kind(), *name);
        }
        let e = PreconditionStep::parse("fill").unwrap_err().to_string();
        assert_eq!(e, "unknown precondition 'fill' (expected one of: secure-erase, seq-fill, rand-fill, trim-all, idle:SECONDS)");
        // A step's text is escaped in the message, which stays one line.
        let e = PreconditionStep::parse("a=b\nc=d").unwrap_err().to_string();
        assert_eq!(e, "unknown precondition 'a=b\\nc=d' (expected one of: secure-erase, seq-fill, rand-fill, trim-all, idle:SECONDS)");
        let e = PreconditionStep::parse("idle:\u{1}\n").unwrap_err().to_string();
        assert_eq!(e, "precondition 'idle:\\u{1}\\n': expected idle:SECONDS with a non-negative number");
    }

    #[test]
    fn idle_takes_seconds_or_a_time_with_a_unit_up_to_the_clocks_limit() {
        let ns = |text: &str| {
            PreconditionStep::parse(text).map(|s| match s {
                PreconditionStep::Idle(ns) => ns,
                other => panic!("{other:?}"),
            })
        };
        assert_eq!(ns("idle:2.5").unwrap(), 2_500_000_000);
        assert_eq!(ns("idle:1e3").unwrap(), 1_000_000_000_000);
        assert_eq!(ns("idle:500ms").unwrap(), 500_000_000);
        assert_eq!(ns("idle:5m").unwrap(), 300_000_000_000);
        assert_eq!(ns("idle:0").unwrap(), 0);
        for bad in ["idle:-5", "idle:", "idle:abc", "idle:nan", "idle:5parsecs"] {
            let e = ns(bad).unwrap_err().to_string();
            assert_eq!(e, format!("precondition '{bad}': expected idle:SECONDS with a non-negative number"));
        }
        for (long, got) in [("idle:2e10", "20000000000"), ("idle:inf", "inf"), ("idle:200000d", "17280000000"), ("idle:1e300", "1e300")] {
            let e = ns(long).unwrap_err().to_string();
            assert_eq!(e, format!("idle time must be a non-negative number of seconds no larger than 9223372037 (got {got})"));
        }
        // `Drive.idle(seconds)`: the same limit and message.
        assert_eq!(idle_seconds_ns(2.5).unwrap(), 2_500_000_000);
        for bad in [-1.0, f64::NAN, 2e10] {
            assert!(idle_seconds_ns(bad).unwrap_err().to_string().starts_with("idle time must be a non-negative number of seconds"), "{bad}");
        }
    }

    #[test]
    fn fills_and_trims_are_jobs_on_the_usable_span() {
        let usable = 10 << 30;
        assert_eq!(PreconditionStep::SeqFill.job_options(usable).unwrap(), ["rw=write", "bs=128k", "iodepth=32"]);
        assert_eq!(PreconditionStep::RandFill.job_options(usable).unwrap()[3], format!("io_size={}", 20u64 << 30));
        assert_eq!(PreconditionStep::TrimAll.job_options(usable).unwrap()[1], "bs=1073741824");
        assert_eq!(PreconditionStep::TrimAll.job_options(100 << 20).unwrap()[1], format!("bs={}", 100 << 20));
        assert!(PreconditionStep::SecureErase.job(usable).unwrap().is_none() && PreconditionStep::Idle(1).job(usable).unwrap().is_none());
        assert_eq!(PreconditionStep::RandFill.job(usable).unwrap().unwrap().name, "rand-fill");
    }

    #[test]
    fn seq_fill_and_trim_all_cover_a_span_that_is_no_multiple_of_their_block() {
        // A job issues no partial block (fio's io_u_fits); the steps' last block is cut to the
        // span's end instead, so every byte is written or trimmed.
        let usable = (10 << 30) + (40 << 10);
        for step in [PreconditionStep::SeqFill, PreconditionStep::TrimAll] {
            let job = step.job(usable).unwrap().unwrap();
            let mut generator = ssdlab_workload::IoGenerator::new(&job, usable, 1).unwrap();
            let ios: Vec<_> = std::iter::from_fn(|| generator.next_io()).collect();
            assert_eq!(ios.iter().map(|io| io.len_bytes).sum::<u64>(), usable, "{}", step.kind());
            assert_eq!(ios.last().map(|io| io.offset_bytes + io.len_bytes), Some(usable), "{}", step.kind());
        }
    }
}
