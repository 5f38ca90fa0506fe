//! A deterministic writer of partition directories laid out the way a Kafka
//! leader writes them: segments rolled at `segment.bytes`, sparse offset and
//! time indexes appended every `index.interval.bytes`, the final time-index
//! entry at roll and close, trimmed indexes, empty producer snapshots at each
//! roll, `leader-epoch-checkpoint` and `partition.metadata`; and replica
//! sets of one partition written with chosen leader epochs and elections.
//! Used for the bundled `testdata/`, tests and benchmarks. Writes only into a directory
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

/// One thing that happens to a replica's log, for [`write_replica`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaEvent {
    /// `batches` batches of `per` records appended in `epoch`; with a
    /// `producer` id they are transactional.
    Write {
        /// Partition leader epoch of the batches.
        epoch: i32,
        /// How many batches.
        batches: usize,
        /// Records per batch.
        per: usize,
        /// Transactional producer id, if any.
        producer: Option<i64>,
    },
    /// The COMMIT marker of `producer`'s transaction, appended in `epoch`.
    Commit {
        /// Partition leader epoch of the marker.
        epoch: i32,
        /// Producer id.
        producer: i64,
    },
    /// Elected leader in this epoch; nothing written yet.
    Elected(i32),
}

/// A data batch at `base`: record values depend on the offset and on the
/// epoch that wrote it, so two leaders writing one offset write different
/// bytes while a replicated batch is the same on every replica.
fn replica_batch(epoch: i32, base: i64, per: usize, producer: Option<i64>) -> BatchSpec {
    BatchSpec {
        partition_leader_epoch: epoch,
        transactional: producer.is_some(),
        producer_id: producer.unwrap_or(-1),
        producer_epoch: if producer.is_some() { 0 } else { -1 },
        base_sequence: if producer.is_some() { 0 } else { -1 },
        records: (0..per as i64)
            .map(|i| RecordSpec {
                timestamp: FIXTURE_T0 + (base + i) * 1000,
                key: None,
                value: Some(fixture_value((base + i) * 31 + i64::from(epoch), 100)),
                headers: Vec::new(),
            })
            .collect(),
        ..BatchSpec::default()
    }
}

fn commit_marker(epoch: i32, base: i64, producer: i64) -> BatchSpec {
    BatchSpec {
        partition_leader_epoch: epoch,
        transactional: true,
        control: true,
        producer_id: producer,
        producer_epoch: 0,
        records: vec![RecordSpec {
            timestamp: FIXTURE_T0 + base * 1000,
            key: Some(vec![0, 0, 0, 1]),
            value: Some(vec![0, 0, 0, 0, 0, 0]),
            headers: Vec::new(),
        }],
        ..BatchSpec::default()
    }
}

/// Writes a replica's partition directory `dir` (which must not exist)
/// from `events`, closed cleanly, with topic id `topic_id`. Returns each
/// batch's (base offset, byte position).
pub fn write_replica(
    dir: &Path,
    events: &[ReplicaEvent],
    topic_id: &str,
) -> io::Result<Vec<(i64, u64)>> {
    let mut w = PartitionWriter::create(dir, WriterConfig::default())?;
    let mut placed = Vec::new();
    for e in events {
        match *e {
            ReplicaEvent::Write {
                epoch,
                batches,
                per,
                producer,
            } => {
                for _ in 0..batches {
                    let spec = replica_batch(epoch, w.next_offset(), per, producer);
                    placed.push(w.append(spec)?);
                }
            }
            ReplicaEvent::Commit { epoch, producer } => {
                placed.push(w.append(commit_marker(epoch, w.next_offset(), producer))?);
            }
            ReplicaEvent::Elected(epoch) => w.start_epoch(epoch),
        }
    }
    w.close(topic_id)?;
    Ok(placed)
}

/// The bundled two-replica example of an unclean leader election, under
/// `root`: `b1/orders-0`, the old leader, whose epoch 1 (offsets 40..59,
/// with the commit of producer 7's transaction begun at 28) the new leader
/// never saw, and `b2/orders-0`, elected uncleanly in epoch 2 at offset 32.
/// `b1`'s high watermark is 36.
pub fn write_unclean_election(root: &Path) -> io::Result<()> {
    use ReplicaEvent::{Commit, Elected, Write};
    let plain = |epoch, batches| Write {
        epoch,
        batches,
        per: 4,
        producer: None,
    };
    let txn = Write {
        epoch: 0,
        batches: 1,
        per: 4,
        producer: Some(7),
    };
    let topic_id = "kseg-diverge-AAAAAAAAA";
    write_replica(
        &root.join("b1/orders-0"),
        &[
            plain(0, 7),
            txn,
            plain(0, 2),
            Elected(1),
            Commit {
                epoch: 1,
                producer: 7,
            },
            plain(1, 5),
        ],
        topic_id,
    )?;
    write_replica(
        &root.join("b2/orders-0"),
        &[plain(0, 7), txn, Elected(2), plain(2, 3)],
        topic_id,
    )?;
    fs::write(
        root.join("b1/replication-offset-checkpoint"),
        crate::format::checkpoint::encode_offset_checkpoint(&[
            crate::format::checkpoint::OffsetCheckpointEntry {
                topic: "orders".into(),
                partition: 0,
                offset: 36,
            },
        ]),
    )
}
