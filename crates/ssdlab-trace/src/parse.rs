//! Streaming trace parsers.

use crate::fields::{self, Fields, ALIBABA_COLUMNS, SYSTOR_COLUMNS, TENCENT_COLUMNS};
use crate::record::{TraceOp, TraceRecord, MAX_TRACE_BYTES, MAX_TRACE_NS};
use crate::volume::{VolumeChoice, Volumes};
use ssdlab_core::input::{read_line_bounded, MAX_LINE_BYTES};
use ssdlab_core::{bail, Error, Result};
use std::io::{BufRead, BufReader, Read};

/// A trace format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// SNIA / MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`
    /// (Windows FILETIME ticks of 100 ns, `Read`/`Write`, bytes, ticks).
    Msr,
    /// `blkparse` default text output; `Q` (queued) events are the requests, sectors of 512 B.
    Blkparse,
    /// fio iolog version 2: `filename action [offset length]`, no timestamps (`wait` actions,
    /// microseconds, delay the next request).
    FioV2,
    /// fio iolog version 3: `timestamp filename action [offset length]`, timestamps in
    /// microseconds since the job started (fio writes them with `utime_since_now` and replays
    /// the differences as microsecond delays).
    FioV3,
    /// UMass / SPC: `ASU,LBA,Size,Opcode,Timestamp` (512 B blocks, bytes, `r`/`w`, seconds).
    Spc,
    /// DiskSim ASCII: `time device block size flags` (milliseconds, 512 B blocks and sizes in
    /// blocks; flags bit 0 set for a read).
    DiskSim,
    /// Alibaba Cloud block traces (2020): `device_id,opcode,offset,length,timestamp` (`R`/`W`,
    /// bytes, microseconds since the Unix epoch); the device is the volume.
    Alibaba,
    /// Tencent CBS (2018): `Timestamp,Offset,Size,IOType,VolumeID` (seconds since the Unix
    /// epoch, 512-byte sectors, `0` read / `1` write); VolumeID is the volume.
    Tencent,
    /// SNIA SYSTOR '17 enterprise VDI traces: `Timestamp,Response,IOType,LUN,Offset,Size`
    /// (seconds since the Unix epoch with a fraction, response seconds, `R`/`W`/blank, bytes);
    /// the LUN is the volume.
    Systor,
    /// FIU (SRCMap, IODedup): `timestamp pid process lba size op major minor md5` (nanoseconds,
    /// 512-byte sectors, `R`/`W`, the MD5 of the block written); `major,minor` is the volume.
    Fiu,
}

impl TraceFormat {
    /// Names [`TraceFormat::parse`] takes, for messages.
    pub const NAMES: &'static str = "msr, snia, blkparse, fio2, fio3, spc, umass, disksim, alibaba, tencent, systor or fiu";

