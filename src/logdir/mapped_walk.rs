//! Walking a `.log` through one read-only mapping of the whole file, front
//! to back, with `MADV_SEQUENTIAL`. Pages are mapped in ahead of the cursor
//! and let go behind it in whole, aligned windows, so resident memory stays
//! at a few windows, not the file. A mapped file truncated under kseg raises
//! SIGBUS, which the binary reports and exits on (see [`super::mapped`]).

use std::fs::File;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;

use crate::format::{BatchIter, FileBatch, FormatError};

/// The step of the windows: the size of a huge page (2 MiB on x86-64 and
/// most arm64 kernels). A page cache filled by readahead holds much of a
/// file in folios of this size, which the kernel maps with one page-table
/// entry each; letting go of part of one would split it back into 512 small
/// mappings.
const WINDOW: usize = 2 << 20;

/// How much a walk lets go at once, in whole windows, while it is the only
/// one under way.
const RELEASE_STEP: usize = 4 * WINDOW;

/// How much a walk lets go at once while other walks run beside it. Letting
/// go of a mapping in a process whose other threads run on other cores
/// interrupts each of them to flush its TLB: released every 8 MiB, that
/// held a two-thread `verify` at 1.65x-1.67x one thread, against
/// 1.74x-1.77x released every 32 MiB or never (paired runs, 9 segments of
/// 128 MiB). The price is resident memory: up to 24 MiB more a walk.
const SHARED_RELEASE_STEP: usize = 16 * WINDOW;

/// Batches shorter than this are small enough that the per-batch work
/// between their checksums shows: the walk asks for the bytes after each
/// one ahead of time ([`PREFETCH_AHEAD`]).
const PREFETCH_BELOW: usize = 4 << 10;

/// How far past a small batch the walk asks the CPU to fetch into its
/// cache while the batch is visited. Over one-record batches of 1 KiB
/// values (256 MiB, page cached) `verify` ran 1.14x as fast asking 1 or
/// 2 KiB ahead, 1.10x at 4 and 8 KiB and 1.09x at 16 KiB (paired runs):
/// the hardware's own prefetching follows a long stream, but not the
/// short reads that the header parsing and bookkeeping of each batch
/// interrupt. Longer batches gained nothing, so they are not prefetched.
const PREFETCH_AHEAD: usize = 2 << 10;

/// Mapped walks under way in this process, on any thread.
static WALKS: AtomicUsize = AtomicUsize::new(0);

/// Counts one walk under way for as long as it lives.
#[derive(Debug)]
struct Walking;

impl Walking {
    fn start() -> Self {
        WALKS.fetch_add(1, Ordering::Relaxed);
        Walking
    }
}

impl Drop for Walking {
    fn drop(&mut self) {
        WALKS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How much a walk lets go at once now: more while other walks run.
fn release_step() -> usize {
    if WALKS.load(Ordering::Relaxed) > 1 {
        SHARED_RELEASE_STEP
    } else {
        RELEASE_STEP
    }
}

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
    let _walking = Walking::start();
    let mut window = Window::default();
    window.populate_to(&map, 1);
    let mut prefetched = 0;
    for item in BatchIter::new(bytes, 0) {
        let batch = match item {
            Ok(batch) => batch,
            Err(err) => return Ok(Some(err)),
        };
        let end = batch.position as usize + batch.bytes.len();
        window.populate_to(&map, end);
        if batch.bytes.len() < PREFETCH_BELOW {
            prefetched = prefetch(bytes, prefetched.max(end), end + PREFETCH_AHEAD);
        }
        if visit(&batch).is_break() {
            return Ok(None);
        }
        window.populate_to(&map, end + WINDOW / 2);
        window.release_behind(&map, batch.position as usize, release_step())?;
    }
    Ok(None)
}

/// Asks the CPU to fetch `bytes[from..to]` (clipped to its end) into its
/// cache, a cache line at a time; returns where the lines asked for end.
/// Nothing is read: a hint that cannot fault, whatever the address.
fn prefetch(bytes: &[u8], from: usize, to: usize) -> usize {
    const LINE: usize = 64;
    let to = to.min(bytes.len());
    let mut at = from;
    while at < to {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `_mm_prefetch` only hints; it dereferences nothing, and
        // SSE, which it needs, is part of every x86-64 CPU.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().wrapping_add(at).cast());
        }
        at += LINE;
    }
    at.max(from)
}

