//! kseg's integration tests: the real binary on real files.

mod corpus;
mod corpus_dump;
mod corpus_index;
mod dump;
mod util;
