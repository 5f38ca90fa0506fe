//! An offset or time index's entries as kafka-dump-log prints them, with
//! its sanity check, the note on preallocated slots, and the warning on a
//! size that is not a whole number of entries (those two on `err`).

use std::io::{self, Write};
use std::path::Path;

use super::DumpPrinter;
use crate::format::FormatError;
use crate::format::offset_index::OffsetIndex;
use crate::format::time_index::TimeIndex;

/// What an index dump was asked for.
#[derive(Debug, Clone, Copy)]
pub struct IndexDumpOptions {
    /// Kafka's sanity check alone (`--index-sanity-check`).
    pub sanity_check_only: bool,
    /// No entries printed (`--verify-index-only`).
    pub skip_entries: bool,
}

/// How an index's printing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexPrinted {
    /// Whether something was wrong with the index.
    pub findings: bool,
    /// Whether the dump ends here (empty, or only the sanity check was
    /// asked for): no cross-check against the `.log` follows.
    pub ended: bool,
}

/// Prints an offset index named `shown` (`abs`, its absolute form, in
/// Kafka's messages).
pub fn print_offset_index<W: Write>(
    (printer, err): (&mut DumpPrinter<W>, &mut dyn Write),
    (shown, abs): (&Path, &str),
    index: &OffsetIndex,
    options: IndexDumpOptions,
) -> io::Result<IndexPrinted> {
    if index.kafka_entries() == 0 {
        printer.note("empty", &format!("{} is empty.", shown.display()))?;
        return Ok(IndexPrinted {
            findings: false,
            ended: true,
        });
    }
    let sanity = index.sanity_check().map_err(|e| e.kafka_message(abs));
    if let Some(done) = preamble((printer, err), shown, options, sanity, index.size_error())? {
        return Ok(done);
    }
    if !options.skip_entries {
        for (slot, entry) in index.entries().enumerate() {
            printer.index_entry(&entry, slot)?;
        }
    }
    preallocation(err, shown, index.live_entries(), index.kafka_entries(), 8)?;
    Ok(IndexPrinted {
        findings: index.size_error().is_some(),
        ended: false,
    })
}

/// Prints a time index, as [`print_offset_index`] does an offset index.
pub fn print_time_index<W: Write>(
    (printer, err): (&mut DumpPrinter<W>, &mut dyn Write),
    (shown, abs): (&Path, &str),
    index: &TimeIndex,
    options: IndexDumpOptions,
) -> io::Result<IndexPrinted> {
    let sanity = index.sanity_check().map_err(|e| e.kafka_message(abs));
    if let Some(done) = preamble((printer, err), shown, options, sanity, index.size_error())? {
        return Ok(done);
    }
    if !options.skip_entries {
        for (slot, entry) in index.entries().enumerate() {
            printer.time_index_entry(&entry, slot)?;
        }
    }
    preallocation(err, shown, index.live_entries(), index.kafka_entries(), 12)?;
    Ok(IndexPrinted {
        findings: index.size_error().is_some(),
        ended: false,
    })
}

/// What both dumps do first: with the sanity check alone, its result and
/// the end of the dump; otherwise a warning when the size is not a whole
/// number of entries.
fn preamble<W: Write>(
    (printer, err): (&mut DumpPrinter<W>, &mut dyn Write),
    shown: &Path,
    options: IndexDumpOptions,
    sanity: Result<(), String>,
    size_error: Option<FormatError>,
) -> io::Result<Option<IndexPrinted>> {
    if options.sanity_check_only {
        let findings = match sanity {
            Ok(()) => {
                let text = format!("{} passed sanity check.", shown.display());
                printer.note("sanityCheck", &text)?;
                false
            }
            Err(message) => {
                writeln!(err, "kseg: {message}")?;
                true
            }
        };
        return Ok(Some(IndexPrinted {
            findings,
            ended: true,
        }));
    }
    if let Some(why) = size_error {
        writeln!(err, "kseg: {}: {why}", shown.display())?;
    }
    Ok(None)
}

/// Notes the preallocated zero slots past the live entries, as in an
/// active segment.
fn preallocation(
    err: &mut dyn Write,
    shown: &Path,
    live: usize,
    slots: usize,
    entry_size: usize,
) -> io::Result<()> {
    if live < slots {
        writeln!(
            err,
            "kseg: {}: {live} entries; the other {} slots ({} bytes) are preallocated zeros, as in an active segment (Kafka trims them when the segment rolls or closes)",
            shown.display(),
            slots - live,
            (slots - live) * entry_size
        )?;
    }
    Ok(())
}
