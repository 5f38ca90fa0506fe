//! Walking a `.log` file batch by batch, header only, with Kafka's own
//! framing rules; and the plain-data summary of one batch of any magic.

use super::batch::{
    Compression, HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MIN_ENTRY_SIZE, RecordBatchHeader,
    TimestampType, V2_HEADER_SIZE, compute_v2_crc,
};
use super::codec::decompress;
use super::cursor::Cursor;
use super::error::{FormatError, FormatErrorKind};
use super::legacy::{LegacyMessage, parse_legacy_entry, parse_legacy_inner};
use super::record::{Record, parse_v2_records};

/// One framed batch (v2) or message entry (v0/v1) of a log file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileBatch<'a> {
    /// Absolute byte position of the batch in its file.
    pub position: u64,
    /// The whole batch, from its offset field to its last byte.
    pub bytes: &'a [u8],
    /// The magic byte at @16.
    pub magic: i8,
}

/// What every batch and legacy message starts with, as Kafka frames them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// @0: base offset (v2) or offset (legacy; a compressed wrapper's is
    /// its last inner offset).
    pub offset: i64,
    /// @8: bytes after the 12-byte log overhead, at least 14.
    pub size: i32,
    /// @16: the magic byte.
    pub magic: i8,
}

/// Reads the frame at the start of `rest`, which sits at `position`: fewer
/// than 17 bytes are trailing bytes, a size under 14 is too small.
pub fn read_frame(rest: &[u8], position: u64) -> Result<Frame, FormatError> {
    if rest.len() < HEADER_SIZE_UP_TO_MAGIC {
        return Err(FormatError::new(
            position,
            FormatErrorKind::TrailingBytes {
                len: rest.len() as u64,
            },
        ));
    }
    let mut c = Cursor::new(rest, position);
    let offset = c.read_i64()?;
    let size = c.read_i32()?;
    c.read_i32()?;
    let magic = c.read_i8()?;
    if size < MIN_ENTRY_SIZE {
        return Err(FormatError::new(
            position,
            FormatErrorKind::RecordSizeTooSmall { size },
        ));
    }
    Ok(Frame {
        offset,
        size,
        magic,
    })
}

/// Iterates the batches of a log file from `start`, as Kafka's
/// `FileLogInputStream` frames them. After the last good batch it yields at
/// most one `Err` saying why framing stopped, then ends.
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    done: bool,
}

impl<'a> BatchIter<'a> {
    /// Walks `data` (a whole log file) from byte `start`.
    pub fn new(data: &'a [u8], start: u64) -> Self {
        Self {
            data,
            pos: start.min(data.len() as u64) as usize,
            base: 0,
            done: false,
        }
    }

    /// Walks `chunk`, a piece of a log file that starts at byte `base` of
    /// the file; positions are reported in the file.
    pub fn in_chunk(chunk: &'a [u8], base: u64) -> Self {
        Self {
            data: chunk,
            pos: 0,
            base,
            done: false,
        }
    }

    /// Absolute position of the next batch to frame.
    pub fn position(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn frame(&self) -> Result<Option<FileBatch<'a>>, FormatError> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let position = self.position();
        if rest.is_empty() {
            return Ok(None);
        }
        let Frame { size, magic, .. } = read_frame(rest, position)?;
        let total = LOG_OVERHEAD + size as usize;
        match rest.get(..total) {
            Some(bytes) => Ok(Some(FileBatch {
                position,
                bytes,
                magic,
            })),
            None => Err(FormatError::new(
                position,
                FormatErrorKind::BatchPastEnd {
                    size: total as i64,
                    available: rest.len() as u64,
                },
            )),
        }
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<FileBatch<'a>, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.frame() {
            Ok(Some(batch)) => {
                self.pos += batch.bytes.len();
                Some(Ok(batch))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(err) => {
                self.done = true;
                Some(Err(err))
            }
        }
    }
}

/// Walks batches like [`BatchIter`] and pairs each with its summary; it
/// owns the scratch buffer that compressed legacy wrappers need.
#[derive(Debug)]
pub struct SummaryIter<'a> {
    batches: BatchIter<'a>,
    scratch: Vec<u8>,
    limit: usize,
}

impl<'a> SummaryIter<'a> {
    /// Walks `data` from byte `start`; `limit` caps any decompression.
    pub fn new(data: &'a [u8], start: u64, limit: usize) -> Self {
        Self {
            batches: BatchIter::new(data, start),
            scratch: Vec::new(),
            limit,
        }
    }
}

