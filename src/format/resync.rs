//! Walking a `.log` past damage: the batches Kafka's framing accepts, and,
//! after a batch that fails its checks, the next position where a frame
//! validates again (a plausible header that continues the log's offsets,
//! then its CRC). Works on a window of the file, so that a streamed reader
//! can hand it one buffer at a time: when the window ends before a decision,
//! [`Salvager::step`] asks for more bytes from a position.

use super::batch::{HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MIN_ENTRY_SIZE, V2_HEADER_SIZE};
use super::batches::{FileBatch, read_frame};
use super::error::{FormatError, FormatErrorKind};

/// Smallest size field of a magic-1 message (Kafka's `RECORD_OVERHEAD_V1`).
const MIN_ENTRY_SIZE_V1: i32 = 22;

/// How a segment is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SalvageOptions {
    /// Resynchronize past damage (else stop at the first damaged batch, as
    /// Kafka's readers do).
    pub salvage: bool,
    /// The segment's base offset: no batch of it starts below.
    pub base_offset: i64,
    /// The next segment's base offset, if any: every offset of this segment
    /// is below it.
    pub next_segment: Option<i64>,
    /// Largest batch read, in bytes; a larger one counts as damage.
    pub max_batch_bytes: u64,
}

/// A byte range that holds no batch Kafka's framing accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DamagedRange {
    /// First damaged byte.
    pub start: u64,
    /// First byte after the range (the file's end, or where a frame validates).
    pub end: u64,
    /// Why the batch at `start` was refused.
    pub why: FormatError,
}

/// What the walk found next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// A batch whose framing and CRC check out (and, when salvaging, whose
    /// offsets continue the log).
    Batch(FileBatch<'a>),
    /// A damaged range, whole: the walk resumes at its end (or stops there,
    /// when not salvaging).
    Damage(DamagedRange),
    /// The window ends before a decision: call again with a window that
    /// starts at `from` and holds `bytes` bytes (or runs to the file's end).
    NeedMore {
        /// Where the next window must start.
        from: u64,
        /// How many bytes it must hold.
        bytes: u64,
    },
    /// The end of the file.
    End,
}

/// The walk's state between windows.
#[derive(Debug, Clone)]
pub struct Salvager {
    options: SalvageOptions,
    file_len: u64,
    position: u64,
    /// The smallest offset the next batch may start at.
    expected: i64,
    /// Every offset of the segment is below this.
    below: i64,
    damage: Option<(u64, FormatError)>,
    /// Where the resync scan resumes inside the open damaged range.
    scan_from: u64,
}

/// What checking the batch at one position gave.
enum Check<'a> {
    Accept(FileBatch<'a>),
    Reject(FormatError),
    NeedMore(u64),
}

impl Salvager {
    /// Starts a walk of a `.log` of `file_len` bytes at byte 0.
    pub fn new(options: SalvageOptions, file_len: u64) -> Self {
        // Kafka keeps every offset of a segment within i32 of its base
        // (relative offsets in the index are 4 bytes), and rolls otherwise.
        let relative_limit = options.base_offset.saturating_add(i64::from(i32::MAX));
        Self {
            options,
            file_len,
            position: 0,
            expected: options.base_offset,
            below: options
                .next_segment
                .map_or(relative_limit, |n| n.min(relative_limit)),
            damage: None,
            scan_from: 0,
        }
    }

