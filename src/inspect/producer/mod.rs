//! The producer state a broker rebuilds while loading a partition
//! (`ProducerStateManager`, `ProducerAppendInfo`): each producer's last
//! batches and epoch, its open transaction, and the `.txnindex` entries
//! that completed transactions yield.

pub mod batch;
pub mod state;
pub mod txn;
