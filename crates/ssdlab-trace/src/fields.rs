//! Line parsers of the block traces of cloud and enterprise storage (Alibaba Cloud, Tencent
//! CBS, SNIA SYSTOR '17) and of FIU's traces with content hashes. Each turns one line into
//! [`Fields`]; the reader then picks the volume and makes times relative to the first request.

use crate::content::parse_md5;
use crate::decimal::decimal_ns;
use crate::record::TraceOp;
use std::borrow::Cow;

/// One request as a line gives it, before the reader picks its volume and time origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fields<'a> {
    /// The volume (device, LUN, disk) addressed, as the trace writes it.
    pub volume: Cow<'a, str>,
    /// Arrival time as the file gives it (often since the Unix epoch), nanoseconds.
    pub time_ns: u64,
    /// What it does; `None` when the trace does not know (SYSTOR's blank IOType).
    pub op: Option<TraceOp>,
    /// First byte addressed.
    pub offset_bytes: u64,
    /// Bytes addressed.
    pub len_bytes: u64,
    /// Recorded service time, nanoseconds.
    pub latency_ns: Option<u64>,
    /// Content hash of the data written (FIU's MD5).
    pub content_hash: Option<u128>,
}

fn whole(text: &str, what: &str) -> Result<u64, String> {
    whole_number(text, what)
}

/// `text` as a whole number, or what is wrong with it (not a whole number, or too large).
pub(crate) fn whole_number(text: &str, what: &str) -> Result<u64, String> {
    let t = text.trim();
    t.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("{what}: `{t}` is too large (at most {})", u64::MAX),
        _ => format!("{what}: `{t}` is not a whole number"),
    })
}

fn comma_fields<'a>(line: &'a str, names: &str) -> Result<Vec<&'a str>, String> {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    let expected = names.split(',').count();
    if f.len() != expected {
        return Err(format!("expected {expected} comma-separated fields ({names}), found {}", f.len()));
    }
    Ok(f)
}

/// The column names of Alibaba Cloud's `io_traces.csv` (its README spells the last
/// `timestmap`).
pub(crate) const ALIBABA_COLUMNS: &str = "device_id,opcode,offset,length,timestamp";
/// The column names of Tencent CBS's traces.
pub(crate) const TENCENT_COLUMNS: &str = "Timestamp,Offset,Size,IOType,VolumeID";
/// The column names of SNIA's SYSTOR '17 traces.
pub(crate) const SYSTOR_COLUMNS: &str = "Timestamp,Response,IOType,LUN,Offset,Size";

/// Alibaba Cloud block traces (2020): `device_id,opcode,offset,length,timestamp`; `R`/`W`,
/// bytes, microseconds since the Unix epoch (`unit_ns` per timestamp unit).
pub(crate) fn alibaba(line: &str, unit_ns: u64) -> Result<Fields<'_>, String> {
    let f = comma_fields(line, ALIBABA_COLUMNS)?;
    whole(f[0], "device_id")?;
    let op = match f[1] {
        "R" | "r" => TraceOp::Read,
        "W" | "w" => TraceOp::Write,
        other => return Err(format!("opcode: `{other}` is neither R nor W")),
    };
    let (offset_bytes, len_bytes) = crate::parse::extent(whole(f[2], "offset")?, 1, whole(f[3], "length")?, 1)?;
    let time_ns = decimal_ns(f[4], unit_ns, "timestamp")?;
    Ok(Fields { volume: Cow::Borrowed(f[0]), time_ns, op: Some(op), offset_bytes, len_bytes, latency_ns: None, content_hash: None })
}

/// Tencent CBS (2018, SNIA IOTTA): `Timestamp,Offset,Size,IOType,VolumeID`; seconds since the
/// Unix epoch, 512-byte sectors, `0` read and `1` write.
pub(crate) fn tencent(line: &str, unit_ns: u64) -> Result<Fields<'_>, String> {
    let f = comma_fields(line, TENCENT_COLUMNS)?;
    let time_ns = decimal_ns(f[0], unit_ns, "Timestamp")?;
    let (offset_bytes, len_bytes) = crate::parse::extent(whole(f[1], "Offset")?, 512, whole(f[2], "Size")?, 512)?;
    let op = match f[3] {
        "0" => TraceOp::Read,
        "1" => TraceOp::Write,
        other => return Err(format!("IOType: `{other}` is neither 0 (read) nor 1 (write)")),
    };
    whole(f[4], "VolumeID")?;
    Ok(Fields { volume: Cow::Borrowed(f[4]), time_ns, op: Some(op), offset_bytes, len_bytes, latency_ns: None, content_hash: None })
}

/// SNIA SYSTOR '17 (Fujitsu Laboratories' enterprise VDI traces):
/// `Timestamp,Response,IOType,LUN,Offset,Size`; seconds since the Unix epoch with a fraction,
/// the response time in seconds, `R`/`W` or blank (no response was seen: direction unknown),
/// bytes.
pub(crate) fn systor(line: &str, unit_ns: u64) -> Result<Fields<'_>, String> {
    let f = comma_fields(line, SYSTOR_COLUMNS)?;
    let time_ns = decimal_ns(f[0], unit_ns, "Timestamp")?;
    let latency_ns = decimal_ns(f[1], unit_ns, "Response")?;
    let op = match f[2] {
        "R" | "r" => Some(TraceOp::Read),
        "W" | "w" => Some(TraceOp::Write),
        "" => None,
        other => return Err(format!("IOType: `{other}` is neither R, W nor blank")),
    };
    whole(f[3], "LUN")?;
    let (offset_bytes, len_bytes) = crate::parse::extent(whole(f[4], "Offset")?, 1, whole(f[5], "Size")?, 1)?;
    Ok(Fields { volume: Cow::Borrowed(f[3]), time_ns, op, offset_bytes, len_bytes, latency_ns: Some(latency_ns), content_hash: None })
}

/// FIU (SRCMap, IODedup; Koller and Rangaswami):
/// `timestamp pid process lba size op major minor md5`, nanoseconds, 512-byte sectors, `R`/`W`,
/// the device's major and minor numbers, the MD5 of the block's content. The process name is
/// whatever lies between the pid and the last six fields (it may hold spaces).
pub(crate) fn fiu(line: &str, unit_ns: u64) -> Result<Fields<'_>, String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 9 {
        return Err(format!("expected 9 fields (timestamp pid process lba size op major minor md5), found {}", f.len()));
    }
    let n = f.len();
    let time_ns = decimal_ns(f[0], unit_ns, "timestamp")?;
    whole(f[1], "pid")?;
    let (offset_bytes, len_bytes) = crate::parse::extent(whole(f[n - 6], "lba")?, 512, whole(f[n - 5], "size")?, 512)?;
    let op = match f[n - 4].to_ascii_lowercase().as_str() {
        "r" | "read" => TraceOp::Read,
        "w" | "write" => TraceOp::Write,
        _ => return Err(format!("op: `{}` is neither R nor W", f[n - 4])),
    };
    let major = whole(f[n - 3], "major")?;
    let minor = whole(f[n - 2], "minor")?;
    let hash = parse_md5(f[n - 1], "md5")?;
    // The device is `major,minor`, as blkparse writes it.
    let volume = Cow::Owned(format!("{major},{minor}"));
    Ok(Fields { volume, time_ns, op: Some(op), offset_bytes, len_bytes, latency_ns: None, content_hash: (op == TraceOp::Write).then_some(hash) })
}
