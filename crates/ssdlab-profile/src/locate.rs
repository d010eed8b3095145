//! Finding the line of a `section.key` in TOML text, so semantic errors can point at it: a
//! profile's fields here, a sweep spec's keys and `[[axis]]` tables through the binding.

/// 1-based line of `key` inside `[section]` in `source`, if it appears there; else the line of
/// the section's header; None without the section.
pub fn line_of(source: &str, section: &str, key: &str) -> Option<usize> {
    line_in_table(source, section, 0, key)
}

/// 1-based line of `key` in the table of `source` headed `[table]` or `[[table]]` for the
/// `index`-th time (0 for the first; the `index`-th table of an array of tables), if written
/// there; else the line of that table's header; None when there is no such table. Only the
/// plain `key = value` form of a key is found (not a dotted key or an inline table's).
pub fn line_in_table(source: &str, table: &str, index: usize, key: &str) -> Option<usize> {
    let mut seen = 0;
    let mut header_line = None;
    for (i, raw) in source.lines().enumerate() {
        let line = raw.trim();
        if let Some(name) = header(line) {
            if header_line.is_some() {
                break; // the table ended without the key
            }
            if name == table {
                if seen == index {
                    header_line = Some(i + 1);
                }
                seen += 1;
            }
            continue;
        }
        if header_line.is_some() {
            if let Some((name, _)) = line.split_once('=') {
                if name.trim() == key {
                    return Some(i + 1);
                }
            }
        }
    }
    header_line
}

/// The name of the table a header line opens (`[a]`, `[[a]]`, either followed by a comment), or
/// None for any other line (such as `[1, 2],` inside an array written over several lines).
fn header(line: &str) -> Option<&str> {
    let (inner, close) = match line.strip_prefix("[[") {
        Some(inner) => (inner, "]]"),
        None => (line.strip_prefix('[')?, "]"),
    };
    let (name, rest) = inner.split_once(close)?;
    let rest = rest.trim();
    let name = name.trim();
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "_-. \"'".contains(c));
    (plain && (rest.is_empty() || rest.starts_with('#'))).then_some(name)
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

    #[test]
    fn finds_keys_in_the_nth_table_of_an_array_of_tables() {
        let text = "[sweep] # the sweep\nname = \"s\"\nvalues = [\n  [1, 2],\n]\n\n[[axis]]\nvalues = [1]\n\n[[axis]]  # second\noption = \"bs\"\nvalues = [2]\n[plot]\nvalues = 3\n";
        assert_eq!(line_of(text, "sweep", "name"), Some(2));
        assert_eq!(line_of(text, "sweep", "values"), Some(3), "a nested array on its own line is no header");
        assert_eq!(line_in_table(text, "axis", 0, "values"), Some(8));
        assert_eq!(line_in_table(text, "axis", 1, "values"), Some(12));
        assert_eq!(line_in_table(text, "axis", 1, "option"), Some(11));
        assert_eq!(line_in_table(text, "axis", 0, "option"), Some(7), "not written in the table: its header");
        assert_eq!(line_in_table(text, "axis", 2, "values"), None);
        assert_eq!(line_of(text, "plot", "values"), Some(14));
    }
}