/// A read-only mapping of a whole file read at increasing positions, a few
/// bytes at a time (batch headers) or in long spans of which every byte is
/// read ([`Self::reading_every_byte`]). Pages are mapped in by the page
/// faults of the reads themselves, which map a whole huge page or a run of
/// small ones around the faulting address (for long spans: ahead of the
/// reads, as [`walk_mapped`] maps them), and let go behind the reads as in
/// [`walk_mapped`], so resident memory stays at a few windows.
#[derive(Debug)]
pub struct MappedReader {
    map: Mmap,
    window: Window,
    /// Whether each read's pages, and a window more, are mapped in ahead
    /// ([`Self::reading_every_byte`]).
    ahead: bool,
    _walking: Walking,
}

impl MappedReader {
    /// Maps `file` (which must not be empty) with `MADV_SEQUENTIAL` (read
    /// ahead far) and `MADV_HUGEPAGE`: what the faults read from disk then
    /// goes into 2 MiB folios, not 4 KiB pages, each mapped with one entry.
    /// Measured on a 1 GiB segment not cached, the walk took 0.75 s with it
    /// and 0.98 s without (median of 12); a walk that reads every byte is
    /// slower cold with it, so [`walk_mapped`] does not ask. Both are
    /// advice: without transparent huge pages the same bytes are read.
    pub fn new(file: &File) -> std::io::Result<Self> {
        // SAFETY: read-only; a concurrent truncation raises SIGBUS, which
        // the binary reports as an error (see `super::mapped`).
        let map = unsafe { Mmap::map(file) }?;
        let _ = map.advise(memmap2::Advice::Sequential);
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(Self {
            map,
            window: Window::default(),
            ahead: false,
            _walking: Walking::start(),
        })
    }

    /// Maps `file` (which must not be empty) for reads of every byte, front
    /// to back, in long spans (the resync scan of a damaged segment): as
    /// [`walk_mapped`] maps, with `MADV_SEQUENTIAL` alone, and with each
    /// read's pages mapped in ahead in one call a window rather than a
    /// fault every few pages.
    pub fn reading_every_byte(file: &File) -> std::io::Result<Self> {
        // SAFETY: read-only; a concurrent truncation raises SIGBUS, which
        // the binary reports as an error (see `super::mapped`).
        let map = unsafe { Mmap::map(file) }?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Self {
            map,
            window: Window::default(),
            ahead: true,
            _walking: Walking::start(),
        })
    }

    /// The bytes at `position..position + len`, clipped to the file's end.
    /// A read far behind an earlier one is still right, only slower: its
    /// pages are mapped in again.
    pub fn read_at(&mut self, position: u64, len: usize) -> std::io::Result<&[u8]> {
        let from = usize::try_from(position)
            .unwrap_or(usize::MAX)
            .min(self.map.len());
        self.window
            .release_behind(&self.map, from, release_step())?;
        let to = from.saturating_add(len).min(self.map.len());
        if self.ahead {
            self.window.populate_to(&self.map, to);
        }
        Ok(self.map.get(from..to).unwrap_or_default())
    }

    /// The mapping's length: the file's size when it was mapped.
    pub fn mapped_len(&self) -> u64 {
        self.map.len() as u64
    }
}

/// Which part of the mapping is mapped in: pages below `released` were let
/// go, pages below `populated` were mapped in ahead (one call maps what
/// would otherwise take a page fault every few pages).
#[derive(Debug, Default)]
struct Window {
    released: usize,
    populated: usize,
}

