//! fio options and job files.

use ssdlab_core::time::NS_PER_S;
use ssdlab_core::units::parse_size_bytes;
use ssdlab_core::{bail, Error, Nanoseconds, Result};
use ssdlab_reduce::{DataPattern, PatternKind};

/// The `rw=` kinds supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RwKind {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Random mixed reads and writes (`rwmixread` percent reads).
    RandRw,
    /// Sequential mixed reads and writes.
    ReadWrite,
    /// Sequential TRIM.
    Trim,
    /// Random TRIM.
    RandTrim,
}

impl RwKind {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "read" => Self::Read,
            "write" => Self::Write,
            "randread" => Self::RandRead,
            "randwrite" => Self::RandWrite,
            "randrw" => Self::RandRw,
            "rw" | "readwrite" => Self::ReadWrite,
            "trim" => Self::Trim,
            "randtrim" => Self::RandTrim,
            _ => return None,
        })
    }

    /// fio's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::RandRead => "randread",
            Self::RandWrite => "randwrite",
            Self::RandRw => "randrw",
            Self::ReadWrite => "rw",
            Self::Trim => "trim",
            Self::RandTrim => "randtrim",
        }
    }

    /// Whether offsets are drawn at random.
    pub fn is_random(self) -> bool {
        matches!(self, Self::RandRead | Self::RandWrite | Self::RandRw | Self::RandTrim)
    }
}

/// How random offsets are distributed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform over the span.
    Uniform,
    /// Zipf with exponent `theta` over the blocks of the span.
    Zipf(f64),
}

/// One validated job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job name (section name of a job file, or `cli`).
    pub name: String,
    /// Access kind.
    pub rw: RwKind,
    /// Block sizes with their weights (one entry for `bs=`).
    pub block_sizes: Vec<(u64, u32)>,
    /// Commands kept in flight (closed loop).
    pub iodepth: u32,
    /// Start of the span, bytes.
    pub offset_bytes: u64,
    /// Length of the span, bytes (`None`: to the end of the usable space).
    pub size_bytes: Option<u64>,
    /// Bytes to transfer before stopping (`None`: the span's size, as fio does).
    pub io_size_bytes: Option<u64>,
    /// Simulated run-time limit.
    pub runtime_ns: Option<Nanoseconds>,
    /// fio's `thinktime`: the job waits this long after each completion before issuing the next
    /// command in its place (the host's own time per command: its storage stack and the
    /// benchmark program).
    pub thinktime_ns: Nanoseconds,
    /// Keep going (wrapping around the span) until `runtime` even after `io_size`.
    pub time_based: bool,
    /// Stop after this many IOs.
    pub number_ios: Option<u64>,
    /// Percentage of reads for mixed kinds.
    pub rwmixread: u32,
    /// Offset distribution of random kinds.
    pub distribution: Distribution,
    /// Alignment of random offsets (`None`: the smallest block size).
    pub blockalign: Option<u64>,
    /// What the job writes (set from `data_pattern`, `zero_buffers`,
    /// `buffer_compress_percentage`, `buffer_compress_chunk`, `dedupe_percentage`).
    pub pattern: DataPattern,
    named_pattern: Option<PatternKind>,
    compress_percent: Option<u32>,
    compress_chunk_bytes: u32,
}

