//! Batches written by an independent encoder (the kafka-protocol crate's
//! `RecordBatchEncoder`, all four codecs) decode to the same records.

use bytes::{Bytes, BytesMut};
use indexmap::IndexMap;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records::{
    Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
};

use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::format::{BatchIter, Compression as KsegCompression};

fn records(base: i64) -> Vec<Record> {
    (0..50)
        .map(|i| {
            let mut headers = IndexMap::new();
            if i % 3 == 0 {
                headers.insert(
                    StrBytes::from_string(format!("h{i}")),
                    Some(Bytes::from(vec![i as u8; 3])),
                );
                headers.insert(StrBytes::from_string("null".into()), None);
            }
            Record {
                transactional: false,
                control: false,
                partition_leader_epoch: 7,
                producer_id: 4242,
                producer_epoch: 3,
                timestamp_type: TimestampType::Creation,
                offset: base + i,
                sequence: 100 + i as i32,
                timestamp: 1_700_000_000_000 + i * 13 - (i % 5) * 40,
                key: (i % 4 != 0).then(|| Bytes::from(format!("key-{i}"))),
                value: (i % 7 != 0)
                    .then(|| Bytes::from(format!("value-{i}-").repeat(i as usize % 20 + 1))),
                headers,
            }
        })
        .collect()
}

#[test]
fn kafka_protocol_batches_decode_to_the_same_records_in_every_codec() {
    let codecs = [
        (Compression::None, KsegCompression::None),
        (Compression::Gzip, KsegCompression::Gzip),
        (Compression::Snappy, KsegCompression::Snappy),
        (Compression::Lz4, KsegCompression::Lz4),
        (Compression::Zstd, KsegCompression::Zstd),
    ];
    for (codec, ours) in codecs {
        let written = records(1000);
        let mut buf = BytesMut::new();
        RecordBatchEncoder::encode(
            &mut buf,
            &written,
            &RecordEncodeOptions {
                version: 2,
                compression: codec,
            },
        )
        .unwrap();
        let batches: Vec<_> = BatchIter::new(&buf, 0).collect::<Result<_, _>>().unwrap();
        let mut scratch = Vec::new();
        let mut read = Vec::new();
        for batch in &batches {
            assert!(batch.is_valid(), "{codec:?}: CRC");
            let summary = batch
                .summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT)
                .unwrap();
            assert_eq!(summary.compression, ours);
            assert_eq!(
                (
                    summary.producer_id,
                    summary.producer_epoch,
                    summary.partition_leader_epoch
                ),
                (4242, 3, 7)
            );
            let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
            assert!(decoded.error.is_none(), "{codec:?}: {:?}", decoded.error);
            for r in decoded.records {
                let headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = r
                    .headers
                    .iter()
                    .map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec)))
                    .collect();
                read.push((
                    r.offset,
                    r.timestamp,
                    r.sequence,
                    r.key.map(<[u8]>::to_vec),
                    r.value.map(<[u8]>::to_vec),
                    headers,
                ));
            }
        }
        let expected: Vec<_> = written
            .iter()
            .map(|r| {
                let headers: Vec<(Vec<u8>, Option<Vec<u8>>)> = r
                    .headers
                    .iter()
                    .map(|(k, v)| (k.as_bytes().to_vec(), v.as_ref().map(|b| b.to_vec())))
                    .collect();
                (
                    r.offset,
                    r.timestamp,
                    r.sequence,
                    r.key.as_ref().map(|b| b.to_vec()),
                    r.value.as_ref().map(|b| b.to_vec()),
                    headers,
                )
            })
            .collect();
        assert_eq!(read, expected, "{codec:?}");
    }
}
