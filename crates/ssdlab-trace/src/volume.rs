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
    /// Requests by volume (at most [`MAX_TALLIED_VOLUMES`] volumes).
    tally: BTreeMap<String, u64>,
    /// Requests of volumes past the tally's limit.
    untallied: u64,
    /// Requests of the chosen volume (all volumes with `All`).
    kept: u64,
}

impl Volumes {
    pub(crate) fn new(choice: VolumeChoice) -> Self {
        Self { choice, ..Self::default() }
    }

    fn count(&mut self, id: &str) {
        if let Some(n) = self.tally.get_mut(id) {
            *n += 1;
        } else if self.tally.len() < MAX_TALLIED_VOLUMES {
            self.tally.insert(id.to_string(), 1);
        } else {
            self.untallied += 1;
        }
    }

    /// Whether a request of volume `id` is read: `Ok(false)` passes it over (another volume
    /// than the one named), `Err` refuses a second volume when none was named.
    pub(crate) fn admit(&mut self, id: &str) -> Result<bool, String> {
        let id = id.trim();
        match &self.choice {
            VolumeChoice::First => match &self.first {
                None => {
                    self.first = Some(id.to_string());
                }
                Some(first) if first == id => {}
                Some(first) => {
                    return Err(format!(
                        "a request for device `{id}`, where the requests before are for `{first}`: the trace covers several volumes and one drive replays one; pick one with --volume ID (volumes so far: `{first}`, `{id}`; `ssdlab trace stats --volume all` lists them with their request counts), or --skip-bad to keep the first's"
                    ));
                }
            },
            VolumeChoice::Named(chosen) => {
                let keep = chosen == id;
                self.count(id);
                if keep {
                    self.kept += 1;
                }
                return Ok(keep);
            }
            VolumeChoice::All => {}
        }
        self.count(id);
        self.kept += 1;
        Ok(true)
    }

    /// Requests by volume, by identifier, and the requests of volumes past the tally's limit.
    pub(crate) fn tally(&self) -> (Vec<(String, u64)>, u64) {
        (self.tally.iter().map(|(id, n)| (id.clone(), *n)).collect(), self.untallied)
    }

    /// At the end of the trace: an error when the volume named had no request, naming the
    /// volumes the trace has.
    pub(crate) fn check_named_was_seen(&self) -> Result<(), String> {
        match &self.choice {
            VolumeChoice::Named(chosen) if self.kept == 0 => {
                let mut seen: Vec<String> = self.tally.keys().take(20).map(|id| format!("`{id}`")).collect();
                if self.tally.len() > 20 {
                    seen.push(format!("and {} more", self.tally.len() - 20));
                }
                let seen = if seen.is_empty() { "none".to_string() } else { seen.join(", ") };
                Err(format!("--volume {chosen}: no request of that volume in the trace (volumes: {seen})"))
            }
            _ => Ok(()),
        }
    }
}
