//! The transport's round trip, measured at start for emulated latency: the plugin connects to
//! its own nbdkit as a client (the listening socket found among the process's descriptors),
//! sends a few hundred NBD_CMD_CACHE requests (which the plugin answers without touching the
//! drive) one at a time, and takes the 10th percentile of the times from send to reply (the
//! figure used; the median is reported beside it: a probe taken while other work kept the
//! machine's CPUs busy measured a median of 33.8 us against 8 to 9 us quiet, and emulated
//! replies then went out early by the difference, BENCHMARKS.md issue 24 round three); then as
//! many again with each reply held 200 us in the plugin, as an emulated reply is held, less
//! those 200 us. The
//! second figure also holds the time a sleeping client and server thread take to wake up
//! (tens of microseconds on a virtual machine whose idle CPUs halt), which a held reply pays
//! and a quick one does not: the server sends emulated replies that much before their
//! simulated completion.

use ssdlab_serve::{RoundTrip, ROUND_TRIP_PERCENTILE};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Requests timed, for replies sent at once and for held ones.
const PROBES: usize = 300;
/// How long the plugin holds a reply in the second round (about a flash read).
const HOLD: Duration = Duration::from_micros(200);
const CMD_CACHE: u16 = 5;
const CMD_DISC: u16 = 2;
const FLAG_SEND_CACHE: u16 = 1 << 10;

/// A listening socket of this process other than `skip` (the control socket).
enum Listener {
    Unix(String),
    Tcp(u16),
}

fn socket_inodes() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .filter_map(|l| l.to_str().and_then(|s| s.strip_prefix("socket:[")).and_then(|s| s.strip_suffix(']')).map(str::to_string))
        .collect()
}

fn find_listener(skip: Option<&str>) -> Option<Listener> {
    let inodes = socket_inodes();
    let unix = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    for line in unix.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Num RefCount Protocol Flags Type St Inode Path; listening: flag __SO_ACCEPTCON.
        if f.len() >= 8 && f[3] == "00010000" && inodes.iter().any(|i| i == f[6]) && Some(f[7]) != skip {
            return Some(Listener::Unix(f[7].to_string()));
        }
    }
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st ... inode (field 9); 0A: listening.
            if f.len() >= 10 && f[3] == "0A" && inodes.iter().any(|i| i == f[9]) {
                let port = f[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok())?;
                return Some(Listener::Tcp(port));
            }
        }
    }
    None
}

fn read_u16(s: &mut impl Read) -> std::io::Result<u16> {
    let mut b = [0u8; 2];
    s.read_exact(&mut b)?;
    Ok(u16::from_be_bytes(b))
}

fn request(kind: u16, cookie: u64, offset: u64, len: u32) -> [u8; 28] {
    let mut r = [0u8; 28];
    r[..4].copy_from_slice(&0x2560_9513u32.to_be_bytes());
    r[6..8].copy_from_slice(&kind.to_be_bytes());
    r[8..16].copy_from_slice(&cookie.to_be_bytes());
    r[16..24].copy_from_slice(&offset.to_be_bytes());
    r[24..28].copy_from_slice(&len.to_be_bytes());
    r
}

/// The low percentile and median of sorted `times`, less `minus` each.
fn round_trip(times: &[Duration], minus: Duration) -> RoundTrip {
    let at = |i: usize| times[i.min(times.len() - 1)].saturating_sub(minus).as_nanos() as u64;
    RoundTrip { low_ns: at(times.len() * ROUND_TRIP_PERCENTILE as usize / 100), median_ns: at(times.len() / 2) }
}

