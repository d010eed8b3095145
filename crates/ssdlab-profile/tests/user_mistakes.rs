//! Mistakes a user makes writing a profile from a spec sheet, each valid in its own section and
//! contradicting another: every one was accepted silently before `consistency.rs`, and each is
//! now refused at the file's line of the field to change, saying what it contradicts.

use ssdlab_profile::{builtin_source, parse_profile};

/// A built-in profile's text with `find` replaced (it must be there).
fn edited(profile: &str, find: &str, replace: &str) -> String {
    let text = builtin_source(profile).unwrap();
    assert!(text.contains(find), "{profile}: {find}");
    text.replacen(find, replace, 1)
}

/// The error of loading `text`, which must name `field` at the line where `line_text` is.
fn refused_at(text: &str, field: &str, line_text: &str) -> String {
    let err = parse_profile("x", "my-drive.toml", text, &[]).expect_err("the mistake was accepted").to_string();
    let line = text.lines().position(|l| l.trim_start().starts_with(line_text)).expect("line") + 1;
    assert!(err.starts_with(&format!("my-drive.toml:{line}: {field}:")), "{err}");
    err
}

#[test]
fn host_memory_buffer_on_sata_is_refused() {
    let text = edited("samsung-870-qvo-1tb", "idle_mw = 30.0 ", "map_cache_bytes = 1_048_576\nhmb_bytes = 33_554_432\nidle_mw = 30.0 ");
    let err = refused_at(&text, "controller.hmb_bytes", "hmb_bytes");
    assert!(err.contains("NVMe") && err.contains("sata-6g"), "{err}");
}

#[test]
fn lanes_on_sata_are_refused_and_default_to_four_on_nvme() {
    let text = edited("samsung-870-qvo-1tb", "queue_depth_max = 32", "queue_depth_max = 32\nlanes = 4");
    let err = refused_at(&text, "host.lanes", "lanes");
    assert!(err.contains("pcie3 and pcie4"), "{err}");
    let nvme = edited("wd-sn580-1tb", "lanes = 4\n", "");
    let p = parse_profile("x", "my-drive.toml", &nvme, &[]).unwrap();
    assert_eq!(p.host.lanes, 4);
}

#[test]
fn link_faster_than_the_interface_is_refused() {
    // A SATA drive given its NVMe sibling's 3,500 MB/s.
    let text = edited("samsung-870-qvo-1tb", "queue_depth_max = 32", "queue_depth_max = 32\nlink_mbps = 3500");
    let err = refused_at(&text, "host.link_mbps", "link_mbps");
    assert!(err.contains("600 MB/s"), "{err}");
    // PCIe 4.0 x4 carries 7,876 MB/s after coding: 7,000 is accepted, 8,000 is not.
    let ok = edited("wd-sn580-1tb", "lanes = 4", "lanes = 4\nlink_mbps = 7000");
    assert_eq!(parse_profile("x", "my-drive.toml", &ok, &[]).unwrap().host.link_bytes_per_second, 7_000_000_000);
    let text = edited("wd-sn580-1tb", "lanes = 4", "lanes = 4\nlink_mbps = 8000");
    let err = refused_at(&text, "host.link_mbps", "link_mbps");
    assert!(err.contains("pcie4 x4") && err.contains("7876 MB/s"), "{err}");
}

#[test]
fn conflicting_program_times_are_refused() {
    // The native program time written in [nand] as a per-page figure and in [media] per word line.
    let text = edited("samsung-870-qvo-1tb", "t_prog_ns = 12_900_000        # = media.t_prog_ns", "t_prog_ns = 3_200_000");
    let err = refused_at(&text, "nand.t_prog_ns", "t_prog_ns = 3_200_000");
    assert!(err.contains("media.t_prog_ns (12900000 ns)"), "{err}");
}

