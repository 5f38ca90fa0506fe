//! Inputs the fuzzers found (tests/regressions/<target>/): each is run
//! through the real binary as the file kind its target parses, and kseg
//! must answer with a finding or an error, never a panic or a signal.

use std::path::Path;

use super::util::{kseg, repo, stderr};

fn inputs(target: &str) -> Vec<std::path::PathBuf> {
    let dir = repo().join("tests/regressions").join(target);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

fn assert_no_crash(args: &[&std::ffi::OsStr], input: &Path) {
    let out = kseg(args);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{} on {}: exit {code:?}\n{}",
        args[0].to_string_lossy(),
        input.display(),
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("panicked"),
        "{}: {}",
        input.display(),
        stderr(&out)
    );
}

#[test]
fn segment_inputs_found_by_fuzzing_do_not_crash_any_command() {
    for input in inputs("segment_walk")
        .into_iter()
        .chain(inputs("recovery_walk"))
        .chain(inputs("salvage_scan"))
    {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fuzz-0");
        std::fs::create_dir(&dir).unwrap();
        let log = dir.join("00000000000000000000.log");
        std::fs::copy(&input, &log).unwrap();
        assert_no_crash(
            &[
                "dump".as_ref(),
                "--deep-iteration".as_ref(),
                "--print-data-log".as_ref(),
                log.as_os_str(),
            ],
            &input,
        );
        assert_no_crash(
            &[
                "dump".as_ref(),
                "--json".as_ref(),
                "--deep-iteration".as_ref(),
                log.as_os_str(),
            ],
            &input,
        );
        assert_no_crash(&["verify".as_ref(), dir.as_os_str()], &input);
        assert_no_crash(&["salvage".as_ref(), dir.as_os_str()], &input);
        assert_no_crash(
            &[
                "export".as_ref(),
                "--salvage".as_ref(),
                "--include-control".as_ref(),
                dir.as_os_str(),
            ],
            &input,
        );
        assert_no_crash(
            &[
                "rebuild-index".as_ref(),
                "--check".as_ref(),
                dir.as_os_str(),
            ],
            &input,
        );
        assert_no_crash(
            &[
                "locate".as_ref(),
                "--offset".as_ref(),
                "5".as_ref(),
                dir.as_os_str(),
            ],
            &input,
        );
    }
}

#[test]
fn internal_record_inputs_found_by_fuzzing_decode_or_fail_in_words() {
    use kseg::schema::{Decoded, InternalTopic, decode_control, decode_record};
    // The internal_records target's framing: topic selector, key length, key, value.
    for input in inputs("internal_records") {
        let data = std::fs::read(&input).unwrap();
        let [selector, key_len, rest @ ..] = data.as_slice() else {
            continue;
        };
        let topic = InternalTopic::ALL[usize::from(*selector) % InternalTopic::ALL.len()];
        let (key, value) = rest.split_at(usize::from(*key_len).min(rest.len()));
        let key = (selector & 0x40 == 0).then_some(key);
        let value = (selector & 0x80 == 0).then_some(value);
        let d = if selector & 0x20 != 0 {
            decode_control(key, value)
        } else {
            decode_record(topic, key, value)
        };
        for part in [d.key, d.value] {
            if let Decoded::Failed(reason) = part {
                assert!(!reason.is_empty(), "{}", input.display());
            }
        }
    }
}
