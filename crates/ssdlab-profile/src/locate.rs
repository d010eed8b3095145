//! Finding the line of a `section.key` in TOML text, so semantic errors can point at it.

/// 1-based line of `key` inside `[section]` in `source`, if it appears there.
pub fn line_of(source: &str, section: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let mut section_line = None;
    for (index, raw) in source.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            current = line.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            if current == section {
                section_line = Some(index + 1);
            }
            continue;
        }
        if current == section {
            if let Some((name, _)) = line.split_once('=') {
                if name.trim() == key {
                    return Some(index + 1);
                }
            }
        }
    }
    section_line
}

/// 1-based line number of byte offset `offset` in `source`.
pub fn line_of_offset(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_in_sections() {
        let text = "[a]\nx = 1\n\n[b]\nx = 2\ny=3\n";
        assert_eq!(line_of(text, "a", "x"), Some(2));
        assert_eq!(line_of(text, "b", "x"), Some(5));
        assert_eq!(line_of(text, "b", "y"), Some(6));
        assert_eq!(line_of(text, "b", "z"), Some(4));
        assert_eq!(line_of(text, "c", "z"), None);
        assert_eq!(line_of_offset(text, 5), 2);
    }
}
