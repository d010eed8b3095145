//! `NativeDrive`, `NativeRun` and `NativeReplay`: a [`Session`] and the runs against it, for
//! `ssdlab.drive`.
//!
//! Every object holds its state behind a mutex, so it may be used from any Python thread; the
//! mutex is only ever taken with the GIL released (inside `py.detach`), so a long run in one
//! thread never deadlocks another thread that touches the same drive (it waits its turn).

use crate::convert::to_object;
use crate::errors::{to_py, RequestError, WorkloadError};
use crate::jobs::NativeJob;
use pyo3::prelude::*;
use ssdlab_drive::{DriveOptions, FastForward, PreconditionStart, PreconditionStep, ReplayMode, Run, Session, TraceRun};
use ssdlab_reduce::ContentMode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Take a mutex even if a panic in another thread poisoned it (the state is still the last
/// consistent one: every mutation completes or raises before it returns).
/// Most bytes one `read` returns.
const MAX_READ_BYTES: u64 = 1 << 30;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A simulated drive with its clock and seed stream.
#[pyclass(module = "ssdlab._native")]
pub struct NativeDrive {
    session: Mutex<Session>,
}

impl NativeDrive {
    /// Run `f` on the session with the GIL released.
    fn with<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Session) -> R + Send) -> R {
        py.detach(|| f(&mut lock(&self.session)))
    }
}

#[pymethods]
impl NativeDrive {
    #[new]
    #[pyo3(signature = (profile, overrides=Vec::new(), seed=1, track_tags=false, content="modeled", real_bytes_limit=ssdlab_drive::DEFAULT_REAL_BYTES_LIMIT))]
    fn new(py: Python<'_>, profile: &str, overrides: Vec<String>, seed: u64, track_tags: bool, content: &str, real_bytes_limit: u64) -> PyResult<Self> {
        let content = content_mode(content)?;
        let profile = ssdlab_profile::load_profile(profile, &overrides).map_err(to_py)?;
        let session =
            py.detach(|| Session::new(profile, DriveOptions { track_tags, content, real_bytes_limit, ..DriveOptions::default() }, seed)).map_err(to_py)?;
        Ok(Self { session: Mutex::new(session) })
    }

    /// Simulated time now, nanoseconds.
    #[getter]
    fn now_ns(&self, py: Python<'_>) -> u64 {
        self.with(py, |s| s.now_ns())
    }

    /// The seed the drive's workload seeds are drawn from.
    #[getter]
    fn seed(&self, py: Python<'_>) -> u64 {
        self.with(py, |s| s.seed())
    }