    /// Parse a format name (`msr`, `snia`, `blkparse`, `fio2`, `fio3`, `spc`, `umass`, `disksim`,
    /// `alibaba`, `tencent` (`cbs`), `systor` (`systor17`), `fiu`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "msr" | "snia" => Self::Msr,
            "blkparse" | "blktrace" => Self::Blkparse,
            "fio2" | "fio-v2" | "iolog2" => Self::FioV2,
            "fio3" | "fio-v3" | "iolog3" => Self::FioV3,
            "spc" | "umass" => Self::Spc,
            "disksim" => Self::DiskSim,
            "alibaba" => Self::Alibaba,
            "tencent" | "cbs" => Self::Tencent,
            "systor" | "systor17" => Self::Systor,
            "fiu" => Self::Fiu,
            _ => return None,
        })
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Msr => "msr",
            Self::Blkparse => "blkparse",
            Self::FioV2 => "fio2",
            Self::FioV3 => "fio3",
            Self::Spc => "spc",
            Self::DiskSim => "disksim",
            Self::Alibaba => "alibaba",
            Self::Tencent => "tencent",
            Self::Systor => "systor",
            Self::Fiu => "fiu",
        }
    }

    /// Whether the format names a volume (device, LUN, disk, file) for each request, so that
    /// `--volume` can pick one. SPC's ASUs and DiskSim's device numbers are read as one
    /// address space, as before volumes were chosen.
    pub fn has_volumes(self) -> bool {
        !matches!(self, Self::Spc | Self::DiskSim)
    }

    /// Whether the format records when each request was issued, so that how many overlapped
    /// (its queue depth) can be read from it. fio's iolog v2 does not: it lists requests in
    /// order, with at most `wait` actions (delays) between them, and fio replays it at the
    /// replaying job's `iodepth` (default 1), not all at once.
    pub fn records_timing(self) -> bool {
        self != Self::FioV2
    }

    /// Whether the format records a content hash of each write's data.
    pub fn has_content_hashes(self) -> bool {
        self == Self::Fiu
    }

    /// The format whose column names a CSV header line gives (`Timestamp,Hostname,DiskNumber,
    /// Type,Offset,Size,ResponseTime` for MSR/SNIA, `ASU,LBA,Size,Opcode,Timestamp` for SPC,
    /// `device_id,opcode,offset,length,timestamp` for Alibaba, `Timestamp,Offset,Size,IOType,
    /// VolumeID` for Tencent, `Timestamp,Response,IOType,LUN,Offset,Size` for SYSTOR '17), if
    /// the line is one: such a line names the columns and carries no request.
    pub fn detect_header(line: &str) -> Option<Self> {
        let names: Vec<String> = line.trim().split(',').map(|f| f.trim().trim_matches('"').to_ascii_lowercase()).collect();
        let named = |i: usize, name: &str| names.get(i).is_some_and(|f| f == name);
        if names.len() == 7 && names[0].contains("timestamp") && named(3, "type") && named(4, "offset") && named(5, "size") {
            return Some(Self::Msr);
        }
        if names.len() >= 5 && named(0, "asu") && named(1, "lba") && named(2, "size") && named(3, "opcode") {
            return Some(Self::Spc);
        }
        let is = |columns: &str| names.len() == columns.split(',').count() && columns.split(',').enumerate().all(|(i, c)| named(i, &c.to_ascii_lowercase()));
        if is(ALIBABA_COLUMNS) || is("device_id,opcode,offset,length,timestmap") {
            return Some(Self::Alibaba);
        }
        if is(TENCENT_COLUMNS) {
            return Some(Self::Tencent);
        }
        if is(SYSTOR_COLUMNS) {
            return Some(Self::Systor);
        }
        None
    }

    /// Guess the format from the first non-empty line.
    pub fn detect(line: &str) -> Option<Self> {
        let t = line.trim();
        if t.starts_with("fio version 2 iolog") {
            return Some(Self::FioV2);
        }
        if t.starts_with("fio version 3 iolog") {
            return Some(Self::FioV3);
        }
        let commas: Vec<&str> = t.split(',').map(str::trim).collect();
        if commas.len() == 7 && matches!(commas[3].to_ascii_lowercase().as_str(), "read" | "write") {
            return Some(Self::Msr);
        }
        // The SPC format allows optional fields after the timestamp.
        if commas.len() >= 5 && matches!(commas[3].to_ascii_lowercase().as_str(), "r" | "w") && commas[4].parse::<f64>().is_ok() {
            return Some(Self::Spc);
        }
        let whole = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.') && s.bytes().filter(|&b| b == b'.').count() <= 1;
        if commas.len() == 5 && whole(commas[0]) && matches!(commas[1], "R" | "W" | "r" | "w") && commas[2..].iter().all(|f| whole(f)) {
            return Some(Self::Alibaba);
        }
        if commas.len() == 5 && decimal(commas[0]) && whole(commas[1]) && whole(commas[2]) && matches!(commas[3], "0" | "1") && whole(commas[4]) {
            return Some(Self::Tencent);
        }
        if commas.len() == 6
            && decimal(commas[0])
            && decimal(commas[1])
            && matches!(commas[2], "R" | "W" | "r" | "w" | "")
            && commas[3..].iter().all(|f| whole(f))
        {
            return Some(Self::Systor);
        }
        // blkparse's own first lines (`blkparse -i sda > trace.txt`) name its input files.
        if is_blkparse_input_line(t) {
            return Some(Self::Blkparse);
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if words.len() >= 9 && whole(words[0]) && words[words.len() - 1].len() == 32 && words[words.len() - 1].bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some(Self::Fiu);
        }
        if words.len() >= 7 && words[0].contains(',') && words[3].contains('.') {
            return Some(Self::Blkparse);
        }
        if words.len() == 5 && words.iter().all(|w| w.parse::<f64>().is_ok()) {
            return Some(Self::DiskSim);
        }
        None
    }
}

