//! What the drive crate's benchmark examples share: their arguments (positional, with
//! defaults; a bad number is a one-line error and exit 2, not a silent default), fio-style jobs
//! and the process's peak RSS.
#![allow(dead_code)] // each example uses part of it

use ssdlab_workload::{parse_options, JobSpec};

/// The example's positional arguments (after the program name).
pub struct Args {
    values: Vec<String>,
}

impl Args {
    /// The process's arguments, without the program name.
    pub fn from_env() -> Self {
        Self { values: std::env::args().skip(1).collect() }
    }

    /// Remove a leading flag (such as `--timed`) and say whether it was there.
    pub fn take_flag(&mut self, flag: &str) -> bool {
        let found = self.values.first().is_some_and(|a| a == flag);
        if found {
            self.values.remove(0);
        }
        found
    }

    /// Argument `index` as text, or `default` when absent.
    pub fn text(&self, index: usize, default: &str) -> String {
        self.values.get(index).cloned().unwrap_or_else(|| default.to_string())
    }

    /// Argument `index` as a whole number, or `default` when absent; anything else ends the
    /// example with one line naming the argument and exit status 2.
    pub fn number(&self, index: usize, name: &str, default: u64) -> u64 {
        match self.values.get(index) {
            None => default,
            Some(text) => text.parse().unwrap_or_else(|_| {
                eprintln!("error: {name} (argument {}): expected a whole number, got {text:?}", index + 1);
                std::process::exit(2)
            }),
        }
    }

    /// Arguments from `index` on: `section.field=value` profile overrides.
    pub fn rest(&self, index: usize) -> Vec<String> {
        self.values.iter().skip(index).cloned().collect()
    }
}

/// An fio-style job from its options (`rw=randwrite`, `bs=4k`, ...).
pub fn job(name: &str, items: &[&str]) -> JobSpec {
    parse_options(name, &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

/// A sequential fill of the whole span (`items` without a size): as the `seq-fill`
/// preconditioning step, its last block is cut to the span's end, so every byte is written (a
/// job's own pass issues whole blocks only, as fio's).
#[allow(dead_code)]
pub fn fill_job(name: &str, items: &[&str]) -> JobSpec {
    let mut job = job(name, items);
    job.cut_last_block = true;
    job
}

/// Peak resident set size of this process in bytes (Linux `VmHWM`; 0 where unknown).
pub fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}
