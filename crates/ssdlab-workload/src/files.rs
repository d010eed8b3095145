//! The files a job file names, laid out on the simulated drive.
//!
//! fio's jobs on different files (`filename=a`, `filename=b`) touch different blocks: a file
//! system puts each file somewhere else on the device. ssdlab has no file system, so when a job
//! file names two or more files, each file gets its own region of the drive, one after the other
//! in the order the files first appear, each as long as the furthest any job reaches into it
//! (offset, `numjobs` copies' `offset_increment`, size), starting on a MiB boundary (as a file
//! system aligns its allocations). A job's offsets then count from its file's start.
//!
//! Unchanged: a job without `filename`, or with a device (`/dev/...`), addresses the drive from
//! its first byte, as does every job of a job file that names at most one file. Laying files out
//! needs each file's size in bytes: a job naming one of several files with a percentage size or
//! offset, or `fill_device`, is refused with what to give.

use crate::options::JobSpec;

/// Files start on this boundary.
const FILE_ALIGN_BYTES: u64 = 1 << 20;

/// Whether fio's `filename` names a device (the drive itself) rather than a file.
fn is_device(name: &str) -> bool {
    name.starts_with("/dev/")
}

/// Give each job naming one of several files its file's start (`JobSpec::file_base_bytes`).
/// `jobs` are a job file's jobs in order, before their `numjobs` copies are made.
pub(crate) fn lay_out(jobs: &mut [JobSpec]) -> Result<(), Vec<String>> {
    let mut files: Vec<String> = Vec::new();
    for job in jobs.iter() {
        if let Some((name, _)) = &job.filename {
            if !is_device(name) && !files.contains(name) {
                files.push(name.clone());
            }
        }
    }
    if files.len() < 2 {
        return Ok(());
    }
    let mut lengths = vec![0u64; files.len()];
    let mut problems = Vec::new();
    for job in jobs.iter() {
        let Some((name, at)) = &job.filename else { continue };
        let Some(file) = files.iter().position(|f| f == name) else { continue };
        let size = match job.size_bytes {
            Some(bytes) if job.offset_percent.is_none() && job.offset_increment_percent.is_none() && !job.fill_device => bytes,
            _ => {
                problems.push(format!(
                    "{at}: filename: the job file names {} files ({}), which ssdlab lays out on the drive one after the other: that needs job [{}]'s size in bytes (size=, not a percentage or fill_device) and its offsets in bytes; or address the drive itself (filename=/dev/...)",
                    files.len(),
                    files.join(", "),
                    job.name
                ));
                continue;
            }
        };
        let copies = job.numjobs.saturating_sub(1) as u64;
        let reach = job.offset_bytes.saturating_add(copies.saturating_mul(job.offset_increment_bytes)).saturating_add(size);
        lengths[file] = lengths[file].max(reach);
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut bases = Vec::with_capacity(files.len());
    let mut next = 0u64;
    for length in &lengths {
        bases.push(next);
        next = next.saturating_add(length.div_ceil(FILE_ALIGN_BYTES).saturating_mul(FILE_ALIGN_BYTES));
    }
    for job in jobs.iter_mut() {
        if let Some(file) = job.filename.as_ref().and_then(|(name, _)| files.iter().position(|f| f == name)) {
            job.file_base_bytes = bases[file];
            // The name places the job: not an option without effect any more.
            job.no_effect.retain(|k| k != "filename");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::parse_job_text;

    fn bases(text: &str) -> Vec<(String, u64)> {
        let groups = parse_job_text("t.fio", text).unwrap();
        groups.iter().flat_map(|g| std::iter::once(g).chain(g.concurrent.iter())).map(|j| (j.name.clone(), j.file_base_bytes)).collect()
    }

    #[test]
    fn several_files_get_regions_one_after_the_other() {
        let text = "[global]\nbs=4k\nsize=16m\n[a]\nfilename=fileA\n[b]\nfilename=fileB\noffset=1m\n[a2]\nfilename=fileA\n[dev]\nfilename=/dev/sda\n[plain]\n";
        let got = bases(text);
        // fileA: 16 MiB; fileB reaches 17 MiB; the device and the job without a file: the drive.
        assert_eq!(got, vec![("a".into(), 0), ("b".into(), 16 << 20), ("a2".into(), 0), ("dev".into(), 0), ("plain".into(), 0)]);
        // numjobs copies of a job reach into its file by offset_increment.
        let got = bases("[global]\nsize=1m\n[a]\nfilename=x\nnumjobs=3\noffset_increment=2m\n[b]\nfilename=y\n");
        assert_eq!(got.iter().map(|(_, b)| *b).collect::<Vec<_>>(), vec![0, 0, 0, 5 << 20]);
    }

    #[test]
    fn one_file_or_none_changes_nothing() {
        assert!(bases("[a]\nfilename=f\nsize=1m\n[b]\nfilename=f\nsize=1m\n").iter().all(|(_, b)| *b == 0));
        assert!(bases("[a]\nfilename=/dev/sda\n[b]\nfilename=/dev/sdb\nsize=1m\n").iter().all(|(_, b)| *b == 0));
    }

    #[test]
    fn several_files_need_sizes_in_bytes() {
        let err = parse_job_text("t.fio", "[a]\nfilename=f\nsize=50%\n[b]\nfilename=g\nsize=1m\n").unwrap_err().to_string();
        assert!(err.contains("t.fio:2: filename: the job file names 2 files (f, g)") && err.contains("job [a]'s size in bytes"), "{err}");
    }
}
