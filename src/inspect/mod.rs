//! Kafka's decisions computed as plain data: lookups, index checks, index
//! rebuilds, recovery plans and retention verdicts. Nothing here writes.

pub mod index_check;