    /// Profile facts: names, capacities, spare ratios, geometry, idle power.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let info = self.with(py, |s| s.info());
        to_object(py, &info)
    }

    /// Wear, free blocks and cumulative counters.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.with(py, |s| s.state());
        to_object(py, &state)
    }

    /// ATA SECURE ERASE. Returns the simulated seconds it took.
    fn secure_erase(&self, py: Python<'_>) -> f64 {
        self.with(py, |s| s.secure_erase()) as f64 / 1e9
    }

    /// Set Features, Power Management: move to power state `state` (PS0 = 0). Returns the
    /// simulated seconds the transition took.
    fn set_power_state(&self, py: Python<'_>, state: u32) -> PyResult<f64> {
        self.with(py, |s| s.set_power_state(state)).map(|ns| ns as f64 / 1e9).map_err(to_py)
    }

    /// Set Features, Autonomous Power State Transition: APST on or off.
    fn set_apst(&self, py: Python<'_>, on: bool) -> PyResult<()> {
        self.with(py, |s| s.set_apst(on)).map_err(to_py)
    }

    /// FLUSH CACHE. Returns the simulated seconds it took.
    fn flush(&self, py: Python<'_>) -> f64 {
        self.with(py, |s| s.flush()) as f64 / 1e9
    }

    /// Sit idle for `seconds` of simulated time (idle-time GC runs). Returns blocks reclaimed.
    fn idle(&self, py: Python<'_>, seconds: f64) -> PyResult<u64> {
        let duration_ns = ssdlab_drive::idle_seconds_ns(seconds).map_err(to_py)?;
        self.with(py, |s| s.idle(duration_ns)).map_err(to_py)
    }

    /// Check that `job` can run on this drive (span, queue depth) without running it.
    fn check_job(&self, py: Python<'_>, job: &NativeJob) -> PyResult<()> {
        let spec = job.spec.clone();
        self.with(py, |s| s.check_job(&spec)).map_err(to_py)
    }

    /// Start a closed-loop run of `job`; `seed` defaults to the next seed of the drive's stream.
    /// Writes carry the job's data pattern, or the 4 KiB blocks of `data_file` in order.
    #[pyo3(signature = (job, seed=None, data_file=None))]
    fn start_run(&self, py: Python<'_>, job: &NativeJob, seed: Option<u64>, data_file: Option<String>) -> PyResult<NativeRun> {
        let spec = job.spec.clone();
        let run = self.with(py, |s| s.start_run(&spec, seed, data_file.as_deref())).map_err(to_py)?;
        let seed = run.seed();
        Ok(NativeRun { run: Mutex::new(Some(run)), seed })
    }

    /// Advance `run` by up to `max_completions` completions, without the GIL. Returns
    /// `(done, simulated_seconds, fraction, completed_ios)`. Raises `KeyboardInterrupt` on Ctrl-C.
    fn advance(&self, py: Python<'_>, run: &NativeRun, max_completions: u64) -> PyResult<(bool, f64, f64, u64)> {
        py.check_signals()?;
        py.detach(|| {
            let mut session = lock(&self.session);
            let mut guard = lock(&run.run);
            let inner = guard.as_mut().ok_or_else(|| ssdlab_core::Error::Request("this run has finished and was summarized".into()))?;
            let done = session.advance_run(inner, max_completions)?;
            let progress = inner.progress();
            Ok((done, progress.simulated_ns as f64 / 1e9, progress.fraction, progress.completed_ios))
        })
        .map_err(to_py)
    }

    /// Summary of a finished run (the keys of `ssdlab run --json`).
    fn run_summary<'py>(&self, py: Python<'py>, run: &NativeRun, wall_seconds: f64) -> PyResult<Bound<'py, PyAny>> {
        let summary = py
            .detach(|| {
                let session = lock(&self.session);
                let guard = lock(&run.run);
                let inner = guard.as_ref().ok_or_else(|| ssdlab_core::Error::Request("run is gone".into()))?;
                session.run_summary(inner, wall_seconds)
            })
            .map_err(to_py)?;
        to_object(py, &summary)
    }

    /// Start fast-forwarding `job` (its writes and TRIMs done without timing; see
    /// `ssdlab_drive::FastForward`); `seed` defaults to the next seed of the drive's stream.
    /// Raises `WorkloadError` for a job whose commands depend on time.
    #[pyo3(signature = (job, seed=None, data_file=None))]
    fn start_fast_forward(&self, py: Python<'_>, job: &NativeJob, seed: Option<u64>, data_file: Option<String>) -> PyResult<NativeFastForward> {
        let spec = job.spec.clone();
        let run = self.with(py, |s| s.start_fast_forward(&spec, seed, data_file.as_deref())).map_err(to_py)?;
        let seed = run.seed();
        Ok(NativeFastForward { run: Mutex::new(run), seed })
    }

    /// Advance a fast-forward by up to `max_ios` commands, without the GIL. Returns
    /// `(done, simulated_seconds, fraction, completed_ios)`. Raises `KeyboardInterrupt` on Ctrl-C.
    fn advance_fast_forward(&self, py: Python<'_>, run: &NativeFastForward, max_ios: u64) -> PyResult<(bool, f64, f64, u64)> {
        py.check_signals()?;
        py.detach(|| {
            let mut session = lock(&self.session);
            let mut inner = lock(&run.run);
            let done = session.advance_fast_forward(&mut inner, max_ios)?;
            let progress = inner.progress();
            Ok((done, progress.simulated_ns as f64 / 1e9, progress.fraction, progress.completed_ios))
        })
        .map_err(to_py)
    }

    /// Summary of a finished fast-forward.
    fn fast_forward_summary<'py>(&self, py: Python<'py>, run: &NativeFastForward, wall_seconds: f64) -> PyResult<Bound<'py, PyAny>> {
        let summary = py.detach(|| lock(&self.session).fast_forward_summary(&lock(&run.run), wall_seconds)).map_err(to_py)?;
        to_object(py, &summary)
    }

    /// Start a `--precondition` step now (`ssdlab_drive::Session::start_precondition`): a
    /// secure erase or an idle period is done here; a fill or TRIM comes back as its job, for
    /// the caller to fast-forward or run timed. Returns `(kind, job or None, blocks reclaimed
    /// by an idle period or None)`. Raises `WorkloadError` for a step that is not one.
    fn start_precondition(&self, py: Python<'_>, step: &str) -> PyResult<(&'static str, Option<NativeJob>, Option<u64>)> {
        let step = PreconditionStep::parse(step).map_err(to_py)?;
        Ok(match self.with(py, |s| s.start_precondition(step)).map_err(to_py)? {
            PreconditionStart::Done { blocks_reclaimed } => (step.kind(), None, blocks_reclaimed),
            PreconditionStart::Job(spec) => (step.kind(), Some(NativeJob { spec: *spec }), None),
        })
    }

    /// Wait until the drive has finished everything booked (the present moves there). Returns
    /// the simulated seconds waited.
    fn wait_until_idle(&self, py: Python<'_>) -> f64 {
        self.with(py, |s| s.wait_until_idle()) as f64 / 1e9
    }

    /// Why `job` cannot be fast-forwarded (None when it can).
    #[staticmethod]
    fn fast_forward_refusal(job: &NativeJob) -> Option<String> {
        ssdlab_drive::fast_forward_refusal(&job.spec)
    }

    /// Write `data` at byte `offset` as one command and wait for it. Returns the simulated
    /// seconds it took.
    fn write(&self, py: Python<'_>, offset: u64, data: Vec<u8>) -> PyResult<f64> {
        self.with(py, |s| s.write_bytes(offset, &data)).map(|ns| ns as f64 / 1e9).map_err(to_py)
    }

    /// Read `length` bytes at byte `offset` as one command and wait for it. Returns the bytes
    /// and the simulated seconds it took.
    fn read<'py>(&self, py: Python<'py>, offset: u64, length: u64) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, f64)> {
        // The bytes are built in memory: a length beyond this is refused rather than left to
        // the allocator (which aborts the process when it cannot).
        if length > MAX_READ_BYTES {
            return Err(RequestError::new_err(format!("read: length {length} bytes is more than the {MAX_READ_BYTES} one read may return")));
        }
        let (bytes, ns) = self.with(py, |s| s.read_bytes(offset, length)).map_err(to_py)?;
        Ok((pyo3::types::PyBytes::new(py, &bytes), ns as f64 / 1e9))
    }

    /// The bytes of a 4 KiB logical sector (data-reduction drives in real-bytes mode).
    fn read_sector<'py>(&self, py: Python<'py>, sector: u64) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let bytes = self.with(py, |s| s.drive().read_sector_bytes(sector)).map_err(to_py)?;
        Ok(pyo3::types::PyBytes::new(py, &bytes))
    }

    /// Content tag of a 4 KiB logical sector (drives built with `track_tags`).
    fn read_tag(&self, py: Python<'_>, sector: u64) -> PyResult<u64> {
        self.with(py, |s| {
            let user_sectors = s.drive().translation().user_sectors();
            if sector >= user_sectors {
                return Err(RequestError::new_err(format!("sector {sector} is beyond the drive's last sector {}", user_sectors - 1)));
            }
            Ok(s.drive().read_tag(sector))
        })
    }

    /// Start replaying a trace file. `mode` is `queue-depth` or `timestamps`.
    #[pyo3(signature = (path, format=None, mode="queue-depth", time_scale=1.0, remap=false, skip_bad=false, pattern="text", seed=None, max_requests=None, time_unit=None, data_file=None, large_pattern=None, large_bytes=65536, volume=None))]
    #[allow(clippy::too_many_arguments)]
    fn start_replay(
        &self,
        py: Python<'_>,
        path: &str,
        format: Option<&str>,
        mode: &str,
        time_scale: f64,
        remap: bool,
        skip_bad: bool,
        pattern: &str,
        seed: Option<u64>,
        max_requests: Option<usize>,
        time_unit: Option<&str>,
        data_file: Option<String>,
        large_pattern: Option<&str>,
        large_bytes: u64,
        volume: Option<&str>,
    ) -> PyResult<NativeReplay> {
        let format = crate::traces::parse_format(format)?;
        let volume = crate::traces::parse_volume(volume)?;
        if volume == ssdlab_trace::VolumeChoice::All {
            return Err(WorkloadError::new_err("--volume all is for `trace stats`: one drive replays one volume (name it with --volume ID)"));
        }
        let time_unit = crate::traces::parse_time_unit(time_unit)?;
        let mode = match mode {
            "queue-depth" => ReplayMode::QueueDepth,
            "timestamps" => ReplayMode::Timestamps { scale: time_scale },
            other => return Err(WorkloadError::new_err(format!("unknown replay mode `{other}` (expected queue-depth or timestamps)"))),
        };
        let job = ssdlab_workload::parse_options("replay", &[format!("data_pattern={pattern}")]).map_err(to_py)?;
        let large = match large_pattern {
            Some(p) => Some((ssdlab_workload::parse_options("replay", &[format!("data_pattern={p}")]).map_err(to_py)?.pattern, large_bytes.max(1))),
            None => None,
        };
        let reader = ssdlab_trace::TraceReader::open_with(path, ssdlab_trace::ReadOptions { format, skip_bad, time_unit, volume }).map_err(to_py)?;
        let format = reader.format();
        let skipped = Arc::new(ReaderCounts::default());
        let counting = CountingReader { reader, counts: skipped.clone() };
        let records: Box<dyn Iterator<Item = ssdlab_core::Result<ssdlab_trace::TraceRecord>> + Send> = match max_requests {
            Some(n) => Box::new(counting.take(n)),
            None => Box::new(counting),
        };
        let origin = path.to_string();
        let run = self
            .with(py, move |s| s.start_replay(&origin, records, mode, remap, job.pattern, seed, data_file.as_deref(), large).map(|run| run.for_format(format)))
            .map_err(to_py)?;
        Ok(NativeReplay { run: Mutex::new(run), skipped })
    }

    /// Advance a replay by up to `max_steps` events, without the GIL. Returns
    /// `(done, simulated_seconds, completed_requests)`.
    fn advance_replay(&self, py: Python<'_>, replay: &NativeReplay, max_steps: u64) -> PyResult<(bool, f64, u64)> {
        py.check_signals()?;
        py.detach(|| {
            let mut session = lock(&self.session);
            let mut run = lock(&replay.run);
            let done = session.advance_replay(&mut run, max_steps)?;
            Ok((done, run.simulated_ns() as f64 / 1e9, run.completed()))
        })
        .map_err(to_py)
    }

    /// Summary of a finished replay, with the number of malformed lines skipped, of requests of
    /// other volumes passed over and of requests without a direction passed over.
    fn replay_summary<'py>(&self, py: Python<'py>, replay: &NativeReplay, wall_seconds: f64) -> PyResult<Bound<'py, PyAny>> {
        let summary = py.detach(|| lock(&self.session).replay_summary(&lock(&replay.run), wall_seconds)).map_err(to_py)?;
        let object = to_object(py, &summary)?;
        object.set_item("skipped_lines", replay.skipped.skipped_lines.load(Ordering::Relaxed))?;
        object.set_item("other_volume_requests", replay.skipped.other_volume.load(Ordering::Relaxed))?;
        object.set_item("requests_without_direction", replay.skipped.no_direction.load(Ordering::Relaxed))?;
        Ok(object)
    }
}