impl<'a> Iterator for SummaryIter<'a> {
    type Item = Result<(FileBatch<'a>, BatchSummary), FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.batches.next()? {
            Ok(batch) => batch,
            Err(err) => return Some(Err(err)),
        };
        Some(
            batch
                .summary(&mut self.scratch, self.limit)
                .map(|s| (batch, s)),
        )
    }
}

/// Everything kafka-dump-log prints about a batch but `isvalid`, for any
/// magic, read from its header (and, for a compressed legacy wrapper, its
/// inner offsets). Reading it never touches the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSummary {
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Records in the header (v2 only).
    pub count: Option<i32>,
    /// Absolute byte position.
    pub position: u64,
    /// Whole batch size in bytes.
    pub size: u64,
    /// Magic byte.
    pub magic: i8,
    /// Stored CRC (CRC-32C for v2, CRC32 for v0/v1); see [`FileBatch::is_valid`].
    pub crc: u32,
    /// Compression codec.
    pub compression: Compression,
    /// Timestamp type.
    pub timestamp_type: TimestampType,
    /// Max timestamp (v2 header) or message timestamp (legacy).
    pub max_timestamp: i64,
    /// First record's timestamp (v2), or -1.
    pub base_timestamp: i64,
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// First sequence.
    pub base_sequence: i32,
    /// Last sequence.
    pub last_sequence: i32,
    /// Leader epoch that appended the batch.
    pub partition_leader_epoch: i32,
    /// Transactional bit.
    pub is_transactional: bool,
    /// Control bit.
    pub is_control: bool,
    /// Delete horizon, when the attribute bit is set.
    pub delete_horizon_ms: Option<i64>,
}

impl BatchSummary {
    /// The summary of a v2 batch of `size` bytes at `position`, from its header alone.
    pub fn from_v2_header(
        h: &RecordBatchHeader,
        position: u64,
        size: u64,
    ) -> Result<Self, FormatError> {
        if h.magic > 2 {
            return Err(FormatError::new(
                position + 16,
                FormatErrorKind::UnknownMagic(h.magic),
            ));
        }
        Ok(Self {
            base_offset: h.base_offset,
            last_offset: h.last_offset(),
            count: Some(h.records_count),
            position,
            size,
            magic: h.magic,
            crc: h.crc,
            compression: h
                .compression()
                .map_err(|k| FormatError::new(position + 21, k))?,
            timestamp_type: h.timestamp_type(),
            max_timestamp: h.max_timestamp,
            base_timestamp: h.base_timestamp,
            producer_id: h.producer_id,
            producer_epoch: h.producer_epoch,
            base_sequence: h.base_sequence,
            last_sequence: h.last_sequence(),
            partition_leader_epoch: h.partition_leader_epoch,
            is_transactional: h.is_transactional(),
            is_control: h.is_control(),
            delete_horizon_ms: h.delete_horizon_ms(),
        })
    }
}

/// Records of one batch, with the error that stopped decoding, if any.
#[derive(Debug, Default)]
pub struct DecodedRecords<'b> {
    /// Records decoded in order.
    pub records: Vec<Record<'b>>,
    /// Why decoding stopped early.
    pub error: Option<FormatError>,
}

impl<'a> FileBatch<'a> {
    /// Total size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The v2 header (magic >= 2).
    pub fn header(&self) -> Result<RecordBatchHeader, FormatError> {
        RecordBatchHeader::parse(self.bytes, self.position)
    }

