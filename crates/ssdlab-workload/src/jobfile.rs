//! fio job files as fio reads them: `[global]` and job sections, `;` and `#` comments (whole
//! lines and after a value), `${VAR}` from the environment, `include FILE`, options without a
//! value, and fio's grouping (jobs run side by side until a `stonewall`; `numjobs` copies run
//! beside their job). Every problem in a file is reported at once, each at its file:line.

use crate::options::JobSpec;
use ssdlab_core::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest job file read (fio's own are a few KiB).
pub const MAX_JOB_FILE_BYTES: u64 = 4 << 20;
/// Deepest `include` nesting.
const MAX_INCLUDE_DEPTH: usize = 8;
/// Most problems listed before the rest are counted.
const MAX_PROBLEMS_LISTED: usize = 50;

/// One option of a job file: key, value (if any) and where it stands.
#[derive(Debug, Clone)]
struct JobOption {
    key: String,
    value: Option<String>,
    at: String,
}

/// A job section as read.
struct Section {
    name: String,
    at: String,
    global: Vec<JobOption>,
    options: Vec<JobOption>,
}

/// Reads the lines of a file and those it includes.
struct Reader {
    global: Vec<JobOption>,
    jobs: Vec<Section>,
    in_global: bool,
    seen_section: bool,
    problems: Vec<String>,
}

/// Read a job file's text, refusing what is not a small regular text file.
fn read_text(path: &Path, shown: &str) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Workload(format!("{shown}: cannot read job file: {e}")))?;
    if meta.is_dir() {
        return Err(Error::Workload(format!("{shown}: is a folder, not a job file")));
    }
    if !meta.is_file() {
        return Err(Error::Workload(format!("{shown}: is not a regular file (a device, FIFO or socket); give an fio job file")));
    }
    if meta.len() > MAX_JOB_FILE_BYTES {
        return Err(Error::Workload(format!("{shown}: {} bytes is too large for a job file (at most {MAX_JOB_FILE_BYTES})", meta.len())));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::Workload(format!("{shown}: cannot read job file: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_JOB_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::Workload(format!("{shown}: cannot read job file: {e}")))?;
    if bytes.len() as u64 > MAX_JOB_FILE_BYTES {
        return Err(Error::Workload(format!("{shown}: too large for a job file (at most {MAX_JOB_FILE_BYTES} bytes)")));
    }
    text_of(bytes, shown)
}

/// The bytes as text, or a message naming where binary data starts.
fn text_of(bytes: Vec<u8>, shown: &str) -> Result<String> {
    let line_of = |at: usize| bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    if let Some(at) = bytes.iter().position(|&b| b == 0 || (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c))) {
        return Err(Error::Workload(format!("{shown}:{}: binary data (byte {at} is 0x{:02x}); this is not an fio job file", line_of(at), bytes[at])));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(Error::Workload(format!("{shown}:{line}: not UTF-8 text (byte {at}); this is not an fio job file")))
        }
    }
}

