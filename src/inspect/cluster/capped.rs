//! A list that keeps its first items and counts the rest, so that a log of
//! bad records cannot grow what kseg holds.

/// How many problems or notes a load keeps; past it, only a count.
pub const MAX_REPORTED: usize = 100;

/// At most [`MAX_REPORTED`] items, and how many more there were: memory
/// stays bounded however many records are bad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped<T> {
    /// The first items.
    pub items: Vec<T>,
    /// How many more were left out.
    pub omitted: u64,
}

impl<T> Default for Capped<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            omitted: 0,
        }
    }
}

impl<T> Capped<T> {
    /// Keeps `item`, or counts it past the cap.
    pub fn push(&mut self, item: T) {
        if self.items.len() < MAX_REPORTED {
            self.items.push(item);
        } else {
            self.omitted += 1;
        }
    }

    /// Adds everything `other` kept or counted.
    pub fn append(&mut self, other: Self) {
        self.omitted += other.omitted;
        for item in other.items {
            self.push(item);
        }
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.omitted == 0
    }
}
