//! `kseg diverge`: replica sets written with the fixture writer, each
//! truncation point and lost range worked out from Kafka's rules
//! (`LeaderEpochFileCache.endOffsetFor`, `AbstractFetcherThread
//! .getOffsetTruncationState`) in the comments.

use std::path::{Path, PathBuf};

use kseg::fixture::{ReplicaEvent, write_replica};
use kseg::format::batch::compute_v2_crc;
use kseg::format::checkpoint::{OffsetCheckpointEntry, encode_offset_checkpoint};
use kseg::inspect::diverge::epoch_source::EpochSource;
use kseg::inspect::diverge::truncation::TruncationRule;
use kseg::inspect::diverge::{DivergeReport, analyze, load_replica};

use super::util::{json_lines, kseg, stderr, stdout};

const TOPIC_ID: &str = "kseg-diverge-AAAAAAAAA";

/// `batches` batches of `per` records appended in `epoch`.
fn write(epoch: i32, batches: usize, per: usize) -> ReplicaEvent {
    ReplicaEvent::Write {
        epoch,
        batches,
        per,
        producer: None,
    }
}

/// Writes `<root>/<broker>/orders-0` from `events` with the fixture
/// writer (a replicated batch is the same bytes on every replica; two
/// leaders writing one offset write different bytes); returns the
/// directory and each batch's (base offset, position).
fn replica(root: &Path, broker: &str, events: &[ReplicaEvent]) -> (PathBuf, Vec<(i64, u64)>) {
    let dir = root.join(broker).join("orders-0");
    let placed = write_replica(&dir, events, TOPIC_ID).unwrap();
    (dir, placed)
}

/// Writes the broker's `replication-offset-checkpoint` (its high watermark).
fn high_watermark(dir: &Path, hw: i64) {
    let entry = OffsetCheckpointEntry {
        topic: "orders".into(),
        partition: 0,
        offset: hw,
    };
    std::fs::write(
        dir.parent().unwrap().join("replication-offset-checkpoint"),
        encode_offset_checkpoint(&[entry]),
    )
    .unwrap();
}

fn run(dirs: &[&Path], leader: Option<usize>) -> DivergeReport {
    let replicas = dirs.iter().map(|d| load_replica(d).unwrap()).collect();
    analyze(replicas, leader).unwrap()
}

/// Unclean election. Epoch 0 (leader A): 0..31 reach both A and B. A goes
/// on alone in epoch 0 to 39, is elected again in epoch 1 and writes
/// 40..59 alone (B has fallen out of the ISR). A dies; B is elected
/// uncleanly in epoch 2 at its log end 32 and writes 32..43.
/// A: epochs [0@0, 1@40], LEO 60. B: [0@0, 2@32], LEO 44.
fn unclean_election(root: &Path) -> (PathBuf, PathBuf, Vec<(i64, u64)>) {
    let (a, placed) = replica(root, "b1", &[write(0, 10, 4), write(1, 5, 4)]);
    let (b, _) = replica(root, "b2", &[write(0, 8, 4), write(2, 3, 4)]);
    (a, b, placed)
}

#[test]
fn a_lagging_follower_truncates_nothing() {
    // Leader A: epoch 0 writes 0..39, A is re-elected in epoch 1 at 40 and
    // writes 40..59: [0@0, 1@40], LEO 60. Follower B lags: 0..27, [0@0].
    // B asks for epoch 0; A's latest is 1, the next epoch above 0 starts at
    // 40 and its largest epoch <= 0 is 0: answer (0, 40). B knows epoch 0
    // (its latest: end = its LEO 28): min(40, 28, 28) = 28, nothing cut.
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = replica(
        tmp.path(),
        "b1",
        &[write(0, 10, 4), ReplicaEvent::Elected(1), write(1, 5, 4)],
    );
    let (b, _) = replica(tmp.path(), "b2", &[write(0, 7, 4)]);
    let report = run(&[&a, &b], None);
    assert_eq!(report.leader, 0);
    let f = &report.followers[0];
    assert_eq!(f.truncation.steps.len(), 1);
    let step = &f.truncation.steps[0];
    assert_eq!(step.requested_epoch, Some(0));
    let answer = step.leader_answer.unwrap();
    assert_eq!((answer.epoch, answer.end_offset), (0, 40));
    assert_eq!(step.rule, TruncationRule::SameEpoch);
    assert_eq!(f.truncation.truncation_offset, 28);
    assert_eq!(f.lost.all.batches, 0);
    assert_eq!(f.prefix.batches_compared, 7);
    assert!(f.prefix.first_divergence.is_none());
}

