//! kseg's speed and memory, each measured against a plain read of the same
//! bytes in the same run (so a noisy machine moves both sides):
//!
//! - `dump` at batch level on one big segment, and its peak RSS against a
//!   segment 1/16 the size;
//! - `dump` of the same segment as a remote object on an S3-compatible
//!   server in this process (Kafka's LocalTieredStorage layout), streamed:
//!   its speed against the local dump, and its peak RSS against a remote
//!   segment 1/16 the size;
//! - `rebuild-index --check` on the same segment (header walk, no CRC);
//! - `verify` on a log dir of several segments, one thread and all cores,
//!   and one thread restoring the page cache, beside the floors the machine
//!   sets: CRC-32C over the same bytes read, mapped (over each file, and a
//!   batch at a time), and already mapped in (memory bandwidth alone); on
//!   all cores, the batch-at-a-time floor in threads and in processes;
//! - `verify` on one-record batches of 1 KiB, where the checksum's cost a
//!   call, not memory, decides;
//! - `locate` on a partition of 10,000 segments;
//! - `salvage` on a 256 MiB segment of garbage with a few valid batches;
//! - `dump --print-data-log` of a `__consumer_offsets` partition, records
//!   decoded by Kafka's schemas against the same dump with `--no-decode`,
//!   beside the bound the text each writes sets on that ratio;
//! - `groups` and `metadata`, which replay a `__consumer_offsets` and a
//!   `__cluster_metadata` partition of realistic records (thousands of
//!   groups, thousands of topics), against the decoded dump of the same
//!   partition, and their peak RSS against a partition 1/4 the size;
//! - `verify`, `retention-report` and `rebuild-index --check` on log dirs of
//!   1,000 and 10,000 small partitions: time per segment and peak RSS;
//! - kseg's process start cost (`kseg --version`), since every plain read
//!   baseline runs in process.
//!
//! `cargo bench --bench throughput -- [--size-mib N] [--work-dir DIR] [--only SECTION,...]`
//! (default 1024 MiB in a temporary directory; the data is written once;
//! sections: `dump`, `remote`, `check`, `verify`, `small`, `rss`, `locate`,
//! `salvage`, `decoded`, `groups`, `metadata`, `partitions`, default all;
//! the `groups` and `metadata` partitions are a quarter of the size).
//!
//! How the page cache holds a file decides what a mapping of it costs: a
//! file read from disk is cached in large folios (up to 2 MiB, mapped with
//! one page-table entry each), one written a batch at a time in small ones
//! (one entry per 4 KiB page). Before the `dump`, `check` and `verify`
//! figures each of their segments is dropped from the page cache and read
//! back, as a broker's segments are cached after it restarts or once a
//! consumer has read them from disk, so that every run measures the same
//! cache and not whatever the writer (or the machine's memory pressure)
//! left.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kseg::fixture::{PartitionWriter, WriterConfig, fixture_value};
use kseg::format::checkpoint::{OffsetCheckpointEntry, encode_offset_checkpoint};
use kseg::format::encode::{BatchSpec, RecordSpec};

const KSEG: &str = env!("CARGO_BIN_EXE_kseg");

/// The integration tests' S3-compatible server (s3s-fs on a local port).
#[allow(dead_code)]
#[path = "../tests/integration/s3_server.rs"]
mod s3_server;

