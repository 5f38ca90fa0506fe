//! The one error type of the format layer: what was wrong, and at which byte.

/// A parse failure at an absolute byte position of the file being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct FormatError {
    /// Absolute byte position (in the file) where the problem starts.
    pub offset: u64,
    /// What was found there.
    pub kind: FormatErrorKind,
}

impl FormatError {
    /// Builds an error of `kind` at `offset`.
    pub fn new(offset: u64, kind: FormatErrorKind) -> Self {
        Self { offset, kind }
    }
}

/// What went wrong, named after what was found.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FormatErrorKind {
    /// Fewer bytes were left than the structure needs.
    #[error("truncated: needed {needed} bytes, {available} available")]
    Truncated {
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A log entry's size field is below the smallest legal entry (Kafka's
    /// `CorruptRecordException`), typically a zero-filled tail.
    #[error("found record size {size} smaller than minimum record overhead (14)")]
    RecordSizeTooSmall {
        /// The size field as stored.
        size: i32,
    },
    /// A batch whose length field runs past the end of the file: a torn write
    /// or a corrupted length. Kafka stops reading here without an error.
    #[error("batch of {size} bytes runs past the end of the data ({available} bytes left)")]
    BatchPastEnd {
        /// Total batch size claimed by the length field (12 + length).
        size: i64,
        /// Bytes actually left in the file.
        available: u64,
    },
    /// Fewer than 17 bytes left: not enough for a batch header.
    #[error("{len} trailing bytes are too short to hold a batch header")]
    TrailingBytes {
        /// Number of trailing bytes.
        len: u64,
    },
    /// A magic byte that no Kafka version writes.
    #[error("unknown magic byte {0}")]
    UnknownMagic(i8),
    /// The stored CRC does not match the bytes.
    #[error("crc mismatch: stored {stored}, computed {computed}")]
    CrcMismatch {
        /// CRC stored in the header.
        stored: u32,
        /// CRC computed over the bytes.
        computed: u32,
    },
    /// A batch smaller than the fixed header of its magic.
    #[error("batch of {size} bytes is smaller than the {minimum}-byte header")]
    BatchTooSmall {
        /// Total batch size.
        size: u64,
        /// Header size for its magic.
        minimum: u64,
    },
    /// Compression bits name no codec.
    #[error("unknown compression type id {0}")]
    UnknownCompression(u8),
    /// Decompressed data would exceed the memory limit.
    #[error("decompressed data exceeds the limit of {limit} bytes")]
    DecompressedTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The compressed stream cannot be decoded.
    #[error("{codec} stream is corrupt: {reason}")]
    Decompress {
        /// Codec name.
        codec: &'static str,
        /// What the decoder reported.
        reason: &'static str,
    },
    /// A varint with its continuation bit still set after its maximum length.
    #[error("varint is too long")]
    VarintTooLong,
    /// A negative record count in a batch header.
    #[error("invalid record count {0}")]
    InvalidRecordCount(i32),
    /// A record whose declared length disagrees with its fields.
    #[error("invalid record size: declared {declared}, fields use {used}")]
    RecordSizeMismatch {
        /// Declared length.
        declared: i64,
        /// Bytes the fields used.
        used: i64,
    },
    /// A negative or impossible length field inside a record.
    #[error("invalid {what} length {len}")]
    InvalidLength {
        /// Which field.
        what: &'static str,
        /// Its value.
        len: i64,
    },
    /// Bytes remain in the batch after its declared records.
    #[error("records still remaining after {count} records")]
    RecordsRemaining {
        /// Records declared in the header.
        count: i32,
    },
    /// A file size that is not a whole number of fixed-size entries.
    #[error("file size {size} is not a multiple of the {entry_size}-byte entry size")]
    IndexSizeNotMultiple {
        /// File size.
        size: u64,
        /// Entry size.
        entry_size: u64,
    },
    /// A version number this reader does not know.
    #[error("unsupported version {0}")]
    UnsupportedVersion(i64),
    /// A text file line that does not match its format.
    #[error("malformed line {line}: {reason}")]
    MalformedLine {
        /// 1-based line number.
        line: u32,
        /// What was expected.
        reason: &'static str,
    },
    /// A structural rule of the format is broken.
    #[error("{0}")]
    Invalid(&'static str),
}
