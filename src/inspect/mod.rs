//! Kafka's decisions computed as plain data, one folder per question kseg
//! answers: where an offset or a timestamp is ([`locate`]), what the
//! `.index`/`.timeindex` files should hold ([`index`]), what the broker's
//! log loading will truncate, rebuild and delete, and what survives past
//! the damage where it stops ([`recovery`]), what producer state it
//! rebuilds on the way ([`producer`]), when retention deletes each segment
//! ([`retention`]), and what each replica of a partition truncates when it
//! follows the leader ([`diverge`]). Nothing here writes.
//!
//! The materialized state of Kafka's internal topics (consumer groups and
//! their offsets, transactions, the cluster metadata image and the configs
//! it holds) is the question of [`cluster`]; the decoding of those records
//! from bytes sits below, in [`crate::schema`] beside [`crate::format`].

pub mod cluster;
pub mod diverge;
pub mod index;
pub mod locate;
pub mod producer;
pub mod recovery;
pub mod retention;
