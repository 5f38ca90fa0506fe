//! Which slots of an index file a search counts: the real entries, or
//! every slot of the file as Kafka sizes it when it opens the file.

/// Which entries of an index a lookup searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EntryCount {
    /// The real entries: what a running broker (or one that recovered the
    /// segment) searches.
    #[default]
    Live,
    /// File length / entry size, a preallocated zero tail included: what
    /// `LogSegment.open` on the files as they are would search.
    AsOpened,
}

impl EntryCount {
    /// Picks the count this mode searches.
    pub fn pick(self, live: usize, as_opened: usize) -> usize {
        match self {
            Self::Live => live,
            Self::AsOpened => as_opened,
        }
    }
}