#[test]
fn pslc_slower_than_native_is_refused() {
    // pSLC program time in microseconds x 1000 twice: the cache would be slower than QLC.
    let text = edited("samsung-870-qvo-1tb", "pslc_t_prog_ns = 150_000", "pslc_t_prog_ns = 15_000_000");
    let err = refused_at(&text, "media.pslc_t_prog_ns", "pslc_t_prog_ns");
    assert!(err.contains("3225000 ns") && err.contains("4 pages"), "{err}");
    let text = edited("samsung-870-qvo-1tb", "pslc_t_read_ns = 40_000", "pslc_t_read_ns = 400_000");
    let err = refused_at(&text, "media.pslc_t_read_ns", "pslc_t_read_ns");
    assert!(err.contains("120000 ns"), "{err}");
}

#[test]
fn cache_size_in_gigabytes_is_refused() {
    let text = edited("samsung-870-qvo-1tb", "static_bytes = 6_000_000_000", "static_bytes = 6");
    let err = refused_at(&text, "slc_cache.static_bytes", "static_bytes");
    assert!(err.contains("12_000_000_000"), "{err}");
    let text = edited("samsung-870-qvo-1tb", "dynamic_max_bytes = 36_000_000_000", "dynamic_max_bytes = 36");
    refused_at(&text, "slc_cache.dynamic_max_bytes", "dynamic_max_bytes");
}

#[test]
fn power_state_in_watts_is_refused() {
    let text = edited("wd-sn580-1tb", "state_mw = [4_500.0, 3_200.0, 2_200.0, 20.0, 5.0]", "state_mw = [4.5, 3.2, 2.2, 0.02, 0.005]");
    let err = refused_at(&text, "power.state_mw", "state_mw");
    assert!(err.contains("milliwatts") && err.contains("620 mW"), "{err}");
}

#[test]
fn slc_cache_beside_data_reduction_is_refused() {
    let text = edited("force-gs-240", "[host]", "[media]\ncell = \"mlc\"\npslc_t_prog_ns = 300_000\n\n[slc_cache]\nstatic_bytes = 4_000_000_000\n\n[host]");
    let err = refused_at(&text, "slc_cache.static_bytes", "static_bytes");
    assert!(err.contains("[reduction]"), "{err}");
}

#[test]
fn program_time_overrides_go_to_the_media_section() {
    // `--set media.t_prog_ns` changes the time a today's drive programs with, and the timing
    // follows it; `--set nand.t_prog_ns` alone would change nothing and is refused.
    let p = ssdlab_profile::load_profile("samsung-980-pro-1tb", &["media.t_prog_ns=900000".into()]).unwrap();
    assert_eq!((p.media.t_prog_ns, p.timing.t_prog_ns), (900_000, 900_000));
    let err = ssdlab_profile::load_profile("samsung-980-pro-1tb", &["nand.t_prog_ns=900000".into()]).unwrap_err().to_string();
    assert!(err.starts_with("--set nand.t_prog_ns:") && err.contains("set media.t_prog_ns"), "{err}");
    // A profile without [media] takes nand.t_prog_ns as before.
    let p = ssdlab_profile::load_profile("force-gs-240", &["nand.t_prog_ns=900000".into()]).unwrap();
    assert_eq!((p.media.t_prog_ns, p.timing.t_prog_ns), (900_000, 900_000));
}

#[test]
fn a_missing_section_is_named_as_a_section() {
    let text = builtin_source("samsung-870-qvo-1tb").unwrap();
    let start = text.find("[energy]").unwrap();
    let end = start + text[start..].find("[thermal]").unwrap();
    let without = format!("{}{}", &text[..start], &text[end..]);
    let err = parse_profile("x", "my-drive.toml", &without, &[]).unwrap_err().to_string();
    assert!(err.contains("missing section [energy]") && err.contains("[controller], [ftl], [energy]"), "{err}");
    // A missing field inside a section is still a field.
    let err = parse_profile("x", "my-drive.toml", &text.replacen("model = ", "# model = ", 1), &[]).unwrap_err().to_string();
    assert!(err.contains("missing field `model`"), "{err}");
}

