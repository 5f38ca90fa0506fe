//! Index rebuilds against the indexes Kafka itself wrote or rebuilt.

use std::path::Path;

use kseg::inspect::index::build::build_indexes;

use super::corpus::{cases, index_interval};

fn rebuild(dir: &Path, base: i64, interval: u64) -> (Vec<u8>, Vec<u8>) {
    let log = std::fs::read(dir.join(format!("{base:020}.log"))).unwrap();
    let b = build_indexes(&log, base, interval, true);
    (b.offset_index_bytes(base), b.time_index_bytes(base))
}

/// Kafka's trimmed file, or the entries before the zero tail of a preallocated one.
fn trimmed(bytes: &[u8], entry: usize, live: usize) -> &[u8] {
    &bytes[..(live * entry).min(bytes.len())]
}

#[test]
fn rebuilt_indexes_of_closed_segments_are_byte_identical_to_kafkas() {
    let mut compared = 0;
    for case in cases() {
        // Damaged cases are covered below; the cleaner (compacted) and direct
        // multi-message legacy appends write one entry per appended chunk, which
        // legitimately differs from recovery's per-batch entries.
        let chunked = ["compacted", "legacy-v0-v1"].contains(&case.name.as_str());
        if case.name.starts_with("unclean-") && case.name != "unclean-base" || chunked {
            continue;
        }
        let interval = index_interval(&case);
        for p in case.partitions() {
            let segments = p.view["segments"].as_array().unwrap();
            for (i, seg) in segments.iter().enumerate() {
                let base = seg["baseOffset"].as_i64().unwrap();
                let (index, timeindex) = rebuild(&p.dir, base, interval);
                let on_disk =
                    std::fs::read(p.dir.join(seg["index"]["file"].as_str().unwrap())).unwrap();
                let on_disk_time =
                    std::fs::read(p.dir.join(seg["timeindex"]["file"].as_str().unwrap())).unwrap();
                if i + 1 < segments.len() {
                    assert_eq!(index, on_disk, "{}: {base}.index", p.label);
                    assert_eq!(timeindex, on_disk_time, "{}: {base}.timeindex", p.label);
                } else {
                    // The active segment: Kafka adds the final time entry only at close.
                    let live = seg["index"]["entries"].as_array().unwrap().len();
                    assert_eq!(
                        index,
                        trimmed(&on_disk, 8, live),
                        "{}: active {base}.index",
                        p.label
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "compared {compared} segments");
}

#[test]
fn rebuilds_match_what_kafka_recovery_wrote_after_damage() {
    let mut compared = 0;
    for case in cases() {
        let interval = index_interval(&case);
        for result in ["after-kafka-recovery-full"] {
            let dir = case.dir.join(result).join("events-0");
            if !dir.is_dir() {
                continue;
            }
            for entry in std::fs::read_dir(&dir).unwrap() {
                let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                let Some(base) = name.strip_suffix(".log").map(|b| b.parse::<i64>().unwrap())
                else {
                    continue;
                };
                let (index, timeindex) = rebuild(&dir, base, interval);
                assert_eq!(
                    index,
                    std::fs::read(dir.join(format!("{base:020}.index"))).unwrap(),
                    "{}: {name}",
                    case.name
                );
                assert_eq!(
                    timeindex,
                    std::fs::read(dir.join(format!("{base:020}.timeindex"))).unwrap(),
                    "{}: {name}",
                    case.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 20, "compared {compared} segments");
}

/// Rebuilding from the file (headers only, or every byte) gives what the
/// walk over the bytes in memory gives, for every Kafka-written segment as
/// it is (read with `pread` or a small buffer) and padded with zeros to the
/// size kseg maps (read through a mapping).
#[test]
fn reading_headers_or_every_byte_from_the_file_gives_the_same_rebuild() {
    use kseg::inspect::index::build::build_indexes_from_file;
    use kseg::logdir::chunked::MAP_AT_LEAST;
    let scratch = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for case in cases() {
        let interval = index_interval(&case);
        for p in case.partitions() {
            for seg in p.view["segments"].as_array().unwrap() {
                let base = seg["baseOffset"].as_i64().unwrap();
                let path = p.dir.join(format!("{base:020}.log"));
                let log = std::fs::read(&path).unwrap();
                let mut padded = log.clone();
                padded.resize(log.len().max(MAP_AT_LEAST as usize), 0);
                let padded_path = scratch.path().join(format!("{base:020}.log"));
                std::fs::write(&padded_path, &padded).unwrap();
                for (path, log) in [(&path, &log), (&padded_path, &padded)] {
                    for verify in [false, true] {
                        let from_file =
                            build_indexes_from_file(path, base, interval, verify).unwrap();
                        assert_eq!(
                            from_file,
                            build_indexes(log, base, interval, verify),
                            "{}: {} verify={verify}",
                            p.label,
                            path.display()
                        );
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn check_never_calls_a_kafka_written_index_corrupt() {
    use super::util::{json_lines, kseg};
    for case in cases() {
        let garbage = case.name == "unclean-index-garbage";
        if case.name.starts_with("unclean-") && case.name != "unclean-base" && !garbage {
            continue;
        }
        for p in case.partitions() {
            let out = kseg([
                "rebuild-index".to_string(),
                "--check".into(),
                "--json".into(),
                format!("--index-interval-bytes={}", index_interval(&case)),
                p.dir.display().to_string(),
            ]);
            let corrupt: Vec<String> = json_lines(&out)
                .iter()
                .filter(|l| l["type"] == "index")
                .filter(|l| l["status"].as_str().unwrap().ends_with("corrupt"))
                .map(|l| l["path"].as_str().unwrap().to_string())
                .collect();
            if garbage {
                assert_eq!(corrupt.len(), 1, "{}: {corrupt:?}", p.label);
                assert!(corrupt[0].ends_with("00000000000000000089.index"));
            } else {
                assert!(corrupt.is_empty(), "{}: {corrupt:?}", p.label);
            }
        }
    }
}

/// The header-only last offset (what interval inference walks with) is the
/// summary's last offset for every batch Kafka wrote, legacy compressed
/// wrappers included, without decompressing anything.
#[test]
fn header_only_last_offsets_match_the_summaries_of_every_kafka_batch() {
    use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
    use kseg::format::{BatchIter, SummaryIter};
    let mut batches = 0;
    let mut legacy = 0;
    for case in cases() {
        for p in case.partitions() {
            for entry in std::fs::read_dir(&p.dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "log") {
                    continue;
                }
                let log = std::fs::read(&path).unwrap();
                let headers = BatchIter::new(&log, 0).map_while(Result::ok);
                let summaries =
                    SummaryIter::new(&log, 0, DEFAULT_DECOMPRESS_LIMIT).map_while(Result::ok);
                for (batch, (_, summary)) in headers.zip(summaries) {
                    assert_eq!(
                        batch.last_offset().unwrap(),
                        summary.last_offset,
                        "{}",
                        path.display()
                    );
                    batches += 1;
                    legacy += usize::from(batch.is_legacy());
                }
            }
        }
    }
    assert!(
        batches > 10_000 && legacy > 10,
        "{batches} batches, {legacy} legacy"
    );
}