/// Replace `${NAME}` by the environment's value; unset names are left as they are (as fio does),
/// and options that need the value say so.
fn expand_variables(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match std::env::var(name) {
                    Ok(value) => out.push_str(&value),
                    Err(_) => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The line without its comment (fio ends a line at the first `;` or `#`).
fn strip_comment(line: &str) -> &str {
    match line.find([';', '#']) {
        Some(at) => &line[..at],
        None => line,
    }
}

impl Reader {
    fn read(&mut self, origin: &str, text: &str, dir: Option<&Path>, depth: usize) {
        for (index, raw) in text.lines().enumerate() {
            let at = format!("{origin}:{}", index + 1);
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(target) = line.strip_prefix("include ").or_else(|| line.strip_prefix("include\t")) {
                self.include(&at, target.trim(), dir, depth);
                continue;
            }
            if line.starts_with('[') {
                if !line.ends_with(']') || line.len() < 3 {
                    self.problems.push(format!("{at}: malformed section header `{}` (expected [name])", shorten(line)));
                    continue;
                }
                let name = line[1..line.len() - 1].trim().to_string();
                self.seen_section = true;
                self.in_global = name == "global";
                if !self.in_global {
                    self.jobs.push(Section { name, at, global: self.global.clone(), options: Vec::new() });
                }
                continue;
            }
            if !self.seen_section {
                self.problems.push(format!("{at}: option `{}` before any [section]", shorten(line)));
                continue;
            }
            let line = expand_variables(line);
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
                None => (line.trim().to_string(), None),
            };
            if key.is_empty() || key.contains(char::is_whitespace) {
                self.problems.push(format!("{at}: malformed line `{}` (expected key=value)", shorten(&line)));
                continue;
            }
            let option = JobOption { key, value, at };
            if self.in_global {
                self.global.push(option);
            } else if let Some(job) = self.jobs.last_mut() {
                job.options.push(option);
            }
        }
    }

    fn include(&mut self, at: &str, target: &str, dir: Option<&Path>, depth: usize) {
        if depth >= MAX_INCLUDE_DEPTH {
            self.problems.push(format!("{at}: include `{target}`: includes nest more than {MAX_INCLUDE_DEPTH} deep (a loop?)"));
            return;
        }
        let target = expand_variables(target);
        let path = match dir {
            Some(dir) if Path::new(&target).is_relative() => dir.join(&target),
            _ => PathBuf::from(&target),
        };
        match read_text(&path, &target) {
            Ok(text) => {
                let shown = path.display().to_string();
                let parent = path.parent().map(Path::to_path_buf);
                self.read(&shown, &text, parent.as_deref(), depth + 1);
            }
            Err(e) => self.problems.push(format!("{at}: include: {e}")),
        }
    }
}

/// A problem's message cut to a readable length (values in files can be megabytes long).
pub(crate) fn clip(message: String) -> String {
    const MAX_CHARS: usize = 300;
    if message.chars().count() <= MAX_CHARS {
        return message;
    }
    let mut short: String = message.chars().take(MAX_CHARS).collect();
    short.push_str("...");
    short
}

fn shorten(text: &str) -> String {
    let mut short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    short
}

/// Split a job list into groups (a `stonewall` job starts a new one) and add each job's
/// `numjobs` copies beside it; returns each group's first job with the others in `concurrent`.
pub fn expand_numjobs(jobs: Vec<JobSpec>) -> Vec<JobSpec> {
    let mut groups: Vec<JobSpec> = Vec::new();
    for job in jobs {
        let copies: Vec<JobSpec> = (0..job.numjobs)
            .map(|k| {
                let mut copy = job.clone();
                copy.copy_index = k;
                copy.offset_bytes = copy.offset_bytes.saturating_add(k as u64 * job.offset_increment_bytes);
                // A percentage increment adds to the offset's percentage (fio: of the device's size).
                if let Some(step) = job.offset_increment_percent.filter(|_| k > 0) {
                    copy.offset_percent = Some(job.offset_percent.unwrap_or(0.0) + k as f64 * step);
                }
                copy
            })
            .collect();
        for (k, copy) in copies.into_iter().enumerate() {
            match groups.last_mut() {
                Some(leader) if !(k == 0 && job.stonewall) => leader.concurrent.push(copy),
                _ => groups.push(copy),
            }
        }
    }
    groups
}

/// Read an fio job file; `overrides` (`key=value`, from the command line) apply to every job after
/// the file's own options, as fio's command line does. Returns the groups of jobs that run one
/// after the other, each group's first job carrying the others (`JobSpec::concurrent`).
pub fn parse_job_file_with(path: &str, overrides: &[String]) -> Result<Vec<JobSpec>> {
    let text = read_text(Path::new(path), path)?;
    let dir = Path::new(path).parent().map(Path::to_path_buf);
    parse_job_text_in(path, &text, dir.as_deref(), overrides)
}

/// Read an fio job file (see [`parse_job_file_with`]).
pub fn parse_job_file(path: &str) -> Result<Vec<JobSpec>> {
    parse_job_file_with(path, &[])
}

/// Parse a job file's bytes read from elsewhere than a file (standard input, as `fio -`):
/// `origin` names them in messages, includes are read relative to the current folder, and the
/// bytes pass the same checks as a file's (size, binary data, UTF-8); `overrides` as in
/// [`parse_job_file_with`].
pub fn parse_job_bytes_with(origin: &str, bytes: Vec<u8>, overrides: &[String]) -> Result<Vec<JobSpec>> {
    if bytes.len() as u64 > MAX_JOB_FILE_BYTES {
        return Err(Error::Workload(format!("{origin}: too large for a job file (at most {MAX_JOB_FILE_BYTES} bytes)")));
    }
    let text = text_of(bytes, origin)?;
    parse_job_text_in(origin, &text, None, overrides)
}

/// Parse job-file text; `origin` names the file in messages (includes are read relative to the
/// current folder).
pub fn parse_job_text(origin: &str, text: &str) -> Result<Vec<JobSpec>> {
    parse_job_text_in(origin, text, None, &[])
}

/// Command-line `key=value` items (a leading `--` dropped) as options.
fn command_line_options(items: &[String]) -> Vec<JobOption> {
    items
        .iter()
        .map(|item| {
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim().trim_start_matches("--").to_string(), Some(v.to_string())),
                None => (item.trim().trim_start_matches("--").to_string(), None),
            };
            JobOption { at: format!("option --{key}"), key, value }
        })
        .collect()
}

