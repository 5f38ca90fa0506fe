//! A partition directory in a JBOD or replica-management form
//! (`…-future`, `…-delete`, `…-stray`): which replica it holds and what the
//! broker does with it, as a text line and a JSON object.

use std::path::Path;

use serde_json::{Value, json};

use crate::inspect::recovery::dir_form::{DirFate, dir_fate};

fn fate_of(dir: &Path) -> Option<DirFate> {
    dir_fate(&dir.file_name()?.to_string_lossy())
}

/// `  <form> replica of <topic-partition> (unique id …): <what the broker does>`,
/// or `None` for a directory in the current form.
pub fn fate_line(dir: &Path) -> Option<String> {
    let f = fate_of(dir)?;
    Some(format!(
        "  {} directory of replica {} (unique id {}): {}",
        f.form.label(),
        f.replica,
        f.unique_id,
        f.broker_action
    ))
}

/// `{"form", "replica", "uniqueId", "brokerAction"}`, or null for the
/// current form.
pub fn fate_json(dir: &Path) -> Value {
    fate_of(dir).map_or(Value::Null, |f| {
        json!({"form": f.form.label(), "replica": f.replica, "uniqueId": f.unique_id,
               "brokerAction": f.broker_action})
    })
}
