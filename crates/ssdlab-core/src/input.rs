//! Opening input files as possibly huge, endless or hostile: a regular file is required (a
//! FIFO, a device such as `/dev/zero`, or a folder is refused, naming what it is), text files
//! have a size bound, lines have a length bound, a UTF-8 byte-order mark is dropped, and a
//! buffer that cannot be allocated is an error rather than an abort.

use crate::{Error, Result};
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileTypeExt;

/// Longest line any line-based input format accepts (trace lines are under 200 bytes).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Largest text file read whole (profiles, job files, sweep specs are a few KiB).
pub const MAX_TEXT_FILE_BYTES: u64 = 4 << 20;

/// What kind of file `meta` describes, in words for a message.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Open `path` for reading, refusing anything but a regular file. `what` names the input in
/// messages ("trace", "data file", ...).
pub fn open_regular(path: &str, what: &str) -> Result<File> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Io(format!("{path}: cannot open the {what}: {e}")))?;
    if !meta.is_file() {
        return Err(Error::Io(format!("{path}: is {}; the {what} must be a regular file", kind_of(&meta))));
    }
    File::open(path).map_err(|e| Error::Io(format!("{path}: cannot open the {what}: {e}")))
}

/// Read a whole text file of at most `max_bytes` (a regular file, UTF-8, byte-order mark
/// dropped).
pub fn read_text(path: &str, what: &str, max_bytes: u64) -> Result<String> {
    let file = open_regular(path, what)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max_bytes {
        return Err(Error::Io(format!("{path}: the {what} is {len} bytes; at most {max_bytes} are accepted")));
    }
    let mut bytes = Vec::new();
    bytes.try_reserve(len as usize).map_err(|_| Error::Io(format!("{path}: not enough memory to read the {what} ({len} bytes)")))?;
    file.take(max_bytes + 1).read_to_end(&mut bytes).map_err(|e| Error::Io(format!("{path}: cannot read the {what}: {e}")))?;
    if bytes.len() as u64 > max_bytes {
        return Err(Error::Io(format!("{path}: the {what} grew past {max_bytes} bytes while being read")));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::Io(format!("{path}:{line}: the {what} is not UTF-8 text (is this a binary file?)"))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Read one line (through its `\n`) into `buf` (cleared first), at most `max` bytes. Returns
/// the bytes read (0 at the end); a longer line is an error naming `origin` and `line_no`.
pub fn read_line_bounded(reader: &mut dyn BufRead, buf: &mut Vec<u8>, max: usize, origin: &str, line_no: u64) -> Result<usize> {
    buf.clear();
    let n = (&mut *reader).take(max as u64 + 1).read_until(b'\n', buf).map_err(|e| Error::Io(format!("{origin}: cannot read: {e}")))?;
    if n > max && buf.last() != Some(&b'\n') {
        return Err(Error::Workload(format!("{origin}:{line_no}: line longer than {max} bytes (is this a binary file?)")));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_refused_naming_what_it_is() {
        let e = open_regular("/dev/zero", "trace").unwrap_err().to_string();
        assert!(e.contains("/dev/zero: is a device"), "{e}");
        let e = read_text("/", "profile", 100).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
    }

    #[test]
    fn long_lines_are_refused_and_short_ones_read() {
        let data = b"ok\n".iter().copied().chain(std::iter::repeat_n(b'x', 100)).collect::<Vec<_>>();
        let mut reader = std::io::BufReader::new(&data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut reader, &mut buf, 10, "t", 1).unwrap(), 3);
        let e = read_line_bounded(&mut reader, &mut buf, 10, "t", 2).unwrap_err().to_string();
        assert!(e.contains("t:2: line longer than 10 bytes"), "{e}");
    }

    #[test]
    fn text_files_are_bounded_and_lose_their_bom() {
        let dir = std::env::temp_dir().join(format!("ssdlab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.toml");
        std::fs::write(&path, "\u{feff}a = 1\n").unwrap();
        assert_eq!(read_text(path.to_str().unwrap(), "profile", 100).unwrap(), "a = 1\n");
        let e = read_text(path.to_str().unwrap(), "profile", 3).unwrap_err().to_string();
        assert!(e.contains("at most 3 are accepted"), "{e}");
    }
}
