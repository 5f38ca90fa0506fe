//! The resync scan over arbitrary (mutated) segments, in one window and in
//! small windows as the streamed reader hands them: it must end, batches
//! and damaged ranges must tile the input from its first byte to its last,
//! every batch must pass its CRC, and both window sizes must agree.
#![no_main]

use kseg::format::resync::{SalvageOptions, Salvager, Step};
use libfuzzer_sys::fuzz_target;

/// (start, end, is_batch) of every step, reading in windows of `window`.
fn walk(data: &[u8], window: usize) -> Vec<(u64, u64, bool)> {
    let options = SalvageOptions {
        salvage: true,
        base_offset: 0,
        next_segment: None,
        max_batch_bytes: 1 << 20,
    };
    let mut salvager = Salvager::new(options, data.len() as u64);
    let (mut start, mut len) = (0usize, window);
    let mut out = Vec::new();
    loop {
        let end = (start + len).min(data.len());
        match salvager.step(&data[start..end], start as u64) {
            Step::Batch(batch) => {
                assert!(batch.is_valid());
                out.push((batch.position, batch.position + batch.size(), true));
            }
            Step::Damage(range) => out.push((range.start, range.end, false)),
            Step::NeedMore { from, bytes } => {
                assert!(from as usize >= start, "windows only move forward");
                start = from as usize;
                len = window.max(bytes as usize);
            }
            Step::End => return out,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = walk(data, data.len().max(1));
    let mut at = 0;
    for &(start, end, _) in &whole {
        assert_eq!(start, at, "steps tile the input");
        assert!(end > start);
        at = end;
    }
    assert_eq!(at, data.len() as u64);
    assert_eq!(walk(data, 97), whole);
});
