//! What a server reports: the live summary, the per-second series and the mapping digest.

use super::preconditioning;
use super::Server;
use ssdlab_drive::Session;
use ssdlab_ftl::DataLocation;

impl Server {
    /// The live summary (the keys of `ssdlab run --json` that apply to a served drive).
    pub fn stats_json(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut summary = state.stats.summary(&state.session, state.backing.path());
        let host = state.session.drive().counters().host_write_bytes;
        summary["metadata_write_bytes"] = state.backing.metadata_bytes().into();
        summary["metadata_write_amplification"] = if host > 0 { (state.backing.metadata_bytes() as f64 / host as f64).into() } else { serde_json::Value::Null };
        summary["power_loss_protection"] = self.protected.into();
        summary["data_waiting_peak_bytes"] = self.runs.waiting_peak_bytes().into();
        summary["extents"] = serde_json::to_value(self.runs.tally()).unwrap_or_default();
        let (direct, buffered) = self.runs.written_bytes();
        summary["data_direct_write_bytes"] = direct.into();
        summary["data_buffered_write_bytes"] = buffered.into();
        summary["data_direct_writes"] = match self.runs.direct_unavailable() {
            None => "on: whole 128 KiB units bypass the page cache (O_DIRECT)".to_string(),
            Some(why) => format!("off: {why}"),
        }
        .into();
        summary["recovery"] = serde_json::to_value(&state.recovery).unwrap_or_default();
        summary["dead"] = state.dead.into();
        summary["latency_mode"] = if self.clock.emulates() { "emulate" } else { "none" }.into();
        let (transport, late) = self.clock.stats();
        summary["transport_round_trip_us"] = transport;
        summary["late_replies"] = late;
        summary["client_gap"] = self.clock.client_gaps();
        summary["precondition"] = preconditioning::summary(state.generated.as_ref());
        summary.to_string()
    }

    /// The per-second series so far, as CSV.
    pub fn series_csv(&self) -> String {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.stats.series_csv()
    }
}

/// A digest (FNV-1a over every logical sector's data location) of where a session's drive
/// holds each sector: `Server::mapping_digest` of a served drive, or of a simulator session to
/// compare with one.
pub fn mapping_digest_of(session: &Session) -> u64 {
    let t = session.drive().translation();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for lba in 0..t.user_sectors() {
        let v = match t.data_location(lba) {
            DataLocation::Zeros => 0,
            DataLocation::At { addr_bytes, region_bytes } => addr_bytes ^ (region_bytes << 48),
        };
        h = (h ^ v).wrapping_mul(0x100_0000_01b3);
    }
    h
}