impl JobSpec {
    /// A job with fio's defaults (`rw=read bs=4k iodepth=1`).
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            rw: RwKind::Read,
            block_sizes: vec![(4096, 100)],
            iodepth: 1,
            offset_bytes: 0,
            size_bytes: None,
            io_size_bytes: None,
            runtime_ns: None,
            thinktime_ns: 0,
            time_based: false,
            number_ios: None,
            rwmixread: 50,
            distribution: Distribution::Uniform,
            blockalign: None,
            pattern: DataPattern::default(),
            named_pattern: None,
            compress_percent: None,
            compress_chunk_bytes: 512,
        }
    }

    /// The smallest block size.
    pub fn min_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|(b, _)| *b).min().unwrap_or(4096)
    }

    /// The largest block size.
    pub fn max_block_bytes(&self) -> u64 {
        self.block_sizes.iter().map(|(b, _)| *b).max().unwrap_or(4096)
    }

    /// Apply one `key=value` option; `at` says where it came from for messages.
    pub fn set(&mut self, key: &str, value: Option<&str>, at: &str) -> Result<()> {
        let need = |v: Option<&str>| -> Result<String> {
            v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).ok_or_else(|| Error::Workload(format!("{at}: option `{key}` needs a value")))
        };
        let size = |v: Option<&str>| -> Result<u64> {
            let text = need(v)?;
            parse_size_bytes(&text).map_err(|m| Error::Workload(format!("{at}: {key}: {m}")))
        };
        let int = |v: Option<&str>| -> Result<u64> {
            let text = need(v)?;
            text.parse::<u64>().map_err(|_| Error::Workload(format!("{at}: {key}: `{text}` is not a whole number")))
        };
        match key {
            "rw" | "readwrite" => {
                let text = need(value)?;
                self.rw = RwKind::parse(&text).ok_or_else(|| {
                    Error::Workload(format!("{at}: rw: unknown kind `{text}` (expected read, write, randread, randwrite, randrw, rw, trim or randtrim)"))
                })?;
            }
            "bs" | "blocksize" => {
                let bytes = size(value)?;
                if bytes == 0 || bytes % 512 != 0 {
                    bail!(Workload, "{at}: bs: must be a positive multiple of 512 bytes (got {bytes})");
                }
                self.block_sizes = vec![(bytes, 100)];
            }
            "bssplit" => self.block_sizes = parse_bssplit(&need(value)?, at)?,
            "iodepth" => {
                let depth = int(value)?;
                if depth == 0 || depth > 65_536 {
                    bail!(Workload, "{at}: iodepth: must be between 1 and 65536 (got {depth})");
                }
                self.iodepth = depth as u32;
            }
            "offset" => self.offset_bytes = size(value)?,
            "size" => {
                let bytes = size(value)?;
                if bytes == 0 {
                    bail!(Workload, "{at}: size: must be positive");
                }
                self.size_bytes = Some(bytes);
            }
            "io_size" | "io_limit" => self.io_size_bytes = Some(size(value)?),
            "runtime" => self.runtime_ns = Some(parse_duration_ns(&need(value)?, at, "runtime")?),
            // fio reads a bare thinktime as microseconds.
            "thinktime" => {
                let text = need(value)?;
                let bare = text.chars().all(|c| c.is_ascii_digit() || c == '.');
                self.thinktime_ns = if bare { parse_duration_ns(&format!("{text}us"), at, "thinktime")? } else { parse_duration_ns(&text, at, "thinktime")? };
            }
            "time_based" => self.time_based = value.map(|v| v.trim() != "0").unwrap_or(true),
            "number_ios" => {
                let n = int(value)?;
                if n == 0 {
                    bail!(Workload, "{at}: number_ios: must be positive");
                }
                self.number_ios = Some(n);
            }
            "rwmixread" => {
                let p = int(value)?;
                if p > 100 {
                    bail!(Workload, "{at}: rwmixread: must be 0 to 100 (got {p})");
                }
                self.rwmixread = p as u32;
            }
            "rwmixwrite" => {
                let p = int(value)?;
                if p > 100 {
                    bail!(Workload, "{at}: rwmixwrite: must be 0 to 100 (got {p})");
                }
                self.rwmixread = 100 - p as u32;
            }
            "random_distribution" => self.distribution = parse_distribution(&need(value)?, at)?,
            "blockalign" | "ba" => {
                let bytes = size(value)?;
                if bytes == 0 || bytes % 512 != 0 {
                    bail!(Workload, "{at}: blockalign: must be a positive multiple of 512 bytes (got {bytes})");
                }
                self.blockalign = Some(bytes);
            }
            "data_pattern" => {
                let text = need(value)?;
                self.named_pattern = Some(match text.as_str() {
                    "zeros" => PatternKind::Zeros,
                    "repeating" => PatternKind::Repeating,
                    "text" => PatternKind::Text,
                    "random" => PatternKind::Random,
                    other => bail!(Workload, "{at}: data_pattern: unknown pattern `{other}` (expected zeros, repeating, text or random)"),
                });
            }
            "zero_buffers" => {
                if value.map(|v| v.trim() != "0").unwrap_or(true) {
                    self.named_pattern = Some(PatternKind::Zeros);
                }
            }
            "buffer_compress_percentage" => {
                let p = int(value)?;
                if p > 100 {
                    bail!(Workload, "{at}: buffer_compress_percentage: must be 0 to 100 (got {p})");
                }
                self.compress_percent = Some(p as u32);
            }
            "buffer_compress_chunk" => {
                let bytes = size(value)?;
                if bytes == 0 || bytes > 4096 {
                    bail!(Workload, "{at}: buffer_compress_chunk: must be 1 to 4096 bytes (got {bytes})");
                }
                self.compress_chunk_bytes = bytes as u32;
            }
            "dedupe_percentage" => {
                let p = int(value)?;
                if p > 100 {
                    bail!(Workload, "{at}: dedupe_percentage: must be 0 to 100 (got {p})");
                }
                self.pattern.dedupe_percent = p as u32;
            }
            "refill_buffers" | "scramble_buffers" => {}
            "numjobs" => {
                if int(value)? != 1 {
                    bail!(Workload, "{at}: numjobs: only 1 is supported (jobs of a file run one after the other)");
                }
            }
            // Accepted and without effect on a simulated drive.
            "name" | "description" | "filename" | "ioengine" | "direct" | "thread" | "group_reporting" | "stonewall" | "wait_for_previous" | "randrepeat"
            | "norandommap" | "buffered" | "exitall" | "invalidate" => {}
            other => bail!(
                Workload,
                "{at}: unknown fio option `{other}` (supported: rw, bs, bssplit, iodepth, offset, size, io_size, runtime, \
                 time_based, thinktime, number_ios, rwmixread, rwmixwrite, random_distribution, blockalign, data_pattern, zero_buffers, \
                 buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage)"
            ),
        }
        Ok(())
    }

    /// Check the job as a whole once all options are set, and settle its data pattern.
    pub fn finish(&mut self, at: &str) -> Result<()> {
        self.pattern.kind = match (self.named_pattern, self.compress_percent) {
            (Some(_), Some(_)) => bail!(Workload, "{at}: give either data_pattern/zero_buffers or buffer_compress_percentage, not both"),
            (Some(kind), None) => kind,
            (None, Some(percent)) => PatternKind::FioCompress { percent, chunk_bytes: self.compress_chunk_bytes },
            (None, None) => PatternKind::Random,
        };
        let total: u64 = self.block_sizes.iter().map(|(_, w)| *w as u64).sum();
        if total == 0 {
            bail!(Workload, "{at}: bssplit: the percentages add up to zero");
        }
        if let (Some(size), Some(align)) = (self.size_bytes, self.blockalign) {
            if align > size {
                bail!(Workload, "{at}: blockalign {align} is larger than size {size}");
            }
        }
        if let Some(size) = self.size_bytes {
            if self.max_block_bytes() > size {
                bail!(Workload, "{at}: block size {} is larger than size {size}", self.max_block_bytes());
            }
        }
        if self.runtime_ns == Some(0) {
            bail!(Workload, "{at}: runtime: must be positive");
        }
        if self.time_based && self.runtime_ns.is_none() {
            bail!(Workload, "{at}: time_based needs a runtime");
        }
        Ok(())
    }
}