    /// Where the walk is.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The next step, looking at `window`, the file's bytes from byte
    /// `window_start` (which must not be after [`Self::position`]).
    pub fn step<'a>(&mut self, window: &'a [u8], window_start: u64) -> Step<'a> {
        let window_end = window_start + window.len() as u64;
        loop {
            if self.position >= self.file_len {
                return match self.damage.take() {
                    Some((start, why)) => Step::Damage(DamagedRange {
                        start,
                        end: self.file_len,
                        why,
                    }),
                    None => Step::End,
                };
            }
            let rest = window
                .get((self.position.saturating_sub(window_start)) as usize..)
                .unwrap_or_default();
            match self.check(rest, window_end == self.file_len) {
                Check::Accept(batch) => {
                    if let Some((start, why)) = self.damage.take() {
                        // The batch is checked again on the next call.
                        return Step::Damage(DamagedRange {
                            start,
                            end: self.position,
                            why,
                        });
                    }
                    if let Ok(last) = batch.last_offset() {
                        self.expected = last.saturating_add(1);
                    }
                    self.position += batch.size();
                    return Step::Batch(batch);
                }
                Check::NeedMore(bytes) => {
                    return Step::NeedMore {
                        from: self.position,
                        bytes,
                    };
                }
                Check::Reject(why) => {
                    if self.damage.is_none() {
                        self.damage = Some((self.position, why));
                        self.scan_from = self.position + 1;
                        if !self.options.salvage {
                            self.position = self.file_len;
                            continue;
                        }
                    }
                    match self.scan(window, window_start) {
                        Some(candidate) => {
                            self.position = candidate;
                            self.scan_from = candidate + 1;
                        }
                        None if window_end >= self.file_len => self.position = self.file_len,
                        None => {
                            self.position = self.scan_from;
                            return Step::NeedMore {
                                from: self.scan_from,
                                bytes: SCAN_WINDOW,
                            };
                        }
                    }
                }
            }
        }
    }

    /// The batch at the current position, `rest` being the window from
    /// there; `at_eof`: the window runs to the file's end.
    fn check<'a>(&self, rest: &'a [u8], at_eof: bool) -> Check<'a> {
        let position = self.position;
        let left = self.file_len - position;
        let need = |n: u64| {
            if (rest.len() as u64) < n.min(left) && !at_eof {
                Some(Check::NeedMore(n))
            } else {
                None
            }
        };
        if let Some(more) = need(V2_HEADER_SIZE as u64) {
            return more;
        }
        let frame = match read_frame(rest, position) {
            Ok(frame) => frame,
            Err(err) => return Check::Reject(err),
        };
        let total = LOG_OVERHEAD as u64 + frame.size as u64;
        if total > left {
            return Check::Reject(FormatError::new(
                position,
                FormatErrorKind::BatchPastEnd {
                    size: total as i64,
                    available: left,
                },
            ));
        }
        if total > self.options.max_batch_bytes {
            return Check::Reject(FormatError::new(
                position,
                FormatErrorKind::Invalid("batch larger than --max-decompressed-bytes"),
            ));
        }
        if self.options.salvage {
            if let Err(why) = plausible(rest, self.expected, self.below, left) {
                return Check::Reject(FormatError::new(position, FormatErrorKind::Invalid(why)));
            }
        }
        if let Some(more) = need(total) {
            return more;
        }
        let Some(bytes) = rest.get(..total as usize) else {
            return Check::NeedMore(total);
        };
        let batch = FileBatch {
            position,
            bytes,
            magic: frame.magic,
        };
        match batch.ensure_valid() {
            Ok(()) => Check::Accept(batch),
            Err(err) => Check::Reject(err),
        }
    }

    /// The next position in the open damaged range, within `window`, whose
    /// header passes [`plausible`]; `None` when the window holds none (the
    /// scan then resumes at `scan_from`).
    fn scan(&mut self, window: &[u8], window_start: u64) -> Option<u64> {
        let from = self.scan_from.saturating_sub(window_start) as usize;
        let window_end = window_start + window.len() as u64;
        // A header is judged on its first 61 bytes; nearer the window's end
        // only when the window is the file's end.
        let last = if window_end >= self.file_len {
            window.len().checked_sub(HEADER_SIZE_UP_TO_MAGIC)?
        } else {
            window.len().checked_sub(V2_HEADER_SIZE)?
        };
        let span = self.below.wrapping_sub(self.expected) as u64;
        let judge = |p: usize| {
            let rest = window.get(p..).unwrap_or_default();
            // The offset field must lie in [expected, below).
            let offset = be_i64(rest);
            if (offset.wrapping_sub(self.expected) as u64) >= span {
                return None;
            }
            let position = window_start + p as u64;
            let left = self.file_len - position;
            (plausible(rest, self.expected, self.below, left).is_ok()
                && frame_size(rest) <= self.options.max_batch_bytes)
                .then_some(position)
        };
        if span == 0 {
            self.scan_from = window_start + last as u64 + 1;
            return None;
        }
        // A block of positions at a time: a frame can start only where the
        // offset's top byte is that of an offset in range and the magic byte
        // 16 bytes on is 0, 1 or 2.
        let tops = [
            (self.expected >> 56) as u8,
            (self.below.wrapping_sub(1) >> 56) as u8,
        ];
        let blocks = (last + 1 - from.min(last + 1)) / BLOCK;
        let heads = window.get(from..from + blocks * BLOCK).unwrap_or_default();
        let magics = window
            .get(from + 16..from + 16 + blocks * BLOCK)
            .unwrap_or_default();
        // One top byte (offsets below 2^56 apart, nearly always) or two.
        let found = if tops[0] == tops[1] {
            scan_blocks(heads, magics, from, |h| h == tops[0], &judge)
        } else {
            scan_blocks(
                heads,
                magics,
                from,
                |h| (h == tops[0]) | (h == tops[1]),
                &judge,
            )
        };
        let mut at = match found {
            Ok(found) => return Some(found),
            Err(at) => at,
        };
        for p in at..=last {
            if window.get(p + 16).is_some_and(|&m| m <= 2) {
                if let Some(found) = judge(p) {
                    return Some(found);
                }
            }
        }
        at = last + 1;
        self.scan_from = window_start + at as u64;
        None
    }
}

