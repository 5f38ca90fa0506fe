//! Producer state replayed from the log reproduces every producer snapshot
//! Kafka wrote in the corpus, byte for byte.

use kseg::format::SummaryIter;
use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::inspect::producer::batch::ProducerBatch;
use kseg::inspect::producer::state::{PRODUCER_BATCHES_IN_MEMORY, ProducerState};
use kseg::inspect::recovery::partition::check_partition;
use kseg::inspect::recovery::segment::SegmentCheckOptions;
use kseg::logdir::{CachePolicy, MappedFile, Partition};

use super::corpus::{cases, index_interval};

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

/// The snapshot plan is the same whether producer batches are kept in
/// memory, read again from the `.log` (budget spent), or a mix of both.
#[test]
fn snapshot_plans_do_not_depend_on_the_producer_batch_budget() {
    let mut plans = 0;
    let mut reread = 0;
    for case in cases() {
        for p in case.partitions() {
            let partition = Partition::open(&p.dir).unwrap();
            let plan = |budget: usize, recovery_point: i64| {
                let options = SegmentCheckOptions {
                    interval: index_interval(&case),
                    deep: false,
                    cache: CachePolicy::Keep,
                    producer_batches_in_memory: budget,
                };
                let report = check_partition(
                    &partition,
                    &options,
                    &super::util::load_at(Some(recovery_point)),
                    &|_| {},
                )
                .unwrap();
                let in_memory = report
                    .checks
                    .iter()
                    .filter(|c| c.producer_batches.is_some())
                    .count();
                (report.snapshots, in_memory)
            };
            for recovery_point in [0, i64::MAX] {
                let (all_kept, kept) = plan(PRODUCER_BATCHES_IN_MEMORY, recovery_point);
                if recovery_point == 0 {
                    assert_eq!(kept, partition.segments.len(), "{}", p.label);
                }
                for budget in [0, 4096] {
                    let (other, kept) = plan(budget, recovery_point);
                    assert_eq!(other, all_kept, "{} with a budget of {budget}", p.label);
                    reread += partition.segments.len() - kept;
                }
                plans += 1;
            }
        }
    }
    assert!(
        plans >= 40 && reread > 100,
        "{plans} plans, {reread} segments read again"
    );
}
