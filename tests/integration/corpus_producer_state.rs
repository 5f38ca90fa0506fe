//! Producer state replayed from the log reproduces every producer snapshot
//! Kafka wrote in the corpus, byte for byte.

use kseg::format::SummaryIter;
use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::inspect::producer_state::{ProducerBatch, ProducerState};
use kseg::logdir::{CachePolicy, MappedFile, Partition};

use super::corpus::cases;

#[test]
fn replaying_the_log_reproduces_kafkas_producer_snapshots() {
    let mut compared = 0;
    let mut with_producers = 0;
    for case in cases() {
        for p in case.partitions() {
            if case.name.starts_with("unclean-") && case.name != "unclean-base"
                || case.name == "compacted"
            {
                continue; // damaged logs; the cleaner rewrote history
            }
            let partition = Partition::open(&p.dir).unwrap();
            let mut state = ProducerState::empty(0);
            let mut snapshots = partition.snapshots.iter().copied().peekable();
            let mut check = |state: &ProducerState, offset: i64| {
                let file = p.dir.join(format!("{offset:020}.snapshot"));
                assert_eq!(
                    state.snapshot_bytes(),
                    std::fs::read(&file).unwrap(),
                    "{}: {}",
                    p.label,
                    file.display()
                );
                compared += 1;
                with_producers += usize::from(!state.is_empty());
            };
            for segment in &partition.segments {
                let log = MappedFile::open(&segment.log_path(), CachePolicy::Keep).unwrap();
                for (batch, s) in
                    SummaryIter::new(log.bytes(), 0, DEFAULT_DECOMPRESS_LIMIT).map_while(Result::ok)
                {
                    while let Some(offset) = snapshots.next_if(|&o| o <= s.base_offset) {
                        check(&state, offset);
                    }
                    if let Some(b) = ProducerBatch::of(&batch, &s) {
                        state.apply(&b);
                    }
                }
            }
            for offset in snapshots {
                check(&state, offset);
            }
        }
    }
    assert!(
        compared > 50 && with_producers > 10,
        "{compared} snapshots, {with_producers} with producers"
    );
}