fn parse_bssplit(text: &str, at: &str) -> Result<Vec<(u64, u32)>> {
    let mut out = Vec::new();
    for part in text.split(':') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (size_text, weight_text) = part.split_once('/').unwrap_or((part, ""));
        let bytes = parse_size_bytes(size_text).map_err(|m| Error::Workload(format!("{at}: bssplit: {m}")))?;
        if bytes == 0 || bytes % 512 != 0 {
            bail!(Workload, "{at}: bssplit: block size must be a positive multiple of 512 bytes (got {bytes})");
        }
        let weight: u32 = if weight_text.is_empty() {
            0
        } else {
            weight_text.trim().parse().map_err(|_| Error::Workload(format!("{at}: bssplit: `{weight_text}` is not a percentage")))?
        };
        if weight > 100 {
            bail!(Workload, "{at}: bssplit: percentage {weight} is over 100");
        }
        out.push((bytes, weight));
    }
    if out.is_empty() {
        bail!(Workload, "{at}: bssplit: expected size/percent[:size/percent...]");
    }
    // As fio: entries without a percentage share what is left.
    let given: u32 = out.iter().map(|(_, w)| *w).sum();
    if given > 100 {
        bail!(Workload, "{at}: bssplit: percentages add up to {given}, more than 100");
    }
    let unset = out.iter().filter(|(_, w)| *w == 0).count() as u32;
    if let Some(share) = (100 - given).checked_div(unset) {
        for entry in out.iter_mut().filter(|(_, w)| *w == 0) {
            entry.1 = share;
        }
    }
    Ok(out)
}

