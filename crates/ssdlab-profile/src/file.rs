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
    // A NUL byte is never in TOML text (nor in any text file): toml reports the first one as
    // a syntax error of the line around it ("key with no value"), which sends the user looking
    // for a missing value in a file that is not a profile at all.
    if let Some(at) = source.bytes().position(|b| b == 0) {
        let line = line_of_offset(source, at);
        bail!(Config, "{origin}:{line}: binary data (byte {at} is 0x00): this is a binary file, not a TOML profile");
    }
    let (raw, effective) = if overrides.is_empty() {
        // The file's own mistakes are reported at their line.
        let raw: RawProfile = toml::from_str(source).map_err(|e| file_error(name, origin, source, overrides, &e))?;
        (raw, source.to_string())
    } else {
        let mut table: toml::Table = toml::from_str(source).map_err(|e| file_error(name, origin, source, overrides, &e))?;
        for item in overrides {
            apply_override(&mut table, item)?;
        }
        let effective = toml::to_string(&table).map_err(|e| Error::Config(format!("{origin}: cannot write the profile back: {e}")))?;
        let raw = match RawProfile::deserialize_table(table) {
            Ok(raw) => raw,
            Err(error) => {
                // Is the file itself at fault? Then report it at its line.
                if let Err(e) = toml::from_str::<RawProfile>(source) {
                    return Err(file_error(name, origin, source, overrides, &e));
                }
                // Else an override is: name it, as `place` does for a field error.
                let (field, mut message) = describe(&error);
                if let Some(field) = &field {
                    let probe = |value: &str| {
                        let probed: Vec<String> = overrides
                            .iter()
                            .map(|o| if o.split('=').next().map(str::trim) == Some(field.as_str()) { format!("{field}={value}") } else { o.clone() })
                            .collect();
                        parse_profile(name, origin, source, &probed).err()
                    };
                    message = with_accepted_range(message, field, error.message(), probe);
                }
                match field {
                    Some(field) if overrides.iter().any(|o| o.split('=').next().map(str::trim) == Some(field.as_str())) => {
                        bail!(Config, "--set {field}: {message}")
                    }
                    Some(field) => bail!(Config, "{origin} with --set {}: {field}: {message}", overrides.join(" --set ")),
                    None => bail!(Config, "{origin} with --set {}: {message}", overrides.join(" --set ")),
                }
            }
        };
        (raw, effective)
    };
    build(name, origin, effective, raw, overrides).map_err(|e| {
        let error = place(origin, source, overrides, &e);
        // A field of the file that its own values leave valid, refused only with the overrides:
        // the override is what asks for the field to change too (`--set ftl.gc_schedule=
        // background` needs `ftl.gc_high_free_blocks_per_die`); say so.
        let overridden = overrides.iter().any(|o| o.split('=').next().map(str::trim) == Some(format!("{}.{}", e.section, e.key).as_str()));
        match error {
            Error::Config(text) if !overridden && !overrides.is_empty() && parse_profile(name, origin, source, &[]).is_ok() => Error::Config(format!(
                "{text}; the profile alone is valid: --set {} needs {}.{} changed too (add --set {}.{}=VALUE)",
                overrides.join(" --set "),
                e.section,
                e.key,
                e.section,
                e.key
            )),
            other => other,
        }
    })
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

/// A TOML error in the file itself, placed at its line; a value of the wrong type for a number
/// field says the range the field's own check accepts (see [`with_accepted_range`]).
fn file_error(name: &str, origin: &str, source: &str, overrides: &[String], error: &toml::de::Error) -> Error {
    let plain = toml_error(origin, source, error);
    let (Some(field), Some(span)) = (describe(error).0, error.span()) else {
        return plain;
    };
    let Error::Config(text) = &plain else {
        return plain;
    };
    let Some((place, message)) = text.split_once(&format!(" {field}: ")) else {
        return plain;
    };
    // The value's text replaced by a probe: the span covers the value the error is about.
    let probe = |value: &str| {
        let probed = format!("{}{value}{}", &source[..span.start], &source[span.end..]);
        parse_profile(name, origin, &probed, overrides).err()
    };
    Error::Config(format!("{place} {field}: {}", with_accepted_range(message.to_string(), &field, error.message(), probe)))
}

/// A number field's type error (`-1`, `"x"`, `1.5`, a number past the Rust type) said with the
/// range its own check accepts, in one message: serde only knows the Rust type's range (`0 to
/// 4294967295` for `host.queue_depth_max`, which takes 1 to 32 on SATA), and a user who wrote a
/// value in that range got a second message with the real one. The range comes from the field's
/// check itself: `probe` loads the profile with the field set to the least and then the largest
/// value of its type, and the first check to refuse the field says what it accepts. A field with
/// no check of its own keeps the type's range.
fn with_accepted_range(message: String, field: &str, serde_message: &str, probe: impl Fn(&str) -> Option<Error>) -> String {
    let Some((_, expected)) = serde_message.replace('\n', " ").rsplit_once(", expected ").map(|(a, b)| (a.to_string(), b.trim().to_string())) else {
        return message;
    };
    let probes: &[&str] = match expected.as_str() {
        "u8" => &["0", "255"],
        "u16" => &["0", "65535"],
        "u32" => &["0", "4294967295"],
        // A TOML integer is at most i64::MAX.
        "u64" | "usize" => &["0", "9223372036854775807"],
        _ => return message,
    };
    for value in probes {
        let Some(Error::Config(text)) = probe(value) else { continue };
        let Some((_, check)) = text.split_once(&format!("{field}: ")) else { continue };
        // A probe refused by its type is no check of the field's: a `--set` of an array
        // (`power.apst_idle_ms=[-1, 0]`) is probed with a whole number in the array's place.
        if check.starts_with("invalid type: ") || check.starts_with("invalid value: ") {
            continue;
        }
        // The check's own words, without the probe's value.
        let check = match check.rfind(" (got ") {
            Some(at) if check.ends_with(')') => &check[..at],
            _ => check,
        };
        let Some((what, _)) = message.rsplit_once(", expected ") else { return message };
        return format!("{what}; {}", check.trim());
    }
    message
}

