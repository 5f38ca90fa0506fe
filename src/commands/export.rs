//! `kseg export PATH…`: every record, in offset order, as NDJSON or as
//! lines a producer can replay, or as a Parquet file; `--salvage` reads
//! past damage.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use kseg::format::record::parse_control_record;
use kseg::inspect::recovery::salvage::{
    Event, ReadOptions, RecordFilter, partition_name, read_partition,
};
use kseg::logdir::target::resolve;
use kseg::render::ByteEncoding;
use kseg::render::export::{ExportedRecord, LineForm, Unrepresentable, write_json};
use kseg::render::export_parquet::ParquetExport;
use kseg::render::salvage::write_damages;

use crate::cli::{EncodingArg, ExportArgs, ExportFormatArg};
use crate::exit_code::ExitCode;

/// Where the export of one partition stopped early.
enum Stop {
    /// Writing the output failed.
    Output(anyhow::Error),
    /// A record the line form cannot carry.
    Line(Unrepresentable),
}

/// The byte encoding an `--encoding` names.
pub fn encoding(arg: EncodingArg) -> ByteEncoding {
    match arg {
        EncodingArg::Utf8 => ByteEncoding::Utf8,
        EncodingArg::Hex => ByteEncoding::Hex,
        EncodingArg::Base64 => ByteEncoding::Base64,
    }
}

fn filter(args: &ExportArgs) -> anyhow::Result<RecordFilter> {
    Ok(RecordFilter {
        from_offset: args.from_offset.unwrap_or(i64::MIN),
        to_offset: args.to_offset.unwrap_or(i64::MAX),
        from_time: args.from_time.unwrap_or(i64::MIN),
        to_time: args.to_time.unwrap_or(i64::MAX),
        include_control: args.include_control,
    })
}

/// Where the records go, in which form.
enum Sink {
    /// NDJSON or lines, to stdout or a file.
    Text(BufWriter<Box<dyn Write>>, Option<LineForm>, ByteEncoding),
    /// A Parquet file.
    Parquet(Box<ParquetExport<BufWriter<File>>>),
}

impl Sink {
    /// Writes one record; `Ok(Err)` when the line form cannot carry it.
    fn write(&mut self, r: &ExportedRecord<'_>) -> anyhow::Result<Result<(), Unrepresentable>> {
        Ok(match self {
            Self::Text(out, None, encoding) => write_json(out, r, *encoding).map(Ok)?,
            Self::Text(out, Some(form), _) => form.write(out, r)?,
            Self::Parquet(p) => p.push(r).map(Ok)?,
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Text(out, ..) => out.flush(),
            Self::Parquet(_) => Ok(()),
        }
    }

    /// Finishes the output: the Parquet footer, every byte flushed and
    /// synced.
    fn finish(self) -> anyhow::Result<()> {
        match self {
            Self::Text(mut out, ..) => out.flush()?,
            Self::Parquet(p) => {
                let file = p.finish()?.into_inner().map_err(|e| e.into_error())?;
                file.sync_all()?;
            }
        }
        Ok(())
    }
}

/// An output file written beside its name and renamed into place once
/// complete, so that a failed export leaves no half-written file.
struct OutputFile {
    partial: PathBuf,
    path: PathBuf,
}

impl OutputFile {
    fn create(path: &Path) -> anyhow::Result<(Self, File)> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".kseg-partial");
        let partial = path.with_file_name(name);
        let file =
            File::create(&partial).map_err(|e| anyhow::anyhow!("{}: {e}", partial.display()))?;
        Ok((
            Self {
                partial,
                path: path.to_path_buf(),
            },
            file,
        ))
    }

    fn commit(self) -> anyhow::Result<()> {
        std::fs::rename(&self.partial, &self.path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", self.path.display()))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Gone already once committed; otherwise the partial file goes.
        let _ = std::fs::remove_file(&self.partial);
    }
}