fn parse_distribution(text: &str, at: &str) -> Result<Distribution> {
    if text == "random" {
        return Ok(Distribution::Uniform);
    }
    if let Some(theta_text) = text.strip_prefix("zipf:") {
        let theta: f64 = theta_text.parse().map_err(|_| Error::Workload(format!("{at}: random_distribution: `{theta_text}` is not a number")))?;
        if !(theta > 0.0 && theta.is_finite()) {
            bail!(Workload, "{at}: random_distribution: zipf theta must be positive (got {theta})");
        }
        return Ok(Distribution::Zipf(theta));
    }
    bail!(Workload, "{at}: random_distribution: unknown `{text}` (expected random or zipf:THETA)")
}

/// Parse `180`, `180s`, `3m`, `500ms`, `2h` into nanoseconds (bare numbers are seconds, as fio).
fn parse_duration_ns(text: &str, at: &str, option: &str) -> Result<Nanoseconds> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number_text, unit) = text.split_at(split);
    let number: f64 = number_text.parse().map_err(|_| Error::Workload(format!("{at}: {option}: `{text}` is not a duration")))?;
    let scale = match unit {
        "" | "s" => NS_PER_S as f64,
        "ns" => 1.0,
        "ms" => 1e6,
        "us" => 1e3,
        "m" => 60.0 * NS_PER_S as f64,
        "h" => 3600.0 * NS_PER_S as f64,
        _ => bail!(Workload, "{at}: {option}: unknown unit `{unit}` in `{text}` (expected s, ms, us, ns, m or h)"),
    };
    Ok((number * scale).round() as Nanoseconds)
}

/// Build one job from `key=value` items (from the command line).
pub fn parse_options(name: &str, items: &[String]) -> Result<JobSpec> {
    let mut job = JobSpec::new(name);
    for item in items {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v)),
            None => (item.trim(), None),
        };
        let key = key.trim_start_matches("--");
        job.set(key, value, &format!("option --{key}"))?;
    }
    job.finish(&format!("job {name}"))?;
    Ok(job)
}

/// Read an fio job file: `[global]` options apply to every job section after them; jobs run
/// one after the other (as if `stonewall` were set on each).
pub fn parse_job_file(path: &str) -> Result<Vec<JobSpec>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Workload(format!("{path}: cannot read job file: {e}")))?;
    parse_job_text(path, &text)
}

/// One option of a job file: key, value (if any) and line number.
type JobOption = (String, Option<String>, usize);

