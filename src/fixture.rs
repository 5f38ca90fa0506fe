//! A deterministic writer of partition directories laid out the way a Kafka
//! leader writes them: segments rolled at `segment.bytes`, sparse offset and
//! time indexes appended every `index.interval.bytes`, the final time-index
//! entry at roll and close, trimmed indexes, empty producer snapshots at each
//! roll, `leader-epoch-checkpoint` and `partition.metadata`. Used for the
//! bundled `testdata/`, tests and benchmarks. Writes only into a directory
//! it creates.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::format::checkpoint::{LeaderEpochEntry, encode_leader_epoch_checkpoint};
use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};
use crate::format::offset_index::{OffsetIndexEntry, encode_offset_index};
use crate::format::producer_snapshot::encode_producer_snapshot;
use crate::format::time_index::{TimeIndexEntry, encode_time_index};
use crate::logdir::file_name::segment_file_name;

/// Topic settings the writer follows.
#[derive(Debug, Clone, Copy)]
pub struct WriterConfig {
    /// `segment.bytes`.
    pub segment_bytes: u64,
    /// `index.interval.bytes`.
    pub index_interval_bytes: u64,
}

impl Default for WriterConfig {
    fn default() -> Self {
        Self {
            segment_bytes: 1 << 30,
            index_interval_bytes: 4096,
        }
    }
}

struct OpenSegment {
    base_offset: i64,
    log: BufWriter<File>,
    size: u64,
    bytes_since_entry: u64,
    offset_entries: Vec<OffsetIndexEntry>,
    time_entries: Vec<TimeIndexEntry>,
    max_timestamp: i64,
    offset_of_max: i64,
}

/// Appends batches to a new partition directory as a Kafka leader would.
pub struct PartitionWriter {
    dir: PathBuf,
    config: WriterConfig,
    segment: Option<OpenSegment>,
    next_offset: i64,
    leader_epochs: Vec<LeaderEpochEntry>,
}

