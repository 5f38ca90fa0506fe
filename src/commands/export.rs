//! `kseg export PATH…`: every record, in offset order, as NDJSON or as
//! lines a producer can replay, or as a Parquet file; `--salvage` reads
//! past damage.

use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;

use kseg::format::record::parse_control_record;
use kseg::inspect::recovery::salvage::{
    Event, ReadOptions, RecordFilter, SalvageReport, partition_name, read_partition,
};
use kseg::logdir::target::resolve;
use kseg::render::ByteEncoding;
use kseg::render::export::{ExportedRecord, LineForm, Unrepresentable};
use kseg::render::export_parquet::ParquetExport;
use kseg::render::export_sink::{OutputFile, Sink};
use kseg::render::salvage::write_damages;

use crate::cli::{EncodingArg, ExportArgs, ExportFormatArg};
use crate::exit_code::ExitCode;

/// Where the export of one partition stopped early.
enum Stop {
    /// Writing the output failed.
    Output(io::Error),
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

/// Writes the records of one partition to `out`, counting those with
/// headers when the line form leaves them out; says where it stopped.
fn export_target(
    target: &kseg::logdir::target::Target,
    partition: &str,
    salvage: bool,
    options: ReadOptions,
    out: &mut Sink,
    with_headers: &mut u64,
) -> anyhow::Result<(Option<Stop>, SalvageReport)> {
    let counts_headers = matches!(out, Sink::Text(_, Some(_), _));
    let mut stop = None;
    let report = read_partition(target, options, |segment, event| {
        let (summary, kept) = match event {
            Event::Batch { summary, kept, .. } => (summary, kept),
            Event::Damage(range) => {
                if !salvage {
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
                partition,
                batch: summary,
                record,
                control: control.as_ref(),
            };
            if counts_headers {
                *with_headers += u64::from(!record.headers.is_empty());
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
    Ok((stop, report))
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
    let (mut out, output) = sink(args, line)?;
    let mut code = ExitCode::Ok;
    let mut with_headers = 0u64;
    for path in &args.paths {
        for target in resolve(path)? {
            let partition = partition_name(&target);
            let (stop, report) = export_target(
                &target,
                &partition,
                args.salvage,
                options,
                &mut out,
                &mut with_headers,
            )?;
            match stop {
                Some(Stop::Output(e)) => return Err(e.into()),
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