/// Parse job-file text; `origin` names the file in messages.
pub fn parse_job_text(origin: &str, text: &str) -> Result<Vec<JobSpec>> {
    let mut global: Vec<JobOption> = Vec::new();
    let mut jobs: Vec<(String, usize, Vec<JobOption>)> = Vec::new();
    let mut in_global = false;
    let mut seen_section = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            if !line.ends_with(']') || line.len() < 3 {
                bail!(Workload, "{origin}:{line_no}: malformed section header `{line}` (expected [name])");
            }
            let name = line[1..line.len() - 1].trim().to_string();
            seen_section = true;
            in_global = name == "global";
            if !in_global {
                jobs.push((name, line_no, Vec::new()));
            }
            continue;
        }
        if !seen_section {
            bail!(Workload, "{origin}:{line_no}: option `{line}` before any [section]");
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (line.to_string(), None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            bail!(Workload, "{origin}:{line_no}: malformed line `{line}` (expected key=value)");
        }
        let entry = (key, value, line_no);
        if in_global {
            global.push(entry);
        } else {
            jobs.last_mut().expect("a job section is open").2.push(entry);
        }
    }
    if jobs.is_empty() {
        bail!(Workload, "{origin}: no job section (expected at least one [name] besides [global])");
    }
    let mut out = Vec::new();
    for (name, line_no, items) in jobs {
        let mut job = JobSpec::new(&name);
        for (key, value, at_line) in global.iter().chain(items.iter()) {
            job.set(key, value.as_deref(), &format!("{origin}:{at_line}"))?;
        }
        job.finish(&format!("{origin}:{line_no}: job [{name}]"))?;
        out.push(job);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let job = parse_options("cli", &["rw=randrw".into(), "bssplit=4k/50:64k/50".into(), "iodepth=32".into(), "runtime=3m".into(), "rwmixread=70".into()])
            .unwrap();
        assert_eq!(job.rw, RwKind::RandRw);
        assert_eq!(job.block_sizes, vec![(4096, 50), (65536, 50)]);
        assert_eq!(job.runtime_ns, Some(180 * NS_PER_S));
        assert_eq!(job.rwmixread, 70);
        let job = parse_options("cli", &["random_distribution=zipf:1.2".into(), "bssplit=4k:8k".into()]).unwrap();
        assert_eq!(job.distribution, Distribution::Zipf(1.2));
        assert_eq!(job.block_sizes, vec![(4096, 50), (8192, 50)]);
    }

    #[test]
    fn unknown_and_bad_options_are_named() {
        let err = parse_options("cli", &["rw=randwrite".into(), "iodeph=4".into()]).unwrap_err().to_string();
        assert!(err.contains("unknown fio option `iodeph`"), "{err}");
        let err = parse_options("cli", &["rw=sideways".into()]).unwrap_err().to_string();
        assert!(err.contains("sideways"), "{err}");
        let err = parse_options("cli", &["bs=1000".into()]).unwrap_err().to_string();
        assert!(err.contains("multiple of 512"), "{err}");
        let err = parse_options("cli", &["rwmixread=150".into()]).unwrap_err().to_string();
        assert!(err.contains("rwmixread"), "{err}");
    }

    #[test]
    fn job_files_apply_global_and_report_lines() {
        let text = "; comment\n[global]\nbs=4k\niodepth=3\n\n[rr]\nrw=randread\n[sw]\nrw=write\nbs=128k\n";
        let jobs = parse_job_text("t.fio", text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].iodepth, 3);
        assert_eq!(jobs[1].block_sizes, vec![(131072, 100)]);
        let err = parse_job_text("t.fio", "[a]\nrw=write\nbogus=1\n").unwrap_err().to_string();
        assert!(err.starts_with("t.fio:3:") && err.contains("bogus"), "{err}");
        let err = parse_job_text("t.fio", "rw=write\n").unwrap_err().to_string();
        assert!(err.starts_with("t.fio:1:"), "{err}");
        let err = parse_job_text("t.fio", "[a\nrw=write\n").unwrap_err().to_string();
        assert!(err.contains("malformed section"), "{err}");
        let err = parse_job_text("t.fio", "[global]\nbs=4k\n").unwrap_err().to_string();
        assert!(err.contains("no job section"), "{err}");
    }
}
