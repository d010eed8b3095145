//! The nbdkit plugin of ssdlab: `nbdkit libssdlab_nbd.so profile=NAME backing=FILE ...`.
//!
//! A thin adapter: configuration keys become a [`ServeConfig`], the one [`ssdlab_serve::Server`] (shared by
//! every connection, so flush covers all and multi-conn is safe) does the work, and its errors
//! become errno replies. `ssdlab serve` starts nbdkit with this plugin and the keys below:
//!
//! | key | meaning |
//! |---|---|
//! | `profile` | built-in profile name or TOML path (default `force-gs-240`) |
//! | `backing` | backing file (required; created when missing) |
//! | `set` | a `section.field=value` override (repeatable) |
//! | `latency` | `none` (default) or `emulate` |
//! | `seed` | seed of a new drive's session (default 1) |
//! | `control` | Unix socket path answering `stats`, `series` and `power-cut` |
//! | `power-cut-after` | cut the power during a write drawn (from `seed`) among the first N |
//! | `fault` | failure modes of flawed drives, `NAME` or `NAME=P` (P: probability per cut), comma-separated: `lying-flush`, `shorn-writes`, `unserializable-writes`, `metadata-corruption`, `dead-device` |
//! | `secure-erase` | `yes`: start from a secure-erased (empty) drive, whatever the file held |
//! | `direct-data` | `yes`: write whole 128 KiB units of data bypassing the page cache (`O_DIRECT`) where the file system allows it (off by default: reads then come from the disk) |
//! | `precondition` | a preconditioning step done at start, untimed, as `ssdlab run --precondition` does it: `seq-fill`, `rand-fill`, `trim-all`, `secure-erase` or `idle:SECONDS` (repeatable, in order; an empty drive only) |
//!
//! After a power cut the process ends at once with exit code [`POWER_CUT_EXIT`], without the
//! clean shutdown: the next start recovers the drive from its journal.

#![warn(missing_docs)]

mod control;
mod probe;
mod socket_path;

use nbdkit::*;
use ssdlab_serve::{ExtentKind, Faults, Latency, ServeConfig, ServeError};

/// Exit code of a server whose power was cut.
pub const POWER_CUT_EXIT: i32 = 75;

/// End the process as a drive losing power does: no clean shutdown, no flush, no unload.
pub(crate) fn lose_power(message: &str) -> ! {
    eprintln!("ssdlab: {message}; the next serve recovers the drive from its journal");
    // SAFETY: _exit ends the process immediately; nothing after it runs.
    unsafe { libc::_exit(POWER_CUT_EXIT) }
}
use std::sync::{Arc, Mutex, OnceLock};

static CONFIG: Mutex<Option<ServeConfig>> = Mutex::new(None);
static CONTROL: Mutex<Option<String>> = Mutex::new(None);
static BOUND: Mutex<Option<socket_path::Bound>> = Mutex::new(None);
static SERVER: OnceLock<Arc<ssdlab_serve::Server>> = OnceLock::new();

fn err(e: ServeError) -> Error {
    Error::new(e.errno, e.message)
}

fn config_error(message: String) -> Error {
    Error::new(libc::EINVAL, message)
}

/// A `yes` / `no` key's value (also `true`/`false`, `1`/`0`); anything else is refused.
fn yes_or_no(key: &str, value: &str) -> Result<bool> {
    match value {
        "yes" | "true" | "1" => Ok(true),
        "no" | "false" | "0" => Ok(false),
        other => Err(config_error(format!("{key}: `{other}` is not yes or no"))),
    }
}

fn server() -> Result<&'static Arc<ssdlab_serve::Server>> {
    SERVER.get().ok_or_else(|| Error::new(libc::EIO, "the ssdlab drive is not started"))
}

/// One connection's handle (all share the one server).
struct Connection;

