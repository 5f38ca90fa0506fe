//! Java properties text files (`meta.properties`, `server.properties`).

/// Parses a Java properties file into key/value pairs in file order
/// (comments and blank lines skipped; `=` or `:` separators).
pub fn parse_properties(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .map(|l| match l.find(['=', ':']) {
            Some(i) => (
                l.get(..i).unwrap_or_default().trim().to_string(),
                l.get(i + 1..).unwrap_or_default().trim().to_string(),
            ),
            None => (l.to_string(), String::new()),
        })
        .collect()
}
