//! Walking a `.log` through one read-only mapping of the whole file, front
//! to back, with `MADV_SEQUENTIAL`. Pages are mapped in ahead of the cursor
//! and let go behind it in whole, aligned windows, so resident memory stays
//! at a few windows, not the file. A mapped file truncated under kseg raises
//! SIGBUS, which the binary reports and exits on (see [`super::mapped`]).

use std::fs::File;
use std::ops::ControlFlow;

use memmap2::Mmap;

use crate::format::{BatchIter, FileBatch, FormatError};

/// The step of the windows: the size of a huge page (2 MiB on x86-64 and
/// most arm64 kernels). A page cache filled by readahead holds much of a
/// file in folios of this size, which the kernel maps with one page-table
/// entry each; letting go of part of one would split it back into 512 small
/// mappings.
const WINDOW: usize = 2 << 20;

/// How much is let go at once, in whole windows. Letting go of a mapping
/// in a process whose other threads run on other cores interrupts them to
/// flush their TLBs: released every window, that was 8% of a two-thread
/// `verify`'s time.
const RELEASE_STEP: usize = 4 * WINDOW;

/// Calls `visit` with every whole batch of `file`, in order, until it
/// returns `Break`; returns the framing error that ended the walk, if any
/// (exactly what [`BatchIter`] over the whole file would yield).
pub fn walk_mapped(
    file: &File,
    mut visit: impl FnMut(&FileBatch<'_>) -> ControlFlow<()>,
) -> std::io::Result<Option<FormatError>> {
    // SAFETY: read-only; a concurrent truncation raises SIGBUS, which the
    // binary reports as an error (see `super::mapped`).
    let map = unsafe { Mmap::map(file) }?;
    let _ = map.advise(memmap2::Advice::Sequential);
    let bytes: &[u8] = &map;
    let mut window = Window::new(&map);
    window.populate_to(1);
    for item in BatchIter::new(bytes, 0) {
        let batch = match item {
            Ok(batch) => batch,
            Err(err) => return Ok(Some(err)),
        };
        let end = batch.position as usize + batch.bytes.len();
        window.populate_to(end);
        if visit(&batch).is_break() {
            return Ok(None);
        }
        window.populate_to(end + WINDOW / 2);
        window.release_behind(batch.position as usize)?;
    }
    Ok(None)
}

/// Which part of the mapping is mapped in: pages below `released` were let
/// go, pages below `populated` were mapped in ahead (one call maps what
/// would otherwise take a page fault every few pages).
struct Window<'m> {
    map: &'m Mmap,
    released: usize,
    populated: usize,
}

impl<'m> Window<'m> {
    fn new(map: &'m Mmap) -> Self {
        Self {
            map,
            released: 0,
            populated: 0,
        }
    }

    /// Maps in the pages up to `end`, and a window more, rounded up to a
    /// whole window.
    fn populate_to(&mut self, end: usize) {
        if end <= self.populated {
            return;
        }
        let upto = end
            .saturating_add(WINDOW)
            .next_multiple_of(WINDOW)
            .min(self.map.len());
        if upto > self.populated {
            // Advisory: an older kernel without MADV_POPULATE_READ faults
            // the pages in as they are read.
            let _ = self.map.advise_range(
                memmap2::Advice::PopulateRead,
                self.populated,
                upto - self.populated,
            );
            self.populated = upto;
        }
    }

    /// Lets go of the whole windows lying a full window behind `position`,
    /// the batch just visited, once they add up to a release step.
    fn release_behind(&mut self, position: usize) -> std::io::Result<()> {
        let upto = position.saturating_sub(WINDOW);
        let upto = upto - upto % WINDOW;
        if upto >= self.released + RELEASE_STEP {
            // SAFETY: [released, upto) lies in the mapping, wholly behind
            // every batch still to be visited; nothing borrows it any more
            // (each visited batch lives for one `visit`). The file's pages
            // stay in the page cache.
            unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    upto - self.released,
                )
            }?;
            self.released = upto;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Released pages of the read-only shared mapping read back as the
    /// file's bytes (MADV_DONTNEED drops the page-table entries only; the
    /// next read faults the page cache in again), and a release never
    /// reaches the window of the position it is given.
    #[test]
    fn released_pages_read_back_as_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..(RELEASE_STEP + 3 * WINDOW + 12345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        // SAFETY: a private temporary file nothing else writes.
        let map = unsafe { Mmap::map(&file) }.unwrap();
        let mut window = Window::new(&map);
        window.populate_to(data.len() + WINDOW);
        assert_eq!(window.populated, data.len());
        let position = RELEASE_STEP + 2 * WINDOW - 1;
        window.release_behind(position).unwrap();
        assert_eq!(window.released, RELEASE_STEP);
        assert!(window.released + WINDOW <= position);
        assert!(map[..] == data[..]);
    }
}
