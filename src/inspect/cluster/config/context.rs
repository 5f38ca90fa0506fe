//! Everything a command needs to give a topic its effective configs: the
//! metadata image's dynamic configs and topic ids (when a metadata log is
//! at hand), this broker's node id, the static `server.properties`, and
//! whose defaults apply.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::resolve::{BrokerLayers, IgnoredConfig, TopicConfigs, ignored_dynamic, resolve_topic};
use crate::inspect::cluster::metadata::configs::DynamicConfigs;
use crate::inspect::cluster::metadata::image::MetadataImage;
use crate::inspect::cluster::metadata::load::{find_metadata_partition, load_image};
use crate::inspect::cluster::metadata::quorum::Quorum;
use crate::logdir::LogDirError;
use crate::logdir::properties_file::{node_id, read_properties};

/// The metadata log the dynamic configs came from.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataOrigin {
    /// The `__cluster_metadata-0` directory (or snapshot file) read.
    pub path: PathBuf,
    /// The last offset the image includes.
    pub offset: i64,
    /// The image itself, as of that offset, for other questions of the
    /// same run (stray replicas) without replaying the log again.
    pub image: Arc<MetadataImage>,
    /// The KRaft voter set and `kraft.version` as of that offset.
    pub quorum: Quorum,
}

impl MetadataOrigin {
    /// The image of `path` (a log dir holding `__cluster_metadata-0`, that
    /// directory, or a snapshot), with the warnings of its loading.
    pub fn load(path: &Path) -> Result<(Self, Vec<String>), LogDirError> {
        let loaded = load_image(path, None)?;
        let origin = Self {
            path: loaded.partition_dir.unwrap_or_else(|| path.to_path_buf()),
            offset: loaded.offset,
            image: Arc::new(loaded.replayed.image),
            quorum: loaded.replayed.quorum,
        };
        Ok((origin, loaded.warnings))
    }
}

/// The inputs of every topic's configs.
#[derive(Debug, Clone, Default)]
pub struct ConfigContext {
    /// Dynamic configs of the metadata image (empty without one).
    pub dynamic: DynamicConfigs,
    /// Topic ids by name, from the metadata image.
    pub topic_ids: BTreeMap<String, String>,
    /// This broker's node id.
    pub node_id: Option<String>,
    /// Where the node id came from.
    pub node_id_from: Option<PathBuf>,
    /// `server.properties`, when given.
    pub static_props: Option<BTreeMap<String, String>>,
    /// Kafka major version whose defaults apply.
    pub kafka_major: u8,
    /// The metadata log read, if any.
    pub metadata: Option<MetadataOrigin>,
    /// Where reading the metadata log stopped early, and why.
    pub warnings: Vec<String>,
}

/// `node.id` (or the older `broker.id`) in `<log_dir>/meta.properties`.
pub fn node_id_of(log_dir: &Path) -> Option<(String, PathBuf)> {
    node_id(log_dir).ok()
}

impl ConfigContext {
    /// A context with no metadata log: Kafka's defaults (of major version
    /// `kafka_major`), `server.properties` when given, and the internal
    /// topics' rules; the node id from the log dir's `meta.properties`,
    /// else from `server.properties`.
    pub fn new(
        log_dir: Option<&Path>,
        server_properties: Option<&Path>,
        kafka_major: u8,
    ) -> Result<Self, LogDirError> {
        let static_props = server_properties.map(read_properties).transpose()?;
        let (node_id, node_id_from) = match log_dir.and_then(node_id_of) {
            Some((id, path)) => (Some(id), Some(path)),
            None => {
                let id = static_props
                    .as_ref()
                    .and_then(|p| p.get("node.id").or_else(|| p.get("broker.id")))
                    .map(|s| s.trim().to_string());
                let from = id.as_ref().and(server_properties.map(Path::to_path_buf));
                (id, from)
            }
        };
        Ok(Self {
            node_id,
            node_id_from,
            static_props,
            kafka_major,
            ..Self::default()
        })
    }

