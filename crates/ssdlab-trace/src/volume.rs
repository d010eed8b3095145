//! Which volume of a trace is read. Traces of cloud and enterprise storage record several
//! volumes (devices, LUNs, disks) in one file; one drive replays one volume's addresses.

use std::collections::BTreeMap;

/// Distinct volume identifiers counted at most (a hostile file could name millions); past
/// this, requests of further volumes are counted together.
pub const MAX_TALLIED_VOLUMES: usize = 65_536;

/// Which volume to read (`--volume`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum VolumeChoice {
    /// The volume of the first request; a request of another volume is an error (or, with
    /// `skip_bad`, a skipped line).
    #[default]
    First,
    /// The volume with this identifier, as the trace writes it (`0`, `hm,0`, `8,16`,
    /// `/dev/sdb`); other volumes' requests are passed over and counted.
    Named(String),
    /// Every volume, their addresses overlaid: for `trace stats` only, which lists them.
    All,
}

impl VolumeChoice {
    /// `all` for [`VolumeChoice::All`], any other text names a volume.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "all" => Self::All,
            id => Self::Named(id.to_string()),
        }
    }
}

/// The volumes a reader met, and which requests it keeps.
#[derive(Debug, Clone, Default)]
pub(crate) struct Volumes {
    choice: VolumeChoice,
    first: Option<String>,
    /// Requests by volume (at most [`MAX_TALLIED_VOLUMES`] volumes), but for the current run.
    tally: BTreeMap<String, u64>,
    /// The volume of the latest requests, how many in a row, and whether it is read: counted
    /// here, and added to the tally only when another volume comes (a trace of one volume
    /// never touches the map).
    run: Option<(String, u64, bool)>,
    /// Requests of volumes past the tally's limit.
    untallied: u64,
    /// Requests of the chosen volume (all volumes with `All`).
    kept: u64,
    /// Whether the line being read was admitted, and kept (undone by [`Volumes::retract`] when
    /// the rest of the line turns out bad).
    this_line: Option<bool>,
}

impl Volumes {
    pub(crate) fn new(choice: VolumeChoice) -> Self {
        Self { choice, ..Self::default() }
    }

    fn add(tally: &mut BTreeMap<String, u64>, untallied: &mut u64, id: String, n: u64) {
        if n == 0 {
            // A run whose only line was bad (retracted).
            return;
        }
        if let Some(total) = tally.get_mut(&id) {
            *total += n;
        } else if tally.len() < MAX_TALLIED_VOLUMES {
            tally.insert(id, n);
        } else {
            *untallied += n;
        }
    }

    /// Whether a request of volume `id` is read: `Ok(false)` passes it over (another volume
    /// than the one named), `Err` refuses a second volume when none was named.
    pub(crate) fn admit(&mut self, id: &str) -> Result<bool, String> {
        let id = id.trim();
        // The common case: the volume of the request before (one comparison).
        if let Some((last, n, keep)) = &mut self.run {
            if last == id {
                *n += 1;
                self.kept += *keep as u64;
                self.this_line = Some(*keep);
                return Ok(*keep);
            }
        }
        let keep = match &self.choice {
            VolumeChoice::First => match &self.first {
                None => {
                    self.first = Some(id.to_string());
                    true
                }
                Some(first) if first == id => true,
                Some(first) => {
                    return Err(format!(
                        "a request for device `{id}`, where the requests before are for `{first}`: the trace covers several volumes and one drive replays one; pick one with --volume ID (volumes so far: `{first}`, `{id}`; `ssdlab trace stats --volume all` lists them with their request counts), or --skip-bad to keep the first's"
                    ));
                }
            },
            VolumeChoice::Named(chosen) => chosen == id,
            VolumeChoice::All => true,
        };
        if let Some((last, n, _)) = self.run.take() {
            Self::add(&mut self.tally, &mut self.untallied, last, n);
        }
        self.run = Some((id.to_string(), 1, keep));
        self.kept += keep as u64;
        self.this_line = Some(keep);
        Ok(keep)
    }

    /// A new line begins: nothing of it admitted yet.
    pub(crate) fn line_start(&mut self) {
        self.this_line = None;
    }

    /// The line admitted last was bad after all (skipped with --skip-bad): it is not a request
    /// of its volume. Returns whether it had been kept (`None`: nothing was admitted).
    pub(crate) fn retract(&mut self) -> Option<bool> {
        let keep = self.this_line.take()?;
        if let Some((_, n, _)) = &mut self.run {
            *n = n.saturating_sub(1);
        }
        self.kept -= keep as u64;
        Some(keep)
    }

    /// Requests by volume, by identifier, and the requests of volumes past the tally's limit.
    pub(crate) fn tally(&self) -> (Vec<(String, u64)>, u64) {
        let (mut tally, mut untallied) = (self.tally.clone(), self.untallied);
        if let Some((id, n, _)) = self.run.as_ref().filter(|(_, n, _)| *n > 0) {
            Self::add(&mut tally, &mut untallied, id.clone(), *n);
        }
        (tally.into_iter().collect(), untallied)
    }

    /// At the end of the trace: an error when the volume named had no request, naming the
    /// volumes the trace has.
    pub(crate) fn check_named_was_seen(&self) -> Result<(), String> {
        match &self.choice {
            VolumeChoice::Named(chosen) if self.kept == 0 => {
                let (tally, _) = self.tally();
                let mut seen: Vec<String> = tally.iter().take(20).map(|(id, _)| format!("`{id}`")).collect();
                if tally.len() > 20 {
                    seen.push(format!("and {} more", tally.len() - 20));
                }
                let seen = if seen.is_empty() { "none".to_string() } else { seen.join(", ") };
                Err(format!("--volume {chosen}: no request of that volume in the trace (volumes: {seen})"))
            }
            _ => Ok(()),
        }
    }
}
