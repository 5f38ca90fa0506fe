//! What the broker does to a partition when it loads it after an unclean
//! shutdown (`LogLoader`, `LogSegment.recover`): which segments it
//! recovers, where it truncates, which later segments and producer
//! snapshots it deletes, which `.txnindex` files it rebuilds, the damage
//! it will not see, how the KRaft metadata log's raft files stand
//! ([`raft_log`]) and the node's own files in its log dirs ([`node_files`]), what salvaging keeps past the batch where it stops
//! ([`salvage`]), and the soundness of segments already copied to remote
//! storage ([`remote_segment`]).

pub mod batch_audit;
pub mod dir_form;
pub mod node_files;
pub mod partition;
pub mod plan;
pub mod raft_log;
pub mod remote_segment;
pub mod salvage;
pub mod segment;
pub mod snapshots;
pub mod txn_index;