/// A unit for a trace's timestamps, overriding its format's own (`--time-unit`): DiskSim
/// traces written by other simulators (MQSim) carry nanoseconds where DiskSim has milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds.
    Nanoseconds,
    /// Microseconds.
    Microseconds,
    /// Milliseconds.
    Milliseconds,
    /// Seconds.
    Seconds,
}

impl TimeUnit {
    /// Parse `ns`, `us`, `ms` or `s`.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "ns" => Self::Nanoseconds,
            "us" => Self::Microseconds,
            "ms" => Self::Milliseconds,
            "s" => Self::Seconds,
            _ => return None,
        })
    }

    /// Nanoseconds in one unit.
    pub fn nanoseconds(self) -> u64 {
        match self {
            Self::Nanoseconds => 1,
            Self::Microseconds => 1_000,
            Self::Milliseconds => 1_000_000,
            Self::Seconds => 1_000_000_000,
        }
    }

    /// Seconds in one unit.
    pub fn seconds(self) -> f64 {
        match self {
            Self::Nanoseconds => 1e-9,
            Self::Microseconds => 1e-6,
            Self::Milliseconds => 1e-3,
            Self::Seconds => 1.0,
        }
    }
}

impl TraceFormat {
    /// The unit of the format's own timestamps.
    pub fn time_unit(self) -> TimeUnit {
        match self {
            // MSR ticks are 100 ns; a --time-unit override counts them in the unit given.
            Self::Msr => TimeUnit::Nanoseconds,
            Self::Blkparse | Self::Spc => TimeUnit::Seconds,
            Self::FioV2 => TimeUnit::Microseconds,
            Self::FioV3 => TimeUnit::Microseconds,
            Self::DiskSim => TimeUnit::Milliseconds,
            Self::Alibaba => TimeUnit::Microseconds,
            Self::Tencent | Self::Systor => TimeUnit::Seconds,
            Self::Fiu => TimeUnit::Nanoseconds,
        }
    }
}

/// How to read a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The format (`None`: detect it from the first line).
    pub format: Option<TraceFormat>,
    /// Count and skip malformed lines instead of stopping at the first.
    pub skip_bad: bool,
    /// The unit of the timestamps (`None`: the format's own).
    pub time_unit: Option<TimeUnit>,
    /// Which volume to read, in a trace of several (`--volume`).
    pub volume: VolumeChoice,
}

/// A streaming reader of one trace file.
pub struct TraceReader {
    format: TraceFormat,
    origin: String,
    lines: Box<dyn BufRead + Send>,
    buffer: Vec<u8>,
    line_no: u64,
    skip_bad: bool,
    /// Seconds per timestamp unit of the file's float timestamps.
    unit_seconds: f64,
    /// Nanoseconds per MSR tick.
    tick_ns: f64,
    skipped: u64,
    first_line: Option<String>,
    base_time: Option<f64>,
    base_ticks: Option<u64>,
    first_record_ns: Option<u64>,
    last_time_ns: u64,
    fio_clock_ns: u64,
    ended: bool,
    /// The volumes met (MSR host and disk, blkparse's and FIU's major,minor, fio's file name,
    /// Alibaba's device, Tencent's volume, SYSTOR's LUN) and the one read: a trace of several
    /// volumes is replayed one volume at a time.
    volumes: Volumes,
    /// Nanoseconds per timestamp unit of the formats read as exact decimals.
    unit_ns: u64,
    /// The first request's time as the file gives it, in those formats.
    base_abs_ns: Option<u64>,
    /// Requests of other volumes than the one named, passed over.
    other_volume: u64,
    /// Requests whose direction the trace does not know (SYSTOR's blank IOType), passed over.
    no_direction: u64,
}

