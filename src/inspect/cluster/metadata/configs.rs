//! Dynamic configs as the metadata log holds them: the latest value of each
//! `ConfigRecord` by resource, a null value deleting it.

use std::collections::BTreeMap;

/// Where in the metadata log a config's value was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetBy {
    /// A record of the snapshot ending at this offset (exclusive).
    Snapshot {
        /// The snapshot's end offset.
        end_offset: i64,
    },
    /// The record at this offset of the log.
    Log {
        /// Its offset.
        offset: i64,
    },
}

impl SetBy {
    /// Its log offset or its snapshot's end offset, whichever it is.
    pub fn offsets(self) -> (Option<i64>, Option<i64>) {
        match self {
            Self::Log { offset } => (Some(offset), None),
            Self::Snapshot { end_offset } => (None, Some(end_offset)),
        }
    }

    /// `, metadata log offset N` or `, metadata snapshot ending at offset
    /// N` for offsets as [`SetBy::offsets`] gives them (empty for neither).
    pub fn describe_offsets(offset: Option<i64>, snapshot_end: Option<i64>) -> String {
        match (offset, snapshot_end) {
            (Some(o), _) => format!(", metadata log offset {o}"),
            (None, Some(end)) => format!(", metadata snapshot ending at offset {end}"),
            (None, None) => String::new(),
        }
    }
}

/// One config's value and where it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigValue {
    /// The value, as written.
    pub value: String,
    /// Where it was set.
    pub set_by: SetBy,
}

/// Config names to values, for one resource.
pub type ConfigMap = BTreeMap<String, ConfigValue>;

/// Every dynamic config of the image, by resource.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicConfigs {
    /// Topic overrides, by topic name (resource type TOPIC).
    pub topics: BTreeMap<String, ConfigMap>,
    /// Per-broker configs, by node id as written (resource type BROKER).
    pub brokers: BTreeMap<String, ConfigMap>,
    /// Cluster-wide broker defaults (resource type BROKER, empty name).
    pub cluster_default: ConfigMap,
}

impl std::fmt::Display for SetBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Snapshot { end_offset } => {
                write!(f, "the snapshot ending at offset {end_offset}")
            }
            Self::Log { offset } => write!(f, "offset {offset}"),
        }
    }
}
