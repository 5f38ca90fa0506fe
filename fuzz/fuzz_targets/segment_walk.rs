//! Walks arbitrary bytes as a `.log`: frames, summaries, CRCs, every record
//! (decompressing as needed), control records. Errors are fine; panics,
//! hangs and unbounded allocation are not.
#![no_main]

use kseg::format::record::parse_control_record;
use kseg::format::{BatchIter, FileBatch};
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 1 << 20;

fn deep(batch: &FileBatch<'_>, scratch: &mut Vec<u8>) {
    let decoded = batch.records(scratch, LIMIT);
    for record in &decoded.records {
        let _ = parse_control_record(record);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut scratch = Vec::new();
    for batch in BatchIter::new(data, 0).map_while(Result::ok) {
        let _ = batch.is_valid();
        if batch.summary(&mut scratch, LIMIT).is_ok() {
            deep(&batch, &mut scratch);
        }
    }
});
