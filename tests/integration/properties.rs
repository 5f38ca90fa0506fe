//! Property tests: arbitrary batches read back equal to what was written, in
//! every codec; and any truncation or single-byte change of a valid segment
//! is detected or leaves a valid prefix, never a panic.

use proptest::prelude::*;

use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::format::encode::{BatchSpec, RecordSpec, encode_batch};
use kseg::format::{BatchIter, Compression, SummaryIter, TimestampType};
use kseg::inspect::index::build::build_indexes;

fn bytes(max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(prop::collection::vec(any::<u8>(), 0..max))
}

fn record() -> impl Strategy<Value = RecordSpec> {
    (
        0i64..1_000_000,
        bytes(40),
        bytes(300),
        prop::collection::vec((prop::collection::vec(any::<u8>(), 0..10), bytes(10)), 0..4),
    )
        .prop_map(|(ts, key, value, headers)| RecordSpec {
            timestamp: 1_700_000_000_000 + ts,
            key,
            value,
            headers,
        })
}

fn batch() -> impl Strategy<Value = BatchSpec> {
    (
        prop::collection::vec(record(), 1..12),
        prop::sample::select(vec![
            Compression::None,
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ]),
        any::<bool>(),
        prop::option::of((0i64..1 << 40, 0i16..10, 0i32..1 << 30)),
        0i32..100,
    )
        .prop_map(
            |(records, compression, append_time, producer, epoch)| BatchSpec {
                records,
                compression,
                timestamp_type: if append_time {
                    TimestampType::LogAppendTime
                } else {
                    TimestampType::CreateTime
                },
                append_time: 1_800_000_000_000,
                producer_id: producer.map_or(-1, |p| p.0),
                producer_epoch: producer.map_or(-1, |p| p.1),
                base_sequence: producer.map_or(-1, |p| p.2),
                partition_leader_epoch: epoch,
                ..BatchSpec::default()
            },
        )
}

/// Several batches laid end to end with increasing offsets.
fn segment(specs: &mut [BatchSpec]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = 0;
    for spec in specs.iter_mut() {
        spec.base_offset = next;
        next += spec.records.len() as i64;
        out.extend_from_slice(&encode_batch(spec));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn written_batches_read_back_equal(mut specs in prop::collection::vec(batch(), 1..5)) {
        let data = segment(&mut specs);
        let batches: Vec<_> = BatchIter::new(&data, 0).collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(batches.len(), specs.len());
        let mut scratch = Vec::new();
        for (batch, spec) in batches.iter().zip(&specs) {
            prop_assert!(batch.is_valid());
            let s = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT).unwrap();
            prop_assert_eq!(s.base_offset, spec.base_offset);
            prop_assert_eq!(s.last_offset, spec.base_offset + spec.records.len() as i64 - 1);
            prop_assert_eq!(s.compression, spec.compression);
            prop_assert_eq!(s.producer_id, spec.producer_id);
            prop_assert_eq!(s.partition_leader_epoch, spec.partition_leader_epoch);
            let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
            prop_assert!(decoded.error.is_none(), "{:?}", decoded.error);
            prop_assert_eq!(decoded.records.len(), spec.records.len());
            for (i, (r, w)) in decoded.records.iter().zip(&spec.records).enumerate() {
                prop_assert_eq!(r.offset, spec.base_offset + i as i64);
                let ts = if spec.timestamp_type == TimestampType::LogAppendTime { spec.append_time } else { w.timestamp };
                prop_assert_eq!(r.timestamp, ts);
                prop_assert_eq!(r.key, w.key.as_deref());
                prop_assert_eq!(r.value, w.value.as_deref());
                let headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = r.headers.iter().map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec))).collect();
                prop_assert_eq!(&headers, &w.headers);
            }
        }
    }

    #[test]
    fn a_truncated_segment_keeps_exactly_its_whole_batches(mut specs in prop::collection::vec(batch(), 1..5), cut in any::<prop::sample::Index>()) {
        let data = segment(&mut specs);
        let len = cut.index(data.len() + 1);
        let truncated = &data[..len];
        let ends: Vec<u64> = SummaryIter::new(&data, 0, DEFAULT_DECOMPRESS_LIMIT).map(|r| { let (b, s) = r.unwrap(); s.position + b.size() }).collect();
        let expected = ends.iter().copied().filter(|&e| e <= len as u64).max().unwrap_or(0);
        let build = build_indexes(truncated, 0, 64, true);
        prop_assert_eq!(build.valid_bytes, expected);
    }

    #[test]
    fn a_flipped_byte_is_detected_or_outside_the_crc(mut specs in prop::collection::vec(batch(), 1..5), at in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let mut data = segment(&mut specs);
        let at = at.index(data.len());
        let starts: Vec<u64> = SummaryIter::new(&data, 0, DEFAULT_DECOMPRESS_LIMIT).map(|r| r.unwrap().1.position).collect();
        let batch_start = *starts.iter().filter(|&&s| s <= at as u64).max().unwrap();
        data[at] ^= xor;
        // Never panics, whatever it reads.
        let build = build_indexes(&data, 0, 64, true);
        let mut scratch = Vec::new();
        for (batch, _) in SummaryIter::new(&data, 0, DEFAULT_DECOMPRESS_LIMIT).map_while(Result::ok) {
            let _ = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
        }
        let within_batch = at as u64 - batch_start;
        if within_batch >= 17 {
            // The CRC field and everything it covers: recovery stops at this batch.
            prop_assert!(build.valid_bytes <= batch_start, "byte {} of the batch at {}: valid {}", within_batch, batch_start, build.valid_bytes);
        }
    }
}