/// The jobs of fio's command line (no job file): as fio reads it, options before the first
/// `--name` (and after `--name=global`) are global, and every other `--name=NAME` starts a job
/// that takes the global options given so far, then its own (`ssdlab run --name=w --rw=write
/// --name=r --rw=read` is two jobs side by side, as in fio). Without `--name`, one job `cli`.
pub fn parse_command_line(items: &[String]) -> Result<Vec<JobSpec>> {
    let options = command_line_options(items);
    if let Some(section) = options.iter().find(|o| o.key == "section") {
        return Err(Error::Workload(format!("{}: picks a section of a job file; give the job file too", section.at)));
    }
    if !options.iter().any(|o| o.key == "name") {
        // fio would take these as global options and run no job; ssdlab runs them as job `cli`,
        // its options its own.
        let mut job = crate::options::parse_options("cli", items)?;
        job.echo.job = options.iter().map(|o| (o.key.clone(), o.value.clone().unwrap_or_default())).collect();
        return Ok(vec![job]);
    }
    let mut global: Vec<JobOption> = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut in_global = true;
    let mut problems = Vec::new();
    for option in options {
        if option.key == "name" {
            let name = option.value.as_deref().map(str::trim).unwrap_or("");
            if name.is_empty() {
                problems.push(format!("{}: option `name` needs a value", option.at));
                continue;
            }
            // As fio: `--name=global` goes back to the global options.
            in_global = name == "global";
            if !in_global {
                sections.push(Section { name: name.to_string(), at: option.at.clone(), global: global.clone(), options: Vec::new() });
            }
        } else if in_global {
            global.push(option);
        } else if let Some(job) = sections.last_mut() {
            job.options.push(option);
        }
    }
    if sections.is_empty() && problems.is_empty() {
        problems.push("option --name=global: no job after it (give --name=NAME to start one)".to_string());
    }
    build_groups("command line", sections, &[], problems)
}