/// A TOML error placed at its line: a syntax error as toml words it, a type error, unknown field
/// or missing field as `section.field: what is wrong`.
fn toml_error(origin: &str, source: &str, error: &toml::de::Error) -> Error {
    let line = error.span().map(|span| line_of_offset(source, span.start));
    let (field, mut message) = describe(error);
    // toml says "duplicate key" without the key: name it from the span it points at.
    if message.trim() == "duplicate key" {
        if let Some(key) = error.span().and_then(|span| source.get(span)).map(|t| t.split('=').next().unwrap_or(t).trim()).filter(|k| !k.is_empty()) {
            message = format!("duplicate key `{}`", key.chars().take(80).collect::<String>());
        }
    }
    // toml reads a missing value (`channels =`) as an unquoted string it refuses.
    if message.starts_with("string values must be quoted") {
        let text = line.and_then(|l| source.lines().nth(l - 1)).unwrap_or("");
        if let Some((key, value)) = text.split_once('=') {
            let value = value.split('#').next().unwrap_or("").trim();
            if value.is_empty() {
                message = format!("`{}` has no value after `=`", key.trim().chars().take(80).collect::<String>());
            }
        }
    }
    let place = match line {
        Some(line) => format!("{origin}:{line}"),
        None => origin.to_string(),
    };
    match field {
        Some(field) => Error::Config(format!("{place}: {field}: {message}")),
        None => Error::Config(format!("{place}: {message}")),
    }
}

/// The `section.field` a deserialization error is about (none for a syntax error or a whole
/// section), and what is wrong in words a profile's author knows (no Rust type names).
fn describe(error: &toml::de::Error) -> (Option<String>, String) {
    let keys = error_keys(error);
    let message = error.message().replace('\n', " ");
    let message = message.trim();
    // Unknown and missing fields: serde names the field in the message, toml the section.
    let named = |prefix: &str| message.strip_prefix(prefix).and_then(|rest| rest.split_once('`'));
    if let Some((name, rest)) = named("unknown field `") {
        if keys.is_empty() {
            return (None, format!("unknown section [{name}]{rest}"));
        }
        return (Some(format!("{}.{name}", keys.join("."))), message.to_string());
    }
    if let Some((name, _)) = named("missing field `") {
        if keys.is_empty() {
            // serde names a missing top-level section a "field": name it as the section it is.
            let message = match REQUIRED_SECTIONS.contains(&name) {
                true => format!("missing section [{name}] (every profile has [{}])", REQUIRED_SECTIONS.join("], [")),
                false => message.to_string(),
            };
            return (None, message);
        }
        let section = keys.join(".");
        return (Some(format!("{section}.{name}")), format!("missing field `{name}` (required in [{section}])"));
    }
    let field = (!keys.is_empty()).then(|| keys.join("."));
    (field, plain_expected(message))
}

/// The path toml attached to a deserialization error, outermost first (`["nand", "channels"]`).
/// `toml::de::Error` keeps it private and shows it, as a last line "in `nand.channels`", only
/// when it is displayed without the TOML text: display a copy that way and read it back.
fn error_keys(error: &toml::de::Error) -> Vec<String> {
    let mut bare = error.clone();
    bare.set_input(None);
    let shown = bare.to_string();
    shown
        .strip_prefix(error.message())
        .and_then(|rest| rest.trim().strip_prefix("in `"))
        .and_then(|rest| rest.strip_suffix('`'))
        .map(|keys| keys.split('.').map(str::to_string).collect())
        .unwrap_or_default()
}

/// serde's "expected u32" (a Rust type) said as what to write in the file.
fn plain_expected(message: &str) -> String {
    let Some((what, expected)) = message.rsplit_once(", expected ") else {
        return message.to_string();
    };
    // serde names the Rust type it read a number too large for i64 as (`integer `1e23` as
    // i128`): the value is what the user wrote, without it.
    let what = what.strip_suffix(" as i128").or_else(|| what.strip_suffix(" as u128")).unwrap_or(what);
    let plain = match expected.trim() {
        "u8" => "a whole number from 0 to 255".to_string(),
        "u16" => "a whole number from 0 to 65535".to_string(),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "u64" | "usize" => "a whole number, 0 or more".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a sequence" => "an array".to_string(),
        "option" => "a value".to_string(),
        struct_name if struct_name.starts_with("struct ") => "a table".to_string(),
        other => other.to_string(),
    };
    format!("{what}, expected {plain}")
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
