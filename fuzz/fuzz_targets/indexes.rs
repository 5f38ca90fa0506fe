//! `.index`, `.timeindex` and `.txnindex` bytes: entry counts, sanity checks
//! and the broker's binary search with a target taken from the input.
#![no_main]

use kseg::format::offset_index::OffsetIndex;
use kseg::format::time_index::TimeIndex;
use kseg::format::txn_index::parse_txn_index;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((head, bytes)) = data.split_first_chunk::<8>() else { return };
    let target = i64::from_be_bytes(*head);
    let offsets = OffsetIndex::new(bytes, target & 0xffff);
    let _ = offsets.sanity_check();
    let live = offsets.live_entries();
    assert!(live <= offsets.kafka_entries());
    let (entry, trace) = offsets.lookup(target, offsets.kafka_entries());
    assert!(trace.slot.is_none_or(|s| s < offsets.kafka_entries()));
    let _ = entry;
    let times = TimeIndex::new(bytes, target & 0xffff);
    let _ = times.sanity_check();
    let _ = times.lookup(target, times.live_entries());
    let _ = times.last_entry();
    let _ = parse_txn_index(bytes);
});
