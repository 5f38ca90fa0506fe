//! The broker drops producers idle for `producer.id.expiration.ms` when it
//! loads a producer snapshot (`ProducerStateManager.loadFromSnapshot`), so
//! the snapshots its recovery writes depend on its clock: `--now`.

use std::path::Path;

use kseg::fixture::{PartitionWriter, WriterConfig, fixture_value};
use kseg::format::encode::{BatchSpec, RecordSpec};

use super::util::{json_lines, kseg, stderr};

const T0: i64 = 1_700_000_000_000;
const HOUR: i64 = 3_600_000;

/// Producer 1 writes only into the first segment; producer 2 into both.
fn write(dir: &Path) -> i64 {
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 4096,
            index_interval_bytes: 1024,
        },
    )
    .unwrap();
    let mut sequences = [0, 0];
    for i in 0..60i64 {
        let producer = if i < 10 { i % 2 } else { 1 };
        let spec = BatchSpec {
            producer_id: producer + 1,
            producer_epoch: 0,
            base_sequence: sequences[producer as usize],
            records: vec![RecordSpec {
                timestamp: T0 + i,
                value: Some(fixture_value(i, 100)),
                ..RecordSpec::default()
            }],
            ..BatchSpec::default()
        };
        sequences[producer as usize] += 1;
        w.append(spec).unwrap();
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    60
}

fn recover(dir: &Path, recovery_point: i64, now: i64, apply: bool) -> serde_json::Value {
    let mut args = vec![
        "recover".to_string(),
        "--json".into(),
        "--index-interval-bytes=1024".into(),
        format!("--recovery-point={recovery_point}"),
        format!("--now={now}"),
        dir.display().to_string(),
    ];
    if apply {
        args.insert(1, "--apply".into());
        let backup = dir
            .parent()
            .and_then(Path::parent)
            .unwrap()
            .join(format!("backup-{now}-{recovery_point}"));
        args.insert(2, format!("--backup-dir={}", backup.display()));
    }
    let out = kseg(&args);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    json_lines(&out).remove(0)
}

fn producers_in(snapshot: &Path) -> usize {
    let out = kseg(["dump", snapshot.to_str().unwrap()]);
    super::util::stdout(&out).matches("producerId:").count()
}

#[test]
fn producers_idle_past_the_expiration_leave_the_snapshots_recovery_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/events-0");
    let log_end = write(&dir);
    let partition = kseg::logdir::Partition::open(&dir).unwrap();
    assert!(
        partition.segments.len() >= 3,
        "{} segments",
        partition.segments.len()
    );
    let active = partition.segments.last().unwrap().base_offset;
    // A full recovery an hour later writes snapshots from the log itself.
    recover(&dir, 0, T0 + HOUR, true);
    let end_snapshot = dir.join(format!("{log_end:020}.snapshot"));
    assert_eq!(producers_in(&end_snapshot), 2);

    // Recovering the active segment loads the snapshot at its base offset.
    let plan = recover(&dir, active, T0 + HOUR, false);
    assert_eq!(plan["plan"]["snapshotsWritten"], serde_json::json!([]));
    let plan = recover(&dir, active, T0 + 25 * HOUR, false);
    assert_eq!(
        plan["plan"]["snapshotsWritten"],
        serde_json::json!([log_end])
    );
    recover(&dir, active, T0 + 25 * HOUR, true);
    assert_eq!(
        producers_in(&end_snapshot),
        1,
        "producer 1, idle for a day, is gone"
    );
}
