//! Reading profile files: TOML -> raw sections -> validated [`Profile`].

use crate::builtin::builtin_source;
use crate::locate::{line_of, line_of_offset};
use crate::settings::{ControllerSettings, HostInterface, HostSettings, Profile, ReductionSettings};
use serde::Deserialize;
use ssdlab_core::{bail, Error, Result};
use ssdlab_ftl::{ChunkFtlConfig, FtlConfig, GcPolicy};
use ssdlab_nand::{BusKind, Energy, Geometry, Timing, SECTOR_BYTES};
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    drive: RawDrive,
    nand: RawNand,
    host: RawHost,
    controller: RawController,
    ftl: RawFtl,
    energy: RawEnergy,
    reduction: Option<RawReduction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReduction {
    enabled: bool,
    ecc_unit_bytes: u32,
    chunk_header_bytes: u32,
    dedup_index_entries: u64,
    hash_mbps: u64,
    compress_mbps: u64,
    decompress_mbps: u64,
    chunks_per_second: u64,
    backend_write_mbps: u64,
    backend_read_mbps: u64,
    partial_page_reads: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrive {
    model: String,
    capacity_bytes_user: u64,
    #[serde(default)]
    reserved_user_fraction: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNand {
    channels: u32,
    packages_per_channel: u32,
    dies_per_package: u32,
    planes_per_die: u32,
    blocks_per_plane: u32,
    pages_per_block: u32,
    page_bytes: u32,
    spare_bytes_per_page: u32,
    t_read_ns: u64,
    t_prog_ns: u64,
    t_erase_ns: u64,
    command_overhead_ns: u64,
    bus: String,
    bus_mbps: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHost {
    interface: String,
    link_mbps: Option<u64>,
    command_overhead_ns: u64,
    queue_depth_max: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawController {
    command_processing_ns: u64,
    write_buffer_bytes: u64,
    #[serde(default)]
    dram_cache: bool,
    #[serde(default)]
    small_random_write_cap_iops: u64,
    #[serde(default)]
    small_random_write_burst_ios: u64,
    #[serde(default = "default_small_write_bytes")]
    small_random_write_max_bytes: u64,
    trim_ns_per_mib: u64,
    active_mw: f64,
    idle_mw: f64,
    #[serde(default)]
    map_cache_bytes: u64,
    #[serde(default = "default_map_entry_bytes")]
    map_entry_bytes: u64,
}

fn default_map_entry_bytes() -> u64 {
    4
}

fn default_small_write_bytes() -> u64 {
    8192
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFtl {
    gc_policy: String,
    #[serde(default = "default_window")]
    gc_window_blocks: u32,
    gc_low_free_blocks_per_die: u32,
    gc_idle_target_free_blocks_per_die: u32,
}

fn default_window() -> u32 {
    8
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnergy {
    read_nj_per_page: f64,
    program_nj_per_page: f64,
    erase_nj_per_block: f64,
    transfer_pj_per_byte: f64,
    nand_idle_mw: f64,
}

/// Load a profile by built-in name or by path, apply `key=value` overrides, validate.
pub fn load_profile(name_or_path: &str, overrides: &[String]) -> Result<Profile> {
    if let Some(source) = builtin_source(name_or_path) {
        return parse_profile(name_or_path, &format!("profile `{name_or_path}`"), source, overrides);
    }
    let path = Path::new(name_or_path);
    if !path.exists() {
        let known = crate::builtin_names().join(", ");
        bail!(Config, "{name_or_path}: no such profile file, and not a built-in profile (built-in: {known})");
    }
    let source = std::fs::read_to_string(path).map_err(|e| Error::Config(format!("{name_or_path}: cannot read: {e}")))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(name_or_path).to_string();
    parse_profile(&name, name_or_path, &source, overrides)
}

/// Parse and validate profile text. `origin` names the file in messages.
pub fn parse_profile(name: &str, origin: &str, source: &str, overrides: &[String]) -> Result<Profile> {
    // The file itself first, so its mistakes are reported at their line.
    let mut table: toml::Table = toml::from_str(source).map_err(|e| toml_error(origin, source, &e))?;
    let _: RawProfile = toml::from_str(source).map_err(|e| toml_error(origin, source, &e))?;
    if overrides.is_empty() {
        let raw: RawProfile = toml::from_str(source).map_err(|e| toml_error(origin, source, &e))?;
        let at = |section: &str, key: &str| match line_of(source, section, key) {
            Some(line) => format!("{origin}:{line}: {section}.{key}"),
            None => format!("{origin}: {section}.{key}"),
        };
        return validate(name, origin, source, raw, &at);
    }
    for item in overrides {
        apply_override(&mut table, item)?;
    }
    let effective = toml::to_string(&table).expect("a table serialises");
    let with = format!("{origin} with --set {}", overrides.join(" --set "));
    let raw: RawProfile = toml::from_str(&effective).map_err(|e| Error::Config(format!("{with}: {}", e.message().replace('\n', " "))))?;
    let at = |section: &str, key: &str| {
        let key_text = format!("{section}.{key}");
        if overrides.iter().any(|o| o.split('=').next().map(str::trim) == Some(key_text.as_str())) {
            format!("--set {key_text}")
        } else {
            match line_of(source, section, key) {
                Some(line) => format!("{origin}:{line}: {key_text}"),
                None => format!("{with}: {key_text}"),
            }
        }
    };
    validate(name, origin, &effective, raw, &at)
}

fn toml_error(origin: &str, source: &str, error: &toml::de::Error) -> Error {
    let line = error.span().map(|span| line_of_offset(source, span.start));
    let message = error.message().replace('\n', " ");
    match line {
        Some(line) => Error::Config(format!("{origin}:{line}: {message}")),
        None => Error::Config(format!("{origin}: {message}")),
    }
}

fn apply_override(table: &mut toml::Table, item: &str) -> Result<()> {
    let Some((key, value_text)) = item.split_once('=') else {
        bail!(Config, "--set {item}: expected section.field=value");
    };
    let key = key.trim();
    let Some((section, field)) = key.split_once('.') else {
        bail!(Config, "--set {item}: expected section.field=value (e.g. ftl.gc_policy=greedy)");
    };
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {}", value_text.trim())) {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        Err(_) => toml::Value::String(value_text.trim().to_string()),
    };
    let Some(toml::Value::Table(section_table)) = table.get_mut(section) else {
        bail!(Config, "--set {item}: the profile has no section [{section}]");
    };
    section_table.insert(field.to_string(), value);
    Ok(())
}

fn validate(name: &str, origin: &str, source: &str, raw: RawProfile, at: &dyn Fn(&str, &str) -> String) -> Result<Profile> {
    let n = &raw.nand;
    let bus = BusKind::parse(&n.bus)
        .ok_or_else(|| Error::Config(format!("{}: unknown bus `{}` (expected onfi1-async, onfi2-sync, toggle1 or toggle2)", at("nand", "bus"), n.bus)))?;
    let geometry = Geometry {
        channels: n.channels,
        packages_per_channel: n.packages_per_channel,
        dies_per_package: n.dies_per_package,
        planes_per_die: n.planes_per_die,
        blocks_per_plane: n.blocks_per_plane,
        pages_per_block: n.pages_per_block,
        page_bytes: n.page_bytes,
        spare_bytes_per_page: n.spare_bytes_per_page,
    };
    geometry.validate(origin).map_err(|e| relocate(e, "nand", at))?;
    let timing = Timing {
        t_read_ns: n.t_read_ns,
        t_prog_ns: n.t_prog_ns,
        t_erase_ns: n.t_erase_ns,
        command_overhead_ns: n.command_overhead_ns,
        bus,
        bus_bytes_per_second: n.bus_mbps.map(|m| m * 1_000_000).unwrap_or_else(|| bus.default_bytes_per_second()),
    };
    timing.validate(origin).map_err(|e| relocate(e, "nand", at))?;

    let d = &raw.drive;
    if d.capacity_bytes_user == 0 || !d.capacity_bytes_user.is_multiple_of(SECTOR_BYTES) {
        bail!(Config, "{}: must be a positive multiple of {SECTOR_BYTES} bytes (got {})", at("drive", "capacity_bytes_user"), d.capacity_bytes_user);
    }
    if !(0.0..0.95).contains(&d.reserved_user_fraction) {
        bail!(Config, "{}: must be in [0, 0.95) (got {})", at("drive", "reserved_user_fraction"), d.reserved_user_fraction);
    }

    let h = &raw.host;
    let interface = HostInterface::parse(&h.interface)
        .ok_or_else(|| Error::Config(format!("{}: unknown interface `{}` (expected sata-3g or sata-6g)", at("host", "interface"), h.interface)))?;
    if h.queue_depth_max == 0 || h.queue_depth_max > 32 {
        bail!(Config, "{}: SATA NCQ allows 1 to 32 outstanding commands (got {})", at("host", "queue_depth_max"), h.queue_depth_max);
    }
    if h.link_mbps == Some(0) {
        bail!(Config, "{}: must be positive", at("host", "link_mbps"));
    }
    let host = HostSettings {
        interface,
        link_bytes_per_second: h.link_mbps.map(|m| m * 1_000_000).unwrap_or_else(|| interface.default_payload_bytes_per_second()),
        command_overhead_ns: h.command_overhead_ns,
        queue_depth_max: h.queue_depth_max,
    };

    let c = &raw.controller;
    let unit_bytes = geometry.unit_bytes();
    if c.write_buffer_bytes < 2 * unit_bytes {
        bail!(
            Config,
            "{}: must hold at least two multi-plane pages ({} bytes) (got {})",
            at("controller", "write_buffer_bytes"),
            2 * unit_bytes,
            c.write_buffer_bytes
        );
    }
    if c.write_buffer_bytes > (1 << 34) {
        bail!(Config, "{}: at most 16 GiB (got {})", at("controller", "write_buffer_bytes"), c.write_buffer_bytes);
    }
    if c.small_random_write_cap_iops > 0 && c.small_random_write_burst_ios == 0 {
        bail!(Config, "{}: must be at least 1 when a cap is set", at("controller", "small_random_write_burst_ios"));
    }
    for (key, value) in [("active_mw", c.active_mw), ("idle_mw", c.idle_mw)] {
        if !(value >= 0.0 && value.is_finite()) {
            bail!(Config, "{}: must be a non-negative number (got {value})", at("controller", key));
        }
    }
    if c.map_cache_bytes > 0 && c.map_cache_bytes < geometry.page_bytes as u64 {
        bail!(
            Config,
            "{}: must be 0 (the whole map in DRAM) or at least one page ({} bytes) (got {})",
            at("controller", "map_cache_bytes"),
            geometry.page_bytes,
            c.map_cache_bytes
        );
    }
    if !(1..=64).contains(&c.map_entry_bytes) {
        bail!(Config, "{}: must be 1 to 64 bytes (got {})", at("controller", "map_entry_bytes"), c.map_entry_bytes);
    }
    let controller = ControllerSettings {
        command_processing_ns: c.command_processing_ns,
        write_buffer_bytes: c.write_buffer_bytes,
        dram_cache: c.dram_cache,
        small_random_write_cap_iops: c.small_random_write_cap_iops,
        small_random_write_burst_ios: c.small_random_write_burst_ios,
        small_random_write_max_bytes: c.small_random_write_max_bytes,
        trim_ns_per_mib: c.trim_ns_per_mib,
        active_mw: c.active_mw,
        idle_mw: c.idle_mw,
        map_cache_bytes: c.map_cache_bytes,
        map_entry_bytes: c.map_entry_bytes,
    };

    let e = &raw.energy;
    for (key, value) in [
        ("read_nj_per_page", e.read_nj_per_page),
        ("program_nj_per_page", e.program_nj_per_page),
        ("erase_nj_per_block", e.erase_nj_per_block),
        ("transfer_pj_per_byte", e.transfer_pj_per_byte),
        ("nand_idle_mw", e.nand_idle_mw),
    ] {
        if !(value >= 0.0 && value.is_finite()) {
            bail!(Config, "{}: must be a non-negative number (got {value})", at("energy", key));
        }
    }
    let energy = Energy {
        read_nj_per_page: e.read_nj_per_page,
        program_nj_per_page: e.program_nj_per_page,
        erase_nj_per_block: e.erase_nj_per_block,
        transfer_pj_per_byte: e.transfer_pj_per_byte,
        idle_mw: e.nand_idle_mw,
    };

    let f = &raw.ftl;
    let gc_policy = GcPolicy::parse(&f.gc_policy, f.gc_window_blocks).map_err(|m| Error::Config(format!("{}: {m}", at("ftl", "gc_policy"))))?;
    if f.gc_idle_target_free_blocks_per_die < f.gc_low_free_blocks_per_die {
        bail!(Config, "{}: must be at least gc_low_free_blocks_per_die", at("ftl", "gc_idle_target_free_blocks_per_die"));
    }
    let ftl = FtlConfig {
        geometry: geometry.clone(),
        user_sectors: d.capacity_bytes_user / SECTOR_BYTES,
        gc_policy,
        gc_low_free_blocks_per_die: f.gc_low_free_blocks_per_die,
        gc_idle_target_free_blocks_per_die: f.gc_idle_target_free_blocks_per_die,
        track_tags: false,
    };
    if d.capacity_bytes_user >= geometry.raw_bytes() {
        bail!(
            Config,
            "{}: user capacity {} bytes is not below the raw capacity {} bytes; there is no spare area",
            at("drive", "capacity_bytes_user"),
            d.capacity_bytes_user,
            geometry.raw_bytes()
        );
    }
    ftl.validate(&at("drive", "capacity_bytes_user"))?;

    let reduction = match &raw.reduction {
        Some(r) if r.enabled => {
            for (key, value) in [
                ("hash_mbps", r.hash_mbps),
                ("compress_mbps", r.compress_mbps),
                ("decompress_mbps", r.decompress_mbps),
                ("chunks_per_second", r.chunks_per_second),
                ("backend_write_mbps", r.backend_write_mbps),
                ("backend_read_mbps", r.backend_read_mbps),
                ("dedup_index_entries", r.dedup_index_entries),
            ] {
                if value == 0 {
                    bail!(Config, "{}: must be positive", at("reduction", key));
                }
            }
            let config = ChunkFtlConfig {
                geometry: geometry.clone(),
                user_sectors: ftl.user_sectors,
                ecc_unit_bytes: r.ecc_unit_bytes,
                chunk_header_bytes: r.chunk_header_bytes,
                dedup_index_entries: r.dedup_index_entries,
                gc_policy,
                gc_low_free_blocks_per_die: f.gc_low_free_blocks_per_die,
                gc_idle_target_free_blocks_per_die: f.gc_idle_target_free_blocks_per_die,
                keep_payloads: false,
                partial_page_reads: r.partial_page_reads,
            };
            config.validate(origin).map_err(|e| relocate(e, "reduction", at))?;
            Some(ReductionSettings {
                chunk: config,
                hash_bytes_per_second: r.hash_mbps * 1_000_000,
                compress_bytes_per_second: r.compress_mbps * 1_000_000,
                decompress_bytes_per_second: r.decompress_mbps * 1_000_000,
                chunks_per_second: r.chunks_per_second,
                backend_write_bytes_per_second: r.backend_write_mbps * 1_000_000,
                backend_read_bytes_per_second: r.backend_read_mbps * 1_000_000,
            })
        }
        _ => None,
    };

    Ok(Profile {
        name: name.to_string(),
        model: d.model.clone(),
        origin: origin.to_string(),
        source: source.to_string(),
        capacity_bytes_user: d.capacity_bytes_user,
        reserved_user_fraction: d.reserved_user_fraction,
        geometry,
        timing,
        energy,
        host,
        controller,
        ftl,
        reduction,
    })
}

/// Rewrite an error raised as `origin: nand.field ...` so it carries the field's line.
fn relocate(error: Error, section: &str, at: &dyn Fn(&str, &str) -> String) -> Error {
    let text = error.to_string();
    let prefix = format!("{section}.");
    if let Some(start) = text.find(&prefix) {
        let rest = &text[start + prefix.len()..];
        let field: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = &rest[field.len()..];
        return Error::Config(format!("{}{after}", at(section, &field)));
    }
    error
}
