//! Partition directories in the forms JBOD moves and replica management
//! give them (`<topic>-<partition>.<uniqueId>-future`, `-delete`,
//! `-stray`), built in a temp log dir from copies of a corpus partition:
//! `verify` names each by the replica it holds and says what the broker
//! does with it, reads its recovery point under that replica's key, and
//! `dump` decodes an internal topic's copy as that topic.

use serde_json::Value;

use super::corpus;
use super::util::{copy_dir, json_lines, kseg, stdout};

const ID: &str = "0123456789abcdef0123456789abcdef";

/// A log dir with `codec-0` in each form, `__consumer_offsets-0` as a
/// future copy, and a recovery point for `codec 1` only.
fn log_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let source = corpus::root().join("codec-gzip/codec-0");
    copy_dir(&source, &tmp.path().join("codec-0"));
    copy_dir(&source, &tmp.path().join(format!("codec-1.{ID}-future")));
    copy_dir(&source, &tmp.path().join(format!("codec-2.{ID}-stray")));
    copy_dir(&source, &tmp.path().join(format!("codec-3.{ID}-delete")));
    copy_dir(
        &corpus::root().join("internal-consumer-offsets/__consumer_offsets-0"),
        &tmp.path().join(format!("__consumer_offsets-0.{ID}-future")),
    );
    std::fs::write(
        tmp.path().join("recovery-point-offset-checkpoint"),
        "0\n1\ncodec 1 372\n",
    )
    .unwrap();
    tmp
}

fn by_type<'v>(lines: &'v [Value], kind: &str) -> Vec<&'v Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// Each form is named by its replica with what the broker does with it;
/// the future copy's recovery point is its replica's checkpoint entry; the
/// current directory has no form.
#[test]
fn verify_names_each_form_and_its_fate() {
    let tmp = log_dir();
    let out = kseg(["verify", "--json", tmp.path().to_str().unwrap()]);
    let lines = json_lines(&out);
    let partitions = by_type(&lines, "partition");
    let form = |name: &str| {
        partitions
            .iter()
            .find(|p| p["partition"] == name)
            .unwrap_or_else(|| panic!("no {name} in {partitions:?}"))
    };
    assert_eq!(form("codec-0")["dirForm"], Value::Null);
    let future = form(&format!("codec-1.{ID}-future"));
    assert_eq!(future["dirForm"]["form"], "future");
    assert_eq!(future["dirForm"]["replica"], "codec-1");
    assert_eq!(future["dirForm"]["uniqueId"], ID);
    assert_eq!(
        future["recoveryPointSource"], "from recovery-point-offset-checkpoint",
        "the future copy's recovery point is keyed by its replica"
    );
    let stray = form(&format!("codec-2.{ID}-stray"));
    assert_eq!(stray["dirForm"]["replica"], "codec-2");
    assert!(
        stray["dirForm"]["brokerAction"]
            .as_str()
            .unwrap()
            .contains("never serves it nor deletes it")
    );
    let marked = by_type(&lines, "markedForDeletion");
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["dirForm"]["form"], "delete");
    assert_eq!(marked[0]["dirForm"]["replica"], "codec-3");

    let text = stdout(&kseg(["verify", tmp.path().to_str().unwrap()]));
    for line in [
        format!("  future directory of replica codec-1 (unique id {ID}): the future replica"),
        format!(
            "  stray directory of replica codec-2 (unique id {ID}): a replica the broker set aside"
        ),
        format!("  delete directory of replica codec-3 (unique id {ID}): marked for deletion"),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(&line)),
            "{line:?} in\n{text}"
        );
    }
}

/// A future copy of `__consumer_offsets-0` decodes as that topic's records.
#[test]
fn dump_decodes_a_future_copy_as_its_topic() {
    let tmp = log_dir();
    let log = tmp.path().join(format!(
        "__consumer_offsets-0.{ID}-future/00000000000000000000.log"
    ));
    let text = stdout(&kseg(["dump", "--print-data-log", log.to_str().unwrap()]));
    assert!(
        text.contains(r#"key: {"type":"2","data":{"group":"acme-legacy-app"}}"#),
        "{text}"
    );
}