fn bad(origin: &str, line: u64, message: impl std::fmt::Display) -> Error {
    Error::Workload(format!("{origin}:{line}: {message}"))
}

impl TraceReader {
    /// Open `path` (plain or gzip, detected by content), in `format` or the detected one.
    pub fn open(path: &str, format: Option<TraceFormat>, skip_bad: bool) -> Result<Self> {
        Self::open_with(path, ReadOptions { format, skip_bad, ..ReadOptions::default() })
    }

    /// Open `path` with explicit options.
    pub fn open_with(path: &str, options: ReadOptions) -> Result<Self> {
        // A regular file only: a FIFO or /dev/zero would be read forever (or read twice here).
        let mut file = ssdlab_core::input::open_regular(path, "trace")?;
        let mut magic = [0u8; 2];
        let n = file.read(&mut magic).map_err(|e| Error::Io(format!("{path}: cannot read trace: {e}")))?;
        let file = ssdlab_core::input::open_regular(path, "trace")?;
        let reader: Box<dyn BufRead + Send> = if n == 2 && magic == [0x1f, 0x8b] {
            Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(file)))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, file))
        };
        Self::from_reader_with(path, reader, options)
    }

    /// Read a trace from any buffered reader; `origin` names it in messages.
    pub fn from_reader(origin: &str, lines: Box<dyn BufRead + Send>, format: Option<TraceFormat>, skip_bad: bool) -> Result<Self> {
        Self::from_reader_with(origin, lines, ReadOptions { format, skip_bad, ..ReadOptions::default() })
    }

    /// Read a trace from any buffered reader with explicit options.
    pub fn from_reader_with(origin: &str, mut lines: Box<dyn BufRead + Send>, options: ReadOptions) -> Result<Self> {
        // A tar archive (Tencent CBS ships each hour as a .tgz): its first line would be a
        // header block, refused below with a vaguer message.
        let start = lines.fill_buf().map_err(|e| Error::Io(format!("{origin}: cannot read trace: {e}")))?;
        if start.len() >= 262 && &start[257..262] == b"ustar" {
            bail!(
                Workload,
                "{origin}: a tar archive, not a trace (Tencent CBS ships its traces as .tgz archives): extract it first (tar -xzf) and give the file inside"
            );
        }
        // Find the first non-empty line to detect the format (and keep it for parsing).
        let mut raw = Vec::new();
        let mut line_no = 0;
        let first = loop {
            let n = read_line_bounded(&mut *lines, &mut raw, MAX_LINE_BYTES, origin, line_no + 1)?;
            if n == 0 {
                bail!(Workload, "{origin}: the trace is empty");
            }
            line_no += 1;
            let text = String::from_utf8(raw.clone()).map_err(|_| bad(origin, line_no, "the line is not UTF-8 text (is this a binary file?)"))?;
            // A UTF-8 byte-order mark (Windows editors write one) is not part of the first line.
            let text = match text.strip_prefix('\u{feff}') {
                Some(rest) if line_no == 1 => rest.to_string(),
                _ => text,
            };
            // Blank lines and `#` comments before the first request are skipped, as after it.
            if !text.trim().is_empty() && !text.trim_start().starts_with('#') {
                break text;
            }
        };
        let format = options.format;
        let skip_bad = options.skip_bad;
        let column_names = TraceFormat::detect_header(&first);
        let format = match format.or(column_names) {
            Some(f) => f,
            None => TraceFormat::detect(&first).ok_or_else(|| {
                bad(
                    origin,
                    line_no,
                    "cannot tell the trace format (expected MSR/SNIA CSV, blkparse, fio iolog v2/v3, SPC, DiskSim, Alibaba, Tencent CBS, SYSTOR '17 or FIU); name it with --format",
                )
            })?,
        };
        if options.volume != VolumeChoice::First && !format.has_volumes() {
            bail!(
                Workload,
                "{origin}: --volume: {} traces name no volume ssdlab reads (SPC's ASUs and DiskSim's devices are one address space)",
                format.name()
            );
        }
        let header = first.trim().starts_with("fio version") || column_names.is_some();
        let unit = options.time_unit.unwrap_or(format.time_unit());
        Ok(Self {
            format,
            origin: origin.to_string(),
            lines,
            buffer: Vec::new(),
            line_no: if header { line_no } else { line_no - 1 },
            skip_bad,
            unit_seconds: unit.seconds(),
            tick_ns: if options.time_unit.is_some() { unit.seconds() * 1e9 } else { 100.0 },
            skipped: 0,
            first_line: if header { None } else { Some(first) },
            base_time: None,
            base_ticks: None,
            first_record_ns: None,
            last_time_ns: 0,
            fio_clock_ns: 0,
            ended: false,
            volumes: Volumes::new(options.volume),
            unit_ns: unit.nanoseconds(),
            base_abs_ns: None,
            other_volume: 0,
            no_direction: 0,
        })
    }

    /// The format being read.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// Bad lines skipped so far (with `skip_bad`).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Requests of volumes other than the one named with `--volume`, passed over so far.
    pub fn other_volume_requests(&self) -> u64 {
        self.other_volume
    }

    /// Requests passed over because the trace does not say whether they read or write
    /// (SYSTOR '17's blank IOType: no response was captured).
    pub fn requests_without_direction(&self) -> u64 {
        self.no_direction
    }

    /// Requests by volume, by identifier (at most [`crate::MAX_TALLIED_VOLUMES`] volumes), and
    /// the requests of volumes past that limit.
    pub fn volumes(&self) -> (Vec<(String, u64)>, u64) {
        self.volumes.tally()
    }

    fn next_line(&mut self) -> Result<Option<String>> {
        if let Some(first) = self.first_line.take() {
            self.line_no += 1;
            return Ok(Some(first));
        }
        let n = read_line_bounded(&mut *self.lines, &mut self.buffer, MAX_LINE_BYTES, &self.origin, self.line_no + 1)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        match std::str::from_utf8(&self.buffer) {
            Ok(text) => Ok(Some(text.to_string())),
            // Not UTF-8: an empty marker the parser reports (or skips) with the line's number.
            Err(_) => Ok(Some(NOT_UTF8.to_string())),
        }
    }

    /// A timestamp in the file's unit (absolute, as in the file) to nanoseconds since the first
    /// request.
    fn relative_ns(&mut self, value: f64) -> std::result::Result<u64, String> {
        if !value.is_finite() || value < 0.0 {
            return Err(format!("bad timestamp {value}"));
        }
        let base = *self.base_time.get_or_insert(value);
        if value < base {
            return Err("timestamps go backwards (earlier than the first line's)".to_string());
        }
        let ns = ((value - base) * self.unit_seconds * 1e9).round();
        if ns > MAX_TRACE_NS as f64 {
            return Err(format!("timestamp {value} is more than {} s after the first request", MAX_TRACE_NS / 1_000_000_000));
        }
        Ok(ns as u64)
    }

    /// Whether a request of volume `id` is read: another volume than the one named is passed
    /// over (`false`, counted); without a volume named, a second volume is refused (with
    /// --skip-bad, its requests are skipped as bad lines).
    fn same_device(&mut self, id: &str) -> std::result::Result<bool, String> {
        let keep = self.volumes.admit(id)?;
        if !keep {
            self.other_volume += 1;
        }
        Ok(keep)
    }

    /// A request of the exact-decimal formats: its volume picked, its time made relative to the
    /// first request read.
    fn record_of(&mut self, f: Fields<'_>) -> std::result::Result<Option<TraceRecord>, String> {
        if !self.same_device(&f.volume)? {
            return Ok(None);
        }
        let Some(op) = f.op else {
            self.no_direction += 1;
            return Ok(None);
        };
        let base = *self.base_abs_ns.get_or_insert(f.time_ns);
        let Some(since) = f.time_ns.checked_sub(base) else {
            return Err("timestamps go backwards (earlier than the first request's)".to_string());
        };
        if since > MAX_TRACE_NS {
            return Err(format!("the timestamp is more than {} s after the first request", MAX_TRACE_NS / 1_000_000_000));
        }
        let latency_ns = match f.latency_ns {
            Some(ns) if ns > MAX_TRACE_NS => return Err(format!("the response time is more than {} s", MAX_TRACE_NS / 1_000_000_000)),
            other => other,
        };
        Ok(Some(TraceRecord { time_ns: since, op, offset_bytes: f.offset_bytes, len_bytes: f.len_bytes, latency_ns, line: 0, content_hash: f.content_hash }))
    }

    /// Parse one line: `Ok(None)` for lines that carry no request (headers, other events).
    fn parse_line(&mut self, line: &str) -> std::result::Result<Option<TraceRecord>, String> {
        if line == NOT_UTF8 {
            return Err("the line is not UTF-8 text".to_string());
        }
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            return Ok(None);
        }
        let num = |s: &str, what: &str| fields::whole_number(s, what);
        let float = |s: &str, what: &str| s.trim().parse::<f64>().map_err(|_| format!("{what}: `{}` is not a number", s.trim()));
        match self.format {
            TraceFormat::Alibaba => self.record_of(fields::alibaba(t, self.unit_ns)?),
            TraceFormat::Tencent => self.record_of(fields::tencent(t, self.unit_ns)?),
            TraceFormat::Systor => self.record_of(fields::systor(t, self.unit_ns)?),
            TraceFormat::Fiu => self.record_of(fields::fiu(t, self.unit_ns)?),
            TraceFormat::Msr => {
                let f: Vec<&str> = t.split(',').collect();
                if f.len() != 7 {
                    return Err(format!("expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}", f.len()));
                }
                let op = match f[3].trim().to_ascii_lowercase().as_str() {
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    _ => return Err(format!("Type: `{}` is neither Read nor Write", f[3].trim())),
                };
                // Hostname,DiskNumber: the text between the first and the third comma.
                if !self.same_device(&t[f[0].len() + 1..f[0].len() + 1 + f[1].len() + 1 + f[2].len()])? {
                    return Ok(None);
                }
                let ticks = num(f[0], "Timestamp")?;
                let base = *self.base_ticks.get_or_insert(ticks);
                if ticks < base {
                    return Err("timestamps go backwards (earlier than the first line's)".to_string());
                }
                let time_ns = ticks_ns(ticks - base, self.tick_ns, "Timestamp")?;
                let latency_ns = ticks_ns(num(f[6], "ResponseTime")?, self.tick_ns, "ResponseTime")?;
                let (offset_bytes, len_bytes) = extent(num(f[4], "Offset")?, 1, num(f[5], "Size")?, 1)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes, len_bytes, latency_ns: Some(latency_ns), line: 0, content_hash: None }))
            }
            TraceFormat::Spc => {
                let f: Vec<&str> = t.split(',').collect();
                if f.len() < 5 {
                    return Err(format!("expected 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found {}", f.len()));
                }
                let op = match f[3].trim() {
                    "r" | "R" => TraceOp::Read,
                    "w" | "W" => TraceOp::Write,
                    other => return Err(format!("Opcode: `{other}` is neither r nor w")),
                };
                let time_ns = self.relative_ns(float(f[4], "Timestamp")?)?;
                let (offset_bytes, len_bytes) = extent(num(f[1], "LBA")?, 512, num(f[2], "Size")?, 1)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes, len_bytes, latency_ns: None, line: 0, content_hash: None }))
            }
            TraceFormat::DiskSim => {
                let f: Vec<&str> = t.split_whitespace().collect();
                if f.len() != 5 {
                    return Err(format!("expected 5 fields (time device block size flags), found {}", f.len()));
                }
                let flags = num(f[4], "flags")?;
                let op = if flags & 1 == 1 { TraceOp::Read } else { TraceOp::Write };
                let time_ns = self.relative_ns(float(f[0], "time")?)?;
                let (offset_bytes, len_bytes) = extent(num(f[2], "block")?, 512, num(f[3], "size")?, 512)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes, len_bytes, latency_ns: None, line: 0, content_hash: None }))
            }
            TraceFormat::Blkparse => {
                if t.starts_with("CPU") && t.contains('(') {
                    // The summary that ends blkparse's output.
                    self.ended = true;
                    return Ok(None);
                }
                if is_blkparse_input_line(t) {
                    return Ok(None);
                }
                let f: Vec<&str> = t.split_whitespace().collect();
                if f.len() < 6 || !f[0].contains(',') {
                    return Err("expected `major,minor cpu sequence time pid action rwbs sector + count`".to_string());
                }
                if f[5] != "Q" {
                    return Ok(None);
                }
                let rwbs = f.get(6).copied().unwrap_or("");
                let op = if rwbs.contains('D') {
                    TraceOp::Trim
                } else if rwbs.contains('W') {
                    TraceOp::Write
                } else if rwbs.contains('R') {
                    TraceOp::Read
                } else {
                    return Ok(None); // flush or barrier without data
                };
                let no_data = f.len() < 10 || f[8] != "+" || f[9] == "0";
                if no_data && rwbs.contains('F') {
                    // A flush (`Q FWS [jbd2]`, or `Q FWS 0 + 0`): no data to move.
                    return Ok(None);
                }
                if f.len() < 10 || f[8] != "+" {
                    return Err("a Q event needs `rwbs sector + count`".to_string());
                }
                if !self.same_device(f[0])? {
                    return Ok(None);
                }
                let time_ns = self.relative_ns(float(f[3], "time")?)?;
                let (offset_bytes, len_bytes) = extent(num(f[7], "sector")?, 512, num(f[9], "count")?, 512)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes, len_bytes, latency_ns: None, line: 0, content_hash: None }))
            }
            TraceFormat::FioV2 | TraceFormat::FioV3 => {
                let mut f: Vec<&str> = t.split_whitespace().collect();
                let mut time_ns = None;
                if self.format == TraceFormat::FioV3 {
                    if f.len() < 3 {
                        return Err("expected `timestamp filename action [offset length]`".to_string());
                    }
                    let stamp = float(f[0], "timestamp")?;
                    time_ns = Some(self.relative_ns(stamp)?);
                    f.remove(0);
                }
                if f.len() < 2 {
                    return Err("expected `filename action [offset length]`".to_string());
                }
                let op = match f[1] {
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    "trim" => TraceOp::Trim,
                    "wait" if self.format == TraceFormat::FioV2 => {
                        let wait = num(f.get(2).copied().unwrap_or(""), "wait")?;
                        let wait_ns = scaled(wait as f64 * self.unit_seconds * 1e9, MAX_TRACE_NS, "wait")?;
                        self.fio_clock_ns = self
                            .fio_clock_ns
                            .checked_add(wait_ns)
                            .filter(|&t| t <= MAX_TRACE_NS)
                            .ok_or_else(|| format!("wait: the trace's clock would pass {} s", MAX_TRACE_NS / 1_000_000_000))?;
                        return Ok(None);
                    }
                    "add" | "open" | "close" | "sync" | "datasync" | "wait" => return Ok(None),
                    other => return Err(format!("unknown action `{other}`")),
                };
                if f.len() < 4 {
                    return Err(format!("action `{}` needs an offset and a length", f[1]));
                }
                if !self.same_device(f[0])? {
                    return Ok(None);
                }
                let time_ns = time_ns.unwrap_or(self.fio_clock_ns);
                let (offset_bytes, len_bytes) = extent(num(f[2], "offset")?, 1, num(f[3], "length")?, 1)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes, len_bytes, latency_ns: None, line: 0, content_hash: None }))
            }
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.ended {
                return None;
            }
            let line = match self.next_line() {
                Ok(Some(line)) => line,
                Ok(None) if self.skipped > 0 && self.first_record_ns.is_none() => {
                    // --skip-bad over a file where every line was bad: nothing was read, say so.
                    self.ended = true;
                    let message = format!("{}: every line was malformed ({} skipped); no request to read", self.origin, self.skipped);
                    return Some(Err(Error::Workload(message)));
                }
                Ok(None) => {
                    self.ended = true;
                    return match self.volumes.check_named_was_seen() {
                        Ok(()) => None,
                        Err(message) => Some(Err(Error::Workload(format!("{}: {message}", self.origin)))),
                    };
                }
                Err(e) => return Some(Err(e)),
            };
            self.volumes.line_start();
            let parsed = self.parse_line(&line).and_then(|r| match r {
                Some(rec) if rec.len_bytes == 0 && rec.op != TraceOp::Trim => Err("zero-length request".to_string()),
                Some(rec) if rec.time_ns < self.last_time_ns => Err(format!("timestamps go backwards ({} ns after {} ns)", rec.time_ns, self.last_time_ns)),
                other => Ok(other),
            });
            match parsed {
                Ok(Some(mut record)) => {
                    self.last_time_ns = record.time_ns;
                    let first = *self.first_record_ns.get_or_insert(record.time_ns);
                    record.time_ns -= first;
                    record.line = self.line_no;
                    return Some(Ok(record));
                }
                Ok(None) => continue,
                Err(_) if self.skip_bad => {
                    self.skipped += 1;
                    // A bad line is no request of the volume it names.
                    if self.volumes.retract() == Some(false) {
                        self.other_volume -= 1;
                    }
                    continue;
                }
                Err(message) => return Some(Err(bad(&self.origin, self.line_no, message))),
            }
        }
    }
}