#[test]
fn an_unclean_election_loses_the_epoch_the_new_leader_never_saw() {
    // The default leader is B (latest epoch 2 > A's 1). A asks for epoch 1,
    // which B never saw: B's next epoch above 1 is 2@32, its largest <= 1
    // is 0, answer (0, 32). A knows epoch 0, ending where its epoch 1
    // starts, 40: min(32, 40, 60) = 32. A loses 32..59: 7 batches, 28
    // records, epochs 0 (32..39) and 1 (40..59).
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    let report = run(&[&a, &b], None);
    assert_eq!(report.leader, 1);
    let f = &report.followers[0];
    let step = &f.truncation.steps[0];
    assert_eq!(step.requested_epoch, Some(1));
    let answer = step.leader_answer.unwrap();
    assert_eq!((answer.epoch, answer.end_offset), (0, 32));
    assert_eq!(step.follower_answer.unwrap().end_offset, 40);
    assert_eq!(f.truncation.truncation_offset, 32);
    assert_eq!(f.truncation.steps.len(), 1);
    assert_eq!(
        (f.lost.all.first_offset, f.lost.all.last_offset),
        (Some(32), Some(59))
    );
    assert_eq!((f.lost.all.batches, f.lost.all.records), (7, 28));
    assert_eq!(f.lost.epochs, vec![0, 1]);
    assert!(
        f.lost.committed.is_none(),
        "no replication-offset-checkpoint"
    );
    assert!(f.prefix.first_divergence.is_none());
    assert_eq!(f.prefix.batches_compared, 8);
}

#[test]
fn kip_279_truncates_twice_across_several_epochs() {
    // Epoch 0: 0..15 reach F and L; F alone gets 16..19. Epoch 1: L is
    // elected uncleanly and writes 16..29 alone. Epoch 2: F is elected
    // uncleanly and writes 20..39 alone. Epoch 3: L again, 30..49.
    // F: [0@0, 2@20], LEO 40. L: [0@0, 1@16, 3@30], LEO 50 (the leader).
    // Round 1: F asks 2; L: next above 2 is 3@30, largest <= 2 is 1 ->
    //   (1, 30). F does not know 1: its largest <= 1 is 0, ending at 20 ->
    //   truncate to min(20, 40) = 20 and ask again; 2@20 is removed.
    // Round 2: F asks 0; L: next above 0 is 1@16 -> (0, 16). F's epoch 0 is
    //   its latest now, end = LEO 20 -> min(16, 20, 20) = 16.
    // F loses 16..39: 12 batches of 2, 24 records, epochs 0 and 2.
    let tmp = tempfile::tempdir().unwrap();
    let (f_dir, _) = replica(tmp.path(), "b1", &[write(0, 10, 2), write(2, 10, 2)]);
    let (l_dir, _) = replica(
        tmp.path(),
        "b2",
        &[write(0, 8, 2), write(1, 7, 2), write(3, 10, 2)],
    );
    let report = run(&[&f_dir, &l_dir], None);
    assert_eq!(report.leader, 1);
    let f = &report.followers[0];
    let steps = &f.truncation.steps;
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].requested_epoch, Some(2));
    let first = steps[0].leader_answer.unwrap();
    assert_eq!((first.epoch, first.end_offset), (1, 30));
    assert_eq!(steps[0].rule, TruncationRule::UnknownEpochAskAgain);
    assert_eq!((steps[0].truncate_to, steps[0].log_end_after), (20, 20));
    assert_eq!(steps[0].epochs_removed.len(), 1);
    assert_eq!(steps[1].requested_epoch, Some(0));
    let second = steps[1].leader_answer.unwrap();
    assert_eq!((second.epoch, second.end_offset), (0, 16));
    assert_eq!(steps[1].rule, TruncationRule::SameEpoch);
    assert_eq!(f.truncation.truncation_offset, 16);
    assert_eq!((f.lost.all.batches, f.lost.all.records), (12, 24));
    assert_eq!(f.lost.epochs, vec![0, 2]);
    assert_eq!(f.prefix.batches_compared, 8);
    assert!(f.prefix.first_divergence.is_none());
}

