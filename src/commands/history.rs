//! `kseg history`: every change of the metadata log as an event, printed
//! as the replay reads it.

use std::io::Write as _;

use kseg::inspect::cluster::history::{Event, History};
use kseg::inspect::cluster::metadata::load::{ImageRequest, Start, replay_with};
use kseg::render::history::{text_line, to_json};

use crate::cli::HistoryArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg history`.
pub fn run(args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let filter = args.filter();
    let request = ImageRequest {
        at_offset: None,
        snapshot: args.snapshot.clone(),
        start: Start::Oldest,
    };
    let mut out = std::io::stdout().lock();
    let mut failed: Option<std::io::Error> = None;
    let mut printed = 0u64;
    let emit = |event: Event| {
        if failed.is_some() || !filter.keeps(&event) {
            return;
        }
        let written = if args.json {
            writeln!(out, "{}", to_json(&event))
        } else {
            writeln!(out, "{}", text_line(&event))
        };
        match written {
            Ok(()) => printed += 1,
            Err(e) => failed = Some(e),
        }
    };
    let (history, walked) = replay_with(&args.path, &request, &|_| {}, |r| History::new(r, emit))?;
    let replayed = history.finish();
    if let Some(e) = failed {
        return Err(e.into());
    }
    if !args.json {
        let from = match &walked.snapshot {
            Some(s) => format!(
                "the state of the snapshot {} (before offset {}; its records are not events)",
                s.path.display(),
                s.end_offset
            ),
            None => "an empty image".into(),
        };
        writeln!(
            out,
            "{printed} events through offset {}, from {from}",
            walked.offset
        )?;
    }
    for w in walked.warnings.iter().chain(&walked.notes) {
        eprintln!("kseg: {w}");
    }
    let refused = replayed.refused.items.len() as u64 + replayed.refused.omitted;
    if refused > 0 {
        eprintln!(
            "kseg: {refused} records the image refuses are no events (kseg metadata lists them)"
        );
    }
    Ok(if walked.warnings.is_empty() {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}
