//! The cluster's state as a stopped broker's disk holds it, materialized
//! from Kafka's internal topics the way the broker rebuilds it when it
//! loads them: the metadata image and the dynamic configs in it
//! ([`metadata`]), each topic's effective configs with where every value
//! comes from ([`config`]), the consumer groups and their committed offsets
//! ([`groups`]), and the transactions the transaction coordinator tracks
//! beside those left open in the data partitions ([`transactions`]).

pub mod capped;
pub mod config;
pub mod groups;
pub mod history;
pub mod metadata;
pub mod remote;
pub mod transactions;
