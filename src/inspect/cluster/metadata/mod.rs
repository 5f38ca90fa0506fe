//! What does the cluster metadata log say the cluster is? The image the
//! broker's metadata loader builds (`MetadataLoader`, `MetadataBatchLoader`,
//! `MetadataDelta`, `MetadataImage`) from the latest snapshot of
//! `__cluster_metadata-0` and the records after it: topics and partitions,
//! brokers, features, quotas, ACLs, producer ids ([`image`], its topics
//! indexed by [`topics`]), the
//! dynamic configs ([`configs`]) and the KRaft voters ([`quorum`]). [`load`] finds the snapshot and the log
//! and walks them, [`replay`] applies records in order with metadata
//! transactions, [`apply`] applies one record ([`record`], decoded in place); [`health`] judges each
//! partition as kafka-topics does; [`stray`] matches a log dir's
//! partition directories to the image; [`snapshot_check`] and
//! [`bootstrap_check`] read snapshots and `bootstrap.checkpoint` as the
//! node does at start.

pub mod apply;
pub mod bootstrap_check;
pub mod configs;
pub mod health;
pub mod image;
pub mod load;
pub mod quorum;
pub mod record;
pub mod replay;
pub mod snapshot_check;
pub mod stray;
pub mod topics;

pub use configs::DynamicConfigs;
pub use image::MetadataImage;
pub use load::{LoadedImage, find_metadata_partition, load_image};
