//! Reading profile files: TOML text (once) -> raw sections -> validated [`Profile`], section by
//! section (`sections.rs`); a field error is placed at its file and line, or at the `--set`
//! override that gave the value.

use crate::builtin::builtin_source;
use crate::locate::{line_of, line_of_offset};
use crate::raw::RawProfile;
use crate::settings::Profile;
use crate::{consistency, media_sections, power_sections, sections};
use ssdlab_core::{bail, Error, FieldError, Result};
use ssdlab_nand::SECTOR_BYTES;
use std::path::Path;

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
    // A regular file of bounded size (a profile is a few KiB): never /dev/zero or a FIFO.
    let source = ssdlab_core::input::read_text(name_or_path, "profile", ssdlab_core::input::MAX_TEXT_FILE_BYTES).map_err(|e| Error::Config(e.to_string()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(name_or_path).to_string();
    parse_profile(&name, name_or_path, &source, overrides)
}

/// Parse and validate profile text. `origin` names the file in messages.
pub fn parse_profile(name: &str, origin: &str, source: &str, overrides: &[String]) -> Result<Profile> {
    let (raw, effective) = if overrides.is_empty() {
        // The file's own mistakes are reported at their line.
        let raw: RawProfile = toml::from_str(source).map_err(|e| toml_error(origin, source, &e))?;
        (raw, source.to_string())
    } else {
        let mut table: toml::Table = toml::from_str(source).map_err(|e| toml_error(origin, source, &e))?;
        for item in overrides {
            apply_override(&mut table, item)?;
        }
        let effective = toml::to_string(&table).map_err(|e| Error::Config(format!("{origin}: cannot write the profile back: {e}")))?;
        let raw = match RawProfile::deserialize_table(table) {
            Ok(raw) => raw,
            Err(message) => {
                // Is the file itself at fault? Then report it at its line.
                if let Err(e) = toml::from_str::<RawProfile>(source) {
                    return Err(toml_error(origin, source, &e));
                }
                bail!(Config, "{origin} with --set {}: {message}", overrides.join(" --set "))
            }
        };
        (raw, effective)
    };
    build(name, origin, effective, raw, overrides).map_err(|e| place(origin, source, overrides, &e))
}

/// Validate every section and assemble the profile.
fn build(name: &str, origin: &str, source: String, raw: RawProfile, overrides: &[String]) -> Result<Profile, FieldError> {
    let geometry = sections::geometry(&raw.nand)?;
    let mut timing = sections::timing(&raw.nand)?;
    timing.t_prog_ns = consistency::program_time(&raw, overrides)?;
    sections::drive(&raw.drive, &geometry)?;
    let host = sections::host(&raw.host)?;
    let controller = sections::controller(&raw.controller, &geometry, raw.media.is_some())?;
    let mut energy = sections::energy(&raw.energy)?;
    let mut ftl = sections::ftl(&raw.ftl, &geometry, raw.drive.capacity_bytes_user / SECTOR_BYTES)?;
    let media = media_sections::media(raw.media.as_ref(), &timing)?;
    consistency::pslc_faster_than_native(&media)?;
    consistency::reads_first_with_suspend(&raw, &media)?;
    consistency::host_features(&raw, &host, &controller)?;
    sections::pslc_energy(&raw.energy, &mut energy, &media);
    ftl.native_pages_per_program = media.native_pages_per_program();
    ftl.slc = media_sections::slc_cache(raw.slc_cache.as_ref(), &media, &geometry)?;
    consistency::slc_cache_sizes(&raw, &media, &geometry)?;
    consistency::cache_with_reduction(&raw, ftl.slc.as_ref())?;
    ftl.metadata = sections::metadata(&controller, &geometry, ftl.user_sectors);
    ftl.validate()?;
    let reduction = match &raw.reduction {
        Some(r) => sections::reduction(r, &ftl, &raw.controller.firmware)?,
        None => None,
    };
    let power = power_sections::power(raw.power.as_ref())?;
    let thermal = power_sections::thermal(raw.thermal.as_ref())?;
    consistency::power_states(power.as_ref(), &controller, &energy)?;
    Ok(Profile {
        name: name.to_string(),
        model: raw.drive.model.clone(),
        origin: origin.to_string(),
        source,
        capacity_bytes_user: raw.drive.capacity_bytes_user,
        reserved_user_fraction: raw.drive.reserved_user_fraction,
        geometry,
        timing,
        media,
        energy,
        host,
        controller,
        ftl,
        reduction,
        power,
        thermal,
    })
}

/// Where a field error is reported: the override that set the field, else the field's line in
/// the file, else the file.
fn place(origin: &str, source: &str, overrides: &[String], error: &FieldError) -> Error {
    let key = format!("{}.{}", error.section, error.key);
    if overrides.iter().any(|o| o.split('=').next().map(str::trim) == Some(key.as_str())) {
        return Error::Config(format!("--set {key}: {}", error.message));
    }
    match line_of(source, error.section, error.key) {
        Some(line) => error.placed(&format!("{origin}:{line}")),
        None if overrides.is_empty() => error.placed(origin),
        None => error.placed(&format!("{origin} with --set {}", overrides.join(" --set "))),
    }
}

/// The sections every profile has (the others, `[media]`, `[slc_cache]`, `[reduction]`,
/// `[power]` and `[thermal]`, are optional).
const REQUIRED_SECTIONS: [&str; 6] = ["drive", "nand", "host", "controller", "ftl", "energy"];

fn toml_error(origin: &str, source: &str, error: &toml::de::Error) -> Error {
    let line = error.span().map(|span| line_of_offset(source, span.start));
    let mut message = error.message().replace('\n', " ");
    // toml says "duplicate key" without the key: name it from the span it points at.
    if message.trim() == "duplicate key" {
        if let Some(key) = error.span().and_then(|span| source.get(span)).map(|t| t.split('=').next().unwrap_or(t).trim()).filter(|k| !k.is_empty()) {
            message = format!("duplicate key `{}`", key.chars().take(80).collect::<String>());
        }
    }
    // serde names a missing top-level section a "field": name it as the section it is.
    if let Some(section) = message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')).filter(|s| REQUIRED_SECTIONS.contains(s)) {
        message = format!("missing section [{section}] (every profile has [{}])", REQUIRED_SECTIONS.join("], ["));
    }
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
    // One value on one line: a newline or other control character could smuggle more TOML in.
    if let Some(c) = item.chars().find(|c| c.is_control()) {
        bail!(Config, "--set {key}: the value contains a control character ({c:?}); give one value on one line");
    }
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {}", value_text.trim())) {
        Ok(mut t) if t.len() == 1 => t.remove("v").expect("parsed key"),
        Ok(_) => bail!(Config, "--set {key}: `{}` is more than one value", value_text.trim()),
        Err(_) => toml::Value::String(value_text.trim().to_string()),
    };
    let Some(toml::Value::Table(section_table)) = table.get_mut(section) else {
        bail!(Config, "--set {item}: the profile has no section [{section}]");
    };
    section_table.insert(field.to_string(), value);
    Ok(())
}
