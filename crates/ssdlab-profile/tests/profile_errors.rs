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
