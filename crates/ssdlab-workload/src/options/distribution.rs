//! `random_distribution`: random, zipf, pareto, zoned and zoned_abs.

use super::{Distribution, JobSpec, Zone, ZoneExtent};
use ssdlab_core::{Error, Result};

impl JobSpec {
    pub(super) fn parse_distribution(&self, text: &str, at: &str) -> Result<Distribution> {
        let bad = |m: String| Error::Workload(format!("{at}: random_distribution: {m}"));
        if text == "random" {
            return Ok(Distribution::Uniform);
        }
        if let Some(theta_text) = text.strip_prefix("zipf:") {
            let theta: f64 = theta_text.trim().parse().map_err(|_| bad(format!("`{theta_text}` is not a number")))?;
            if !(theta > 0.0 && theta.is_finite()) {
                return Err(bad(format!("zipf theta must be positive (got {theta_text})")));
            }
            return Ok(Distribution::Zipf(theta));
        }
        if let Some(h_text) = text.strip_prefix("pareto:") {
            let h: f64 = h_text.trim().parse().map_err(|_| bad(format!("`{h_text}` is not a number")))?;
            if !(h > 0.0 && h < 1.0) {
                return Err(bad(format!("pareto h must be above 0 and below 1, as in fio (got {h_text})")));
            }
            return Ok(Distribution::Pareto(h));
        }
        if text.starts_with("sequence") {
            // A later fio's (fio 3.33 does not have it); random_sequence_stride goes with it.
            return Err(bad(format!("sequence (`{text}`), a later fio's distribution (fio 3.33 does not have it), is not simulated")));
        }
        let (absolute, zones_text) = match (text.strip_prefix("zoned:"), text.strip_prefix("zoned_abs:")) {
            (Some(z), _) => (false, z),
            (_, Some(z)) => (true, z),
            _ => return Err(bad(format!("unknown `{text}` (expected random, zipf:THETA, pareto:H, zoned:ACCESS/SPAN:... or zoned_abs:ACCESS/SIZE:...)"))),
        };
        if zones_text.contains(',') {
            return Err(bad("separate zones for reads, writes and trims (`,`) are not supported; give one list".into()));
        }
        let mut zones = Vec::new();
        let mut left_percent = 100.0;
        let parts: Vec<&str> = zones_text.split(':').map(str::trim).filter(|p| !p.is_empty()).collect();
        for (index, part) in parts.iter().enumerate() {
            let (access_text, extent_text) = part.split_once('/').ok_or_else(|| bad(format!("zone `{part}`: expected ACCESS/SPAN")))?;
            let access: u32 = access_text.trim().parse().map_err(|_| bad(format!("zone `{part}`: `{access_text}` is not a percentage")))?;
            let extent_text = extent_text.trim();
            let extent = if absolute {
                ZoneExtent::Bytes(self.size("random_distribution", extent_text, at)?)
            } else if extent_text.is_empty() && index + 1 == parts.len() {
                // As fio: a last zone without a span takes what is left.
                ZoneExtent::Percent(left_percent)
            } else {
                let p: f64 = extent_text.trim_end_matches('%').parse().map_err(|_| bad(format!("zone `{part}`: `{extent_text}` is not a percentage")))?;
                ZoneExtent::Percent(p)
            };
            if let ZoneExtent::Percent(p) = extent {
                if p <= 0.0 || p.is_nan() || p > left_percent + 1e-9 {
                    return Err(bad(format!("zone `{part}`: span must be above 0 and the spans must not pass 100%")));
                }
                left_percent -= p;
            }
            zones.push(Zone { access_percent: access, extent });
        }
        let access: u32 = zones.iter().map(|z| z.access_percent).sum();
        if zones.is_empty() || access != 100 {
            return Err(bad(format!("the zones' access shares add up to {access}, not 100")));
        }
        Ok(Distribution::Zoned(zones))
    }
}
