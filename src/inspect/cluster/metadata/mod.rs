//! What does the cluster metadata log say the cluster is? The image the
//! broker's metadata loader builds (`MetadataLoader`, `MetadataDelta`,
//! `MetadataImage`) from the latest snapshot of `__cluster_metadata-0` and
//! the records after it: topics and partitions, brokers, features, quotas,
//! ACLs, producer ids, and the dynamic configs ([`configs`]).

pub mod configs;