    /// Takes the dynamic configs and topic ids from the image of `path`
    /// (a log dir holding `__cluster_metadata-0`, that directory, or a
    /// snapshot), as the broker's metadata loader builds it.
    pub fn with_metadata(mut self, path: &Path) -> Result<Self, LogDirError> {
        let (origin, warnings) = MetadataOrigin::load(path)?;
        self.topic_ids = origin
            .image
            .topics
            .in_id_order()
            .map(|t| (t.name.clone(), t.id.clone()))
            .collect();
        self.dynamic = origin.image.configs.clone();
        self.metadata = Some(origin);
        self.warnings = warnings;
        Ok(self)
    }

    /// [`Self::new`], then [`Self::with_metadata`] of `metadata` when
    /// given, else of the log dir's own `__cluster_metadata-0` when it has
    /// one. A metadata log found in the log dir that does not read is
    /// noted in [`Self::warnings`] and left out (the command still runs,
    /// without dynamic configs); one named by `metadata` is an error.
    pub fn load(
        log_dir: Option<&Path>,
        metadata: Option<&Path>,
        server_properties: Option<&Path>,
        kafka_major: u8,
    ) -> Result<Self, LogDirError> {
        let ctx = Self::new(log_dir, server_properties, kafka_major)?;
        if let Some(path) = metadata {
            return ctx.with_metadata(path);
        }
        let Some(found) = log_dir.and_then(find_metadata_partition) else {
            return Ok(ctx);
        };
        match ctx.clone().with_metadata(&found) {
            Ok(loaded) => Ok(loaded),
            Err(e) => {
                let mut ctx = ctx;
                ctx.warnings.push(format!(
                    "{e}; its dynamic configs are left out (Kafka's defaults and server.properties apply)"
                ));
                Ok(ctx)
            }
        }
    }

    /// The layers topic configs fall back to.
    pub fn layers(&self) -> BrokerLayers<'_> {
        BrokerLayers {
            dynamic: &self.dynamic,
            node_id: self.node_id.as_deref(),
            static_props: self.static_props.as_ref(),
            kafka_major: self.kafka_major,
            image_topics: self.metadata.is_some().then_some(&self.topic_ids),
        }
    }

    /// The effective configs of `topic`.
    pub fn topic(&self, topic: &str) -> TopicConfigs {
        resolve_topic(topic, &self.layers())
    }

    /// Dynamic broker configs the broker drops.
    pub fn ignored(&self) -> Vec<IgnoredConfig> {
        ignored_dynamic(&self.layers())
    }

    /// Where the configs come from, in words.
    pub fn describe(&self) -> String {
        let mut parts = vec![match &self.metadata {
            Some(m) => format!(
                "metadata log {} up to offset {}",
                m.path.display(),
                m.offset
            ),
            None => "no metadata log, so no dynamic configs: --metadata DIR names one".into(),
        }];
        if self.static_props.is_some() {
            parts.push("server.properties given".into());
        }
        match (&self.node_id, &self.node_id_from) {
            (Some(id), Some(from)) => parts.push(format!("node.id {id} (from {})", from.display())),
            (Some(id), None) => parts.push(format!("node.id {id}")),
            (None, _) if self.metadata.is_some() => parts.push(
                "node.id unknown (no meta.properties): per-broker configs are not applied".into(),
            ),
            (None, _) => {}
        }
        parts.push(format!("Kafka {}.x defaults", self.kafka_major));
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_id_comes_from_meta_properties_then_server_properties() {
        let dir = std::env::temp_dir().join(format!("kseg-ctx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let server = dir.join("server.properties");
        std::fs::write(&server, "node.id=7\nlog.retention.hours=1\n").unwrap();
        let c = ConfigContext::new(Some(&dir), Some(&server), 4).unwrap();
        assert_eq!(c.node_id.as_deref(), Some("7"));
        assert_eq!(c.topic("t")["retention.ms"].value, "3600000");
        std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=2\n").unwrap();
        let c = ConfigContext::new(Some(&dir), Some(&server), 4).unwrap();
        assert_eq!(c.node_id.as_deref(), Some("2"));
        assert!(c.describe().contains("node.id 2"));
        assert!(ConfigContext::new(None, Some(&dir.join("missing")), 4).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