/// The entries of a replica's cache as (epoch, start offset).
fn starts(report: &DivergeReport, replica: usize) -> Vec<(i32, i64)> {
    report.replicas[replica]
        .epochs
        .cache
        .entries()
        .iter()
        .map(|e| (e.epoch, e.start_offset))
        .collect()
}

#[test]
fn a_missing_leader_epoch_checkpoint_is_rebuilt_from_the_batches() {
    // As in the unclean election, with A's leader-epoch-checkpoint gone and
    // A's high watermark at 8. No clean-shutdown marker and no recovery
    // point: loading replays every batch (LogSegment.recover assigns each
    // epoch above the latest), so A's cache is [0@0, 1@40] again and A
    // still truncates to 32 (an empty cache would send it to its high
    // watermark, 8, instead).
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    std::fs::remove_file(a.join("leader-epoch-checkpoint")).unwrap();
    high_watermark(&a, 8);
    let report = run(&[&a, &b], None);
    let epochs = &report.replicas[0].epochs;
    assert!(
        matches!(&epochs.source, EpochSource::Loaded { why } if why.contains("no leader-epoch-checkpoint") && why.contains("replays every batch")),
        "{:?}",
        epochs.source
    );
    assert!(epochs.batches_disagree.is_none());
    assert_eq!(starts(&report, 0), vec![(0, 0), (1, 40)]);
    assert_eq!(report.followers[0].truncation.truncation_offset, 32);
    assert!(matches!(
        report.replicas[1].epochs.source,
        EpochSource::Checkpoint
    ));
}

#[test]
fn after_a_clean_shutdown_a_missing_checkpoint_leaves_kafka_no_epochs() {
    // The same, but A's log dir holds .kafka_cleanshutdown: LogLoader
    // recovers nothing, so no batch is replayed and A's cache stays empty.
    // With no latest epoch the fetcher truncates A to its high watermark,
    // 8, not to 32: A loses 8..59 (13 batches, 52 records). The batches'
    // epochs [0@0, 1@40] are reported as disagreeing.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    std::fs::remove_file(a.join("leader-epoch-checkpoint")).unwrap();
    std::fs::write(a.parent().unwrap().join(".kafka_cleanshutdown"), "").unwrap();
    high_watermark(&a, 8);
    let report = run(&[&a, &b], None);
    let epochs = &report.replicas[0].epochs;
    assert!(epochs.cache.entries().is_empty());
    assert_eq!(epochs.batches_disagree.as_ref().unwrap().entries().len(), 2);
    assert!(
        epochs.describe().contains("DISAGREES"),
        "{}",
        epochs.describe()
    );
    let f = &report.followers[0];
    assert_eq!(
        f.truncation.steps[0].rule,
        TruncationRule::NoEpochHighWatermark
    );
    assert_eq!(f.truncation.truncation_offset, 8);
    assert_eq!((f.lost.all.batches, f.lost.all.records), (13, 52));
}

#[test]
fn a_checkpoint_loading_extends_is_said_so() {
    // A's checkpoint says only [0@0]; replaying every batch assigns 1@40.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    std::fs::write(a.join("leader-epoch-checkpoint"), "0\n1\n0 0\n").unwrap();
    let report = run(&[&a, &b], None);
    let EpochSource::Loaded { why } = &report.replicas[0].epochs.source else {
        panic!("{:?}", report.replicas[0].epochs.source);
    };
    assert!(why.contains("[0@0], extended"), "{why}");
    assert_eq!(starts(&report, 0), vec![(0, 0), (1, 40)]);
}