impl PartitionWriter {
    /// Creates `dir` (which must not exist yet) and starts at offset 0.
    pub fn create(dir: &Path, config: WriterConfig) -> io::Result<Self> {
        fs::create_dir_all(dir.parent().unwrap_or(Path::new(".")))?;
        fs::create_dir(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            config,
            segment: None,
            next_offset: 0,
            leader_epochs: Vec::new(),
        })
    }

    /// The offset the next batch gets.
    pub fn next_offset(&self) -> i64 {
        self.next_offset
    }

    /// Records `epoch` as starting at the next offset, as a broker that
    /// becomes leader does before it appends anything (ignored unless it is
    /// above the latest epoch recorded).
    pub fn start_epoch(&mut self, epoch: i32) {
        if self.leader_epochs.last().is_none_or(|e| e.epoch < epoch) {
            self.leader_epochs.push(LeaderEpochEntry {
                epoch,
                start_offset: self.next_offset,
            });
        }
    }

    fn open_segment(&mut self, base_offset: i64) -> io::Result<()> {
        let log = BufWriter::new(File::create(
            self.dir.join(segment_file_name(base_offset, "log")),
        )?);
        self.segment = Some(OpenSegment {
            base_offset,
            log,
            size: 0,
            bytes_since_entry: 0,
            offset_entries: Vec::new(),
            time_entries: Vec::new(),
            max_timestamp: -1,
            offset_of_max: -1,
        });
        Ok(())
    }

    /// Appends one batch; its base offset is assigned here. Returns the
    /// batch's (base offset, byte position in its segment).
    pub fn append(&mut self, mut spec: BatchSpec) -> io::Result<(i64, u64)> {
        spec.base_offset = self.next_offset;
        let bytes = encode_batch(&spec);
        let roll = match &self.segment {
            None => true,
            Some(s) => s.size > self.config.segment_bytes.saturating_sub(bytes.len() as u64),
        };
        if roll {
            self.close_segment()?;
            self.write_snapshot(self.next_offset)?;
            self.open_segment(self.next_offset)?;
        }
        self.start_epoch(spec.partition_leader_epoch);
        let last_offset = spec.base_offset + spec.records.len().max(1) as i64 - 1;
        let max_ts = crate::format::batch::RecordBatchHeader::parse(&bytes, 0)
            .map_or(-1, |h| h.max_timestamp);
        let interval = self.config.index_interval_bytes;
        let Some(seg) = self.segment.as_mut() else {
            return Err(io::Error::other("no open segment"));
        };
        let position = seg.size;
        if max_ts > seg.max_timestamp {
            seg.max_timestamp = max_ts;
            seg.offset_of_max = last_offset;
        }
        if seg.bytes_since_entry > interval {
            seg.offset_entries.push(OffsetIndexEntry {
                offset: last_offset,
                position: position as i64,
            });
            maybe_append_time(seg, false);
            seg.bytes_since_entry = 0;
        }
        seg.bytes_since_entry += bytes.len() as u64;
        seg.log.write_all(&bytes)?;
        seg.size += bytes.len() as u64;
        self.next_offset = last_offset + 1;
        Ok((spec.base_offset, position))
    }

    fn close_segment(&mut self) -> io::Result<()> {
        let Some(mut seg) = self.segment.take() else {
            return Ok(());
        };
        maybe_append_time(&mut seg, true);
        seg.log.flush()?;
        let base = seg.base_offset;
        fs::write(
            self.dir.join(segment_file_name(base, "index")),
            encode_offset_index(base, &seg.offset_entries),
        )?;
        fs::write(
            self.dir.join(segment_file_name(base, "timeindex")),
            encode_time_index(base, &seg.time_entries),
        )
    }

    fn write_snapshot(&self, offset: i64) -> io::Result<()> {
        if offset == 0 {
            return Ok(());
        }
        fs::write(
            self.dir.join(segment_file_name(offset, "snapshot")),
            encode_producer_snapshot(&[]),
        )
    }

    /// Closes the active segment as a clean shutdown does and writes the
    /// partition's metadata files.
    pub fn close(mut self, topic_id: &str) -> io::Result<()> {
        self.close_segment()?;
        self.write_snapshot(self.next_offset)?;
        fs::write(
            self.dir.join("leader-epoch-checkpoint"),
            encode_leader_epoch_checkpoint(&self.leader_epochs),
        )?;
        fs::write(
            self.dir.join("partition.metadata"),
            format!("version: 0\ntopic_id: {topic_id}"),
        )
    }
}

fn maybe_append_time(seg: &mut OpenSegment, closing: bool) {
    let last = seg.time_entries.last().map_or(-1, |e| e.timestamp);
    if seg.max_timestamp > last && (closing || !seg.offset_entries.is_empty()) {
        seg.time_entries.push(TimeIndexEntry {
            timestamp: seg.max_timestamp,
            offset: seg.offset_of_max,
        });
    }
}

/// Start of the fixture clock: 2023-11-14T22:13:20Z.
pub const FIXTURE_T0: i64 = 1_700_000_000_000;

/// A 200-byte printable value, different for every offset.
pub fn fixture_value(offset: i64, len: usize) -> Vec<u8> {
    let mut state = (offset as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b"abcdefghijklmnopqrstuvwxyz0123456789 "[(state % 37) as usize]
        })
        .collect()
}

/// The classic example: 20,000 records of 200 bytes, 4 records per batch,
/// 1 MiB segments, index.interval.bytes 4096, after a clean shutdown.
pub fn write_classic(dir: &Path) -> io::Result<()> {
    let config = WriterConfig {
        segment_bytes: 1 << 20,
        index_interval_bytes: 4096,
    };
    let mut writer = PartitionWriter::create(dir, config)?;
    for batch in 0..5000i64 {
        let records = (0..4)
            .map(|i| RecordSpec {
                timestamp: FIXTURE_T0 + batch * 10 + i,
                key: None,
                value: Some(fixture_value(batch * 4 + i, 200)),
                headers: Vec::new(),
            })
            .collect();
        writer.append(BatchSpec {
            records,
            ..BatchSpec::default()
        })?;
    }
    writer.close("kseg-classic-AAAAAAAAA")
}
