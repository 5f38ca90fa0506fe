//! Which `__remote_log_metadata` partition holds a topic-partition's
//! remote segments (`RemoteLogMetadataTopicPartitioner.metadataPartition`):
//! Kafka's murmur2 of a 4-byte hash of the topic id and partition, made
//! positive, modulo the metadata topic's partition count
//! (`remote.log.metadata.topic.num.partitions`, 50 by default).

use crate::format::java::uuid_from_string;

/// `remote.log.metadata.topic.num.partitions`'s default.
pub const DEFAULT_METADATA_PARTITIONS: i32 = 50;

/// Kafka's `Utils.murmur2` (MurmurHash2, seed 0x9747b28c) as a Java int.
pub fn murmur2(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1_e995;
    let mut h: u32 = 0x9747_b28c ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate().rev() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Java's `Long.hashCode`.
fn long_hash(v: i64) -> i32 {
    (v ^ (v >> 32 & 0xffff_ffff)) as i32
}

/// The metadata partition of `topic_id` (Kafka's base64 form) partition
/// `partition` among `partitions`; `None` for a topic id that does not read.
pub fn metadata_partition(topic_id: &str, partition: i32, partitions: i32) -> Option<i32> {
    let id = uuid_from_string(topic_id)?;
    let msb = i64::from_be_bytes(id[..8].try_into().ok()?);
    let lsb = i64::from_be_bytes(id[8..].try_into().ok()?);
    let hash = [long_hash(lsb), long_hash(msb), partition]
        .into_iter()
        .fold(1i32, |h, v| h.wrapping_mul(31).wrapping_add(v));
    let positive = murmur2(&hash.to_be_bytes()) & 0x7fff_ffff;
    Some(positive % partitions.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_gives_kafkas_values() {
        // Kafka's own expectations for Utils.murmur2.
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (data, want) in cases {
            assert_eq!(murmur2(data), want, "{}", String::from_utf8_lossy(data));
        }
    }

    #[test]
    fn a_topic_id_that_does_not_read_has_no_metadata_partition() {
        assert_eq!(metadata_partition("not a uuid!", 0, 50), None);
    }
}