fn parse_job_text_in(origin: &str, text: &str, dir: Option<&Path>, overrides: &[String]) -> Result<Vec<JobSpec>> {
    let mut reader = Reader { global: Vec::new(), jobs: Vec::new(), in_global: false, seen_section: false, problems: Vec::new() };
    reader.read(origin, text, dir, 0);
    let mut problems = reader.problems;
    if reader.jobs.is_empty() && problems.is_empty() {
        problems.push(format!("{origin}: no job section (expected at least one [name] besides [global])"));
    }
    let mut command_line = command_line_options(overrides);
    // fio's --section=NAME (repeatable): run only the job sections named.
    let wanted: Vec<JobOption> = command_line.iter().filter(|o| o.key == "section").cloned().collect();
    command_line.retain(|o| o.key != "section");
    let mut sections = reader.jobs;
    if !wanted.is_empty() {
        let names: Vec<String> = sections.iter().map(|s| s.name.clone()).collect();
        for option in &wanted {
            let name = option.value.as_deref().map(str::trim).unwrap_or("");
            if !names.iter().any(|n| n == name) {
                problems.push(format!("{}: {origin} has no job section [{name}] (its sections: {})", option.at, names.join(", ")));
            }
        }
        sections.retain(|s| wanted.iter().any(|o| o.value.as_deref().map(str::trim) == Some(s.name.as_str())));
    }
    // fio would start another job beside the file's; ssdlab applies command-line options to the
    // file's jobs, so a job named there is refused rather than folded into them.
    if let Some(name) = command_line.iter().find(|o| o.key == "name") {
        problems.push(format!("{}: a job named on the command line beside a job file is not supported; add it to the file as a [section]", name.at));
    }
    build_groups(origin, sections, &command_line, problems)
}

/// Validate each section (its global options, its own, then `command_line`) into a job, report
/// every problem at once, and group the jobs as fio does.
fn build_groups(origin: &str, sections: Vec<Section>, command_line: &[JobOption], mut problems: Vec<String>) -> Result<Vec<JobSpec>> {
    let mut jobs = Vec::new();
    // An option wrong in [global] is wrong for every job: say it once.
    let mut reported: std::collections::HashSet<String> = std::collections::HashSet::new();
    for section in sections {
        let mut job = JobSpec::new(&section.name);
        let options: Vec<&JobOption> = section.global.iter().chain(section.options.iter()).chain(command_line.iter()).collect();
        let given = |options: &mut dyn Iterator<Item = &JobOption>| options.map(|o| (o.key.clone(), o.value.clone().unwrap_or_default())).collect();
        let echo = crate::OptionsEcho { global: given(&mut section.global.iter().chain(command_line.iter())), job: given(&mut section.options.iter()) };
        let mut failed = false;
        let mut note = |message: String, problems: &mut Vec<String>, failed: &mut bool| {
            *failed = true;
            let message = clip(message);
            if reported.insert(message.clone()) {
                problems.push(message);
            }
        };
        for option in options.iter().filter(|o| o.key == "kb_base") {
            if let Err(e) = job.set_kb_base(option.value.as_deref(), &option.at) {
                note(e.to_string(), &mut problems, &mut failed);
            }
        }
        for option in options.iter().filter(|o| o.key != "kb_base") {
            if let Err(e) = job.set(&option.key, option.value.as_deref(), &option.at) {
                note(e.to_string(), &mut problems, &mut failed);
            }
        }
        if !failed {
            if let Err(e) = job.finish(&format!("{}: job [{}]", section.at, section.name)) {
                note(e.to_string(), &mut problems, &mut failed);
            }
        }
        job.echo = echo;
        jobs.push(job);
    }
    if !problems.is_empty() {
        let total = problems.len();
        let mut lines: Vec<String> = problems.into_iter().take(MAX_PROBLEMS_LISTED).collect();
        if total > MAX_PROBLEMS_LISTED {
            lines.push(format!("{origin}: ... and {} more problems", total - MAX_PROBLEMS_LISTED));
        }
        return Err(Error::Workload(lines.join("\n")));
    }
    crate::files::lay_out(&mut jobs).map_err(|problems| Error::Workload(problems.join("\n")))?;
    settle_wait_for(&mut jobs)?;
    Ok(expand_numjobs(jobs))
}

