//! Profiles shipped with ssdlab.

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "force-gs-240";

const BUILTINS: &[(&str, &str)] = &[
    ("force-gs-240", include_str!("../profiles/force-gs-240.toml")),
    ("vertex3-120", include_str!("../profiles/vertex3-120.toml")),
    ("agility3-120", include_str!("../profiles/agility3-120.toml")),
    ("force-100-sf1200", include_str!("../profiles/force-100-sf1200.toml")),
    ("agility2-100-sf1200", include_str!("../profiles/agility2-100-sf1200.toml")),
    ("conventional-240", include_str!("../profiles/conventional-240.toml")),
    ("samsung-830-256", include_str!("../profiles/samsung-830-256.toml")),
    ("neutron-240", include_str!("../profiles/neutron-240.toml")),
    ("force-ls-240", include_str!("../profiles/force-ls-240.toml")),
    ("samsung-980-pro-1tb", include_str!("../profiles/samsung-980-pro-1tb.toml")),
    ("samsung-970-evo-500", include_str!("../profiles/samsung-970-evo-500.toml")),
    ("samsung-980-1tb", include_str!("../profiles/samsung-980-1tb.toml")),
    ("wd-sn580-1tb", include_str!("../profiles/wd-sn580-1tb.toml")),
    ("samsung-870-evo-4tb", include_str!("../profiles/samsung-870-evo-4tb.toml")),
    ("samsung-870-qvo-1tb", include_str!("../profiles/samsung-870-qvo-1tb.toml")),
];

/// Names of the built-in profiles, in a stable order.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|(name, _)| *name).collect()
}

/// The TOML text of a built-in profile.
pub fn builtin_source(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
