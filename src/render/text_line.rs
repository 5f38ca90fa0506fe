//! One text line built in a reused buffer: integers are written with
//! `itoa`, without the formatting machinery's per-argument dispatch, for
//! the lines printed once per batch over whole segments.

use std::io::{self, Write};

/// A line under construction; [`TextLine::finish`] writes it out.
#[derive(Debug, Default)]
pub struct TextLine {
    buf: Vec<u8>,
}

impl TextLine {
    /// Appends `s`.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    /// Appends `n` in decimal.
    pub fn int(&mut self, n: impl itoa::Integer) -> &mut Self {
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
        self
    }

    /// Appends `true` or `false`.
    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.str(if b { "true" } else { "false" })
    }

    /// Appends `n` in decimal, or `none` when there is none.
    pub fn int_or(&mut self, n: Option<impl itoa::Integer>, none: &str) -> &mut Self {
        match n {
            Some(n) => self.int(n),
            None => self.str(none),
        }
    }

    /// Writes the line and a newline to `out`, and empties the buffer for
    /// the next line.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.buf.push(b'\n');
        let written = out.write_all(&self.buf);
        self.buf.clear();
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_format_writes() {
        let mut line = TextLine::default();
        let mut out = Vec::new();
        line.str("a: ")
            .int(i64::MIN)
            .str(" b: ")
            .int(u32::MAX)
            .str(" c: ")
            .bool(true)
            .str(" d: ")
            .int_or(None::<i32>, "null")
            .str(" e: ")
            .int_or(Some(-7i16), "null");
        line.finish(&mut out).unwrap();
        line.str("next").finish(&mut out).unwrap();
        let expected = format!(
            "a: {} b: {} c: true d: null e: -7\nnext\n",
            i64::MIN,
            u32::MAX
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
