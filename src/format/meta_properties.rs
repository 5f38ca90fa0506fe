//! `meta.properties`: the identity a log dir carries (`version`,
//! `node.id` or the older `broker.id`, `cluster.id`, and since Kafka 3.7
//! `directory.id`), read by the rules of Kafka's `MetaProperties.Builder`
//! and `MetaPropertiesVersion` (metadata/…/properties/).

use std::collections::BTreeMap;

use super::java::uuid_from_string;

/// A `meta.properties` as Kafka reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProperties {
    /// `version`: 0 (the default, written by ZooKeeper-mode brokers) or 1.
    pub version: u8,
    /// `node.id` (version 1) or `broker.id` (version 0), if there is one.
    pub node_id: Option<i32>,
    /// `cluster.id`, if there is one.
    pub cluster_id: Option<String>,
    /// `directory.id`, as written and as its 16 bytes.
    pub directory_id: Option<(String, [u8; 16])>,
}

/// Why Kafka's reader rejects a `meta.properties`: the log dir counts as
/// one that failed to load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MetaPropertiesError(pub String);

/// Reads the settings of a `meta.properties` (the last setting of a name
/// winning) by Kafka's rules: `version`
/// must be the base-10 number 0 or 1; version 1 needs an integer
/// `node.id` and a `cluster.id`; version 0 takes `broker.id` if there is
/// one; a `directory.id` must be a base64 UUID.
pub fn read_meta_properties(
    settings: &BTreeMap<String, String>,
) -> Result<MetaProperties, MetaPropertiesError> {
    let get = |name: &str| settings.get(name).map(String::as_str);
    let fail = |reason: String| Err(MetaPropertiesError(reason));
    let version = match get("version").unwrap_or("0") {
        "0" => 0,
        "1" => 1,
        v => match v.parse::<i64>() {
            Ok(n) => return fail(format!("version {n} is not one Kafka knows (0 or 1)")),
            Err(_) => return fail(format!("version '{v}' is not a number")),
        },
    };
    let int = |name: &str, value: &str| {
        value
            .parse::<i32>()
            .map_err(|_| MetaPropertiesError(format!("{name} '{value}' is not a base-10 number")))
    };
    let node_id = match (version, get("node.id"), get("broker.id")) {
        (1, Some(v), _) => Some(int("node.id", v)?),
        (1, None, _) => return fail("version 1 has no node.id".into()),
        (_, _, Some(v)) => Some(int("broker.id", v)?),
        (_, _, None) => None,
    };
    let cluster_id = get("cluster.id").map(str::to_string);
    if version == 1 && cluster_id.is_none() {
        return fail("version 1 has no cluster.id".into());
    }
    let directory_id = match get("directory.id") {
        None => None,
        Some(text) => match uuid_from_string(text) {
            Some(bytes) => Some((text.to_string(), bytes)),
            None => return fail(format!("directory.id '{text}' is not a base64 UUID")),
        },
    };
    Ok(MetaProperties {
        version,
        node_id,
        cluster_id,
        directory_id,
    })
}

/// Whether a directory id is one of the hundred Kafka reserves (the
/// unassigned, lost and migrating markers among them), which no log dir
/// may carry (`DirectoryId.reserved`).
pub fn is_reserved_directory_id(id: &[u8; 16]) -> bool {
    let (high, low) = id.split_at(8);
    high.iter().chain(low.iter().take(7)).all(|&b| b == 0) && low.get(7).is_some_and(|&b| b < 100)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<MetaProperties, MetaPropertiesError> {
        read_meta_properties(
            &crate::format::properties::parse_properties(text)
                .into_iter()
                .collect(),
        )
    }

    #[test]
    fn version_1_needs_node_and_cluster_ids() {
        let m = read("version=1\nnode.id=3\ncluster.id=abc\ndirectory.id=H3KKO4NTRPaCWtEmm3vW7A\n")
            .unwrap();
        assert_eq!((m.version, m.node_id), (1, Some(3)));
        assert_eq!(m.cluster_id.as_deref(), Some("abc"));
        assert_eq!(m.directory_id.unwrap().0, "H3KKO4NTRPaCWtEmm3vW7A");
        assert!(read("version=1\ncluster.id=abc\n").is_err());
        assert!(read("version=1\nnode.id=3\n").is_err());
        assert!(read("version=1\nnode.id=x\ncluster.id=abc\n").is_err());
        assert!(read("version=2\nnode.id=3\ncluster.id=abc\n").is_err());
        assert!(read("version=one\n").is_err());
        assert!(read("version=1\nnode.id=3\ncluster.id=a\ndirectory.id=nope\n").is_err());
    }

    #[test]
    fn version_0_takes_broker_id_and_needs_nothing() {
        let m = read("broker.id=5\ncluster.id=abc\n").unwrap();
        assert_eq!((m.version, m.node_id), (0, Some(5)));
        assert_eq!(read("").unwrap().node_id, None);
        assert!(read("broker.id=five\n").is_err());
    }

    #[test]
    fn the_first_hundred_ids_are_reserved() {
        let mut id = [0u8; 16];
        assert!(is_reserved_directory_id(&id));
        id[15] = 99;
        assert!(is_reserved_directory_id(&id));
        id[15] = 100;
        assert!(!is_reserved_directory_id(&id));
        id[15] = 1;
        id[0] = 1;
        assert!(!is_reserved_directory_id(&id));
    }
}