/// Batch number `batch`: `records` records of `value_len`-byte values,
/// timestamped by the batch number.
fn plain_batch(batch: i64, records: i64, value_len: usize) -> BatchSpec {
    BatchSpec {
        records: (0..records)
            .map(|i| RecordSpec {
                timestamp: 1_700_000_000_000 + batch,
                value: Some(fixture_value(batch * records + i, value_len)),
                ..RecordSpec::default()
            })
            .collect(),
        ..BatchSpec::default()
    }
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// Writes `bytes` of batches of `records` 1 KiB values each (16 records:
/// about 16.5 KiB a batch, Kafka's default `batch.size`; one: about 1.1 KiB,
/// what a producer that does not linger sends to a quiet partition).
fn write_partition(dir: &Path, bytes: u64, segment_bytes: u64, records: i64) {
    if dir.exists() {
        return;
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    let mut written = 0;
    let mut batch = 0i64;
    while written < bytes {
        w.append(plain_batch(batch, records, 1024)).unwrap();
        written += records as u64 * 1030 + 61;
        batch += 1;
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// About `bytes` of one-record batches from 8 idempotent producers (as
/// Kafka's producers are by default): every batch carries producer state.
fn write_idempotent(dir: &Path, bytes: u64) {
    if dir.exists() {
        return;
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: bytes / 4,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    let mut written = 0;
    let mut batch = 0i64;
    while written < bytes {
        let producer = batch % 8;
        w.append(BatchSpec {
            producer_id: 1000 + producer,
            producer_epoch: 0,
            base_sequence: (batch / 8) as i32,
            records: vec![RecordSpec {
                timestamp: 1_700_000_000_000 + batch,
                value: Some(fixture_value(batch, 40)),
                ..RecordSpec::default()
            }],
            ..BatchSpec::default()
        })
        .unwrap();
        written += 110;
        batch += 1;
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// `bytes` of `__consumer_offsets` batches, each 16 offset commits as the
/// group coordinator writes them (OffsetCommitKey v1, OffsetCommitValue v3).
fn write_offset_commits(dir: &Path, bytes: u64) {
    if dir.exists() {
        return;
    }
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as i16).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 100 << 20,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    let (mut written, mut batch) = (0, 0i64);
    while written < bytes {
        let records: Vec<RecordSpec> = (0..16)
            .map(|i| {
                let mut key = 1i16.to_be_bytes().to_vec();
                string(&mut key, &format!("orders-app-{}", batch % 50));
                string(&mut key, "orders");
                key.extend_from_slice(&(i as i32).to_be_bytes());
                let mut value = 3i16.to_be_bytes().to_vec();
                value.extend_from_slice(&(batch * 100 + i).to_be_bytes());
                value.extend_from_slice(&7i32.to_be_bytes());
                string(&mut value, "");
                value.extend_from_slice(&(1_700_000_000_000 + batch).to_be_bytes());
                RecordSpec {
                    timestamp: 1_700_000_000_000 + batch,
                    key: Some(key),
                    value: Some(value),
                    ..RecordSpec::default()
                }
            })
            .collect();
        w.append(BatchSpec {
            records,
            ..BatchSpec::default()
        })
        .unwrap();
        written += 16 * 70;
        batch += 1;
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// Bytes of Kafka's message encodings, for the internal topics' records:
/// big-endian numbers, `i16`-length strings and `i32`-length arrays in
/// non-flexible versions, unsigned varint lengths (plus one) and a tagged
/// field section in flexible ones.
#[derive(Default)]
struct Enc(Vec<u8>);

impl Enc {
    fn i8(&mut self, v: i8) -> &mut Self {
        self.0.push(v as u8);
        self
    }
    fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i64(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn uvarint(&mut self, mut v: u32) -> &mut Self {
        while v >= 0x80 {
            self.0.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
        self
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
    /// A non-flexible string (`i16` length).
    fn string(&mut self, s: &str) -> &mut Self {
        self.i16(s.len() as i16).bytes(s.as_bytes())
    }
    /// A flexible (compact) string.
    fn compact_string(&mut self, s: &str) -> &mut Self {
        self.uvarint(s.len() as u32 + 1).bytes(s.as_bytes())
    }
    /// A flexible (compact) `[]int32`.
    fn compact_ints(&mut self, v: &[i32]) -> &mut Self {
        self.uvarint(v.len() as u32 + 1);
        for &i in v {
            self.i32(i);
        }
        self
    }
    /// A non-flexible `[]int32`.
    fn ints(&mut self, v: &[i32]) -> &mut Self {
        self.i32(v.len() as i32);
        for &i in v {
            self.i32(i);
        }
        self
    }
    /// A 16-byte uuid made from two numbers.
    fn uuid(&mut self, high: u64, low: u64) -> &mut Self {
        self.bytes(&high.to_be_bytes()).bytes(&low.to_be_bytes())
    }
    /// An empty tagged field section.
    fn no_tags(&mut self) -> &mut Self {
        self.uvarint(0)
    }
    fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }
}

/// Groups in [`write_group_records`], each consuming two of the
/// [`GROUP_TOPICS`] topics of [`GROUP_TOPIC_PARTITIONS`] partitions.
const GROUPS: i64 = 4000;
const GROUP_TOPICS: i64 = 400;
const GROUP_TOPIC_PARTITIONS: i32 = 24;

/// A `__consumer_offsets` partition of about `bytes`, as the group
/// coordinator writes one for [`GROUPS`] classic consumer groups of three
/// members each: each group's rebalance (a `GroupMetadataValue` v3 whose
/// members carry consumer protocol subscriptions and assignments, v1),
/// then its members' offset commits (`OffsetCommitValue` v3), one batch a
/// commit of 16 partitions, the next 16 of the group's 48 each time, the
/// groups taking turns; every 20th round of a group rebalances it again.
/// From a group's fourth round on it holds an offset for each of its 48
/// partitions, so past a few MiB the state is the same at any size.
fn write_group_records(dir: &Path, bytes: u64) {
    if dir.exists() {
        return;
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 100 << 20,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    let topics = |g: i64| [(g * 7) % GROUP_TOPICS, (g * 7 + 1) % GROUP_TOPICS];
    let mut e = Enc::default();
    let mut group_metadata = |g: i64, generation: i32, time: i64| {
        let key = e.i16(2).string(&format!("app-{g}")).take();
        let [a, b] = topics(g).map(|t| format!("events-{t}"));
        e.i16(3).string("consumer").i32(generation).string("range");
        e.string(&format!("consumer-app-{g}-1-{generation:08x}"));
        e.i64(time).i32(3);
        for m in 0..3 {
            e.string(&format!("consumer-app-{g}-{}-{generation:08x}", m + 1));
            e.i16(-1).string(&format!("consumer-app-{g}-{}", m + 1));
            e.string(&format!("/10.0.{}.{}", g % 250, m + 1));
            e.i32(300_000).i32(45_000);
            let mut s = Enc::default();
            s.i16(1).i32(2).string(&a).string(&b).i32(-1).i32(0);
            let subscription = s.take();
            s.i16(1).i32(2);
            let mine: Vec<i32> = (0..GROUP_TOPIC_PARTITIONS).filter(|p| p % 3 == m).collect();
            s.string(&a).ints(&mine).string(&b).ints(&mine).i32(-1);
            let assignment = s.take();
            e.i32(subscription.len() as i32).bytes(&subscription);
            e.i32(assignment.len() as i32).bytes(&assignment);
        }
        RecordSpec {
            timestamp: time,
            key: Some(key),
            value: Some(e.take()),
            ..RecordSpec::default()
        }
    };
    let mut c = Enc::default();
    let (mut written, mut batch) = (0, 0i64);
    while written < bytes {
        let (g, round) = (batch % GROUPS, batch / GROUPS);
        let time = 1_700_000_000_000 + batch * 10;
        let records = if round % 20 == 0 {
            vec![group_metadata(g, (round / 20 + 1) as i32, time)]
        } else {
            let [a, b] = topics(g);
            (0..16)
                .map(|i| {
                    let (topic, p) = match (round * 16 + i) % 48 {
                        n if n < 24 => (a, n as i32),
                        n => (b, n as i32 - 24),
                    };
                    c.i16(1)
                        .string(&format!("app-{g}"))
                        .string(&format!("events-{topic}"));
                    let key = c.i32(p).take();
                    c.i16(3).i64(round * 1000 + i).i32(5).string("").i64(time);
                    RecordSpec {
                        timestamp: time,
                        key: Some(key),
                        value: Some(c.take()),
                        ..RecordSpec::default()
                    }
                })
                .collect()
        };
        let spec = BatchSpec {
            records,
            ..BatchSpec::default()
        };
        written += kseg::format::encode::encode_batch(&spec).len() as u64;
        w.append(spec).unwrap();
        batch += 1;
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// Topics, partitions a topic and brokers in [`write_metadata_records`].
const METADATA_TOPICS: i64 = 5000;
const METADATA_PARTITIONS: i32 = 8;
const BROKERS: i32 = 12;

/// A metadata record's value: frame version 1, its api key and version,
/// then the record.
fn framed(api_key: u32, version: u32, record: &[u8]) -> Vec<u8> {
    let mut e = Enc::default();
    e.uvarint(1).uvarint(api_key).uvarint(version).bytes(record);
    e.take()
}

/// A `RegisterBrokerRecord` v1 of broker `id` at `epoch`, unfenced, with
/// two listeners, metadata.version's supported range and a rack.
fn register_broker(id: i32, epoch: i64) -> Vec<u8> {
    let mut e = Enc::default();
    e.i32(id).uuid(0xb0b0 + id as u64, epoch as u64).i64(epoch);
    e.uvarint(3);
    for (name, port, protocol) in [("PLAINTEXT", 9092, 0), ("CONTROLLER", 9093, 0)] {
        e.compact_string(name)
            .compact_string(&format!("broker-{id}.kafka.internal"));
        e.i16(port).i16(protocol).no_tags();
    }
    e.uvarint(2)
        .compact_string("metadata.version")
        .i16(1)
        .i16(21)
        .no_tags();
    e.compact_string(&format!("rack-{}", id % 3))
        .i8(0)
        .i8(0)
        .no_tags();
    framed(0, 1, &e.take())
}

/// A `__cluster_metadata` partition of about `bytes`, as a controller
/// writes one: metadata.version, [`BROKERS`] broker registrations, then
/// [`METADATA_TOPICS`] topics (a `TopicRecord`, [`METADATA_PARTITIONS`]
/// `PartitionRecord`s v1 of three replicas and a retention config each),
/// then leader and ISR changes (`PartitionChangeRecord`s) to the end,
/// with now and then a broker's controlled shutdown and re-registration,
/// and a topic's config changed.
fn write_metadata_records(dir: &Path, bytes: u64) {
    if dir.exists() {
        return;
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 100 << 20,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    let mut e = Enc::default();
    let mut written = 0u64;
    let mut time = 1_700_000_000_000;
    let mut append = |values: Vec<Vec<u8>>, written: &mut u64| {
        time += 1;
        let records = values
            .into_iter()
            .map(|v| RecordSpec {
                timestamp: time,
                value: Some(v),
                ..RecordSpec::default()
            })
            .collect();
        let spec = BatchSpec {
            records,
            ..BatchSpec::default()
        };
        *written += kseg::format::encode::encode_batch(&spec).len() as u64;
        w.append(spec).unwrap();
    };
    e.compact_string("metadata.version").i16(21).no_tags();
    let mut first = vec![framed(12, 0, &e.take())];
    let mut epochs: Vec<i64> = (0..BROKERS).map(|b| 10 + b as i64).collect();
    first.extend((0..BROKERS).map(|b| register_broker(b, epochs[b as usize])));
    append(first, &mut written);
    let topic_id = |t: i64| (0x7091c000 + t as u64, 0x5eed_0000_0000 + t as u64);
    let replicas = |t: i64, p: i32| -> [i32; 3] {
        let first = ((t * 5 + p as i64) % BROKERS as i64) as i32;
        [0, 1, 2].map(|i| (first + i * 4) % BROKERS)
    };
    for t in 0..METADATA_TOPICS {
        let (high, low) = topic_id(t);
        let mut values = Vec::new();
        e.compact_string(&format!("events-{t}"))
            .uuid(high, low)
            .no_tags();
        values.push(framed(2, 0, &e.take()));
        for p in 0..METADATA_PARTITIONS {
            let r = replicas(t, p);
            e.i32(p).uuid(high, low).compact_ints(&r).compact_ints(&r);
            e.compact_ints(&[])
                .compact_ints(&[])
                .i32(r[0])
                .i32(0)
                .i32(0);
            e.uvarint(4);
            for &b in &r {
                e.uuid(0xd1d1, b as u64);
            }
            e.no_tags();
            values.push(framed(3, 1, &e.take()));
        }
        e.i8(2).compact_string(&format!("events-{t}"));
        e.compact_string("retention.ms")
            .compact_string("604800000")
            .no_tags();
        values.push(framed(4, 0, &e.take()));
        append(values, &mut written);
    }
    // Leader epochs and ISRs as the changes leave them.
    let mut state: Vec<(i32, bool)> = vec![(0, false); (METADATA_TOPICS * 8) as usize];
    let mut n = 0i64;
    while written < bytes {
        let mut values = Vec::with_capacity(32);
        for _ in 0..32 {
            n += 1;
            if n % 5000 == 0 {
                // A broker's controlled shutdown, fencing and restart.
                let b = ((n / 5000) % BROKERS as i64) as i32;
                let epoch = &mut epochs[b as usize];
                e.i32(b).i64(*epoch).uvarint(1).uvarint(1).uvarint(1).i8(1);
                values.push(framed(17, 1, &e.take()));
                e.i32(b).i64(*epoch).uvarint(1).uvarint(0).uvarint(1).i8(1);
                values.push(framed(17, 1, &e.take()));
                *epoch += 1000;
                values.push(register_broker(b, *epoch));
                continue;
            }
            let t = (n * 7919) % METADATA_TOPICS;
            if n % 997 == 0 {
                e.i8(2).compact_string(&format!("events-{t}"));
                e.compact_string("retention.ms");
                e.compact_string(&format!("{}", 3_600_000 * (n % 168 + 1)))
                    .no_tags();
                values.push(framed(4, 0, &e.take()));
                continue;
            }
            let p = (n % METADATA_PARTITIONS as i64) as i32;
            let r = replicas(t, p);
            let (high, low) = topic_id(t);
            let s = &mut state[(t * 8 + p as i64) as usize];
            e.i32(p).uuid(high, low);
            // An ISR shrink drops the last replica, an expand brings it
            // back; every fourth change also moves the leadership.
            s.1 = !s.1;
            let isr: &[i32] = if s.1 { &r[..2] } else { &r };
            if n % 4 == 0 {
                s.0 += 1;
                let leader = r[(s.0 % 2) as usize];
                e.uvarint(2)
                    .uvarint(0)
                    .uvarint(1 + 4 * isr.len() as u32)
                    .compact_ints(isr);
                e.uvarint(1).uvarint(4).i32(leader);
            } else {
                e.uvarint(1)
                    .uvarint(0)
                    .uvarint(1 + 4 * isr.len() as u32)
                    .compact_ints(isr);
            }
            values.push(framed(5, 0, &e.take()));
        }
        append(values, &mut written);
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// Exactly `segments` segments of 8 batches (897 bytes each: a segment rolls
/// once it holds more than 8072 - 897 bytes).
fn write_many_segments(dir: &Path, segments: usize) {
    if dir.exists() {
        return;
    }
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 8072,
            index_interval_bytes: 1024,
        },
    )
    .unwrap();
    let mut batch = 0i64;
    let per_segment = 8;
    while (batch as usize) < segments * per_segment {
        w.append(plain_batch(batch, 4, 200)).unwrap();
        batch += 1;
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
}

/// Segments in each partition of [`write_many_partitions`].
const SEGMENTS_PER_PARTITION: usize = 3;

/// A log dir of `partitions` small partitions `events-N`, each 3 segments
/// of 4 batches of 4 records: one written by the fixture writer, the others
/// hard links to its files (a few seconds for 10,000); with the recovery
/// point, log start and high watermark checkpoints naming every partition.
fn write_many_partitions(dir: &Path, partitions: usize) {
    if dir.exists() {
        return;
    }
    let staging = dir.with_extension("writing");
    let _ = std::fs::remove_dir_all(&staging);
    let model = staging.join("events-0");
    let mut w = PartitionWriter::create(
        &model,
        WriterConfig {
            segment_bytes: 4 * 897 + 1,
            index_interval_bytes: 1024,
        },
    )
    .unwrap();
    for batch in 0..(SEGMENTS_PER_PARTITION * 4) as i64 {
        w.append(plain_batch(batch, 4, 200)).unwrap();
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    assert_eq!(logs(&model).len(), SEGMENTS_PER_PARTITION);
    let names: Vec<_> = std::fs::read_dir(&model)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    for p in 1..partitions {
        let part = staging.join(format!("events-{p}"));
        std::fs::create_dir(&part).unwrap();
        for name in &names {
            std::fs::hard_link(model.join(name), part.join(name)).unwrap();
        }
    }
    // The broker-level checkpoints a Kafka log dir always has, one entry a
    // partition.
    let entries: Vec<OffsetCheckpointEntry> = (0..partitions as i32)
        .map(|partition| OffsetCheckpointEntry {
            topic: "events".into(),
            partition,
            offset: (SEGMENTS_PER_PARTITION * 16) as i64,
        })
        .collect();
    for name in [
        "recovery-point-offset-checkpoint",
        "log-start-offset-checkpoint",
        "replication-offset-checkpoint",
    ] {
        let mut e = entries.clone();
        if name == "log-start-offset-checkpoint" {
            e.iter_mut().for_each(|e| e.offset = 0);
        }
        std::fs::write(staging.join(name), encode_offset_checkpoint(&e)).unwrap();
    }
    std::fs::rename(&staging, dir).unwrap();
}

/// A 256 MiB segment of pseudo-random garbage with 8 valid batches spread
/// through it: the resync scan's worst case, nearly every byte a position to
/// judge and almost none worth a CRC.
fn write_garbage(dir: &Path) {
    if dir.exists() {
        return;
    }
    std::fs::create_dir_all(dir).unwrap();
    let size = 256usize << 20;
    let mut data = Vec::with_capacity(size + (1 << 20));
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next_batch = 0;
    while data.len() < size {
        if data.len() >= next_batch * (size / 8) {
            let records = (0..4)
                .map(|i| RecordSpec {
                    timestamp: 1_700_000_000_000 + i,
                    value: Some(fixture_value(next_batch as i64 * 4 + i, 200)),
                    ..RecordSpec::default()
                })
                .collect();
            data.extend(kseg::format::encode::encode_batch(&BatchSpec {
                base_offset: next_batch as i64 * 100,
                records,
                ..BatchSpec::default()
            }));
            next_batch += 1;
        }
        for _ in 0..512 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            data.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(dir.join("00000000000000000000.log"), data).unwrap();
}

/// Drops each file from the page cache and reads it back (1 MiB reads),
/// so that readahead caches it as it caches a file read from disk.
fn read_back(paths: &[PathBuf]) {
    use std::os::fd::AsRawFd;
    for path in paths {
        let f = File::open(path).unwrap();
        // SAFETY: an advisory syscall on a descriptor this function owns.
        let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(rc, 0, "posix_fadvise on {}", path.display());
    }
    plain_read(paths);
}

fn plain_read(paths: &[PathBuf]) -> Duration {
    let start = Instant::now();
    let mut buf = vec![0u8; 1 << 20];
    for path in paths {
        let mut f = File::open(path).unwrap();
        while f.read(&mut buf).unwrap() > 0 {}
    }
    start.elapsed()
}

/// The floor for a pass that checks every byte: a plain read through a
/// 256 KiB buffer (kseg's) plus CRC-32C over every byte, no parsing.
fn read_and_crc(paths: &[PathBuf]) -> Duration {
    let start = Instant::now();
    let mut buf = vec![0u8; 256 << 10];
    let mut crc = 0;
    for path in paths {
        let mut f = File::open(path).unwrap();
        loop {
            let n = f.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            crc ^= kseg::format::crc::crc32c(&buf[..n]);
        }
    }
    std::hint::black_box(crc);
    start.elapsed()
}

/// The floor for kseg's mapped walk: map each file whole (`MADV_SEQUENTIAL`)
/// and compute CRC-32C over every byte, no parsing, in process.
fn map_and_crc(paths: &[PathBuf]) -> Duration {
    let start = Instant::now();
    let mut crc = 0;
    for path in paths {
        let f = File::open(path).unwrap();
        // SAFETY: read-only map of a file nothing else writes during the bench.
        let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
        let _ = map.advise(memmap2::Advice::Sequential);
        crc ^= kseg::format::crc::crc32c(&map);
    }
    std::hint::black_box(crc);
    start.elapsed()
}

/// CRC-32C of every batch of `path`, mapped whole (`MADV_SEQUENTIAL`), one
/// checksum a batch as Kafka's rule has it, no other parsing.
fn crc_batches(path: &Path) -> u32 {
    let f = File::open(path).unwrap();
    // SAFETY: read-only map of a file nothing else writes during the bench.
    let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
    let _ = map.advise(memmap2::Advice::Sequential);
    kseg::format::BatchIter::new(&map, 0)
        .map_while(Result::ok)
        .fold(0, |crc, batch| {
            crc ^ kseg::format::batch::compute_v2_crc(batch.bytes)
        })
}

/// [`crc_batches`] over share `t` of `n` of the files (file `i` to share
/// `i % n`), as `verify` shares out segments between threads.
fn crc_share(paths: &[PathBuf], t: usize, n: usize) {
    let crc = paths
        .iter()
        .skip(t)
        .step_by(n)
        .fold(0, |crc, path| crc ^ crc_batches(path));
    std::hint::black_box(crc);
}

/// The floor for a pass that checks each batch: [`crc_batches`] over every
/// file, in process.
fn map_and_crc_batches(paths: &[PathBuf]) -> Duration {
    let start = Instant::now();
    crc_share(paths, 0, 1);
    start.elapsed()
}

/// [`crc_batches`] over every file, the files shared out between `n`
/// threads of this process ([`crc_share`]).
fn crc_batches_on_threads(paths: &[PathBuf], n: usize) -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..n)
            .map(|t| scope.spawn(move || crc_share(paths, t, n)))
            .collect();
        // Joined, not only finished: the next figure forks.
        threads.into_iter().for_each(|t| t.join().unwrap());
    });
    start.elapsed()
}

/// [`crc_batches_on_threads`] with `n` processes (this one and `n - 1`
/// forked): the same work in separate address spaces, so that mapping and
/// unmapping in one never touches the page tables or TLBs of another.
fn crc_batches_in_processes(paths: &[PathBuf], n: usize) -> Duration {
    let start = Instant::now();
    let mut children = Vec::new();
    for t in 1..n {
        // SAFETY: every thread the bench started has been joined, so the
        // child may allocate; it leaves with `_exit`, running no destructor
        // (the work directory stays) and unwinding no panic into the bench.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let done = std::panic::catch_unwind(|| crc_share(paths, t, n));
            // SAFETY: ends the child without returning into the bench.
            unsafe { libc::_exit(i32::from(done.is_err())) };
        }
        if pid < 0 {
            break;
        }
        children.push(pid);
    }
    let forked = children.len() == n - 1;
    if forked {
        crc_share(paths, 0, n);
    }
    let mut failed = false;
    for pid in children {
        let mut status = 0;
        // SAFETY: waits for a child this function forked.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        failed |= waited != pid || status != 0;
    }
    assert!(
        forked && !failed,
        "a bench process failed or could not fork"
    );
    start.elapsed()
}

/// The floor for kseg's mapped walk on `threads` threads: each file mapped
/// whole and split into equal byte ranges, one a thread, CRC-32C over every
/// byte: what the machine gives a pass that touches every byte on that many
/// cores, with no work to balance.
fn map_and_crc_on(paths: &[PathBuf], threads: usize) -> Duration {
    let start = Instant::now();
    let maps = map_all(paths, memmap2::Advice::Sequential);
    crc_on(&maps, threads);
    drop(maps);
    start.elapsed()
}

/// Each file mapped whole, with `advice` (`PopulateRead` maps every page in
/// before this returns).
fn map_all(paths: &[PathBuf], advice: memmap2::Advice) -> Vec<memmap2::Mmap> {
    paths
        .iter()
        .map(|path| {
            let f = File::open(path).unwrap();
            // SAFETY: read-only map of a file nothing else writes during the bench.
            let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
            map.advise(advice)
                .expect("madvise (MADV_POPULATE_READ needs Linux 5.14)");
            map
        })
        .collect()
}

/// CRC-32C over every byte of `maps`, each split into equal byte ranges,
/// one a thread.
fn crc_on(maps: &[memmap2::Mmap], threads: usize) -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        let spawned: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut crc = 0;
                    for map in maps {
                        let share = map.len().div_ceil(threads);
                        let from = (t * share).min(map.len());
                        let to = (from + share).min(map.len());
                        crc ^= kseg::format::crc::crc32c(&map[from..to]);
                    }
                    std::hint::black_box(crc);
                })
            })
            .collect();
        // Joined, not only finished: a later figure forks.
        spawned.into_iter().for_each(|t| t.join().unwrap());
    });
    start.elapsed()
}

/// CRC-32C over `bytes` in all, split between `threads` threads, each
/// checksumming its own 256 KiB buffer again and again: the buffer stays in
/// the core's cache, so this is the checksum's compute alone, the most a
/// pass that checks every byte can reach whatever memory gives.
fn crc_in_cache(bytes: u64, threads: usize) -> Duration {
    const BUFFER: usize = 256 << 10;
    let rounds = (bytes / threads as u64).div_ceil(BUFFER as u64);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || {
                let buf: Vec<u8> = (0..BUFFER).map(|i| (i * 31 + t) as u8).collect();
                let mut crc = 0;
                for _ in 0..rounds {
                    crc ^= kseg::format::crc::crc32c(std::hint::black_box(&buf));
                }
                std::hint::black_box(crc);
            });
        }
    });
    start.elapsed()
}

/// Runs kseg, returns its wall time and peak RSS in KiB (reported by kseg
/// itself through `KSEG_PEAK_RSS`).
fn run(args: &[&str], threads: Option<usize>) -> (Duration, i64) {
    run_with(args, threads, &[])
}

/// [`run`] with `env` set.
fn run_with(args: &[&str], threads: Option<usize>, env: &[(&str, String)]) -> (Duration, i64) {
    let mut cmd = Command::new(KSEG);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("KSEG_PEAK_RSS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n.to_string());
    }
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let elapsed = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    let rss = err
        .lines()
        .find_map(|l| l.strip_prefix("kseg: peak RSS: "))
        .map_or(0, |v| v.trim_end_matches(" kB").trim().parse().unwrap_or(0));
    (elapsed, rss)
}

fn best<T>(n: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    (0..n).map(|_| f()).min_by_key(|(d, _)| *d).unwrap()
}

/// `ROUNDS` alternating runs of a baseline and a command, so that a noisy
/// machine slows both alike.
const ROUNDS: usize = 11;

/// How fast a command ran against its baseline in [`paired`] runs.
struct Paired {
    best_read: Duration,
    best_cmd: Duration,
    /// Median over the rounds of baseline time / command time.
    median_ratio: f64,
}

impl std::fmt::Display for Paired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2}x (median of {ROUNDS} paired rounds; best against best {:.2}x)",
            self.median_ratio,
            self.best_read.as_secs_f64() / self.best_cmd.as_secs_f64()
        )
    }
}