fn sink(args: &ExportArgs, line: Option<LineForm>) -> anyhow::Result<(Sink, Option<OutputFile>)> {
    let (output, file) = match &args.output {
        Some(path) => {
            let (output, file) = OutputFile::create(path)?;
            (Some(output), Some(file))
        }
        None => (None, None),
    };
    let sink = match (args.format, file) {
        (ExportFormatArg::Parquet, Some(file)) => {
            Sink::Parquet(Box::new(ParquetExport::new(BufWriter::new(file))?))
        }
        (ExportFormatArg::Parquet, None) => {
            anyhow::bail!("--format parquet writes a file: name it with --output")
        }
        (_, file) => {
            let out: Box<dyn Write> = match file {
                Some(file) => Box::new(file),
                None => Box::new(io::stdout().lock()),
            };
            Sink::Text(BufWriter::new(out), line, encoding(args.encoding))
        }
    };
    Ok((sink, output))
}

/// Runs `kseg export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let line = (args.format == ExportFormatArg::Line).then(|| LineForm {
        separator: args.key_separator.clone(),
        null_marker: args.null_marker.clone(),
    });
    if args.format != ExportFormatArg::Json && args.encoding != EncodingArg::Utf8 {
        anyhow::bail!(
            "--format line and parquet write keys and values as they are; --encoding is for JSON"
        );
    }
    if line
        .as_ref()
        .is_some_and(|l| l.separator.is_empty() || l.separator.contains(['\n', '\r']))
    {
        anyhow::bail!("--key-separator must be non-empty and hold no line break");
    }
    let options = ReadOptions {
        salvage: args.salvage,
        max_batch_bytes: args.max_decompressed_bytes,
        filter: filter(args)?,
    };
    let counts_headers = line.is_some();
    let (mut out, output) = sink(args, line)?;
    let mut code = ExitCode::Ok;
    let mut with_headers = 0u64;
    for path in &args.paths {
        for target in resolve(path)? {
            let partition = partition_name(&target);
            let mut stop = None;
            let report = read_partition(&target, options, |segment, event| {
                let (summary, kept) = match event {
                    Event::Batch { summary, kept, .. } => (summary, kept),
                    Event::Damage(range) => {
                        if !args.salvage {
                            eprintln!(
                                "kseg: {}: {}: reading stops here, as Kafka's readers stop (--salvage reads past it)",
                                segment.log_path().display(),
                                range.why
                            );
                        }
                        return ControlFlow::Continue(());
                    }
                };
                for record in kept {
                    let control = summary
                        .is_control
                        .then(|| parse_control_record(record).ok())
                        .flatten();
                    let exported = ExportedRecord {
                        partition: &partition,
                        batch: summary,
                        record,
                        control: control.as_ref(),
                    };
                    if counts_headers {
                        with_headers += u64::from(!record.headers.is_empty());
                    }
                    match out.write(&exported) {
                        Ok(Ok(())) => {}
                        Ok(Err(why)) => {
                            stop = Some(Stop::Line(why));
                            return ControlFlow::Break(());
                        }
                        Err(e) => {
                            stop = Some(Stop::Output(e));
                            return ControlFlow::Break(());
                        }
                    }
                }
                ControlFlow::Continue(())
            })?;
            match stop {
                Some(Stop::Output(e)) => return Err(e),
                Some(Stop::Line(why)) => {
                    out.flush()?;
                    eprintln!(
                        "kseg: {partition}: {why}: the line form cannot carry this record so that it reads back as itself; export stopped (the JSON form carries every record)"
                    );
                    return Ok(ExitCode::Error);
                }
                None => {}
            }
            if !report.is_clean() {
                code = ExitCode::Findings;
                if args.salvage {
                    out.flush()?;
                    write_damages(&mut io::stderr().lock(), &report, "kseg: salvaged past ")?;
                }
            }
        }
    }
    out.finish()?;
    if let Some(output) = output {
        output.commit()?;
    }
    if with_headers > 0 {
        eprintln!("kseg: {with_headers} records had headers, which the line form leaves out");
    }
    Ok(code)
}
