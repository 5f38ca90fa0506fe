//! Kafka's recovery walk and index rebuild over arbitrary bytes: it must end,
//! and what it keeps must be a prefix of the input made of whole batches.
#![no_main]

use kseg::inspect::index::build::build_indexes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let build = build_indexes(data, 0, 64, true);
    assert!(build.valid_bytes <= data.len() as u64);
    assert_eq!(build.offset_entry_count, build.offset_entries.len());
    assert_eq!(build.time_entry_count, build.time_entries.len());
    let index = build.offset_index_bytes(0);
    let time = build.time_index_bytes(0);
    assert_eq!(index.len() % 8, 0);
    assert_eq!(time.len() % 12, 0);
});