/// A run in progress (advance it with `NativeDrive.advance`).
#[pyclass(module = "ssdlab._native")]
pub struct NativeRun {
    run: Mutex<Option<Run>>,
    seed: u64,
}

#[pymethods]
impl NativeRun {
    /// Seed of the run's workload.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The per-second series as columns.
    fn series_columns(&self, py: Python<'_>) -> PyResult<Vec<(String, Vec<f64>)>> {
        py.detach(|| {
            let guard = lock(&self.run);
            let inner = guard.as_ref().ok_or_else(|| ssdlab_core::Error::Request("run is gone".into()))?;
            let rows = inner.series();
            let column = |f: &dyn Fn(&ssdlab_drive::SeriesRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
            let mut columns = vec![
                ("second".into(), column(&|r| r.second as f64)),
                ("span_seconds".into(), column(&|r| r.span_seconds)),
                ("iops".into(), column(&|r| r.iops)),
                ("read_mbps".into(), column(&|r| r.read_mbps)),
                ("write_mbps".into(), column(&|r| r.write_mbps)),
                ("mean_latency_us".into(), column(&|r| r.mean_latency_us)),
                ("max_latency_us".into(), column(&|r| r.max_latency_us)),
                ("free_blocks".into(), column(&|r| r.free_blocks as f64)),
                ("write_amplification".into(), column(&|r| r.write_amplification)),
            ];
            // Drives with a thermal model: temperatures and the throttling step each second.
            if rows.first().is_some_and(|r| r.controller_c.is_some()) {
                columns.push(("controller_c".into(), column(&|r| r.controller_c.unwrap_or(f64::NAN))));
                columns.push(("nand_c".into(), column(&|r| r.nand_c.unwrap_or(f64::NAN))));
                columns.push(("throttle_step".into(), column(&|r| r.throttle_step.map_or(f64::NAN, f64::from))));
            }
            Ok(columns)
        })
        .map_err(to_py)
    }

    /// fio's log windows (`log_avg_msec` not whole seconds) as columns, and whether they
    /// stopped at their bound; `None` when the logs come from the per-second series.
    fn log_window_columns(&self, py: Python<'_>) -> PyResult<Option<(Columns, bool)>> {
        py.detach(|| {
            let guard = lock(&self.run);
            let inner = guard.as_ref().ok_or_else(|| ssdlab_core::Error::Request("run is gone".into()))?;
            let Some((rows, truncated)) = inner.log_windows() else { return Ok(None) };
            let column = |f: &dyn Fn(&ssdlab_drive::LogWindow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
            let columns = vec![
                ("end_ms".into(), column(&|r| r.end_ms as f64)),
                ("span_ms".into(), column(&|r| r.span_ns as f64 / 1e6)),
                ("ios".into(), column(&|r| r.ios as f64)),
                ("read_bytes".into(), column(&|r| r.read_bytes as f64)),
                ("write_bytes".into(), column(&|r| r.write_bytes as f64)),
                ("latency_sum_ns".into(), column(&|r| r.latency_sum_ns as f64)),
            ];
            Ok(Some((columns, truncated)))
        })
        .map_err(to_py)
    }
}

/// Named columns of numbers, as Python makes a data frame of them.
type Columns = Vec<(String, Vec<f64>)>;

/// A fast-forward in progress (advance it with `NativeDrive.advance_fast_forward`).
#[pyclass(module = "ssdlab._native")]
pub struct NativeFastForward {
    run: Mutex<FastForward>,
    seed: u64,
}

#[pymethods]
impl NativeFastForward {
    /// Seed of the workload.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }
}

/// A trace replay in progress (advance it with `NativeDrive.advance_replay`).
#[pyclass(module = "ssdlab._native")]
pub struct NativeReplay {
    run: Mutex<TraceRun>,
    skipped: Arc<ReaderCounts>,
}

/// What a trace reader passed over, for the replay's summary.
#[derive(Default)]
struct ReaderCounts {
    /// Malformed lines skipped.
    skipped_lines: AtomicU64,
    /// Requests of volumes other than the one named.
    other_volume: AtomicU64,
    /// Requests whose direction the trace does not know.
    no_direction: AtomicU64,
}

/// Counts the lines and requests a reader passed over, for the summary.
struct CountingReader {
    reader: ssdlab_trace::TraceReader,
    counts: Arc<ReaderCounts>,
}

impl Iterator for CountingReader {
    type Item = ssdlab_core::Result<ssdlab_trace::TraceRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        let item = self.reader.next();
        self.counts.skipped_lines.store(self.reader.skipped(), Ordering::Relaxed);
        self.counts.other_volume.store(self.reader.other_volume_requests(), Ordering::Relaxed);
        self.counts.no_direction.store(self.reader.requests_without_direction(), Ordering::Relaxed);
        item
    }
}

/// A content mode by name (`modeled` or `real`).
pub(crate) fn content_mode(content: &str) -> PyResult<ContentMode> {
    match content {
        "modeled" => Ok(ContentMode::Modeled),
        "real" => Ok(ContentMode::Real),
        other => Err(WorkloadError::new_err(format!("unknown content mode `{other}` (expected modeled or real)"))),
    }
}
