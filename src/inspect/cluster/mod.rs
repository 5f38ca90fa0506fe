//! The cluster's state as a stopped broker's disk holds it, materialized
//! from Kafka's internal topics the way the broker rebuilds it when it
//! loads them: the metadata image and the dynamic configs in it
//! ([`metadata`]).

pub mod config;
pub mod metadata;