/// The round trips of NBD_CMD_CACHE over `stream` (fixed newstyle handshake, default export),
/// replies at once and held, or `None` when they could not be measured.
fn time_round_trips<S: Read + Write>(s: &mut S, hold: &dyn Fn(u64)) -> std::io::Result<Option<(RoundTrip, RoundTrip)>> {
    let mut hello = [0u8; 16];
    s.read_exact(&mut hello)?;
    if &hello[..8] != b"NBDMAGIC" || &hello[8..] != b"IHAVEOPT" {
        return Ok(None);
    }
    let flags = read_u16(s)?;
    let no_zeroes = flags & 2 != 0;
    s.write_all(&(1u32 | if no_zeroes { 2 } else { 0 }).to_be_bytes())?;
    // NBD_OPT_EXPORT_NAME, the default export.
    let mut opt = Vec::with_capacity(16);
    opt.extend_from_slice(b"IHAVEOPT");
    opt.extend_from_slice(&1u32.to_be_bytes());
    opt.extend_from_slice(&0u32.to_be_bytes());
    s.write_all(&opt)?;
    let mut size = [0u8; 8];
    s.read_exact(&mut size)?;
    let transmission = read_u16(s)?;
    if !no_zeroes {
        s.read_exact(&mut [0u8; 124])?;
    }
    if transmission & FLAG_SEND_CACHE == 0 {
        return Ok(None);
    }
    let mut reply = [0u8; 16];
    let mut probe = |s: &mut S| -> std::io::Result<Option<Vec<Duration>>> {
        let mut times = Vec::with_capacity(PROBES);
        for cookie in 0..PROBES as u64 {
            let started = Instant::now();
            s.write_all(&request(CMD_CACHE, cookie, 0, 4096))?;
            s.read_exact(&mut reply)?;
            times.push(started.elapsed());
            if reply[..4] != 0x6744_6698u32.to_be_bytes() || reply[4..8] != [0; 4] {
                return Ok(None);
            }
        }
        times.sort();
        Ok(Some(times))
    };
    let quick = probe(s)?;
    hold(HOLD.as_nanos() as u64);
    let held = probe(s);
    hold(0);
    let _ = s.write_all(&request(CMD_DISC, 0, 0, 0));
    Ok(match (quick, held?) {
        (Some(q), Some(h)) => Some((round_trip(&q, Duration::ZERO), round_trip(&h, HOLD))),
        _ => None,
    })
}

/// Measure the round trip in a background thread once nbdkit accepts connections, and hand it
/// to `done` (not called when it cannot be measured: nothing is then subtracted).
pub fn measure_in_background(skip: Option<String>, hold: impl Fn(u64) + Send + 'static, done: impl FnOnce(RoundTrip, RoundTrip) + Send + 'static) {
    let _ = std::thread::Builder::new().name("ssdlab-probe".into()).spawn(move || {
        // nbdkit listens before it calls after_fork; looked for a few times all the same.
        let Some(listener) = (0..20).find_map(|i| {
            std::thread::sleep(Duration::from_millis(if i == 0 { 0 } else { 50 }));
            find_listener(skip.as_deref())
        }) else {
            return;
        };
        let timeout = Some(Duration::from_secs(10));
        let measured = match listener {
            Listener::Unix(path) => UnixStream::connect(path).and_then(|mut s| {
                s.set_read_timeout(timeout)?;
                time_round_trips(&mut s, &hold)
            }),
            Listener::Tcp(port) => TcpStream::connect(("127.0.0.1", port)).and_then(|mut s| {
                s.set_read_timeout(timeout)?;
                s.set_nodelay(true)?;
                time_round_trips(&mut s, &hold)
            }),
        };
        if let Ok(Some((quick, held))) = measured {
            done(quick, held);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few slow probes (a busy machine) move the median, not the low percentile used.
    #[test]
    fn the_round_trip_used_is_the_low_percentile_not_the_median() {
        let mut times: Vec<Duration> = (0..300).map(|i| Duration::from_micros(if i < 140 { 8 } else { 34 })).collect();
        times.sort();
        let r = round_trip(&times, Duration::ZERO);
        assert_eq!((r.low_ns, r.median_ns), (8_000, 34_000));
        let held = round_trip(&times, Duration::from_micros(5));
        assert_eq!((held.low_ns, held.median_ns), (3_000, 29_000));
    }
}
