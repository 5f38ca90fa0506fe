//! What the broker does at start with a partition directory of each of
//! the forms JBOD and replica management give it (`LogManager.loadLog`,
//! core/src/main/scala/kafka/log/LogManager.scala:317-375 at 4.1.1): a
//! `…-delete` directory is loaded without recovery and deleted; a
//! `…-stray` one is loaded, recovered and kept aside, never served nor
//! deleted; a `…-future` one is loaded and recovered as the future replica
//! of a move between log dirs, which replaces the current one when the
//! copy is done.

use crate::logdir::file_name::{DirForm, parse_dir_name};

/// A partition directory in a form other than the current one, and what
/// the broker does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirFate {
    /// `current`, `future`, `delete` or `stray`.
    pub form: DirForm,
    /// The replica it holds, `topic-partition`.
    pub replica: String,
    /// The unique id in its name.
    pub unique_id: String,
    /// What the broker does with it, in words.
    pub broker_action: &'static str,
}

const FUTURE: &str = "the future replica of a move between this broker's log dirs: the broker loads and recovers it beside the current replica (LogManager.loadLog); when the copy has caught up it is renamed to the current name and the current replica is renamed …-delete (replaceCurrentWithFutureLog); if at start the metadata image already assigns the partition to this log dir, it replaces the current replica at once (recoverAbandonedFutureLogs); a second …-future of the same partition stops the broker";
const DELETE: &str = "marked for deletion (a deleted topic, or the old side of a finished move): the broker loads it without recovery and deletes it file.delete.delay.ms (default 60000 ms) after start (LogManager.addLogToBeDeleted, deleteLogs)";
const STRAY: &str = "a replica the broker set aside as stray: it loads and recovers it but never serves it nor deletes it; it is left for the operator to delete (LogManager.addStrayLog)";

/// The fate of the directory named `name`, `None` for the current form or
/// a name Kafka does not read.
pub fn dir_fate(name: &str) -> Option<DirFate> {
    let parsed = parse_dir_name(name)?;
    let broker_action = match parsed.form {
        DirForm::Current => return None,
        DirForm::Future => FUTURE,
        DirForm::Delete => DELETE,
        DirForm::Stray => STRAY,
    };
    Some(DirFate {
        form: parsed.form,
        replica: format!("{}-{}", parsed.topic, parsed.partition),
        unique_id: parsed.unique_id.unwrap_or_default(),
        broker_action,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Each suffixed form names its replica and its fate; the current form
    /// and names Kafka refuses have none.
    #[test]
    fn each_form_has_its_fate() {
        let f = dir_fate("orders-3.0123456789abcdef0123456789abcdef-future").unwrap();
        assert_eq!((f.form, f.replica.as_str()), (DirForm::Future, "orders-3"));
        assert!(f.broker_action.contains("replaces the current replica"));
        let d = dir_fate("orders-3.0123456789abcdef0123456789abcdef-delete").unwrap();
        assert!(d.broker_action.contains("without recovery"));
        let s = dir_fate("orders-3.0123456789abcdef0123456789abcdef-stray").unwrap();
        assert!(s.broker_action.contains("never serves it nor deletes it"));
        assert_eq!(dir_fate("orders-3"), None);
        assert_eq!(dir_fate("orders-3-future"), None);
    }
}
