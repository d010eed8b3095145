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
use ssdlab_core::{Error, Result};
use ssdlab_drive::{Drive, DriveOptions, PreconditionStep, Session};
use ssdlab_profile::Profile;
use std::time::Instant;

/// Fast-forwarded commands per slice.
const SLICE_IOS: u64 = 1 << 20;

/// Check the steps without running them (the steps and their errors are `ssdlab run`'s:
/// [`PreconditionStep::parse`]).
pub fn check_steps(steps: &[String]) -> Result<()> {
    steps.iter().try_for_each(|s| PreconditionStep::parse(s).map(|_| ()))
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
    let parsed: Vec<PreconditionStep> = steps.iter().map(|s| PreconditionStep::parse(s)).collect::<Result<_>>()?;
    let mut session = Session::new(profile, DriveOptions::default(), seed)?;
    for (text, &step) in steps.iter().zip(&parsed) {
        let step_started = Instant::now();
        let before = session.now_ns();
        session.precondition_untimed(step, SLICE_IOS, &mut |_| Ok(()))?;
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
