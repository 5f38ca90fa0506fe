//! Remote segments read in place from object storage (S3, GCS, Azure, a
//! local directory) through the `object_store` crate, in the layouts of the
//! two open-source remote storage managers: Kafka's `LocalTieredStorage`
//! (every file of a segment stored as it was) and Aiven's tiered storage
//! for Apache Kafka (a `.log` cut in chunks, each possibly compressed or
//! encrypted, described by a `.rsm-manifest`, and one `.indexes` object).
//! Every read streams: a segment of any size goes through one chunk at a
//! time.

pub mod aiven;
pub mod aiven_crypto;
pub mod client;
pub mod segment;

pub use client::{ObjectClient, is_object_url};
pub use segment::{IndexKind, RemoteLayout, RemoteSegmentObject};