/// What `next_line` hands the parser for a line that is not UTF-8 (a NUL never occurs in text).
const NOT_UTF8: &str = "\0not utf-8\0";

/// A time in nanoseconds computed in floating point, refused above `max`.
fn scaled(ns: f64, max: u64, what: &str) -> std::result::Result<u64, String> {
    if !(ns >= 0.0 && ns <= max as f64) {
        return Err(format!("{what}: {} s is out of range (at most {} s)", ns / 1e9, max / 1_000_000_000));
    }
    Ok(ns.round() as u64)
}

/// Byte offset and length from a start and a count in units of `start_unit` and `count_unit`
/// bytes, refused when they overflow or reach beyond [`MAX_TRACE_BYTES`].
pub(crate) fn extent(start: u64, start_unit: u64, count: u64, count_unit: u64) -> std::result::Result<(u64, u64), String> {
    let offset = start.checked_mul(start_unit);
    let len = count.checked_mul(count_unit);
    match (offset, len) {
        (Some(offset), Some(len)) if offset.checked_add(len).is_some_and(|end| end <= MAX_TRACE_BYTES) => Ok((offset, len)),
        _ => Err(format!(
            "the request ({start} x {start_unit} bytes + {count} x {count_unit} bytes) reaches beyond {MAX_TRACE_BYTES} bytes: the address or size is corrupt"
        )),
    }
}

/// MSR ticks (100 ns, exactly, unless a time unit overrides them) to nanoseconds.
fn ticks_ns(ticks: u64, tick_ns: f64, what: &str) -> std::result::Result<u64, String> {
    if tick_ns == 100.0 {
        return ticks
            .checked_mul(100)
            .filter(|&ns| ns <= MAX_TRACE_NS)
            .ok_or_else(|| format!("{what}: {ticks} ticks of 100 ns are out of range (at most {} s)", MAX_TRACE_NS / 1_000_000_000));
    }
    scaled(ticks as f64 * tick_ns, MAX_TRACE_NS, what)
}

/// One of the lines blkparse prints before the events, one per input file
/// (`Input file sda.blktrace.0 added`).
fn is_blkparse_input_line(line: &str) -> bool {
    line.starts_with("Input file ") && line.ends_with(" added")
}
