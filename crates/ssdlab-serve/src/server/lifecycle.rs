//! Starting a server (building or restoring its drive) and its clean shutdown.

use super::preconditioning;
use super::{Server, State, RELEASE_COMMIT_BYTES};
use crate::backing::{BackingFile, DriveIdentity};
use crate::clock::Clock;
use crate::commit::Committer;
use crate::host::HostFile;
use crate::pending::Pending;
use crate::recovery;
use crate::stats::ServeStats;
use crate::{Latency, ServeConfig};
use ssdlab_core::{Error, Result, SimRng};
use ssdlab_drive::DriveOptions;
use ssdlab_reduce::ContentMode;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

impl Server {
    /// Build the drive, or restore it from its backing file (recovering it from its checkpoint
    /// and journal after an unclean stop), and open the file.
    pub fn start(config: &ServeConfig) -> Result<Self> {
        Self::start_with(config, None)
    }

    /// [`Server::start`] on a backing file the host already opened (the host-crash tests give a
    /// [`crate::CrashFile`]); `config.backing` only names it in messages.
    pub fn start_on(config: &ServeConfig, file: Arc<dyn HostFile>) -> Result<Self> {
        Self::start_with(config, Some(file))
    }

    fn start_with(config: &ServeConfig, file: Option<Arc<dyn HostFile>>) -> Result<Self> {
        let profile = ssdlab_profile::load_profile(&config.profile, &config.overrides)?;
        let g = &profile.geometry;
        let block_bytes = g.unit_bytes() * g.units_per_block() as u64;
        let identity = DriveIdentity {
            profile_name: profile.name.clone(),
            profile_hash: ssdlab_reduce::fingerprint(profile.source.as_bytes()) as u64,
            raw_bytes: profile.raw_bytes(),
            capacity_bytes_user: profile.capacity_bytes_user,
            block_bytes,
        };
        let mut backing = match file {
            Some(file) => {
                if config.secure_erase {
                    file.set_len(0).map_err(|e| Error::Io(format!("{}: cannot secure-erase the backing file: {e}", config.backing)))?;
                }
                BackingFile::on(file, &config.backing, &identity, config.seed)?
            }
            None => BackingFile::open(&config.backing, &identity, config.seed, config.secure_erase, config.direct_data)?,
        };
        let options = DriveOptions { content: ContentMode::Real, store_data: true, ..DriveOptions::default() };
        let reduction = profile.reduction.is_some();
        let protected = profile.controller.power_loss_protection;
        let gc_headroom_bytes = 2 * block_bytes * g.dies() as u64;
        let capacity_bytes = profile.capacity_bytes_user;
        let blocks = g.total_blocks();
        let mut restored = recovery::restore(&mut backing, profile.clone(), options)?;
        let preconditioned = !config.precondition.is_empty();
        if preconditioned {
            preconditioning::start(config, profile, options, &mut restored, backing.header().seed)?;
        }
        let mut session = restored.session;
        session.drive_mut().attach_data_plane(Box::new(restored.extents.plane()));
        // Blocks emptied while programmed give up their extents (Extents::recycle_emptied).
        session.drive_mut().track_emptied_blocks(true);
        let base_ns = restored.last_done_ns.max(session.now_ns());
        let cut_at_write = config.power_cut_after.map(|n| 1 + SimRng::new(config.seed ^ 0x9E37_79B9_7F4A_7C15).below(n.max(1)));
        let mut state = State {
            session,
            backing,
            extents: restored.extents,
            last_arrival_ns: base_ns,
            last_done_ns: base_ns,
            stats: ServeStats::new(base_ns),
            closed: false,
            pending: Pending::default(),
            jobs: Vec::new(),
            flushed_before: 0,
            flushing_for_commit: false,
            dead: false,
            recent_writes: std::collections::VecDeque::new(),
            next_seq: restored.next_seq,
            writes_seen: 0,
            request_from: None,
            powered_off: false,
            broken: None,
            recovery: restored.report,
            generated: restored.generated,
        };
        if state.recovery.is_some() {
            // The journal continues after its last intact batch (the next batch overwrites a
            // torn one); the extents only the lost operations used are given back.
            let released = state.extents.settle().map_err(|e| Error::Io(format!("{}: cannot release stale extents: {e}", config.backing)))?;
            if let Some(report) = state.recovery.as_mut() {
                report.extents_released = released;
            }
            state.backing.write_end_marker()?;
        }
        state.dead = state.backing.is_dead();
        state.backing.mark_in_use()?;
        let gate = state.extents.gate();
        let read_file = state.extents.file_for_reads();
        let runs = state.extents.clone();
        let server = Self {
            gate,
            read_file,
            runs,
            committer: Committer::default(),
            clock: Clock::new(config.latency == Latency::Emulate, base_ns),
            space_budget: std::sync::atomic::AtomicI64::new(0),
            space_checked_ms: AtomicU64::new(0),
            state: Mutex::new(state),
            capacity_bytes,
            reduction,
            gc_headroom_bytes,
            backing_path: config.backing.clone(),
            protected,
            faults: config.faults,
            seed: config.seed,
            cut_at_write,
            release_commit_extents: (RELEASE_COMMIT_BYTES / block_bytes).clamp(1, (blocks / 8).max(1) as u64) as usize,
        };
        if preconditioned {
            // Durable before anything is served: the journal that follows starts from it.
            let mut state = server.state.lock().unwrap_or_else(|p| p.into_inner());
            server.checkpoint(&mut state, false).map_err(|e| Error::Io(e.message))?;
        }
        Ok(server)
    }

    /// Clean shutdown: everything written is made durable, a checkpoint of the drive is
    /// written, and the file is marked cleanly shut down. Later requests are refused.
    pub fn shutdown(&self) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Ok(());
        }
        state.closed = true;
        self.checkpoint(&mut state, true).map_err(|e| Error::Io(e.message))
    }
}
