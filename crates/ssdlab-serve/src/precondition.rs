//! Server-side preconditioning (`ssdlab serve --precondition STEP`): the steps of
//! `ssdlab run --precondition`, done at the server's start by the simulator's untimed
//! fast-forward (docs/fast-forward.md) on a drive built as `ssdlab run` builds it, with the same
//! seeds, then handed to the served drive. The served drive then starts in the state `ssdlab run`
//! has after the same steps (its FTL, counters and wear, byte for byte), idle at the simulated
//! time the last step ended. What the precondition wrote reads back as generated content
//! ([`crate::generated`]).
//!
//! One difference is deliberate: a served drive keeps its firmware metadata (map and journal)
//! in the backing file, not as modelled flash writes, so the preconditioning drive is built
//! with `controller.metadata_writes=false`, and the `ssdlab run` it equals is the one with that
//! setting.

use crate::generated::{Generated, PreconditionRecord};
use ssdlab_core::{bail, Error, Result};
use ssdlab_drive::{Drive, DriveOptions, Session};
use ssdlab_profile::Profile;
use std::time::Instant;

/// The step names `--precondition` takes (as `ssdlab run --precondition`; `idle:SECONDS` with a
/// number of seconds).
pub const STEP_NAMES: [&str; 5] = ["secure-erase", "seq-fill", "rand-fill", "trim-all", "idle:SECONDS"];

/// Fast-forwarded commands per slice (between progress lines).
const SLICE_IOS: u64 = 1 << 20;

/// One parsed step.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    SecureErase,
    SeqFill,
    RandFill,
    TrimAll,
    Idle(u64),
}

fn parse(step: &str) -> Result<Step> {
    Ok(match step {
        "secure-erase" => Step::SecureErase,
        "seq-fill" => Step::SeqFill,
        "rand-fill" => Step::RandFill,
        "trim-all" => Step::TrimAll,
        other => match other.strip_prefix("idle:").map(|s| s.trim().parse::<f64>()) {
            Some(Ok(s)) if (0.0..1e9).contains(&s) => Step::Idle((s * 1e9).round() as u64),
            Some(_) => bail!(Config, "precondition `{other}`: expected idle:SECONDS with a non-negative number of seconds"),
            None => bail!(Config, "unknown precondition `{other}` (expected one of: {})", STEP_NAMES.join(", ")),
        },
    })
}

/// Check the step names without running them.
pub fn check_steps(steps: &[String]) -> Result<()> {
    steps.iter().try_for_each(|s| parse(s).map(|_| ()))
}

/// The fio options of a fill or TRIM step on a drive of `usable` bytes (python/ssdlab/
/// preconditions.py: the same options).
fn job_options(step: Step, usable: u64) -> Option<Vec<String>> {
    let options: Vec<String> = match step {
        Step::SeqFill => vec!["rw=write".into(), "bs=128k".into(), "iodepth=32".into()],
        Step::RandFill => vec!["rw=randwrite".into(), "bs=4k".into(), "iodepth=32".into(), format!("io_size={}", 2 * usable)],
        Step::TrimAll => vec!["rw=trim".into(), format!("bs={}", (1u64 << 30).min(usable / 4096 * 4096)), "iodepth=1".into()],
        Step::SecureErase | Step::Idle(_) => return None,
    };
    Some(options)
}

/// The job name `ssdlab run` gives a step.
fn job_name(step: Step) -> &'static str {
    match step {
        Step::SeqFill => "seq-fill",
        Step::RandFill => "rand-fill",
        Step::TrimAll => "trim-all",
        Step::SecureErase => "secure-erase",
        Step::Idle(_) => "idle",
    }
}

/// Run `steps` on a factory-fresh drive of `profile` (the profile `ssdlab run` builds with the
/// same overrides plus `controller.metadata_writes=false`) seeded with `seed`, then load the
/// result into a drive of `served` (built with `served_options`). `say` gets a line per step.
pub(crate) fn run(
    profile: Profile,
    served: Profile,
    served_options: DriveOptions,
    seed: u64,
    steps: &[String],
    say: &mut dyn FnMut(String),
) -> Result<(Session, Generated)> {
    let started = Instant::now();
    let parsed: Vec<Step> = steps.iter().map(|s| parse(s)).collect::<Result<_>>()?;
    let mut session = Session::new(profile, DriveOptions::default(), seed)?;
    let usable = session.drive().usable_bytes();
    for (text, &step) in steps.iter().zip(&parsed) {
        let step_started = Instant::now();
        let before = session.now_ns();
        match step {
            Step::SecureErase => {
                session.secure_erase();
            }
            Step::Idle(ns) => {
                session.idle(ns)?;
            }
            _ => {
                let options = job_options(step, usable).expect("a fill or TRIM step");
                let job = ssdlab_workload::parse_options(job_name(step), &options)?;
                let mut run = session.start_fast_forward(&job, None, None)?;
                while !session.advance_fast_forward(&mut run, SLICE_IOS)? {}
            }
        }
        say(format!("precondition {text}: {:.1} s simulated, {:.1} s wall", (session.now_ns() - before) as f64 / 1e9, step_started.elapsed().as_secs_f64()));
    }
    let end_ns = session.now_ns();
    let host_write_bytes = session.drive().counters().host_write_bytes;
    let flash = session.drive().flash().counters();
    let nand_write_bytes = flash.bytes_programmed_host + flash.bytes_programmed_internal;
    // The state moves to the served drive through its saved form (the preconditioning drive is
    // dropped first, so the state is held at most twice).
    let mut state = Vec::new();
    session.drive().save_state(&mut state)?;
    drop(session);
    let drive = Drive::load(served, served_options, &mut state.as_slice())
        .map_err(|e| Error::Io(format!("cannot hand the preconditioned drive to the server: {e}")))?;
    drop(state);
    let session = Session::from_drive(drive, seed, end_ns);
    let record = PreconditionRecord { steps: steps.to_vec(), seed, end_ns, host_write_bytes, nand_write_bytes, wall_seconds: started.elapsed().as_secs_f64() };
    let t = session.drive().translation();
    let generated = Generated::from_mapping(record, t.user_sectors(), |lba| t.data_location(lba));
    Ok((session, generated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_names_are_checked_with_the_choices_named() {
        assert!(check_steps(&["seq-fill".into(), "rand-fill".into(), "trim-all".into(), "secure-erase".into(), "idle:2.5".into()]).is_ok());
        let e = check_steps(&["fill".into()]).unwrap_err().to_string();
        assert!(e.contains("unknown precondition `fill`") && e.contains("seq-fill, rand-fill"), "{e}");
        let e = check_steps(&["idle:-1".into()]).unwrap_err().to_string();
        assert!(e.contains("idle:SECONDS"), "{e}");
        assert_eq!(parse("idle:2.5").unwrap(), Step::Idle(2_500_000_000));
    }
}