    /// The legacy message (magic 0/1).
    pub fn legacy(&self) -> Result<LegacyMessage<'a>, FormatError> {
        parse_legacy_entry(self.bytes, self.position)
    }

    /// The batch's last offset, from its header alone: a v2 batch's base
    /// offset plus its last offset delta; a legacy entry's own offset (a
    /// compressed wrapper carries its last inner offset), so nothing is
    /// decompressed.
    pub fn last_offset(&self) -> Result<i64, FormatError> {
        if self.is_legacy() {
            read_frame(self.bytes, self.position).map(|f| f.offset)
        } else {
            self.header().map(|h| h.last_offset())
        }
    }

    /// Whether this is a legacy (magic 0/1) entry.
    pub fn is_legacy(&self) -> bool {
        self.magic < 2
    }

    /// Checks the size and CRC as Kafka's `ensureValid` does.
    pub fn ensure_valid(&self) -> Result<(), FormatError> {
        if self.is_legacy() {
            let message = self.legacy()?;
            if !message.is_valid {
                let computed =
                    crc32fast::hash(self.bytes.get(LOG_OVERHEAD + 4..).unwrap_or_default());
                return Err(self.crc_error(message.crc, computed));
            }
            return Ok(());
        }
        let header = self.header()?;
        self.ensure_v2_crc(header.crc)
    }

    /// [`FileBatch::ensure_valid`] for a v2 batch whose header was already
    /// read: `stored` is the CRC its header holds.
    pub fn ensure_v2_crc(&self, stored: u32) -> Result<(), FormatError> {
        let computed = compute_v2_crc(self.bytes);
        if stored != computed {
            return Err(self.crc_error(stored, computed));
        }
        Ok(())
    }

    /// Kafka's `isValid`: the batch is at least a header long and its stored
    /// CRC matches the bytes. The only per-batch work that reads every byte.
    pub fn is_valid(&self) -> bool {
        self.ensure_valid().is_ok()
    }

    fn crc_error(&self, stored: u32, computed: u32) -> FormatError {
        FormatError::new(
            self.position,
            FormatErrorKind::CrcMismatch { stored, computed },
        )
    }

    /// The batch's header facts. `scratch` is used only for compressed legacy
    /// wrappers, whose base offset needs the inner message set.
    pub fn summary(
        &self,
        scratch: &mut Vec<u8>,
        limit: usize,
    ) -> Result<BatchSummary, FormatError> {
        if self.is_legacy() {
            self.legacy_summary(scratch, limit)
        } else {
            self.v2_summary()
        }
    }

    fn v2_summary(&self) -> Result<BatchSummary, FormatError> {
        BatchSummary::from_v2_header(&self.header()?, self.position, self.size())
    }

    fn legacy_summary(
        &self,
        scratch: &mut Vec<u8>,
        limit: usize,
    ) -> Result<BatchSummary, FormatError> {
        let m = self.legacy()?;
        let compression = m
            .compression()
            .map_err(|k| FormatError::new(self.position + 17, k))?;
        let base_offset = if compression == Compression::None {
            m.offset
        } else {
            let decoded = self.legacy_records(&m, compression, scratch, limit);
            decoded.records.first().map_or(m.offset, |r| r.offset)
        };
        Ok(BatchSummary {
            base_offset,
            last_offset: m.offset,
            count: None,
            position: self.position,
            size: self.size(),
            magic: m.magic,
            crc: m.crc,
            compression,
            timestamp_type: m.timestamp_type(),
            max_timestamp: m.timestamp,
            base_timestamp: -1,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            last_sequence: -1,
            partition_leader_epoch: -1,
            is_transactional: false,
            is_control: false,
            delete_horizon_ms: None,
        })
    }

    /// Decodes the records (decompressing into `scratch` when needed). The
    /// records borrow from the file or from `scratch`.
    pub fn records<'b>(&self, scratch: &'b mut Vec<u8>, limit: usize) -> DecodedRecords<'b>
    where
        'a: 'b,
    {
        if self.is_legacy() {
            return match self.legacy() {
                Ok(m) => match m.compression() {
                    Ok(Compression::None) => DecodedRecords {
                        records: vec![m.as_record()],
                        error: None,
                    },
                    Ok(c) => self.legacy_records(&m, c, scratch, limit),
                    Err(k) => error_only(FormatError::new(self.position + 17, k)),
                },
                Err(err) => error_only(err),
            };
        }
        let header = match self.header() {
            Ok(h) => h,
            Err(err) => return error_only(err),
        };
        let area = self.bytes.get(V2_HEADER_SIZE..).unwrap_or_default();
        let area_start = self.position + V2_HEADER_SIZE as u64;
        match header.compression() {
            Ok(Compression::None) => {
                let (records, error) = parse_v2_records(&header, area, area_start);
                DecodedRecords { records, error }
            }
            Ok(c) => match decompress(c, area, limit, scratch) {
                Ok(()) => {
                    let (records, error) = parse_v2_records(&header, scratch, area_start);
                    DecodedRecords {
                        records,
                        error: error.map(|e| FormatError::new(self.position, e.kind)),
                    }
                }
                Err(kind) => error_only(FormatError::new(self.position, kind)),
            },
            Err(kind) => error_only(FormatError::new(self.position + 21, kind)),
        }
    }

    fn legacy_records<'b>(
        &self,
        m: &LegacyMessage<'_>,
        compression: Compression,
        scratch: &'b mut Vec<u8>,
        limit: usize,
    ) -> DecodedRecords<'b> {
        let Some(value) = m.value else {
            return error_only(FormatError::new(
                self.position,
                FormatErrorKind::Invalid("compressed message set with null value"),
            ));
        };
        if let Err(kind) = decompress(compression, value, limit, scratch) {
            return error_only(FormatError::new(self.position, kind));
        }
        let (records, error) = parse_legacy_inner(m, scratch, self.position);
        DecodedRecords { records, error }
    }
}

fn error_only<'b>(err: FormatError) -> DecodedRecords<'b> {
    DecodedRecords {
        records: Vec::new(),
        error: Some(err),
    }
}