impl Window {
    /// Maps in the pages of `map` up to `end`, and a window more, rounded
    /// up to a whole window.
    fn populate_to(&mut self, map: &Mmap, end: usize) {
        if end <= self.populated {
            return;
        }
        let upto = end
            .saturating_add(WINDOW)
            .next_multiple_of(WINDOW)
            .min(map.len());
        if upto > self.populated {
            // Advisory: an older kernel without MADV_POPULATE_READ faults
            // the pages in as they are read.
            let _ = map.advise_range(
                memmap2::Advice::PopulateRead,
                self.populated,
                upto - self.populated,
            );
            self.populated = upto;
        }
    }

    /// Lets go of the whole windows of `map` lying a full window behind
    /// `position`, the batch just visited, once they add up to `step`.
    fn release_behind(&mut self, map: &Mmap, position: usize, step: usize) -> std::io::Result<()> {
        let upto = position.min(map.len()).saturating_sub(WINDOW);
        let upto = upto - upto % WINDOW;
        if upto >= self.released + step {
            // SAFETY: [released, upto) lies in the mapping (positions are
            // clamped to it) and nothing borrows it any more: each visited
            // batch lives for one `visit`, each header read until the next
            // read. A later read there maps the file's pages in again (a
            // read-only shared mapping; they stay in the page cache).
            unsafe {
                map.unchecked_advise_range(
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

    /// A temporary file of `len` patterned bytes, opened, and its bytes.
    fn patterned_file(len: usize) -> (tempfile::TempDir, File, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        (dir, file, data)
    }

    /// Released pages of the read-only shared mapping read back as the
    /// file's bytes (MADV_DONTNEED drops the page-table entries only; the
    /// next read faults the page cache in again), and a release never
    /// reaches the window of the position it is given.
    #[test]
    fn released_pages_read_back_as_the_file() {
        let (_dir, file, data) = patterned_file(RELEASE_STEP + 3 * WINDOW + 12345);
        // SAFETY: a private temporary file nothing else writes.
        let map = unsafe { Mmap::map(&file) }.unwrap();
        let mut window = Window::default();
        window.populate_to(&map, data.len() + WINDOW);
        assert_eq!(window.populated, data.len());
        let position = RELEASE_STEP + 2 * WINDOW - 1;
        window.release_behind(&map, position, RELEASE_STEP).unwrap();
        assert_eq!(window.released, RELEASE_STEP);
        assert!(window.released + WINDOW <= position);
        assert!(map[..] == data[..]);
    }

    /// A walk lets go in the larger step while another runs beside it
    /// (other tests may walk at the same time, so only the count of two or
    /// more is certain here).
    #[test]
    fn walks_side_by_side_release_in_larger_steps() {
        let _first = Walking::start();
        let _second = Walking::start();
        assert_eq!(release_step(), SHARED_RELEASE_STEP);
    }

    /// The header reader lets go of what lies behind its reads, never past
    /// the mapping (a position past the end, as a file that shrank after
    /// its size was read can give, reads nothing), and reads the file's
    /// bytes before and after a release.
    #[test]
    fn the_reader_releases_behind_its_reads_and_stays_in_the_mapping() {
        // Long enough for a release in either step (tests walk side by side).
        let (_dir, file, data) = patterned_file(SHARED_RELEASE_STEP + 3 * WINDOW + 999);
        let mut reader = MappedReader::new(&file).unwrap();
        assert_eq!(reader.mapped_len(), data.len() as u64);
        for position in (0..data.len()).step_by(16 << 10) {
            let got = reader.read_at(position as u64, 61).unwrap();
            assert_eq!(got, &data[position..(position + 61).min(data.len())]);
        }
        assert!(reader.window.released > 0, "{:?}", reader.window);
        assert!(reader.read_at(u64::MAX, 61).unwrap().is_empty());
        assert!(
            reader
                .read_at(data.len() as u64 + 12345, 61)
                .unwrap()
                .is_empty()
        );
        assert!(reader.window.released <= data.len());
        assert_eq!(reader.read_at(5, 3).unwrap(), &data[5..8]);
    }
}