impl Server for Connection {
    fn name() -> &'static str {
        "ssdlab"
    }

    fn description() -> Option<&'static str> {
        Some("a simulated SSD (ssdlab) with its data in a backing file")
    }

    fn config_help() -> Option<&'static str> {
        Some("profile=NAME|PATH backing=FILE [set=SECTION.FIELD=VALUE ...] [latency=none|emulate] [seed=N] [control=SOCKET] [power-cut-after=N] [fault=NAME[=P],...] [secure-erase=yes] [direct-data=yes] [precondition=STEP ...]")
    }

    fn thread_model() -> Result<ThreadModel> {
        Ok(ThreadModel::Parallel)
    }

    fn config(key: &str, value: &str) -> Result<()> {
        let mut guard = CONFIG.lock().unwrap_or_else(|p| p.into_inner());
        let config = guard.get_or_insert_with(|| ServeConfig::new("force-gs-240", ""));
        match key {
            "profile" => config.profile = value.to_string(),
            "backing" => config.backing = value.to_string(),
            "set" => config.overrides.push(value.to_string()),
            "latency" => config.latency = Latency::parse(value).map_err(|e| config_error(e.to_string()))?,
            "seed" => config.seed = value.parse().map_err(|_| config_error(format!("seed: `{value}` is not a whole number")))?,
            "power-cut-after" => {
                let n: u64 = value
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| config_error(format!("power-cut-after: `{value}` is not a whole number of at least 1")))?;
                config.power_cut_after = Some(n);
            }
            "fault" => config.faults = Faults::parse(value).map_err(|e| config_error(e.to_string()))?,
            "secure-erase" => config.secure_erase = yes_or_no("secure-erase", value)?,
            "direct-data" => config.direct_data = yes_or_no("direct-data", value)?,
            "precondition" => config.precondition.push(value.to_string()),
            "control" => *CONTROL.lock().unwrap_or_else(|p| p.into_inner()) = Some(socket_path::absolute(value)),
            other => {
                return Err(config_error(format!(
                    "unknown key `{other}` (expected profile, backing, set, latency, seed, control, power-cut-after, fault, secure-erase, direct-data or precondition)"
                )))
            }
        }
        Ok(())
    }

    fn config_complete() -> Result<()> {
        let guard = CONFIG.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(c) if !c.backing.is_empty() => Ok(()),
            _ => Err(config_error("backing=FILE is required".into())),
        }
    }

    fn get_ready() -> Result<()> {
        // Build or restore the drive before nbdkit starts serving, so a bad profile or backing
        // file is reported before anything listens.
        // The allocator: at most 4 arenas for nbdkit's 64 threads, and every buffer of 256 KiB or
        // more straight from the kernel and back (glibc's default, 16 arenas and a threshold that
        // rises with the buffers freed, kept hundreds of MiB of freed memory in the heaps of a
        // 20 GiB fill; BENCHMARKS.md, issue 24).
        // SAFETY: mallopt only sets allocator parameters; called before nbdkit's threads start.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 4);
            libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
        }
        let config = CONFIG.lock().unwrap_or_else(|p| p.into_inner()).clone().expect("config_complete checked");
        // The control path is checked before the drive opens and before nbdkit forks: only a
        // stale socket is replaced, anything else is refused (never deleted).
        if let Some(path) = CONTROL.lock().unwrap_or_else(|p| p.into_inner()).as_deref() {
            if std::path::absolute(path).ok() == std::path::absolute(&config.backing).ok() {
                return Err(config_error(format!("control socket {path}: is the backing file; give another path")));
            }
            socket_path::claim(path).map_err(config_error)?;
        }
        let server = ssdlab_serve::Server::start(&config).map_err(|e| Error::new(libc::EINVAL, e.to_string()))?;
        if let Some(report) = server.recovery() {
            eprintln!("ssdlab: recovered {} after an unclean stop: {report}", config.backing);
        }
        if server.is_dead() {
            eprintln!(
                "ssdlab: the drive is dead since its power cut (the dead-device fault): every read and write of {} fails with EIO; serve it with --secure-erase to use it again, empty",
                config.backing
            );
        }
        let _ = SERVER.set(Arc::new(server));
        Ok(())
    }

    fn after_fork() -> Result<()> {
        // Threads start after nbdkit has (maybe) forked into the background.
        if let Some(path) = CONTROL.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            let bound = control::listen(&path, server()?.clone()).map_err(|e| Error::new(libc::EIO, format!("control socket {path}: {e}")))?;
            *BOUND.lock().unwrap_or_else(|p| p.into_inner()) = Some(bound);
        }
        // The transport's round trip, for emulated latency and `ssdlab stats`.
        let served = server()?.clone();
        let control = CONTROL.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let holding = served.clone();
        probe::measure_in_background(control, move |ns| holding.set_probe_hold(ns), move |quick, held| served.set_transport_round_trip(quick, held));
        Ok(())
    }

    fn unload() {
        if let Some(server) = SERVER.get() {
            if let Err(e) = server.shutdown() {
                eprintln!("ssdlab: error: clean shutdown failed: {e}");
            }
        }
        if let Some(bound) = BOUND.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            socket_path::release(bound);
        }
    }

    fn open(_readonly: bool) -> Result<Box<dyn Server>> {
        server()?;
        Ok(Box::new(Connection))
    }

    fn get_size(&self) -> Result<i64> {
        Ok(server()?.size() as i64)
    }

    fn can_write(&self) -> Result<bool> {
        Ok(true)
    }

    fn can_flush(&self) -> Result<bool> {
        // Always: a drive with power-loss protection has no volatile cache, and the server
        // answers its flush at once (every write was durable when acknowledged), as a FUA;
        // clients that flush or sync (nbdcopy --flush, fio's fsync, nbd_flush) refuse a server
        // without it.
        Ok(true)
    }

    fn can_fua(&self) -> Result<FuaFlags> {
        Ok(FuaFlags::Native)
    }

    fn can_trim(&self) -> Result<bool> {
        Ok(true)
    }

    fn can_zero(&self) -> Result<bool> {
        Ok(true)
    }

    fn can_fast_zero(&self) -> Result<bool> {
        Ok(true)
    }

    fn can_extents(&self) -> Result<bool> {
        Ok(true)
    }

    fn can_multi_conn(&self) -> Result<bool> {
        // Every connection shares the one drive, and a flush on any covers all.
        Ok(true)
    }

    fn can_cache(&self) -> Result<CacheFlags> {
        Ok(CacheFlags::Native)
    }

    fn is_rotational(&self) -> Result<bool> {
        Ok(false)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        server()?.read(buf, offset).map_err(err)
    }

    fn write_at(&self, buf: &[u8], offset: u64, flags: Flags) -> Result<()> {
        let server = server()?;
        let result = server.write(buf, offset, flags.contains(Flags::FUA));
        if server.powered_off() {
            lose_power(&result.err().map_or_else(|| "power cut".to_string(), |e| e.message));
        }
        result.map_err(err)
    }

    fn flush(&self) -> Result<()> {
        server()?.flush().map_err(err)
    }

    fn trim(&self, count: u32, offset: u64, flags: Flags) -> Result<()> {
        server()?.trim(count as u64, offset, flags.contains(Flags::FUA)).map_err(err)
    }

    fn zero(&self, count: u32, offset: u64, flags: Flags) -> Result<()> {
        server()?.zero(count as u64, offset, flags.contains(Flags::MAY_TRIM), flags.contains(Flags::FAST_ZERO), flags.contains(Flags::FUA)).map_err(err)
    }

    fn cache(&self, count: u32, offset: u64) -> Result<()> {
        // Nothing to prefetch into: the data is one read away. Checked like a read.
        let server = server()?;
        let size = server.size();
        if offset.checked_add(count as u64).is_none_or(|end| end > size) {
            return Err(Error::new(libc::EINVAL, "cache request beyond the export"));
        }
        server.cache_hold();
        Ok(())
    }

    fn extents(&self, count: u32, offset: u64, _flags: Flags, handle: &mut ExtentHandle) -> Result<()> {
        for (at, len, kind) in server()?.extents(count as u64, offset).map_err(err)? {
            let kind = match kind {
                ExtentKind::Data => ExtentType::Allocated,
                ExtentKind::HoleZero => ExtentType::HoleZero,
            };
            handle.add(at, len, kind)?;
        }
        Ok(())
    }
}

/// The plugin's entry point for nbdkit (`plugin_init`).
#[allow(missing_docs)]
mod registration {
    use super::*;

    plugin!(Connection {
        thread_model,
        config,
        config_complete,
        get_ready,
        after_fork,
        unload,
        write_at,
        flush,
        trim,
        zero,
        cache,
        extents,
        can_write,
        can_flush,
        can_fua,
        can_trim,
        can_zero,
        can_fast_zero,
        can_extents,
        can_multi_conn,
        can_cache,
        is_rotational
    });
}