/// fio's `wait_for=NAME`: the job starts once every copy of job NAME has finished. ssdlab runs a
/// job file's groups one after the other, so this holds exactly when NAME is every job of the
/// group so far (the job then starts a group, as with `stonewall`) or a job of an earlier group
/// (finished before this group starts: nothing to add). Waiting for some jobs of the group while
/// the others go on is refused, as is a name no job before this one has.
pub(crate) fn settle_wait_for(jobs: &mut [JobSpec]) -> Result<()> {
    let mut group_start = 0;
    for index in 0..jobs.len() {
        if jobs[index].stonewall {
            group_start = index;
        }
        let Some((waitee, at)) = jobs[index].wait_for.clone() else { continue };
        let Some(found) = jobs[..index].iter().rposition(|j| j.name == waitee) else {
            return Err(Error::Workload(format!("{at}: wait_for: no job named `{waitee}` comes before job [{}]", jobs[index].name)));
        };
        if found < group_start {
            continue;
        }
        if let Some(other) = jobs[group_start..index].iter().find(|j| j.name != waitee) {
            return Err(Error::Workload(format!(
                "{at}: wait_for: job [{}] would wait for [{waitee}] while [{}] of the same group goes on, which is not simulated (ssdlab's groups run one after the other: give [{}] stonewall to wait for the whole group)",
                jobs[index].name, other.name, jobs[index].name
            )));
        }
        // The jobs after it in its group would start with it, after [waitee], where fio starts
        // them at once: only a job that waits itself may follow.
        if let Some(later) = jobs[index + 1..].iter().take_while(|j| !j.stonewall).find(|j| j.wait_for.is_none()) {
            return Err(Error::Workload(format!(
                "{at}: wait_for: job [{}] after [{}] would wait for [{waitee}] too, where fio starts it at once (ssdlab's groups run one after the other: put it before [{}], or give it stonewall)",
                later.name, jobs[index].name, jobs[index].name
            )));
        }
        jobs[index].stonewall_for_wait = true;
        jobs[index].stonewall = true;
        group_start = index;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::RwKind;

    #[test]
    fn job_files_apply_global_and_report_lines() {
        let text = "; comment\n[global]\nbs=4k\niodepth=3\n\n[rr]\nrw=randread\nstonewall\n[sw]\nstonewall\nrw=write\nbs=128k\n";
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

    #[test]
    fn fio_syntax_and_grouping() {
        std::env::set_var("SSDLAB_TEST_BS", "8k");
        let text = "[global]\nbs=${SSDLAB_TEST_BS} ; inline\nsize=1m # inline\n[a]\nnumjobs=2\n[b]\n[c]\nstonewall\n";
        let groups = parse_job_text("t.fio", text).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].concurrent.len(), 2);
        assert_eq!(groups[0].block_sizes, vec![(8192, 100)]);
        assert_eq!(groups[1].concurrent.len(), 0);
    }

    #[test]
    fn command_line_names_start_jobs_as_fio() {
        let items = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        // Two jobs side by side; the options before the first --name are global; --name=global
        // goes back to them (fio: the job after takes iodepth=4, the one before does not).
        let groups =
            parse_command_line(&items("--bs=8k --name=w --rw=randwrite --size=1m --name=global --iodepth=4 --name=r --rw=randread --stonewall")).unwrap();
        assert_eq!(groups.len(), 2);
        let (w, r) = (&groups[0], &groups[1]);
        assert_eq!((w.name.as_str(), w.rw, w.iodepth, w.size_bytes, w.block_sizes[0].0), ("w", RwKind::RandWrite, 1, Some(1 << 20), 8192));
        assert_eq!((r.name.as_str(), r.rw, r.iodepth, r.size_bytes, r.block_sizes[0].0), ("r", RwKind::RandRead, 4, None, 8192));
        let groups = parse_command_line(&items("--name=a --rw=write --name=b --rw=read")).unwrap();
        assert_eq!((groups.len(), groups[0].concurrent.len(), groups[0].concurrent[0].name.as_str()), (1, 1, "b"));
        // Without --name: one job `cli`, as before.
        let groups = parse_command_line(&items("--rw=write --bs=4k")).unwrap();
        assert_eq!((groups.len(), groups[0].name.as_str()), (1, "cli"));
        let err = parse_command_line(&items("--name=a --rw=sideways --name=")).unwrap_err().to_string();
        assert!(err.contains("option --rw: rw: unknown kind") && err.contains("option --name: option `name` needs a value"), "{err}");
        let err = parse_job_text_in("t.fio", "[a]\nrw=write\n", None, &items("--name=b")).unwrap_err().to_string();
        assert!(err.contains("beside a job file"), "{err}");
    }

    #[test]
    fn section_runs_only_the_sections_named_as_fio() {
        let text = "[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n[c]\nrw=randread\nstonewall\n";
        let opts = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let groups = parse_job_text_in("t.fio", text, None, &opts(&["--section=b", "--section=c"])).unwrap();
        let names: Vec<&str> = groups.iter().flat_map(|g| g.group()).map(|j| j.name.as_str()).collect();
        assert_eq!((names, groups.len()), (vec!["b", "c"], 2));
        let err = parse_job_text_in("t.fio", text, None, &opts(&["--section=zz"])).unwrap_err().to_string();
        assert!(err.contains("option --section: t.fio has no job section [zz] (its sections: a, b, c)"), "{err}");
        let err = parse_command_line(&opts(&["--section=a", "--rw=read"])).unwrap_err().to_string();
        assert!(err.contains("give the job file too"), "{err}");
    }

    #[test]
    fn every_problem_at_once_with_lines() {
        let text = "[global]\nfoo=1\n[a]\nbar=2\nbs=3\n[b]\nrw=write\nbaz\n";
        let err = parse_job_text("t.fio", text).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 4, "{err}");
        assert!(lines[0].starts_with("t.fio:2:") && lines[3].starts_with("t.fio:8:"), "{err}");
        let long = format!("[a]\nrw={}\n", "x".repeat(100_000));
        let err = parse_job_text("t.fio", &long).unwrap_err().to_string();
        assert!(err.len() < 400 && err.starts_with("t.fio:2: rw:"), "{err}");
        let err = text_of(vec![b'[', b'a', b']', b'\n', 0, 1, 2], "g.fio").unwrap_err().to_string();
        assert!(err.starts_with("g.fio:2: binary data"), "{err}");
    }

    #[test]
    fn wait_for_the_whole_group_starts_a_group() {
        // fio's waitfor.fio: each job waits for the one before (all its copies).
        let text = "[w]\nrw=write\nnumjobs=2\nsize=1m\n[r]\nwait_for=w\nrw=randread\nsize=1m\n[w2]\nwait_for=r\nrw=randwrite\nsize=1m\n";
        let groups = parse_job_text("t.fio", text).unwrap();
        assert_eq!(groups.iter().map(|g| (g.name.as_str(), g.concurrent.len())).collect::<Vec<_>>(), vec![("w", 1), ("r", 0), ("w2", 0)]);
        // Their stonewalls are ssdlab's (fio keeps them in the reporting group before).
        assert_eq!(groups.iter().map(|g| g.stonewall_for_wait).collect::<Vec<_>>(), vec![false, true, true]);
        // A job of an earlier group has finished already: nothing to add.
        let text = "[a]\nsize=1m\n[b]\nstonewall\nsize=1m\n[c]\nwait_for=a\nsize=1m\n";
        let groups = parse_job_text("t.fio", text).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[1].concurrent.len(), 1);
    }

    #[test]
    fn wait_for_part_of_a_group_or_nobody_is_refused() {
        let err = parse_job_text("t.fio", "[a]\nsize=1m\n[b]\nsize=1m\n[c]\nwait_for=a\nsize=1m\n").unwrap_err().to_string();
        assert!(err.contains("t.fio:6: wait_for: job [c] would wait for [a] while [b]"), "{err}");
        let err = parse_job_text("t.fio", "[a]\nwait_for=zzz\nsize=1m\n").unwrap_err().to_string();
        assert!(err.contains("no job named `zzz`"), "{err}");
        // A job after the waiter would be pulled into its group (fio starts it at once).
        let err = parse_job_text("t.fio", "[a]\nsize=8m\n[b]\nwait_for=a\nsize=1m\n[c]\nsize=1m\n").unwrap_err().to_string();
        assert!(err.contains("job [c] after [b] would wait for [a] too"), "{err}");
    }
}