fn paired(mut baseline: impl FnMut() -> Duration, mut cmd: impl FnMut() -> Duration) -> Paired {
    let mut ratios = Vec::new();
    let (mut best_read, mut best_cmd) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        let r = baseline();
        let c = cmd();
        best_read = best_read.min(r);
        best_cmd = best_cmd.min(c);
        ratios.push(r.as_secs_f64() / c.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    Paired {
        best_read,
        best_cmd,
        median_ratio: ratios[ROUNDS / 2],
    }
}

/// How many bytes `kseg <args>` writes to stdout (counted, not kept).
fn output_bytes(args: &[&str]) -> u64 {
    let mut child = Command::new(KSEG)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let written = std::io::copy(&mut child.stdout.take().unwrap(), &mut std::io::sink()).unwrap();
    assert!(child.wait().unwrap().success(), "kseg {args:?}");
    written
}

fn mib_s(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / (1 << 20) as f64 / d.as_secs_f64()
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    v.sort();
    v
}

/// `dump` of `big` stored on the S3 server, against the local dump of
/// the same file, and peak RSS against `small` stored alike.
fn remote_dump(big: &Path, small: &Path) {
    let s3 = s3_server::server();
    let bucket = s3.bucket("bench");
    let key = |name: &str| format!("{name}-0-Ms7kW9S0QpW4y1rHuwh8ZQ/0-Xk3vN1bRTgC0fm0yZ3q2_A.log");
    bucket.put(&key("big"), std::fs::read(big).unwrap());
    bucket.put(&key("small"), std::fs::read(small).unwrap());
    let (big_url, small_url) = (bucket.url(&key("big")), bucket.url(&key("small")));
    let env = s3.env();
    let local = big.to_str().unwrap();
    let remote = paired(
        || run(&["dump", local], None).0,
        || run_with(&["dump", &big_url], None, &env).0,
    );
    let bytes = std::fs::metadata(big).unwrap().len();
    let (_, rss) = run_with(&["dump", &big_url], None, &env);
    let (_, small_rss) = best(3, || run_with(&["dump", &small_url], None, &env));
    println!(
        "dump of the {} MiB segment as a remote object (S3 server in this process, LocalTieredStorage layout): {:.0} MiB/s = {} the local dump; peak RSS {} KiB (a remote segment 1/16 the size: {} KiB)",
        bytes >> 20,
        mib_s(bytes, remote.best_cmd),
        remote,
        rss,
        small_rss
    );
}

/// Whether `--only` (comma-separated sections; default all) asks for `section`.
fn want(section: &str) -> bool {
    arg("--only").is_none_or(|only| only.split(',').any(|s| s == section))
}

/// kseg's process start and exit: `kseg --version`, best of 20.
fn start_cost() -> Duration {
    best(20, || {
        let start = Instant::now();
        let out = Command::new(KSEG).arg("--version").output().unwrap();
        assert!(out.status.success());
        (start.elapsed(), ())
    })
    .0
}

/// Runs `kseg <command> --json` on `dir` and checks the replay took every
/// record: a zero exit, nothing on stderr, and (for `metadata`) no record
/// refused, no warning and every topic there; returns the JSON output.
fn check_replay(command: &str, dir: &Path) -> String {
    let out = Command::new(KSEG)
        .args([command, "--json", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.trim().is_empty(),
        "kseg {command} {}: {:?}\n{err}",
        dir.display(),
        out.status
    );
    let text = String::from_utf8(out.stdout).unwrap();
    if command == "metadata" {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["refused"], serde_json::json!([]), "{}", dir.display());
        assert_eq!(v["warnings"], serde_json::json!([]), "{}", dir.display());
        let topics = v["topics"].as_array().map_or(0, Vec::len);
        assert_eq!(topics as i64, METADATA_TOPICS, "{}", dir.display());
    } else {
        let groups = text
            .lines()
            .filter(|l| l.starts_with("{\"group\":"))
            .count();
        assert_eq!(groups as i64, GROUPS, "{}", dir.display());
    }
    text
}

/// `kseg <command>` replaying the partition `dir` of `topic`, paired with
/// the decoded dump of the same partition (`dump --print-data-log` of its
/// segments); its peak RSS, and on `small`, a partition of the same groups
/// or topics with 1/4 of the records.
fn replay_line(command: &str, topic: &str, dir: &Path, small: &Path) {
    let logs = logs(dir);
    let bytes: u64 = logs
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    check_replay(command, dir);
    check_replay(command, small);
    let mut dump = vec!["dump", "--print-data-log"];
    dump.extend(logs.iter().map(|p| p.to_str().unwrap()));
    plain_read(&logs);
    let dir_arg = dir.to_str().unwrap();
    let replay = paired(|| run(&dump, None).0, || run(&[command, dir_arg], None).0);
    let (_, rss) = best(3, || run(&[command, dir_arg], None));
    let (_, small_rss) = best(3, || run(&[command, small.to_str().unwrap()], None));
    println!(
        "{command} replay of {} MiB of {topic}: {:.0} MiB/s = {} the decoded dump of the same partition (dump --print-data-log, goal at least 1.0x); peak RSS {} KiB (1/4 of the records: {} KiB)",
        bytes >> 20,
        mib_s(bytes, replay.best_cmd),
        replay,
        rss,
        small_rss
    );
}

/// `verify`, `retention-report` and `rebuild-index --check` on log dirs of
/// 1,000 and 10,000 partitions: time per segment (best of 5) and peak RSS.
fn many_partitions(work: &Path) {
    let counts = [1_000usize, 10_000];
    let dirs: Vec<PathBuf> = counts
        .iter()
        .map(|n| work.join(format!("logdir{n}")))
        .collect();
    for (dir, n) in dirs.iter().zip(counts) {
        write_many_partitions(dir, n);
    }
    for args in [
        &["verify"][..],
        &["retention-report", "--now", "1700000000000"],
        &["rebuild-index", "--check"],
    ] {
        let measured: Vec<(f64, i64)> = dirs
            .iter()
            .zip(counts)
            .map(|(dir, n)| {
                let mut a = args.to_vec();
                a.push(dir.to_str().unwrap());
                let (d, rss) = best(5, || run(&a, None));
                let segments = (n * SEGMENTS_PER_PARTITION) as f64;
                (d.as_secs_f64() * 1e6 / segments, rss)
            })
            .collect();
        let (small, big) = (measured[0], measured[1]);
        println!(
            "{} on a log dir of {} and {} partitions ({SEGMENTS_PER_PARTITION} segments each): {:.1} and {:.1} µs a segment = {:.2}x per segment at 10x the partitions (goal at most 1.2x); peak RSS {} and {} KiB = {:.2}x (goal at most 1.5x)",
            args.join(" "),
            counts[0],
            counts[1],
            small.0,
            big.0,
            big.0 / small.0,
            small.1,
            big.1,
            big.1 as f64 / small.1.max(1) as f64,
        );
    }
}

fn main() {
    let size_mib: u64 = arg("--size-mib").map_or(1024, |s| s.parse().unwrap());
    let tmp;
    let work = match arg("--work-dir") {
        Some(d) => PathBuf::from(d),
        None => {
            tmp = tempfile::tempdir().unwrap();
            tmp.path().to_path_buf()
        }
    };
    let big = work.join(format!("big{size_mib}-0"));
    let small = work.join(format!("small{}-0", size_mib / 16));
    let multi = work.join(format!("multi{size_mib}"));
    let many = work.join("many10k-0");
    eprintln!("writing test data under {} ...", work.display());
    // Each section's data is written when a section asks for it.
    let segment_sections = want("dump") || want("remote") || want("check") || want("verify");
    if segment_sections {
        write_partition(&big, size_mib << 20, 2 << 30, 16);
        write_partition(&small, (size_mib / 16).max(1) << 20, 2 << 30, 16);
        write_partition(
            &multi.join("events-0"),
            size_mib << 20,
            (size_mib << 20) / 8,
            16,
        );
    }
    let single = work.join(format!("single{}", size_mib / 4));
    if want("small") {
        write_partition(
            &single.join("events-0"),
            (size_mib / 4).max(1) << 20,
            (size_mib / 4).max(1) << 19,
            1,
        );
    }
    if want("locate") {
        write_many_segments(&many, 10_000);
    }
    let idempotent = work.join(format!("idempotent{size_mib}-0"));
    let idempotent_small = work.join(format!("idempotent{}-0", size_mib / 4));
    if want("rss") {
        write_idempotent(&idempotent, size_mib << 20);
        write_idempotent(&idempotent_small, (size_mib / 4).max(1) << 20);
    }

    let garbage = work.join("garbage256-0");
    if want("salvage") {
        write_garbage(&garbage);
    }
    let offsets = work
        .join(format!("offsets{}", size_mib / 8))
        .join("__consumer_offsets-0");
    if want("decoded") {
        write_offset_commits(&offsets, (size_mib / 8).max(1) << 20);
    }

    println!(
        "kseg's process start and exit (`kseg --version`, best of 20): {:.2} ms, paid once by every command figure below and not by the in-process plain read",
        start_cost().as_secs_f64() * 1000.0
    );
    let (big_log, multi_logs) = match segment_sections {
        true => (logs(&big), logs(&multi.join("events-0"))),
        false => (Vec::new(), Vec::new()),
    };
    if segment_sections {
        read_back(&big_log);
        read_back(&multi_logs);
        println!(
            "page cache as readahead fills it: each segment dropped and read back first (large folios, as after a broker restart)"
        );
    }
    let bytes = big_log
        .first()
        .map_or(0, |p| std::fs::metadata(p).unwrap().len());
    let big_path = big_log
        .first()
        .map_or(String::new(), |p| p.to_str().unwrap().to_string());
    let read_big = || plain_read(&big_log);
    if want("dump") || want("check") {
        plain_read(&big_log);
    }
    if want("dump") {
        let dump = paired(read_big, || run(&["dump", &big_path], None).0);
        println!(
            "plain read of a {} MiB segment (page cached): {:.0} MiB/s",
            bytes >> 20,
            mib_s(bytes, dump.best_read)
        );
        let (_, rss) = run(&["dump", &big_path], None);
        let small_log = logs(&small);
        let (_, small_rss) = best(3, || run(&["dump", small_log[0].to_str().unwrap()], None));
        println!(
            "dump (batch level, CRC checked for isvalid): {:.0} MiB/s = {} plain read; peak RSS {} KiB (a segment 1/16 the size: {} KiB)",
            mib_s(bytes, dump.best_cmd),
            dump,
            rss,
            small_rss
        );
    }
    if want("remote") {
        remote_dump(&big_log[0], &logs(&small)[0]);
    }
    if want("check") {
        let check = paired(read_big, || {
            run(&["rebuild-index", "--check", &big_path], None).0
        });
        println!(
            "rebuild-index --check (header walk): {:.0} MiB/s = {} plain read",
            mib_s(bytes, check.best_cmd),
            check
        );
    }
    if want("verify") {
        let multi_bytes: u64 = multi_logs
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
        plain_read(&multi_logs);
        let read_multi = || plain_read(&multi_logs);
        let multi_dir = multi.to_str().unwrap().to_string();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let one = paired(read_multi, || run(&["verify", &multi_dir], Some(1)).0);
        let verify_restoring =
            || run(&["verify", "--page-cache", "restore", &multi_dir], Some(1)).0;
        let restoring = paired(read_multi, verify_restoring);
        let restoring_against_one =
            paired(|| run(&["verify", &multi_dir], Some(1)).0, verify_restoring);
        let floor = paired(read_multi, || read_and_crc(&multi_logs));
        let mapped_floor = paired(read_multi, || map_and_crc(&multi_logs));
        let batch_floor = paired(read_multi, || map_and_crc_batches(&multi_logs));
        let scaling = paired(
            || run(&["verify", &multi_dir], Some(1)).0,
            || run(&["verify", &multi_dir], Some(cores)).0,
        );
        let floor_scaling = paired(
            || map_and_crc_on(&multi_logs, 1),
            || map_and_crc_on(&multi_logs, cores),
        );
        let batch_threads = paired(
            || crc_batches_on_threads(&multi_logs, 1),
            || crc_batches_on_threads(&multi_logs, cores),
        );
        let batch_processes = paired(
            || crc_batches_on_threads(&multi_logs, 1),
            || crc_batches_in_processes(&multi_logs, cores),
        );
        let mapped_in = map_all(&multi_logs, memmap2::Advice::PopulateRead);
        let memory_floor = paired(read_multi, || crc_on(&mapped_in, 1));
        let memory_scaling = paired(|| crc_on(&mapped_in, 1), || crc_on(&mapped_in, cores));
        drop(mapped_in);
        let one_against_floor = paired(
            || map_and_crc_batches(&multi_logs),
            || run(&["verify", &multi_dir], Some(1)).0,
        );
        let cores_against_floor = paired(
            || crc_batches_on_threads(&multi_logs, cores),
            || run(&["verify", &multi_dir], Some(cores)).0,
        );
        let compute_floor = paired(read_multi, || crc_in_cache(multi_bytes, 1));
        let compute_scaling = paired(
            || crc_in_cache(multi_bytes, 1),
            || crc_in_cache(multi_bytes, cores),
        );
        println!(
            "verify of {} segments, {} MiB, one thread: {:.0} MiB/s = {} plain read; restoring the page cache (as when a broker holds the lock): {} plain read, {} the same verify not restoring (goal at least 0.95x)",
            multi_logs.len(),
            multi_bytes >> 20,
            mib_s(multi_bytes, one.best_cmd),
            one,
            restoring,
            restoring_against_one,
        );
        println!(
            "for comparison, reading the same bytes and computing CRC-32C over all of them (no parsing, in process): {} plain read; mapping each file and computing CRC-32C over the mapping (kseg's path, no parsing, in process): {} plain read; the same, one CRC-32C a batch (Kafka's rule, framing only): {} plain read",
            floor, mapped_floor, batch_floor
        );
        println!(
            "verify on {cores} threads: {:.0} MiB/s = {} the single thread; for comparison, mapping each file and computing CRC-32C over it split evenly between {cores} threads (in process): {} one thread",
            mib_s(multi_bytes, scaling.best_cmd),
            scaling,
            floor_scaling
        );
        println!(
            "for comparison, mapping each file and computing CRC-32C a batch, the files shared out as verify shares out segments: between {cores} threads of one process {} one thread; between {cores} processes (the same work in separate address spaces) {} one thread",
            batch_threads, batch_processes
        );
        println!(
            "verify side by side with its floors (mapping each file and computing CRC-32C a batch, in process): one thread {} the one-thread floor (goal at least 0.95x); {cores} threads {} the same floor on {cores} threads of one process (goal at least 0.95x)",
            one_against_floor, cores_against_floor
        );
        println!(
            "for comparison, CRC-32C over the same bytes with every page already mapped in (no page-table work, no parsing: what memory bandwidth alone allows): one thread {} plain read; {cores} threads {} one thread",
            memory_floor, memory_scaling
        );
        println!(
            "for comparison, CRC-32C over as many bytes from a 256 KiB buffer held in the CPU's cache (the checksum's compute alone: the most any pass that checks every byte can reach): one thread {:.0} MiB/s = {} plain read; {cores} threads {} one thread",
            mib_s(multi_bytes, compute_floor.best_cmd),
            compute_floor,
            compute_scaling
        );
    }
    if want("small") {
        let single_logs = logs(&single.join("events-0"));
        read_back(&single_logs);
        let single_bytes: u64 = single_logs
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
        let single_dir = single.to_str().unwrap().to_string();
        let read_single = || plain_read(&single_logs);
        let one = paired(read_single, || run(&["verify", &single_dir], Some(1)).0);
        let floor = paired(read_single, || map_and_crc_batches(&single_logs));
        let against_floor = paired(
            || map_and_crc_batches(&single_logs),
            || run(&["verify", &single_dir], Some(1)).0,
        );
        println!(
            "verify of {} MiB of one-record batches of 1 KiB values (about 1.1 KiB a batch), one thread: {:.0} MiB/s = {} plain read; for comparison, mapping each file and computing CRC-32C a batch (framing only, in process): {} plain read; side by side with that floor: {} the floor (goal at least 0.9x); kseg's process start is {:.1}% of its best run, which the in-process floor does not pay",
            single_bytes >> 20,
            mib_s(single_bytes, one.best_cmd),
            one,
            floor,
            against_floor,
            100.0 * start_cost().as_secs_f64() / one.best_cmd.as_secs_f64()
        );
    }
    if want("rss") {
        let big_rss = run(&["verify", idempotent.to_str().unwrap()], None).1;
        let small_rss = run(&["verify", idempotent_small.to_str().unwrap()], None).1;
        println!(
            "verify peak RSS on {} MiB of one-record batches from idempotent producers: {} KiB (on 1/4 of it: {} KiB; producer batches beyond a fixed budget are read again for the replay)",
            size_mib, big_rss, small_rss
        );
    }
    if want("locate") {
        let many_dir = many.to_str().unwrap().to_string();
        let target_offset = 10_000 / 2 * 32 + 13;
        let target = target_offset.to_string();
        let (locate, _) = best(5, || run(&["locate", "--offset", &target, &many_dir], None));
        let out = Command::new(KSEG)
            .args(["locate", "--json", "--offset", &target, &many_dir])
            .output()
            .unwrap();
        let trace: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let list = best(5, || {
            let start = Instant::now();
            let p = kseg::logdir::Partition::open(&many).unwrap();
            (start.elapsed(), p)
        });
        let partition = list.1;
        let (lookup, _) = best(5, || {
            let start = Instant::now();
            let i = partition.floor_segment(target_offset).unwrap();
            let seg = &partition.segments[i];
            let log =
                kseg::logdir::MappedFile::open(&seg.log_path(), kseg::logdir::CachePolicy::Keep)
                    .unwrap();
            let found = kseg::inspect::locate::locate_in_segment(
                seg,
                log.bytes(),
                target_offset,
                kseg::inspect::locate::EntryCount::Live,
            );
            (start.elapsed(), found)
        });
        println!(
            "locate --offset {target} in {} segments: {:.1} ms for the whole process, of which listing the directory takes {:.1} ms and the lookup itself {:.3} ms; index probes {}, index bytes read {}, log bytes read {}",
            trace["segmentCount"],
            locate.as_secs_f64() * 1000.0,
            list.0.as_secs_f64() * 1000.0,
            lookup.as_secs_f64() * 1000.0,
            trace["index"]["probes"].as_array().map_or(0, Vec::len),
            trace["indexBytesRead"],
            trace["logBytesRead"]
        );
    }
    if want("salvage") {
        let garbage_logs = logs(&garbage);
        let garbage_bytes = std::fs::metadata(&garbage_logs[0]).unwrap().len();
        plain_read(&garbage_logs);
        let garbage_dir = garbage.to_str().unwrap().to_string();
        let salvage = paired(
            || plain_read(&garbage_logs),
            || run(&["salvage", &garbage_dir], None).0,
        );
        println!(
            "salvage of a {} MiB segment of garbage with 8 valid batches: {:.0} MiB/s = {} plain read (goal at least 0.5x)",
            garbage_bytes >> 20,
            mib_s(garbage_bytes, salvage.best_cmd),
            salvage
        );
    }
    if want("decoded") {
        let offsets_log = logs(&offsets)[0].to_str().unwrap().to_string();
        let offsets_bytes = std::fs::metadata(&offsets_log).unwrap().len();
        let raw = ["dump", "--print-data-log", "--no-decode", &offsets_log];
        let decoded_args = ["dump", "--print-data-log", &offsets_log];
        let decoded = paired(|| run(&raw, None).0, || run(&decoded_args, None).0);
        println!(
            "dump --print-data-log of {} MiB of __consumer_offsets commits, decoded by Kafka's schemas: {:.0} MiB/s = {} the same dump printing raw bytes (--no-decode, goal at least 0.75x)",
            offsets_bytes >> 20,
            mib_s(offsets_bytes, decoded.best_cmd),
            decoded
        );
        // Both dumps spend their time writing text: the decoded one writes
        // more of it, which bounds the ratio unless it writes each byte
        // for less than the raw dump does.
        let (raw_out, decoded_out) = (output_bytes(&raw), output_bytes(&decoded_args));
        let floor = raw_out as f64 / decoded_out as f64;
        println!(
            "  the decoded dump writes {:.2}x the raw dump's text ({} MiB against {} MiB): at the raw dump's time per byte written it would run at {floor:.2}x; it runs at {:.2} of that",
            decoded_out as f64 / raw_out as f64,
            decoded_out >> 20,
            raw_out >> 20,
            decoded.median_ratio / floor
        );
    }
    if want("groups") {
        let at = |mib: u64| {
            work.join(format!("groups{mib}"))
                .join("__consumer_offsets-0")
        };
        let (dir, small) = (at(size_mib / 4), at(size_mib / 16));
        write_group_records(&dir, (size_mib / 4).max(1) << 20);
        write_group_records(&small, (size_mib / 16).max(1) << 20);
        replay_line("groups", "__consumer_offsets", &dir, &small);
    }
    if want("metadata") {
        let at = |mib: u64| {
            work.join(format!("metadata{mib}"))
                .join("__cluster_metadata-0")
        };
        let (dir, small) = (at(size_mib / 4), at(size_mib / 16));
        write_metadata_records(&dir, (size_mib / 4).max(1) << 20);
        write_metadata_records(&small, (size_mib / 16).max(1) << 20);
        replay_line("metadata", "__cluster_metadata", &dir, &small);
    }
    if want("partitions") {
        many_partitions(&work);
    }
}
