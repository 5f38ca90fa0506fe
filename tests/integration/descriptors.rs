//! Open files stay bounded on a log dir of many partitions: every command
//! that walks a whole log dir runs on 1,000 partitions (about 12,000 files)
//! with at most 256 descriptors, and must close each partition's files
//! before it opens the next one's.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kseg::fixture::{FIXTURE_T0, PartitionWriter, WriterConfig, fixture_value};
use kseg::format::encode::{BatchSpec, RecordSpec};

use super::util::{stderr, stdout};

const PARTITIONS: usize = 1000;
const MAX_FILES: libc::rlim_t = 256;

/// One small partition of 3 segments, written once; every partition of the
/// log dir is hard links to its files (so generation is quick).
fn write_model(dir: &Path) {
    let mut w = PartitionWriter::create(
        dir,
        WriterConfig {
            segment_bytes: 2048,
            index_interval_bytes: 512,
        },
    )
    .unwrap();
    for batch in 0..12i64 {
        w.append(BatchSpec {
            records: (0..2)
                .map(|i| RecordSpec {
                    timestamp: FIXTURE_T0 + batch * 10 + i,
                    value: Some(fixture_value(batch * 2 + i, 200)),
                    ..RecordSpec::default()
                })
                .collect(),
            ..BatchSpec::default()
        })
        .unwrap();
    }
    w.close("kseg-descriptors-AAAAA").unwrap();
}

/// `<tmp>/logdir` with `PARTITIONS` partitions `events-N`; returns the log
/// dir and every file in it.
fn log_dir(tmp: &Path) -> (PathBuf, Vec<PathBuf>) {
    let model = tmp.join("model-0");
    write_model(&model);
    let mut names: Vec<_> = std::fs::read_dir(&model)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert!(
        names
            .iter()
            .filter(|n| n.to_string_lossy().ends_with(".log"))
            .count()
            >= 3,
        "the model partition has several segments: {names:?}"
    );
    let dir = tmp.join("logdir");
    let mut files = Vec::new();
    for p in 0..PARTITIONS {
        let part = dir.join(format!("events-{p}"));
        std::fs::create_dir_all(&part).unwrap();
        for name in &names {
            let to = part.join(name);
            std::fs::hard_link(model.join(name), &to).unwrap();
            files.push(to);
        }
    }
    // The broker-level checkpoints naming every partition, as Kafka keeps
    // them: read once for the whole log dir, not once a partition.
    let entries: String = (0..PARTITIONS)
        .map(|p| format!("events {p} 24\n"))
        .collect();
    for name in [
        "recovery-point-offset-checkpoint",
        "replication-offset-checkpoint",
    ] {
        std::fs::write(dir.join(name), format!("0\n{PARTITIONS}\n{entries}")).unwrap();
    }
    // The identity every log dir a node has run in carries.
    std::fs::write(
        dir.join("meta.properties"),
        "version=1\nnode.id=1\ncluster.id=J8qXRwI-Qyi2G0guFTiuYw\ndirectory.id=H3KKO4NTRPaCWtEmm3vW7A\n",
    )
    .unwrap();
    (dir, files)
}

/// Runs kseg with its open-file limit lowered to `MAX_FILES`.
fn kseg_limited(args: &[&std::ffi::OsStr]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kseg"));
    cmd.args(args);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the
    // parent.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MAX_FILES,
                rlim_max: MAX_FILES,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("kseg runs")
}

fn check(what: &str, out: &Output, code: i32) {
    let err = stderr(out);
    assert!(
        !err.contains("Too many open files") && !err.contains("os error 24"),
        "{what} ran out of descriptors: {err}"
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: stdout {}\nstderr {err}",
        stdout(out).chars().take(2000).collect::<String>()
    );
}

#[test]
fn every_command_runs_on_a_thousand_partitions_with_256_descriptors() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, files) = log_dir(tmp.path());
    let d = dir.as_os_str();
    let os = |s: &'static str| std::ffi::OsStr::new(s);

    // Over the limit for a command that holds files open too long.
    assert!(files.len() > 10 * MAX_FILES as usize);
    let mut dump: Vec<&std::ffi::OsStr> = vec![os("dump")];
    dump.extend(files.iter().map(|f| f.as_os_str()));
    let out = kseg_limited(&dump);
    check("dump", &out, 0);
    let text = stdout(&out);
    assert_eq!(
        text.matches("Dumping ").count(),
        files.len(),
        "dump prints every file"
    );

    let part = dir.join(format!("events-{}", PARTITIONS - 1));
    let out = kseg_limited(&[os("locate"), os("--offset"), os("13"), part.as_os_str()]);
    check("locate", &out, 0);

    let out = kseg_limited(&[os("verify"), os("--json"), d]);
    check("verify", &out, 0);
    assert_eq!(
        stdout(&out).lines().count(),
        PARTITIONS,
        "one line a partition"
    );

    let out = kseg_limited(&[os("recover"), os("--json"), d]);
    check("recover (dry run)", &out, 0);
    assert_eq!(stdout(&out).lines().count(), PARTITIONS);

    let out = kseg_limited(&[os("rebuild-index"), os("--check"), d]);
    check("rebuild-index --check", &out, 0);

    let out = kseg_limited(&[os("retention-report"), os("--json"), d]);
    check("retention-report", &out, 0);
    assert_eq!(stdout(&out).lines().count(), PARTITIONS);
}
