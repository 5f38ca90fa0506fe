//! kseg's integration tests: the real binary on real files.

mod corpus;
mod corpus_dump;
mod corpus_index;
mod corpus_locate;
mod corpus_recovery;
mod corpus_retention;
mod crash_safety;
mod dump;
mod generated;
mod properties;
mod rebuild_index;
mod util;
