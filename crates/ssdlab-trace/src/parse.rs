//! Streaming trace parsers.

use crate::record::{TraceOp, TraceRecord};
use ssdlab_core::{bail, Error, Result};
use std::fs::File;
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
    /// milliseconds since the job started.
    FioV3,
    /// UMass / SPC: `ASU,LBA,Size,Opcode,Timestamp` (512 B blocks, bytes, `r`/`w`, seconds).
    Spc,
    /// DiskSim ASCII: `time device block size flags` (milliseconds, 512 B blocks and sizes in
    /// blocks; flags bit 0 set for a read).
    DiskSim,
}

impl TraceFormat {
    /// Parse a format name (`msr`, `snia`, `blkparse`, `fio2`, `fio3`, `spc`, `umass`, `disksim`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "msr" | "snia" => Self::Msr,
            "blkparse" | "blktrace" => Self::Blkparse,
            "fio2" | "fio-v2" | "iolog2" => Self::FioV2,
            "fio3" | "fio-v3" | "iolog3" => Self::FioV3,
            "spc" | "umass" => Self::Spc,
            "disksim" => Self::DiskSim,
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
        }
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
        if commas.len() == 5 && matches!(commas[3].to_ascii_lowercase().as_str(), "r" | "w") {
            return Some(Self::Spc);
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if words.len() >= 7 && words[0].contains(',') && words[3].contains('.') {
            return Some(Self::Blkparse);
        }
        if words.len() == 5 && words.iter().all(|w| w.parse::<f64>().is_ok()) {
            return Some(Self::DiskSim);
        }
        None
    }
}

/// A streaming reader of one trace file.
pub struct TraceReader {
    format: TraceFormat,
    origin: String,
    lines: Box<dyn BufRead + Send>,
    buffer: String,
    line_no: u64,
    skip_bad: bool,
    skipped: u64,
    first_line: Option<String>,
    base_time: Option<f64>,
    base_ticks: Option<u64>,
    first_record_ns: Option<u64>,
    last_time_ns: u64,
    fio_clock_ns: u64,
    ended: bool,
}

fn bad(origin: &str, line: u64, message: impl std::fmt::Display) -> Error {
    Error::Workload(format!("{origin}:{line}: {message}"))
}

