//! Kafka's decisions computed as plain data, one folder per question kseg
//! answers: where an offset or a timestamp is ([`locate`]), what the
//! `.index`/`.timeindex` files should hold ([`index`]), what the broker's
//! log loading will truncate, rebuild and delete ([`recovery`]), what
//! producer state it rebuilds on the way ([`producer`]), when retention
//! deletes each segment ([`retention`]), what each replica of a partition
//! truncates when it follows the leader ([`diverge`]), and what survives
//! past the damage where recovery stops ([`salvage`]). Nothing here writes.
//!
//! The materialized state of Kafka's internal topics (consumer groups and
//! their offsets, transactions, the cluster metadata image) is a question of
//! its own and gets its own folder here; the decoding of those records from
//! bytes sits below, beside [`crate::format`].

pub mod diverge;
pub mod index;
pub mod locate;
pub mod producer;
pub mod recovery;
pub mod retention;
pub mod salvage;
