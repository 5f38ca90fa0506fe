//! `kseg salvage PATH…`: a dry report of what reading past damage keeps
//! that Kafka's recovery throws away.

use std::io::{self, Write};
use std::ops::ControlFlow;

use kseg::inspect::recovery::salvage::{ReadOptions, RecordFilter, read_partition};
use kseg::logdir::target::resolve;
use kseg::render::OutputFormat;
use kseg::render::salvage::write_report;

use crate::cli::SalvageArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg salvage`.
pub fn run(args: &SalvageArgs) -> anyhow::Result<ExitCode> {
    let options = ReadOptions {
        salvage: true,
        max_batch_bytes: args.max_decompressed_bytes,
        filter: RecordFilter::everything(),
    };
    let format = OutputFormat::json_if(args.json);
    let mut out = io::stdout().lock();
    let mut code = ExitCode::Ok;
    for path in &args.paths {
        for target in resolve(path)? {
            let report = read_partition(&target, options, |_, _| ControlFlow::Continue(()))?;
            if !report.is_clean() {
                code = ExitCode::Findings;
            }
            write_report(&mut out, &report, format)?;
        }
    }
    out.flush()?;
    Ok(code)
}
