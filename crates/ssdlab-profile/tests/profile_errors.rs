//! Profiles load, and bad profiles fail with messages that name the file, line and field.

use ssdlab_profile::{builtin_names, builtin_source, load_profile, parse_profile};

#[test]
fn builtins_load_and_report_spare() {
    for name in builtin_names() {
        let p = load_profile(name, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(p.spare_over_user() > 0.06 && p.spare_over_user() < 0.4, "{name}: {}", p.spare_over_user());
        assert!(p.spare_over_raw() < p.spare_over_user());
    }
    let gs = load_profile("force-gs-240", &[]).unwrap();
    assert_eq!(gs.geometry.dies(), 32);
    assert_eq!(gs.raw_bytes(), 256 << 30);
}

fn broken(find: &str, replace: &str) -> String {
    let text = builtin_source("force-gs-240").unwrap();
    assert!(text.contains(find), "{find}");
    text.replacen(find, replace, 1)
}

fn error_of(text: &str) -> String {
    parse_profile("x", "drive.toml", text, &[]).unwrap_err().to_string()
}

#[test]
fn unknown_field_names_file_line_and_field() {
    let err = error_of(&broken("pages_per_block = 256", "pages_per_block = 256\npages_per_blok = 3"));
    assert!(err.starts_with("drive.toml:"), "{err}");
    assert!(err.contains("pages_per_blok"), "{err}");
    let line: usize = err.split(':').nth(1).unwrap().parse().unwrap();
    assert!(line > 10, "{err}");
}

#[test]
fn zero_and_negative_geometry_are_refused() {
    let text = broken("planes_per_die = 2", "planes_per_die = 0");
    let line = text.lines().position(|l| l.starts_with("planes_per_die")).unwrap() + 1;
    let err = error_of(&text);
    assert!(err.contains("nand.planes_per_die") && err.starts_with(&format!("drive.toml:{line}:")), "{err}");
    let err = error_of(&broken("channels = 8", "channels = -8"));
    assert!(err.starts_with("drive.toml:") && err.contains("channels") || err.contains("-8"), "{err}");
}

#[test]
fn too_little_spare_is_refused() {
    let err = error_of(&broken("capacity_bytes_user = 240_000_000_000", "capacity_bytes_user = 274_799_996_928"));
    assert!(err.contains("over-provisioning too small"), "{err}");
    assert!(err.contains("capacity_bytes_user"), "{err}");
    let err = error_of(&broken("capacity_bytes_user = 240_000_000_000", "capacity_bytes_user = 300_000_002_048"));
    assert!(err.contains("no spare area"), "{err}");
}

#[test]
fn overrides_apply_and_are_checked() {
    let p = load_profile("force-gs-240", &["ftl.gc_policy=cost-benefit".into(), "nand.t_prog_ns=900000".into()]).unwrap();
    assert_eq!(p.ftl.gc_policy.name(), "cost-benefit");
    assert_eq!(p.timing.t_prog_ns, 900_000);
    let err = load_profile("force-gs-240", &["ftl.gc_polcy=greedy".into()]).unwrap_err().to_string();
    assert!(err.contains("gc_polcy"), "{err}");
    let err = load_profile("force-gs-240", &["nosuch.x=1".into()]).unwrap_err().to_string();
    assert!(err.contains("[nosuch]"), "{err}");
    let err = load_profile("no-such-drive", &[]).unwrap_err().to_string();
    assert!(err.contains("no-such-drive") && err.contains("force-gs-240"), "{err}");
}

fn override_error(item: &str) -> String {
    load_profile("force-gs-240", &[item.to_string()]).unwrap_err().to_string()
}

#[test]
fn values_that_would_overflow_are_refused_by_field() {
    // Regression: a die count that overflows 32 bits passed validation; a rate in MB/s that
    // overflows when multiplied by 10^6 became 1 MB/s or unlimited; huge latencies were
    // accepted and made runs allocate gigabytes for their per-second series.
    for (item, field) in [
        ("nand.channels=2147483650", "nand.channels"),
        ("host.link_mbps=288230376151711744", "host.link_mbps"),
        ("nand.bus_mbps=288230376151711744", "nand.bus_mbps"),
        ("reduction.backend_write_mbps=288230376151711744", "reduction.backend_write_mbps"),
        ("nand.t_prog_ns=9223372036854775000", "nand.t_prog_ns"),
        ("controller.command_processing_ns=4611686018427387904", "controller.command_processing_ns"),
        ("host.command_overhead_ns=4611686018427387904", "host.command_overhead_ns"),
        ("energy.read_nj_per_page=1e300", "energy.read_nj_per_page"),
        ("controller.idle_mw=nan", "controller.idle_mw"),
    ] {
        let err = override_error(item);
        assert!(err.starts_with(&format!("--set {field}: ")) && !err.contains(&format!("{field}: {field}")), "{item}: {err}");
    }
}

#[test]
fn each_error_names_its_own_field() {
    // Regression: every FTL reserve error was reported against drive.capacity_bytes_user.
    let err = override_error("ftl.gc_low_free_blocks_per_die=0");
    assert!(err.contains("ftl.gc_low_free_blocks_per_die") && !err.contains("capacity_bytes_user:"), "{err}");
    let err = override_error("ftl.gc_low_free_blocks_per_die=5000");
    assert!(err.starts_with("--set ftl.gc_low_free_blocks_per_die"), "{err}");
    // A field the override did not touch is placed at its line in the file.
    let err = load_profile("force-gs-240", &["nand.blocks_per_plane=64".into()]).unwrap_err().to_string();
    assert!(err.starts_with("profile `force-gs-240`:") && err.contains("drive.capacity_bytes_user"), "{err}");
    let line: usize = err.split(':').nth(1).unwrap().trim().parse().unwrap_or_else(|_| panic!("{err}"));
    assert!(line > 5, "{err}");
}

#[test]
fn issue19_profile_inputs_are_refused_naming_the_field_key_or_file() {
    // A GC window of no blocks.
    let err = override_error("ftl.gc_window_blocks=0");
    assert!(err.contains("ftl.gc_window_blocks: must be at least 1"), "{err}");
    // A duplicate key names the key and its line.
    let err = error_of(&broken("pages_per_block = 256", "pages_per_block = 256\npages_per_block = 128"));
    assert!(err.starts_with("drive.toml:") && err.contains("duplicate key `pages_per_block`"), "{err}");
    // --set values with a newline, or with TOML smuggled after the value, are refused.
    let err = override_error("nand.channels=8\n[ftl]\ngc_policy = \"greedy\"");
    assert!(err.contains("--set nand.channels") && err.contains("control character"), "{err}");
    let err = override_error("nand.channels=8\rx=1");
    assert!(err.contains("control character"), "{err}");
    // A device or a folder given as a profile.
    let err = load_profile("/dev/zero", &[]).unwrap_err().to_string();
    assert!(err.contains("/dev/zero: is a device"), "{err}");
    let err = load_profile("/", &[]).unwrap_err().to_string();
    assert!(err.contains("is a folder"), "{err}");
}

#[test]
fn power_state_and_thermal_errors_name_their_field() {
    let err = |item: &str| load_profile("samsung-980-pro-1tb", &[item.to_string()]).unwrap_err().to_string();
    for (item, field, says) in [
        ("power.exit_latency_us=[0, 200, 1000]", "power.exit_latency_us", "one entry per power state"),
        ("power.operational=[false, true, true, false, false]", "power.operational", "PS0 must be an operational state"),
        ("power.apst_idle_ms=[0, 0, 100, 160, 500]", "power.apst_idle_ms", "APST only enters non-operational states"),
        ("power.state_mw=[8490.0, 4480.0, 3180.0, 40.0, -5.0]", "power.state_mw", "PS4"),
        ("power.state_mw=[8490.0, 4480.0, 3180.0, 40.0, 50000.0]", "power.state_mw", "PS4: a non-operational state draws at most PS0's"),
        ("thermal.nand_k_per_w=0", "thermal.nand_k_per_w", "more than 0"),
        ("thermal.throttle_nand_duty=[0.75]", "thermal.throttle_nand_duty", "one duty per throttle temperature"),
        ("thermal.throttle_c=[85.0, 82.0]", "thermal.throttle_c", "above the step before"),
        ("thermal.ambient_c=500", "thermal.ambient_c", "-40 to 100"),
    ] {
        let e = err(item);
        assert!(e.starts_with(&format!("--set {field}: ")) && e.contains(says), "{item}: {e}");
    }
    // A mistake in the file itself is placed at its line.
    let source = ssdlab_profile::builtin_source("samsung-980-pro-1tb").unwrap().replace("throttle_hysteresis_c = 2.0", "throttle_hysteresis_c = 90.0");
    let e = ssdlab_profile::parse_profile("p", "p.toml", &source, &[]).unwrap_err().to_string();
    let line = source.lines().position(|l| l.starts_with("throttle_hysteresis_c")).unwrap() + 1;
    assert!(e.starts_with(&format!("p.toml:{line}: thermal.throttle_hysteresis_c:")), "{e}");
}

/// The error of `name` with `find` replaced by `replace`, and the 1-based line of `marker` in
/// the edited text (the first line starting with it: where the error must be placed).
fn error_at(name: &str, find: &str, replace: &str, marker: &str) -> (String, usize) {
    let text = builtin_source(name).unwrap();
    assert!(text.contains(find), "{name}: {find}");
    let text = text.replacen(find, replace, 1);
    let line = text.lines().position(|l| l.starts_with(marker)).unwrap_or_else(|| panic!("{marker}")) + 1;
    (parse_profile("x", "bad.toml", &text, &[]).map(|_| ()).unwrap_err().to_string(), line)
}

/// `name` with `find` replaced by `replace` is refused at the replaced line, naming `field` and
/// saying `says`.
fn assert_field_error(name: &str, find: &str, replace: &str, field: &str, says: &str) {
    let marker = replace.split('=').next().unwrap();
    let (err, line) = error_at(name, find, replace, marker);
    assert!(err.starts_with(&format!("bad.toml:{line}: {field}: ")) && err.contains(says), "{replace}: {err}");
}

#[test]
fn type_errors_name_the_field_and_what_was_expected() {
    // Regression: serde's type errors gave the line but not the field, and a Rust type
    // ("invalid type: string \"four\", expected u32").
    for (find, replace, field, says) in [
        // A number field says the range its own check accepts (not its Rust type's).
        ("channels = 8", "channels = \"four\"", "nand.channels", "invalid type: string \"four\"; must be 1 to 1024"),
        ("channels = 8", "channels = 5000000000", "nand.channels", "invalid value: integer `5000000000`; must be 1 to 1024"),
        ("t_read_ns = 50_000", "t_read_ns = -5", "nand.t_read_ns", "integer `-5`; must be 1 to 10000000000 ns"),
        ("t_read_ns = 50_000", "t_read_ns = 50.5", "nand.t_read_ns", "floating point `50.5`; must be 1 to 10000000000 ns"),
        (
            "capacity_bytes_user = 240_000_000_000",
            "capacity_bytes_user = \"480 GB\"",
            "drive.capacity_bytes_user",
            "string \"480 GB\"; must be a positive multiple of 4096 bytes",
        ),
        ("active_mw = 1_200.0", "active_mw = \"1.2 W\"", "controller.active_mw", "expected a number"),
        ("enabled = true", "enabled = \"yes\"", "reduction.enabled", "expected a boolean"),
    ] {
        assert_field_error("force-gs-240", find, replace, field, says);
    }
}

#[test]
fn type_errors_in_optional_sections_and_arrays_name_the_field() {
    // [power]: one entry of a list, on a line of its own, is placed at that line.
    let (err, line) = error_at("samsung-980-pro-1tb", "state_mw = [8_490.0, 4_480.0,", "state_mw = [8_490.0,\n\"4.48 W\",", "\"4.48 W\"");
    assert!(err.starts_with(&format!("bad.toml:{line}: power.state_mw: invalid type: string \"4.48 W\", expected a number")), "{err}");
    for (find, replace, field, says) in [
        ("t_read_page_ns = [40_000, 50_000, 60_000]", "t_read_page_ns = 50_000", "media.t_read_page_ns", "expected an array"),
        ("one_shot = true", "one_shot = 1", "media.one_shot", "expected a boolean"),
        ("idle_fold = true", "idle_fold = \"yes\"", "slc_cache.idle_fold", "expected a boolean"),
        ("lanes = 4", "lanes = \"x4\"", "host.lanes", "invalid type: string \"x4\"; must be 1, 2, 4, 8 or 16 PCIe lanes"),
        ("throttle_hysteresis_c = 2.0", "throttle_hysteresis_c = [2.0]", "thermal.throttle_hysteresis_c", "expected a number"),
    ] {
        assert_field_error("samsung-980-pro-1tb", find, replace, field, says);
    }
}

#[test]
fn unknown_and_missing_fields_name_section_and_field() {
    // Regression: "unknown field `bogus`" without its section.
    let (err, line) = error_at("force-gs-240", "reserved_user_fraction = 0.0", "reserved_user_fraction = 0.0\nbogus = 1", "bogus");
    assert!(err.starts_with(&format!("bad.toml:{line}: drive.bogus: unknown field `bogus`, expected one of `model`")), "{err}");
    let (err, line) = error_at("samsung-980-pro-1tb", "suspend_max_per_op = 4", "suspend_max_per_op = 4\nsuspend_max = 4", "suspend_max =");
    assert!(err.starts_with(&format!("bad.toml:{line}: media.suspend_max: unknown field `suspend_max`")), "{err}");
    let (err, line) = error_at("force-gs-240", "[nand]\nchannels = 8", "[nand]", "[nand]");
    assert!(err.starts_with(&format!("bad.toml:{line}: nand.channels: missing field `channels`")), "{err}");
    let (err, line) = error_at("force-gs-240", "[drive]", "[drvie]", "[drvie]");
    assert!(err.starts_with(&format!("bad.toml:{line}: unknown section [drvie], expected one of `drive`")), "{err}");
}

#[test]
fn type_errors_and_unknown_fields_given_with_set_name_the_override() {
    for (item, says) in [
        ("nand.channels=four", "--set nand.channels: invalid type: string \"four\"; must be 1 to 1024"),
        ("nand.bogus=1", "--set nand.bogus: unknown field `bogus`, expected one of `channels`"),
        ("controller.power_loss_protection=maybe", "--set controller.power_loss_protection: invalid type: string \"maybe\", expected a boolean"),
        ("power.state_mw=[8490.0, \"x\"]", "--set power.state_mw: invalid type: string \"x\", expected a number"),
    ] {
        let err = load_profile("samsung-980-pro-1tb", &[item.to_string()]).unwrap_err().to_string();
        assert!(err.starts_with(says), "{item}: {err}");
    }
    // A mistake in the file is still placed at its line when overrides are given.
    let text = builtin_source("force-gs-240").unwrap().replacen("channels = 8", "channels = \"8\"", 1);
    let line = text.lines().position(|l| l.starts_with("channels")).unwrap() + 1;
    let err = parse_profile("x", "bad.toml", &text, &["ftl.gc_policy=greedy".into()]).map(|_| ()).unwrap_err().to_string();
    assert!(err.starts_with(&format!("bad.toml:{line}: nand.channels: invalid type")), "{err}");
}

#[test]
fn number_type_errors_say_the_range_the_field_accepts_in_one_message() {
    // Regression: `queue_depth_max = -1` said "expected a whole number from 0 to 4294967295"
    // (the Rust type's range), and a value in that range then got a second message, "SATA NCQ
    // allows 1 to 32"; a number past i64 also leaked "as i128".
    for (profile, replace, says) in [
        ("force-gs-240", "queue_depth_max = -1", "invalid value: integer `-1`; SATA NCQ allows 1 to 32 outstanding commands"),
        ("force-gs-240", "queue_depth_max = \"x\"", "invalid type: string \"x\"; SATA NCQ allows 1 to 32 outstanding commands"),
        ("force-gs-240", "queue_depth_max = 1.5", "invalid type: floating point `1.5`; SATA NCQ allows 1 to 32 outstanding commands"),
        (
            "force-gs-240",
            "queue_depth_max = 99999999999999999999999",
            "invalid type: integer `99999999999999999999999`; SATA NCQ allows 1 to 32 outstanding commands",
        ),
        ("samsung-980-pro-1tb", "queue_depth_max = -1", "invalid value: integer `-1`; an NVMe queue holds 1 to 65536 commands"),
    ] {
        let find = builtin_source(profile).unwrap().lines().find(|l| l.starts_with("queue_depth_max")).unwrap().to_string();
        let (err, line) = error_at(profile, &find, replace, "queue_depth_max");
        assert_eq!(err, format!("bad.toml:{line}: host.queue_depth_max: {says}"), "{replace}");
        assert!(!err.contains("i128") && !err.contains("4294967295"), "{err}");
    }
    // Given with --set: the same one message, naming the override.
    let err = load_profile("force-gs-240", &["host.queue_depth_max=-1".into()]).unwrap_err().to_string();
    assert_eq!(err, "--set host.queue_depth_max: invalid value: integer `-1`; SATA NCQ allows 1 to 32 outstanding commands");
    // A u64 field: its check's range, not "0 or more".
    let (err, _) = error_at("force-gs-240", "t_read_ns = 50_000", "t_read_ns = -5", "t_read_ns");
    assert!(err.ends_with("nand.t_read_ns: invalid value: integer `-5`; must be 1 to 10000000000 ns"), "{err}");
}

#[test]
fn a_profile_with_nul_bytes_is_called_binary() {
    // Regression: toml read the NUL as a syntax error, "key with no value".
    let mut text = builtin_source("force-gs-240").unwrap().to_string();
    let at = text.find("[nand]").unwrap();
    text.insert_str(at, "\0\0\u{1}garbage\n");
    let line = text[..at].lines().count() + 1;
    let err = parse_profile("x", "drive.toml", &text, &[]).map(|_| ()).unwrap_err().to_string();
    assert_eq!(err, format!("drive.toml:{line}: binary data (byte {at} is 0x00): this is a binary file, not a TOML profile"));
    // Read from a file, the same message.
    let dir = std::env::temp_dir().join(format!("ssdlab-nul-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("drive.toml");
    std::fs::write(&path, &text).unwrap();
    let err = load_profile(path.to_str().unwrap(), &[]).map(|_| ()).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(err.contains("binary data (byte") && err.contains("not a TOML profile") && !err.contains("key with no value"), "{err}");
}

#[test]
fn override_mistakes_read_as_what_the_user_did() {
    // Regression: a bad element of an array given with --set was probed with a whole number in
    // the array's place and read "invalid value: integer `-1`; invalid type: integer `0`,
    // expected an array".
    let err = load_profile("samsung-980-pro-1tb", &["power.apst_idle_ms=[-1, 0, 0, 160, 500]".into()]).unwrap_err().to_string();
    assert_eq!(err, "--set power.apst_idle_ms: invalid value: integer `-1`, expected a whole number, 0 or more");
    // Regression: a --set that needs another field changed was blamed on the built-in file's
    // line alone; it now says the override needs the field too.
    let err = load_profile("samsung-980-pro-1tb", &["power.state_mw=[8490.0, 40.0]".into()]).unwrap_err().to_string();
    assert!(err.starts_with("profile `samsung-980-pro-1tb`:") && err.contains(": power.operational: give one entry per power state"), "{err}");
    assert!(
        err.ends_with(
            "the profile alone is valid: --set power.state_mw=[8490.0, 40.0] needs power.operational changed too (add --set power.operational=VALUE)"
        ),
        "{err}"
    );
    // A file that is wrong on its own is not said to be valid.
    let text = builtin_source("force-gs-240").unwrap().replacen("channels = 8", "channels = 0", 1);
    let err = parse_profile("x", "bad.toml", &text, &["ftl.gc_policy=greedy".into()]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("nand.channels") && !err.contains("alone is valid"), "{err}");
}

#[test]
fn a_missing_value_and_singular_page_types_read_plainly() {
    // Regression: `channels =` read "string values must be quoted, expected literal string".
    let (err, line) = error_at("force-gs-240", "channels = 8", "channels =", "channels");
    assert_eq!(err, format!("bad.toml:{line}: `channels` has no value after `=`"));
    let (err, line) = error_at("force-gs-240", "channels = 8", "channels =   # eight", "channels");
    assert_eq!(err, format!("bad.toml:{line}: `channels` has no value after `=`"));
    // A value toml refuses for another reason keeps toml's words.
    let (err, _) = error_at("force-gs-240", "channels = 8", "channels = eight", "channels");
    assert!(err.contains("string values must be quoted"), "{err}");
    // Power latencies and APST times say their whole range.
    let err = load_profile("samsung-980-pro-1tb", &["power.exit_latency_us=[0, 0, 0, 20000000, 0]".into()]).unwrap_err().to_string();
    assert!(err.contains("PS3: must be from 0 to 10000000 us (got 20000000)"), "{err}");
}
