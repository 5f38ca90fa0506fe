//! Producer snapshots, checkpoint files, `partition.metadata` and
//! `meta.properties`, and the sniffing that tells a renamed file's kind,
//! from arbitrary bytes.
#![no_main]

use kseg::format::checkpoint::{parse_leader_epoch_checkpoint, parse_offset_checkpoint};
use kseg::format::producer_snapshot::parse_producer_snapshot;
use kseg::format::partition_metadata::read_partition_metadata;
use kseg::format::properties::parse_properties;
use kseg::logdir::identify::sniff;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(snapshot) = parse_producer_snapshot(data) {
        for entry in &snapshot.entries {
            let _ = (entry.first_sequence(), entry.first_offset());
        }
    }
    let _ = sniff(data, true);
    let text = String::from_utf8_lossy(data);
    let _ = parse_offset_checkpoint(&text);
    let _ = parse_leader_epoch_checkpoint(&text);
    let _ = read_partition_metadata(data);
    let _ = parse_properties(&text);
});