/// Positions a resync scan tests at once.
const BLOCK: usize = 128;

/// Whether a frame may start at a position whose offset field opens with
/// `head` and whose magic byte is `magic`, given `top`, the test of an
/// offset's top byte.
fn may_start(top: &impl Fn(u8) -> bool, head: u8, magic: u8) -> bool {
    top(head) & (magic <= 2)
}

/// Scans blocks of [`BLOCK`] candidate offset fields' first bytes (`heads`)
/// and the bytes 16 on (`magics`): a block is looked at position by
/// position only when [`may_start`] holds for one of them, tested over the
/// whole block without a branch (a few vector instructions). The first
/// position `judge` accepts, or the position after the last block.
fn scan_blocks(
    heads: &[u8],
    magics: &[u8],
    from: usize,
    top: impl Fn(u8) -> bool,
    judge: &impl Fn(usize) -> Option<u64>,
) -> Result<u64, usize> {
    let mut at = from;
    for (head, magic) in heads.chunks_exact(BLOCK).zip(magics.chunks_exact(BLOCK)) {
        // Arrays, so that the compiler knows the block's length.
        let (Ok(head), Ok(magic)) = (
            <&[u8; BLOCK]>::try_from(head),
            <&[u8; BLOCK]>::try_from(magic),
        ) else {
            return Err(at);
        };
        let any = head
            .iter()
            .zip(magic)
            .fold(false, |any, (&h, &m)| any | may_start(&top, h, m));
        if any {
            for (k, (&h, &m)) in head.iter().zip(magic).enumerate() {
                if may_start(&top, h, m) {
                    if let Some(found) = judge(at + k) {
                        return Ok(found);
                    }
                }
            }
        }
        at += BLOCK;
    }
    Err(at)
}

/// Bytes a resync scan asks for at a time.
const SCAN_WINDOW: u64 = 256 << 10;

fn be_i64(bytes: &[u8]) -> i64 {
    bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map_or(i64::MIN, i64::from_be_bytes)
}

fn be_i32(bytes: &[u8], at: usize) -> i32 {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(i32::MIN, i32::from_be_bytes)
}

fn be_i16(bytes: &[u8], at: usize) -> i16 {
    bytes
        .get(at..at + 2)
        .and_then(|b| b.try_into().ok())
        .map_or(i16::MIN, i16::from_be_bytes)
}

/// 12 + the size field.
fn frame_size(head: &[u8]) -> u64 {
    LOG_OVERHEAD as u64 + be_i32(head, 8).max(0) as u64
}