impl TraceReader {
    /// Open `path` (plain or gzip, detected by content), in `format` or the detected one.
    pub fn open(path: &str, format: Option<TraceFormat>, skip_bad: bool) -> Result<Self> {
        let mut file = File::open(path).map_err(|e| Error::Io(format!("{path}: cannot open trace: {e}")))?;
        let mut magic = [0u8; 2];
        let n = file.read(&mut magic).map_err(|e| Error::Io(format!("{path}: cannot read trace: {e}")))?;
        let file = File::open(path).map_err(|e| Error::Io(format!("{path}: cannot open trace: {e}")))?;
        let reader: Box<dyn BufRead + Send> = if n == 2 && magic == [0x1f, 0x8b] {
            Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(file)))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, file))
        };
        Self::from_reader(path, reader, format, skip_bad)
    }

    /// Read a trace from any buffered reader; `origin` names it in messages.
    pub fn from_reader(origin: &str, mut lines: Box<dyn BufRead + Send>, format: Option<TraceFormat>, skip_bad: bool) -> Result<Self> {
        // Find the first non-empty line to detect the format (and keep it for parsing).
        let mut first = String::new();
        let mut line_no = 0;
        loop {
            first.clear();
            let n = lines.read_line(&mut first).map_err(|e| Error::Io(format!("{origin}: cannot read trace: {e}")))?;
            if n == 0 {
                bail!(Workload, "{origin}: the trace is empty");
            }
            line_no += 1;
            if !first.trim().is_empty() {
                break;
            }
        }
        let format = match format {
            Some(f) => f,
            None => TraceFormat::detect(&first).ok_or_else(|| {
                bad(origin, line_no, "cannot tell the trace format (expected MSR/SNIA CSV, blkparse, fio iolog v2/v3, SPC or DiskSim); name it with --format")
            })?,
        };
        let header = first.trim().starts_with("fio version");
        Ok(Self {
            format,
            origin: origin.to_string(),
            lines,
            buffer: String::new(),
            line_no: if header { line_no } else { line_no - 1 },
            skip_bad,
            skipped: 0,
            first_line: if header { None } else { Some(first) },
            base_time: None,
            base_ticks: None,
            first_record_ns: None,
            last_time_ns: 0,
            fio_clock_ns: 0,
            ended: false,
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

    fn next_line(&mut self) -> Result<Option<String>> {
        if let Some(first) = self.first_line.take() {
            self.line_no += 1;
            return Ok(Some(first));
        }
        self.buffer.clear();
        let n = self.lines.read_line(&mut self.buffer).map_err(|e| Error::Io(format!("{}: cannot read trace: {e}", self.origin)))?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        Ok(Some(std::mem::take(&mut self.buffer)))
    }

    /// Time in seconds (absolute, as in the file) to nanoseconds since the first request.
    fn relative_ns(&mut self, seconds: f64) -> std::result::Result<u64, String> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(format!("bad timestamp {seconds}"));
        }
        let base = *self.base_time.get_or_insert(seconds);
        if seconds < base {
            return Err("timestamps go backwards (earlier than the first line's)".to_string());
        }
        Ok(((seconds - base) * 1e9).round() as u64)
    }

    /// Parse one line: `Ok(None)` for lines that carry no request (headers, other events).
    fn parse_line(&mut self, line: &str) -> std::result::Result<Option<TraceRecord>, String> {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            return Ok(None);
        }
        let num = |s: &str, what: &str| s.trim().parse::<u64>().map_err(|_| format!("{what}: `{}` is not a whole number", s.trim()));
        let float = |s: &str, what: &str| s.trim().parse::<f64>().map_err(|_| format!("{what}: `{}` is not a number", s.trim()));
        match self.format {
            TraceFormat::Msr => {
                let f: Vec<&str> = t.split(',').collect();
                if f.len() != 7 {
                    return Err(format!("expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}", f.len()));
                }
                let op = match f[3].trim().to_ascii_lowercase().as_str() {
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    other => return Err(format!("Type: `{other}` is neither Read nor Write")),
                };
                let ticks = num(f[0], "Timestamp")?;
                let base = *self.base_ticks.get_or_insert(ticks);
                if ticks < base {
                    return Err("timestamps go backwards (earlier than the first line's)".to_string());
                }
                let time_ns = (ticks - base) * 100;
                Ok(Some(TraceRecord {
                    time_ns,
                    op,
                    offset_bytes: num(f[4], "Offset")?,
                    len_bytes: num(f[5], "Size")?,
                    latency_ns: Some(num(f[6], "ResponseTime")? * 100),
                }))
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
                Ok(Some(TraceRecord { time_ns, op, offset_bytes: num(f[1], "LBA")? * 512, len_bytes: num(f[2], "Size")?, latency_ns: None }))
            }
            TraceFormat::DiskSim => {
                let f: Vec<&str> = t.split_whitespace().collect();
                if f.len() != 5 {
                    return Err(format!("expected 5 fields (time device block size flags), found {}", f.len()));
                }
                let flags = num(f[4], "flags")?;
                let op = if flags & 1 == 1 { TraceOp::Read } else { TraceOp::Write };
                let time_ns = self.relative_ns(float(f[0], "time")? / 1e3)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes: num(f[2], "block")? * 512, len_bytes: num(f[3], "size")? * 512, latency_ns: None }))
            }
            TraceFormat::Blkparse => {
                if t.starts_with("CPU") && t.contains('(') {
                    // The summary that ends blkparse's output.
                    self.ended = true;
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
                if f.len() < 10 || f[8] != "+" {
                    return Err("a Q event needs `rwbs sector + count`".to_string());
                }
                let time_ns = self.relative_ns(float(f[3], "time")?)?;
                Ok(Some(TraceRecord { time_ns, op, offset_bytes: num(f[7], "sector")? * 512, len_bytes: num(f[9], "count")? * 512, latency_ns: None }))
            }
            TraceFormat::FioV2 | TraceFormat::FioV3 => {
                let mut f: Vec<&str> = t.split_whitespace().collect();
                let mut time_ns = None;
                if self.format == TraceFormat::FioV3 {
                    if f.len() < 3 {
                        return Err("expected `timestamp filename action [offset length]`".to_string());
                    }
                    let ms = float(f[0], "timestamp")?;
                    time_ns = Some(self.relative_ns(ms / 1e3)?);
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
                        let us = num(f.get(2).copied().unwrap_or(""), "wait")?;
                        self.fio_clock_ns += us * 1000;
                        return Ok(None);
                    }
                    "add" | "open" | "close" | "sync" | "datasync" | "wait" => return Ok(None),
                    other => return Err(format!("unknown action `{other}`")),
                };
                if f.len() < 4 {
                    return Err(format!("action `{}` needs an offset and a length", f[1]));
                }
                let time_ns = time_ns.unwrap_or(self.fio_clock_ns);
                Ok(Some(TraceRecord { time_ns, op, offset_bytes: num(f[2], "offset")?, len_bytes: num(f[3], "length")?, latency_ns: None }))
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
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            };
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
                    return Some(Ok(record));
                }
                Ok(None) => continue,
                Err(message) if self.skip_bad => {
                    let _ = message;
                    self.skipped += 1;
                    continue;
                }
                Err(message) => return Some(Err(bad(&self.origin, self.line_no, message))),
            }
        }
    }
}
