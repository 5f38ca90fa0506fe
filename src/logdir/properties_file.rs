//! The small properties files of a log dir and its partitions, read with a
//! bound on their size: any Java properties file (`server.properties`),
//! this broker's id in the log dir's `meta.properties`, and a partition's
//! topic id in its `partition.metadata`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::LogDirError;
use super::mapped::read_small;
use crate::format::partition_metadata::read_partition_metadata;
use crate::format::properties::parse_properties;

/// Larger than any properties file Kafka writes or reads.
const PROPERTIES_LIMIT: u64 = 16 << 20;

/// A Java properties file as a map (the last setting of a name wins).
pub fn read_properties(path: &Path) -> Result<BTreeMap<String, String>, LogDirError> {
    let bytes = read_small(path, PROPERTIES_LIMIT)?;
    Ok(parse_properties(&String::from_utf8_lossy(&bytes))
        .into_iter()
        .collect())
}

/// This broker's id: `node.id` (or the older `broker.id`) in
/// `<log_dir>/meta.properties`, and that file's path.
pub fn node_id(log_dir: &Path) -> Result<(String, PathBuf), LogDirError> {
    let path = log_dir.join("meta.properties");
    let props = read_properties(&path)?;
    let id = props
        .get("node.id")
        .or_else(|| props.get("broker.id"))
        .ok_or_else(|| LogDirError::not_understood(&path, "has no node.id"))?;
    Ok((id.trim().to_string(), path))
}

/// The topic id in `<partition_dir>/partition.metadata`.
pub fn topic_id(partition_dir: &Path) -> Result<String, LogDirError> {
    let path = partition_dir.join("partition.metadata");
    let bytes = read_small(&path, PROPERTIES_LIMIT)?;
    read_partition_metadata(&bytes)
        .map(|m| m.topic_id)
        .map_err(|e| LogDirError::not_understood(&path, e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn node_and_topic_ids_name_their_file_when_missing_or_bad() {
        let dir = tempfile::tempdir().unwrap();
        let err = node_id(dir.path()).unwrap_err().to_string();
        assert!(err.contains("meta.properties"), "{err}");
        std::fs::write(dir.path().join("meta.properties"), "broker.id=3\n").unwrap();
        assert_eq!(node_id(dir.path()).unwrap().0, "3");
        std::fs::write(
            dir.path().join("meta.properties"),
            "node.id= 7\nbroker.id=3\n",
        )
        .unwrap();
        assert_eq!(node_id(dir.path()).unwrap().0, "7");
        std::fs::write(dir.path().join("meta.properties"), "version=1\n").unwrap();
        let err = node_id(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no node.id"), "{err}");
        std::fs::write(dir.path().join("partition.metadata"), "version: 0\n").unwrap();
        let err = topic_id(dir.path()).unwrap_err().to_string();
        assert!(err.contains("partition.metadata"), "{err}");
        // A file of garbage far larger than any properties file is refused
        // before it is read.
        let huge = std::fs::File::create(dir.path().join("meta.properties")).unwrap();
        huge.set_len(PROPERTIES_LIMIT + 1).unwrap();
        let err = node_id(dir.path()).unwrap_err().to_string();
        assert!(err.contains("meta.properties"), "{err}");
    }
}