#[test]
fn nvme_power_states_on_sata_are_refused() {
    // The drive model would apply APST and exit latencies to a SATA drive, whose review leaves
    // the power-states suite out as NVMe-only.
    let power = "[power]\nstate_mw = [4_000.0, 30.0]\noperational = [true, false]\nentry_latency_us = [0, 5_000]\nexit_latency_us = [0, 5_000]\n\n[thermal]";
    let text = edited("samsung-870-qvo-1tb", "[thermal]", power);
    let err = refused_at(&text, "power.state_mw", "state_mw");
    assert!(err.contains("sata-6g") && err.contains("remove [power]"), "{err}");
}

#[test]
fn reads_first_is_on_for_todays_drives_and_cannot_be_turned_off_beside_suspend() {
    // Default: on with [media] (today's drives), off without (the era's drives); either can be set.
    assert!(parse_profile("x", "my-drive.toml", builtin_source("wd-sn580-1tb").unwrap(), &[]).unwrap().controller.reads_first);
    assert!(!parse_profile("x", "my-drive.toml", builtin_source("force-gs-240").unwrap(), &[]).unwrap().controller.reads_first);
    let off = ["controller.reads_first=false".to_string()];
    assert!(!parse_profile("x", "my-drive.toml", builtin_source("wd-sn580-1tb").unwrap(), &off).unwrap().controller.reads_first);
    // NAND that suspends programs for host reads lets them go first: false beside it is refused.
    let text = edited("samsung-980-pro-1tb", "[controller]\n", "[controller]\nreads_first = false\n");
    let err = refused_at(&text, "controller.reads_first", "reads_first");
    assert!(err.contains("media.suspend_latency_ns") && err.contains("lets host reads go first"), "{err}");
}

#[test]
fn a_controller_that_takes_no_time_per_command_is_refused() {
    // With no time per command, a TRIM (no flash) took 0 us: 2,000,000,000,000,000 IOPS.
    let text = builtin_source("wd-sn580-1tb").unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("command_processing_ns")).expect("the field").to_string();
    let text = text.replacen(&line, "command_processing_ns = 0", 1);
    let err = refused_at(&text, "controller.command_processing_ns", "command_processing_ns");
    assert!(err.contains("at least 1 ns"), "{err}");
}

#[test]
fn a_model_name_with_control_characters_or_none_is_refused() {
    // A bell and a newline in the name were printed raw in every summary and report title.
    let text = builtin_source("wd-sn580-1tb").unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("model")).expect("the field").to_string();
    for (bad, says) in [(r#"model = "a\u0007b\nc""#, "control character"), (r#"model = "  ""#, "give the drive's name")] {
        let edited = text.replacen(&line, bad, 1);
        let err = refused_at(&edited, "drive.model", "model");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_journal_smaller_than_a_page_is_refused_and_a_huge_one_is_named_in_the_spare_error() {
    // journal_bytes = 1 (less than one 8-byte record) was taken: a checkpoint every write.
    let text = builtin_source("conventional-240").unwrap().replacen("[controller]\n", "[controller]\njournal_bytes = 1\n", 1);
    let err = refused_at(&text, "controller.journal_bytes", "journal_bytes");
    assert!(err.contains("at least one NAND page"), "{err}");
    // A journal that leaves no spare: the message says the metadata takes the room (before, it
    // said 1,708,985 user sectors were "not smaller" than 2,097,152 slots).
    let huge = parse_profile(
        "x",
        "my-drive.toml",
        builtin_source("conventional-240").unwrap(),
        &["nand.blocks_per_plane=64".into(), "drive.capacity_bytes_user=7000002560".into(), "controller.journal_bytes=2000000000".into()],
    );
    let err = huge.expect_err("the journal leaves no spare").to_string();
    assert!(err.contains("metadata in flash") && err.contains("controller.journal_bytes"), "{err}");
}
