//! Builds the nbdkit plugin (`ssdlab-nbd`, its own cdylib) and puts it inside the Python
//! package (`python/ssdlab/_nbd/libssdlab_nbd.so`), so `ssdlab serve` works after
//! `scripts/setup.sh` (maturin develop) and after `pip install .` alike. The plugin is built by
//! a nested cargo into its own target folder (the outer build holds the main one's lock).
//! `SSDLAB_SKIP_NBD_PLUGIN=1` skips it (the Python extension alone).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=SSDLAB_SKIP_NBD_PLUGIN");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    for watched in ["crates/ssdlab-nbd/src", "crates/ssdlab-serve/src", "crates/ssdlab-drive/src", "crates/ssdlab-ftl/src", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    if std::env::var_os("SSDLAB_SKIP_NBD_PLUGIN").is_some() || !root.join("crates/ssdlab-nbd/Cargo.toml").exists() {
        return;
    }
    let target_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("nbd-plugin");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--locked", "-p", "ssdlab-nbd", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS")
        .status()
        .expect("cannot run cargo to build the nbdkit plugin");
    assert!(status.success(), "building the nbdkit plugin (ssdlab-nbd) failed");
    let package = root.join("python/ssdlab/_nbd");
    std::fs::create_dir_all(&package).expect("cannot create python/ssdlab/_nbd");
    // Copied beside the old plugin, then renamed over it: a running nbdkit keeps the old file
    // (its code is mapped from it); writing into that file in place crashed every running server.
    let installed = package.join("libssdlab_nbd.so");
    let staged = package.join(format!(".libssdlab_nbd.so.{}.tmp", std::process::id()));
    std::fs::copy(target_dir.join("release/libssdlab_nbd.so"), &staged).expect("cannot copy the nbdkit plugin into the package");
    std::fs::rename(&staged, &installed).expect("cannot move the nbdkit plugin into place");
}
