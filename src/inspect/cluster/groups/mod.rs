//! What the group coordinator holds after loading `__consumer_offsets`:
//! every group with its type, state, protocol, generation and members, and
//! the committed offsets with tombstones and transactional commits applied,
//! beside the log end offsets of the partitions in the same log dir (the
//! lag); and share groups' delivery state from `__share_group_state`.
//! Mirrors `CoordinatorLoaderImpl`, `GroupCoordinatorShard.replay`,
//! `GroupMetadataManager.replay*` and `OffsetMetadataManager.replay*`.

pub mod classic;
pub mod filter;
pub mod lag;
pub mod load;
pub mod offsets;
pub mod replay;
pub mod replicas;
pub mod shard;
pub mod share_state;
pub mod state;
