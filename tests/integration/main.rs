//! kseg's integration tests: the real binary on real files.

mod bad_input;
mod corpus;
mod corpus_dump;
mod corpus_index;
mod corpus_locate;
mod corpus_producer_state;
mod corpus_recovery;
mod corpus_retention;
mod crash_safety;
mod dump;
mod export;
mod generated;
mod independent_encoder;
mod layering;
mod log_dir_lock;
mod newcomer;
mod page_cache;
mod producer_expiry;
mod properties;
mod readme;
mod rebuild_index;
mod regressions;
mod salvage;
mod scripted_use;
mod util;
mod verify;
