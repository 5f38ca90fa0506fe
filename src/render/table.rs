//! Compact tables, as kafka-topics and kubectl print them: a header of
//! upper-case column names, then one line per row, columns padded to their
//! widest cell and two spaces apart, no rules between rows; a table with
//! hundreds of thousands of rows stays one line each.

use std::io::{self, Write};

/// A table being filled.
#[derive(Debug, Clone, Default)]
pub struct Compact {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Compact {
    /// A table with these column names.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(header: I) -> Self {
        Self {
            header: header
                .into_iter()
                .map(|h| h.into().to_uppercase())
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (cells past the header's count are dropped).
    pub fn add_row<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, row: I) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    /// Whether no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Writes the header and the rows.
    pub fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        let width = |s: &str| s.chars().count();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let mut line = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            line.clear();
            for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', w - width(cell)));
            }
            writeln!(w, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_no_rules_and_no_trailing_spaces() {
        let mut t = Compact::new(["topic", "partition", "isr"]);
        t.add_row(["a", "0", "[1, 2]"]);
        t.add_row(["longer.name", "10", ""]);
        let mut out = Vec::new();
        t.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "TOPIC        PARTITION  ISR\na            0          [1, 2]\nlonger.name  10\n"
        );
    }
}