/// The resync pre-filter: whether the header at the start of `head` could
/// be a batch Kafka wrote at this point of the log, from its fixed fields
/// alone: a known magic; a size field at least the magic's minimum and
/// within the `left` bytes of the file; offsets at or after `expected` and
/// below `below`; a known codec and timestamp bits; for magic 2, record
/// count, offset delta, producer id, epoch, sequence and leader epoch in
/// the ranges Kafka writes. Only a frame that passes is worth its CRC.
pub fn plausible(head: &[u8], expected: i64, below: i64, left: u64) -> Result<(), &'static str> {
    let offset = be_i64(head);
    let size = be_i32(head, 8);
    let magic = head.get(16).copied().ok_or("too short for a header")?;
    let min_size = match magic {
        0 => MIN_ENTRY_SIZE,
        1 => MIN_ENTRY_SIZE_V1,
        2 => (V2_HEADER_SIZE - LOG_OVERHEAD) as i32,
        _ => return Err("unknown magic byte"),
    };
    if size < min_size || frame_size(head) > left {
        return Err("size field out of bounds");
    }
    if offset < expected {
        return Err("offset does not continue the log (below the previous batch's)");
    }
    if offset >= below {
        return Err("offset past the segment's offset range");
    }
    if magic < 2 {
        let attributes = head.get(17).copied().ok_or("too short for a header")?;
        let allowed = if magic == 0 { 0x07 } else { 0x0f };
        if attributes & !allowed != 0 || attributes & 0x07 > 4 {
            return Err("unknown attribute bits");
        }
        return Ok(());
    }
    if head.len() < V2_HEADER_SIZE {
        return Err("too short for a batch header");
    }
    let attributes = be_i16(head, 21);
    let delta = be_i32(head, 23);
    let producer_id = be_i64(head.get(43..).unwrap_or_default());
    let producer_epoch = be_i16(head, 51);
    let base_sequence = be_i32(head, 53);
    let count = be_i32(head, 57);
    let leader_epoch = be_i32(head, 12);
    if attributes & 0x07 > 4 || attributes & !0x7f != 0 {
        return Err("unknown attribute bits");
    }
    if delta < 0 || count < 0 || i64::from(count) > i64::from(delta) + 1 {
        return Err("record count and offset delta disagree");
    }
    if offset.saturating_add(i64::from(delta)) >= below {
        return Err("offset past the segment's offset range");
    }
    if producer_id < -1 || producer_epoch < -1 || base_sequence < -1 || leader_epoch < -1 {
        return Err("producer or leader fields out of range");
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};

    fn batch(base: i64, records: usize) -> Vec<u8> {
        encode_batch(&BatchSpec {
            base_offset: base,
            records: (0..records)
                .map(|i| RecordSpec {
                    timestamp: i as i64,
                    value: Some(vec![b'v'; 40]),
                    ..RecordSpec::default()
                })
                .collect(),
            ..BatchSpec::default()
        })
    }

    fn options(salvage: bool) -> SalvageOptions {
        SalvageOptions {
            salvage,
            base_offset: 0,
            next_segment: None,
            max_batch_bytes: 1 << 20,
        }
    }

    /// Walks `data` in windows of `window` bytes, as a streamed reader does.
    fn walk(data: &[u8], salvage: bool, window: usize) -> Vec<Result<u64, DamagedRange>> {
        let mut s = Salvager::new(options(salvage), data.len() as u64);
        let (mut start, mut len) = (0u64, window);
        let mut out = Vec::new();
        loop {
            let end = (start as usize + len).min(data.len());
            match s.step(&data[start as usize..end], start) {
                Step::Batch(b) => out.push(Ok(b.position)),
                Step::Damage(d) => out.push(Err(d)),
                Step::NeedMore { from, bytes } => {
                    start = from;
                    len = window.max(bytes as usize);
                }
                Step::End => return out,
            }
        }
    }

    #[test]
    fn resyncs_where_the_offsets_in_range_have_two_top_bytes() {
        // Offsets in [2^56 - 8, 2^56 - 8 + 2^31): the top byte is 0x00 or
        // 0x01, so the scan looks for either.
        let base = (1i64 << 56) - 8;
        let mut data = batch(base, 3);
        let garbage_at = data.len();
        data.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80));
        // The next batch starts at 2^56: its top byte is the other one.
        let low = data.len() as u64;
        data.extend(batch(base + 8, 3));
        let high = data.len() as u64;
        data.extend(batch(base + 11, 3));
        let mut s = Salvager::new(
            SalvageOptions {
                base_offset: base,
                ..options(true)
            },
            data.len() as u64,
        );
        let mut seen = Vec::new();
        loop {
            match s.step(&data, 0) {
                Step::Batch(b) => seen.push(Ok(b.position)),
                Step::Damage(d) => seen.push(Err((d.start, d.end))),
                Step::NeedMore { .. } => panic!("the window is the whole file"),
                Step::End => break,
            }
        }
        assert_eq!(
            seen,
            [Ok(0), Err((garbage_at as u64, low)), Ok(low), Ok(high)]
        );
    }

    #[test]
    fn resyncs_past_a_flipped_byte_in_any_window_size() {
        let mut data = Vec::new();
        let mut starts = Vec::new();
        for i in 0..6 {
            starts.push(data.len() as u64);
            data.extend(batch(i * 3, 3));
        }
        let damaged_at = starts[2] as usize + 70;
        data[damaged_at] ^= 0x20;
        for window in [61, 100, 333, 4096] {
            let steps = walk(&data, true, window);
            let mut expected: Vec<Result<u64, DamagedRange>> =
                starts[..2].iter().map(|&p| Ok(p)).collect();
            let why = steps[2].unwrap_err().why;
            assert!(matches!(why.kind, FormatErrorKind::CrcMismatch { .. }));
            expected.push(Err(DamagedRange {
                start: starts[2],
                end: starts[3],
                why,
            }));
            expected.extend(starts[3..].iter().map(|&p| Ok(p)));
            assert_eq!(steps, expected, "window {window}");
            let strict = walk(&data, false, window);
            assert_eq!(strict.len(), 3);
            assert_eq!(strict[2].unwrap_err().end, data.len() as u64);
        }
    }

    #[test]
    fn garbage_to_the_end_is_one_range() {
        let mut data = batch(0, 2);
        let good = data.len() as u64;
        data.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        let steps = walk(&data, true, 512);
        assert_eq!(steps[0], Ok(0));
        let range = steps[1].unwrap_err();
        assert_eq!((range.start, range.end), (good, data.len() as u64));
        assert_eq!(steps.len(), 2);
    }

    #[test]
    fn a_valid_batch_whose_offsets_go_back_is_not_taken_after_damage() {
        let mut data = batch(0, 3);
        data.extend(vec![0xee; 100]);
        data.extend(batch(1, 3));
        data.extend(batch(10, 3));
        let steps = walk(&data, true, 4096);
        assert_eq!(steps.len(), 3);
        let range = steps[1].unwrap_err();
        assert_eq!(steps[2], Ok(range.end));
        assert_eq!(range.end as usize, data.len() - batch(10, 3).len());
    }

    #[test]
    fn the_pre_filter_refuses_zeros_and_unknown_magic() {
        assert!(plausible(&[0u8; 61], 0, i64::MAX, 1000).is_err());
        let mut b = batch(5, 1);
        assert!(plausible(&b, 5, 100, b.len() as u64).is_ok());
        assert!(plausible(&b, 6, 100, b.len() as u64).is_err());
        assert!(plausible(&b, 0, 5, b.len() as u64).is_err());
        b[16] = 3;
        assert!(plausible(&b, 5, 100, b.len() as u64).is_err());
    }

    /// The resync scan without its shortcuts: every position from
    /// `scan_from` on, up to the last whose header the window holds, judged
    /// by [`plausible`] and the batch limit alone.
    fn scan_every_position(s: &Salvager, window: &[u8], window_start: u64) -> Option<u64> {
        let at_eof = window_start + window.len() as u64 >= s.file_len;
        let header = if at_eof {
            HEADER_SIZE_UP_TO_MAGIC
        } else {
            V2_HEADER_SIZE
        };
        let from = (s.scan_from - window_start) as usize;
        (from..(window.len() + 1).saturating_sub(header))
            .find(|&p| {
                let position = window_start + p as u64;
                let head = &window[p..];
                plausible(head, s.expected, s.below, s.file_len - position).is_ok()
                    && frame_size(head) <= s.options.max_batch_bytes
            })
            .map(|p| window_start + p as u64)
    }

    proptest::proptest! {
        /// The scan's block test never passes over a position the full
        /// check accepts: over bytes rich in what a header holds (zeros,
        /// ones, twos, the offsets' top bytes) with valid batches spliced in
        /// at random positions, from random offsets (some whose range spans
        /// two top bytes), in windows that end at the file's end or not, it
        /// stops exactly where the scan of every position stops.
        #[test]
        fn the_scan_finds_what_judging_every_position_finds(
            base in proptest::prop_oneof![
                0i64..1000,
                (1i64 << 56) - 3000..(1i64 << 56) + 10,
                (5i64 << 56) - 50..(5i64 << 56),
                0i64..i64::MAX / 2,
            ],
            span in proptest::prop_oneof![1i64..200, 1i64..=i64::from(i32::MAX)],
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(0u8),
                    0u8..=3,
                    proptest::strategy::Just(1u8),
                    proptest::strategy::Just(5u8),
                    proptest::num::u8::ANY,
                ],
                0..3000,
            ),
            splices in proptest::collection::vec((0usize..3000, 0i64..300, 1usize..4), 0..5),
            skip in 0usize..100,
            past_eof in 0u64..2,
            max_batch_bytes in proptest::prop_oneof![
                proptest::strategy::Just(1u64 << 20),
                0u64..200,
            ],
        ) {
            let mut window = bytes;
            for (at, delta, records) in splices {
                let spliced = batch(base + delta % span, records);
                let at = at.min(window.len());
                let end = (at + spliced.len()).min(window.len());
                window[at..end].copy_from_slice(&spliced[..end - at]);
            }
            let window_start = 7;
            let mut s = Salvager::new(
                SalvageOptions {
                    base_offset: base,
                    max_batch_bytes,
                    ..options(true)
                },
                window_start + window.len() as u64 + past_eof * 500,
            );
            s.below = base + span;
            s.scan_from = window_start + skip.min(window.len()) as u64;
            // Each stop, then on from the position after it, to the end.
            loop {
                let expected = scan_every_position(&s, &window, window_start);
                let found = s.scan(&window, window_start);
                proptest::prop_assert_eq!(found, expected);
                match found {
                    Some(at) => s.scan_from = at + 1,
                    None => break,
                }
            }
        }

        /// What the `salvage_scan` fuzz target checks, on mutated segments:
        /// steps tile the input, batches pass their CRC, and small windows
        /// agree with one window over everything.
        #[test]
        fn steps_tile_mutated_segments(
            edits in proptest::collection::vec((0usize..4000, 0u8..=255, 1usize..300), 0..4),
        ) {
            let mut data = Vec::new();
            for i in 0..12 {
                data.extend(batch(i * 3, 3));
            }
            for (at, byte, len) in edits {
                let at = at % data.len();
                let end = (at + len).min(data.len());
                data[at..end].fill(byte);
            }
            let steps = |window: usize| {
                let mut s = Salvager::new(options(true), data.len() as u64);
                let (mut start, mut len) = (0usize, window);
                let mut out = Vec::new();
                loop {
                    let end = (start + len).min(data.len());
                    match s.step(&data[start..end], start as u64) {
                        Step::Batch(b) => {
                            assert!(b.is_valid());
                            out.push((b.position, b.position + b.size()));
                        }
                        Step::Damage(d) => out.push((d.start, d.end)),
                        Step::NeedMore { from, bytes } => {
                            assert!(from as usize >= start);
                            start = from as usize;
                            len = window.max(bytes as usize);
                        }
                        Step::End => return out,
                    }
                }
            };
            let whole = steps(data.len());
            let mut at = 0;
            for &(start, end) in &whole {
                proptest::prop_assert_eq!(start, at);
                proptest::prop_assert!(end > start);
                at = end;
            }
            proptest::prop_assert_eq!(at, data.len() as u64);
            proptest::prop_assert_eq!(steps(97), whole);
        }
    }
}
