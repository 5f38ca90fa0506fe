//! A bounds-checked big-endian reader that knows its absolute file position.

use super::error::{FormatError, FormatErrorKind};

/// Reads integers, varints and byte strings from a slice without ever
/// indexing out of bounds; every error carries the absolute position.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte is at absolute position `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// Absolute position of the next byte to read.
    pub fn position(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// An error of `kind` at the current position.
    pub fn error(&self, kind: FormatErrorKind) -> FormatError {
        FormatError::new(self.position(), kind)
    }

    /// Takes the next `n` bytes.
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.data.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.error(FormatErrorKind::Truncated {
                needed: n as u64,
                available: self.remaining() as u64,
            })),
        }
    }

    fn read_array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        let bytes = self.read_bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Reads one signed byte.
    pub fn read_i8(&mut self) -> Result<i8, FormatError> {
        Ok(i8::from_be_bytes(self.read_array()?))
    }
    /// Reads a big-endian i16.
    pub fn read_i16(&mut self) -> Result<i16, FormatError> {
        Ok(i16::from_be_bytes(self.read_array()?))
    }
    /// Reads a big-endian i32.
    pub fn read_i32(&mut self) -> Result<i32, FormatError> {
        Ok(i32::from_be_bytes(self.read_array()?))
    }
    /// Reads a big-endian u32.
    pub fn read_u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_be_bytes(self.read_array()?))
    }
    /// Reads a big-endian i64.
    pub fn read_i64(&mut self) -> Result<i64, FormatError> {
        Ok(i64::from_be_bytes(self.read_array()?))
    }

    fn read_unsigned_varint(&mut self, max_bytes: u32) -> Result<u64, FormatError> {
        let start = self.position();
        let mut value = 0u64;
        for i in 0..max_bytes {
            let [b] = self.read_array::<1>()?;
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(FormatError::new(start, FormatErrorKind::VarintTooLong))
    }

    /// Reads an unsigned varint of at most 5 bytes (Kafka's `readUnsignedVarint`).
    pub fn read_uvarint(&mut self) -> Result<u32, FormatError> {
        let start = self.position();
        u32::try_from(self.read_unsigned_varint(5)?)
            .map_err(|_| FormatError::new(start, FormatErrorKind::VarintTooLong))
    }

    /// Reads a zigzag varint of at most 5 bytes (Kafka's `readVarint`).
    pub fn read_varint(&mut self) -> Result<i32, FormatError> {
        let raw = self.read_unsigned_varint(5)? as u32;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    /// Reads a zigzag varlong of at most 10 bytes (Kafka's `readVarlong`).
    pub fn read_varlong(&mut self) -> Result<i64, FormatError> {
        let raw = self.read_unsigned_varint(10)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// Reads a varint length and then that many bytes; -1 means null.
    pub fn read_varint_bytes(
        &mut self,
        what: &'static str,
    ) -> Result<Option<&'a [u8]>, FormatError> {
        let at = self.position();
        let len = self.read_varint()?;
        self.read_sized(at, i64::from(len), what)
    }

    /// Reads `len` bytes whose length field started at `at`: -1 means null,
    /// any other negative length is an error.
    pub fn read_sized(
        &mut self,
        at: u64,
        len: i64,
        what: &'static str,
    ) -> Result<Option<&'a [u8]>, FormatError> {
        match len {
            -1 => Ok(None),
            n if n < 0 => Err(FormatError::new(
                at,
                FormatErrorKind::InvalidLength { what, len: n },
            )),
            n => self.read_bytes(n as usize).map(Some),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn reads_zigzag_varints_like_kafka() {
        let mut c = Cursor::new(&[0x00, 0x01, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f], 0);
        assert_eq!(c.read_varint().unwrap(), 0);
        assert_eq!(c.read_varint().unwrap(), -1);
        assert_eq!(c.read_varint().unwrap(), 1);
        assert_eq!(c.read_varint().unwrap(), i32::MIN);
    }

    #[test]
    fn rejects_a_varint_longer_than_five_bytes() {
        let mut c = Cursor::new(&[0xff; 6], 100);
        let err = c.read_varint().unwrap_err();
        assert_eq!(err, FormatError::new(100, FormatErrorKind::VarintTooLong));
    }

    #[test]
    fn truncation_reports_absolute_position() {
        let mut c = Cursor::new(&[1, 2, 3], 4096);
        c.read_i8().unwrap();
        let err = c.read_i32().unwrap_err();
        assert_eq!(err.offset, 4097);
        assert!(matches!(
            err.kind,
            FormatErrorKind::Truncated {
                needed: 4,
                available: 2
            }
        ));
    }
}