#[test]
fn a_new_leaders_epoch_at_its_log_end_is_normal() {
    // B elected in epoch 2 at its log end 32 has written nothing yet:
    // [0@0, 2@32] with LEO 32 is kept as it is. A asks for 1: (0, 32) as before.
    let tmp = tempfile::tempdir().unwrap();
    let (a, _, _) = unclean_election(tmp.path());
    let (b, _) = replica(
        tmp.path(),
        "b3",
        &[write(0, 8, 4), ReplicaEvent::Elected(2)],
    );
    let report = run(&[&a, &b], None);
    assert_eq!(report.leader, 1);
    assert!(matches!(
        report.replicas[1].epochs.source,
        EpochSource::Checkpoint
    ));
    assert!(report.replicas[1].epochs.batches_disagree.is_none());
    assert_eq!(starts(&report, 1), vec![(0, 0), (2, 32)]);
    assert_eq!(report.followers[0].truncation.truncation_offset, 32);
}

#[test]
fn a_silent_divergence_below_the_truncation_point_is_reported() {
    // The lagging follower again (it keeps all of 0..27), with one value
    // byte of its batch 8..11 changed and the CRC recomputed: its CRC now
    // differs from the leader's batch 8..11 at the same position.
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = replica(tmp.path(), "b1", &[write(0, 10, 4), write(1, 5, 4)]);
    let (b, placed) = replica(tmp.path(), "b2", &[write(0, 7, 4)]);
    let log = b.join("00000000000000000000.log");
    let mut bytes = std::fs::read(&log).unwrap();
    let (base, position) = placed[2];
    assert_eq!(base, 8);
    let start = position as usize;
    let end = placed[3].1 as usize;
    bytes[end - 2] ^= 0x01;
    let crc = compute_v2_crc(&bytes[start..end]);
    bytes[start + 17..start + 21].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(&log, bytes).unwrap();
    let report = run(&[&a, &b], Some(0));
    let f = &report.followers[0];
    assert_eq!(f.truncation.truncation_offset, 28);
    let d = f.prefix.first_divergence.as_ref().unwrap();
    assert_eq!(d.base_offset, 8);
    assert_eq!(d.follower.position, position);
    assert_eq!(d.leader.unwrap().position, position);
    assert_eq!(d.follower.crc, crc);
    assert!(d.what.starts_with("crc "), "{}", d.what);
    let out = kseg([
        "diverge",
        "--json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out);
    assert_eq!(lines[0]["firstDivergentBatch"]["baseOffset"], 8);
}

#[test]
fn the_high_watermark_splits_the_lost_records() {
    // The unclean election with A's high watermark at 36: of A's lost
    // 32..59, the batch 32..35 was committed (all of it below 36:
    // acknowledged to acks=all producers), the 6 batches 36..59 (24
    // records) never were.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    high_watermark(&a, 36);
    let report = run(&[&a, &b], None);
    let lost = &report.followers[0].lost;
    let committed = lost.committed.unwrap();
    assert_eq!((committed.batches, committed.records), (1, 4));
    assert_eq!(
        (committed.first_offset, committed.last_offset),
        (Some(32), Some(35))
    );
    assert_eq!(
        (lost.uncommitted.records, lost.uncommitted.first_offset),
        (24, Some(36))
    );
    let out = kseg([
        "diverge",
        "--json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line["replica"], a.to_str().unwrap());
    assert_eq!(line["truncationOffset"], 32);
    assert_eq!(line["lostRecords"], 28);
    assert_eq!(line["lostCommittedRecords"], 4);
    assert!(line["firstDivergentBatch"].is_null());
    assert_eq!(line["steps"].as_array().unwrap().len(), 1);
    let text = stdout(&kseg(["diverge", a.to_str().unwrap(), b.to_str().unwrap()]));
    assert!(
        text.contains("committed (below its high watermark 36, acknowledged to acks=all producers): 4 records in 1 batch"),
        "{text}"
    );
}

#[test]
fn exported_lost_batches_equal_the_originals_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, placed) = unclean_election(tmp.path());
    let before: Vec<Vec<u8>> = [&a, &b]
        .iter()
        .map(|d| std::fs::read(d.join("00000000000000000000.log")).unwrap())
        .collect();
    let out_dir = tmp.path().join("lost");
    let out = kseg([
        "diverge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--export",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // A's batch 32..35 is its 9th; the lost bytes run from there to the end.
    let first_lost = placed[8];
    assert_eq!(first_lost.0, 32);
    let exported_dir = out_dir.join("replica-1/orders-0");
    let exported = std::fs::read(exported_dir.join("00000000000000000032.log")).unwrap();
    assert_eq!(exported, before[0][first_lost.1 as usize..]);
    let dump = kseg([
        "dump",
        "--json",
        exported_dir
            .join("00000000000000000032.log")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(dump.status.code(), Some(0), "{}", stderr(&dump));
    let bases: Vec<i64> = json_lines(&dump)
        .iter()
        .filter_map(|l| l["baseOffset"].as_i64())
        .collect();
    assert_eq!(bases, (32..60).step_by(4).collect::<Vec<_>>());
    let verify = kseg(["verify", exported_dir.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    // The inputs are untouched.
    for (d, bytes) in [&a, &b].iter().zip(&before) {
        assert_eq!(
            &std::fs::read(d.join("00000000000000000000.log")).unwrap(),
            bytes
        );
    }
    let again = kseg([
        "diverge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--export",
        a.join("inside").to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("never writes to its inputs"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn replicas_of_different_partitions_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    let other = tmp.path().join("b2/orders-1");
    std::fs::rename(&b, &other).unwrap();
    let out = kseg(["diverge", a.to_str().unwrap(), other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("orders-0") && stderr(&out).contains("orders-1"),
        "{}",
        stderr(&out)
    );
    std::fs::rename(&other, &b).unwrap();
    std::fs::write(
        b.join("partition.metadata"),
        "version: 0\ntopic_id: kseg-other-AAAAAAAAAAA",
    )
    .unwrap();
    let out = kseg(["diverge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("topic id"), "{}", stderr(&out));
}

#[test]
fn a_damaged_replica_is_taken_as_recovery_leaves_it() {
    // Garbage after A's last batch: recovery (no clean-shutdown marker)
    // truncates it there, and the analysis runs on what it leaves.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    let log = a.join("00000000000000000000.log");
    let mut bytes = std::fs::read(&log).unwrap();
    let len = bytes.len();
    bytes.extend_from_slice(&[0u8; 100]);
    std::fs::write(&log, bytes).unwrap();
    let report = run(&[&a, &b], None);
    let note = report.replicas[0].recovery_note.as_deref().unwrap();
    assert!(note.contains(&format!("at byte {len}")), "{note}");
    assert_eq!(report.replicas[0].log_end_offset, 60);
    assert_eq!(report.followers[0].truncation.truncation_offset, 32);
}

#[test]
fn the_bundled_example_cuts_a_transaction_in_the_middle() {
    // testdata/diverge: b1 wrote 0..39 in epoch 0 (producer 7's transaction
    // at 28..31), was re-elected in epoch 1 and wrote the COMMIT at 40 and
    // 41..60; b2 has 0..31 and, elected uncleanly in epoch 2 at 32, wrote
    // 32..43. b1 asks for epoch 1: b2 answers (0, 32); b1's epoch 0 ends at
    // 40: min(32, 40, 61) = 32. The transaction begun at 28 is kept open,
    // its marker at 40 lost. High watermark 36: 32..35 were committed.
    let root = super::util::repo().join("testdata/diverge");
    let report = run(
        &[&root.join("b1/orders-0"), &root.join("b2/orders-0")],
        None,
    );
    let f = &report.followers[0];
    assert_eq!(f.truncation.truncation_offset, 32);
    assert_eq!(f.lost.all.records, 29);
    assert_eq!(f.lost.producer_ids, vec![7]);
    let cut = &f.lost.transactions_cut;
    assert_eq!(cut.len(), 1);
    assert_eq!(
        (
            cut[0].producer_id,
            cut[0].first_offset,
            cut[0].lost_marker_offset
        ),
        (7, 28, Some(40))
    );
    // b2 never wrote a marker for it: the transaction hangs on the leader.
    assert!(cut[0].open_on_leader);
    assert_eq!(f.lost.committed.unwrap().records, 4);
}

#[test]
fn a_leader_that_knows_no_epoch_as_high_answers_undefined() {
    // --leader b1 (the old leader, [0@0, 1@40]) although b2 has epoch 2:
    // b2 asks for 2; b1's latest is 1 and no epoch above 2 is known:
    // UNDEFINED_EPOCH_OFFSET, so b2 truncates to its initial fetch offset,
    // its high watermark 20, and loses 20..43 (6 batches, 24 records).
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, _) = unclean_election(tmp.path());
    high_watermark(&b, 20);
    let out = kseg([
        "diverge",
        "--json",
        "--leader",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "the leader given is added to the replicas");
    let line = &lines[0];
    assert_eq!(line["replica"], b.to_str().unwrap());
    assert_eq!(line["leaderReason"], "given with --leader");
    let step = &line["steps"][0];
    assert_eq!(step["requestedEpoch"], 2);
    assert_eq!(step["leaderAnswer"]["endOffset"], -1);
    assert_eq!(step["leaderAnswer"]["case"], "noHigherEpoch");
    assert_eq!(step["rule"], "undefinedOffsetHighWatermark");
    assert_eq!(line["truncationOffset"], 20);
    assert_eq!(line["lostRecords"], 24);
    assert_eq!(line["lostCommittedRecords"], 0);
}

#[test]
fn damaged_headers_never_crash_diverge() {
    // Bytes of b1's log overwritten one header field at a time (offsets,
    // lengths, epochs, attributes, counts), plus every fuzz-found segment
    // as a replica: kseg answers with a finding or an error, never a panic.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, placed) = unclean_election(tmp.path());
    let log = a.join("00000000000000000000.log");
    let original = std::fs::read(&log).unwrap();
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for &(_, position) in placed.iter().step_by(3) {
        for (field, value) in [
            (0usize, [0xffu8; 8].as_slice()),
            (0, &[0x80, 0, 0, 0, 0, 0, 0, 0]),
            (8, &[0x7f, 0xff, 0xff, 0xff]),
            (8, &[0, 0, 0, 20]),
            (12, &[0xff, 0xff, 0xff, 0xfe]),
            (12, &[0x7f, 0xff, 0xff, 0xff]),
            (21, &[0xff, 0xff]),
            (23, &[0x80, 0, 0, 0]),
            (43, &[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            (57, &[0x80, 0, 0, 0]),
        ] {
            let mut bytes = original.clone();
            let at = position as usize + field;
            bytes[at..at + value.len()].copy_from_slice(value);
            inputs.push(bytes);
        }
    }
    let fuzz = super::util::repo().join("tests/regressions");
    for target in ["segment_walk", "recovery_walk"] {
        for entry in std::fs::read_dir(fuzz.join(target)).into_iter().flatten() {
            inputs.push(std::fs::read(entry.unwrap().path()).unwrap());
        }
    }
    let out_dir = tmp.path().join("export");
    for (i, bytes) in inputs.iter().enumerate() {
        std::fs::write(&log, bytes).unwrap();
        let export = out_dir.join(i.to_string());
        for args in [
            vec!["diverge", a.to_str().unwrap(), b.to_str().unwrap()],
            vec![
                "diverge",
                "--json",
                "--leader",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
            ],
            vec![
                "diverge",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--export",
                export.to_str().unwrap(),
            ],
        ] {
            let out = kseg(&args);
            assert!(
                matches!(out.status.code(), Some(0..=2)) && !stderr(&out).contains("panicked"),
                "input {i} {args:?}: {:?}\n{}",
                out.status.code(),
                stderr(&out)
            );
        }
    }
}
