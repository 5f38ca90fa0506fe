//! Where `kseg export` writes: NDJSON or lines to stdout or a file, or a
//! Parquet file; a named file is written beside its name and renamed into
//! place only once complete.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::bytes::ByteEncoding;
use super::export::{ExportedRecord, LineForm, Unrepresentable, write_json};
use super::export_parquet::ParquetExport;

/// Where the records go, in which form.
pub enum Sink {
    /// NDJSON or lines, to stdout or a file.
    Text(BufWriter<Box<dyn Write>>, Option<LineForm>, ByteEncoding),
    /// A Parquet file.
    Parquet(Box<ParquetExport<BufWriter<File>>>),
}

impl Sink {
    /// Writes one record; `Ok(Err)` when the line form cannot carry it.
    pub fn write(&mut self, r: &ExportedRecord<'_>) -> io::Result<Result<(), Unrepresentable>> {
        match self {
            Self::Text(out, None, encoding) => write_json(out, r, *encoding).map(Ok),
            Self::Text(out, Some(form), _) => form.write(out, r),
            Self::Parquet(p) => p.push(r).map(Ok).map_err(io::Error::other),
        }
    }

    /// Flushes text output (Parquet is flushed by row groups).
    pub fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Text(out, ..) => out.flush(),
            Self::Parquet(_) => Ok(()),
        }
    }

    /// Finishes the output: the Parquet footer, every byte flushed.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Self::Text(mut out, ..) => out.flush(),
            Self::Parquet(p) => p.finish().map_err(io::Error::other)?.flush(),
        }
    }
}

/// An output file written beside its name and renamed into place once
/// complete, so that a failed export leaves no half-written file.
pub struct OutputFile {
    partial: PathBuf,
    path: PathBuf,
}

impl OutputFile {
    /// Creates `<path>.kseg-partial` to write into.
    pub fn create(path: &Path) -> io::Result<(Self, File)> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".kseg-partial");
        let partial = path.with_file_name(name);
        let file = File::create(&partial)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", partial.display())))?;
        Ok((
            Self {
                partial,
                path: path.to_path_buf(),
            },
            file,
        ))
    }

    /// Syncs the complete file and renames it into place, whatever form
    /// was written to it.
    pub fn commit(self) -> io::Result<()> {
        let named = |path: &Path, e: io::Error| {
            io::Error::new(e.kind(), format!("{}: {e}", path.display()))
        };
        File::open(&self.partial)
            .and_then(|f| f.sync_all())
            .map_err(|e| named(&self.partial, e))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| named(&self.path, e))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Gone already once committed; otherwise the partial file goes.
        let _ = std::fs::remove_file(&self.partial);
    }
}
