//! kseg's integration tests: the real binary on real files.

mod corpus;
mod corpus_dump;
mod dump;
mod util;
