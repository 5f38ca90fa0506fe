//! `kseg report`: runs kseg's own commands with `--json` on a log dir and
//! draws their output into one HTML page.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use kseg::render::export_sink::OutputFile;
use kseg::render::report::{ReportData, Section, Timeline, write_report};

use crate::cli::ReportArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg <args> <path>`, handing each JSON line of its output to
/// `each` as it comes; a run that fails (exit code 2) leaves the section's
/// error, its last stderr line.
fn run_kseg(args: &[String], path: &Path, each: &mut dyn FnMut(serde_json::Value)) -> Section {
    let shown: Vec<String> = std::iter::once("kseg".to_string())
        .chain(args.iter().cloned())
        .chain([path.display().to_string()])
        .collect();
    let mut section = Section {
        command: shown.join(" "),
        ..Section::default()
    };
    eprintln!("kseg: running {}", section.command);
    let spawned = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .args(args)
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    });
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            section.error = Some(format!("cannot run kseg: {e}"));
            return section;
        }
    };
    let mut stderr = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_string(&mut text);
        }
        text
    });
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                each(v);
            }
        }
    }
    let status = child.wait();
    let stderr = errors.join().unwrap_or_default();
    if !matches!(status.map(|s| s.code()), Ok(Some(0 | 1))) {
        let last = stderr.lines().last().unwrap_or("it failed").trim();
        section.error = Some(last.trim_start_matches("kseg: ").to_string());
    }
    section
}

/// Runs a command and keeps its JSON lines.
fn collect(args: &[String], path: &Path) -> Section {
    let mut lines = Vec::new();
    let mut section = run_kseg(args, path, &mut |v| lines.push(v));
    section.lines = lines;
    section
}

fn with_time(mut args: Vec<String>, flag: &str, t: Option<i64>) -> Vec<String> {
    if let Some(t) = t {
        args.extend([flag.to_string(), t.to_string()]);
    }
    args
}

/// Runs `kseg report`.
pub fn run(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    if !args.path.is_dir() {
        anyhow::bail!(
            "{}: not a directory (kseg report takes a log dir)",
            args.path.display()
        );
    }
    let now = Some(crate::time_arg::clock(args.now));
    let argv = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let verify = collect(
        &with_time(argv(&["verify", "--json"]), "--now", now),
        &args.path,
    );
    let retention = collect(
        &with_time(argv(&["retention-report", "--json"]), "--now", now),
        &args.path,
    );
    let groups = collect(&argv(&["groups", "--json"]), &args.path);
    let mut timeline = Timeline::default();
    let history_args = with_time(
        with_time(argv(&["history", "--json"]), "--since", args.since),
        "--until",
        args.until,
    );
    let history = run_kseg(&history_args, &args.path, &mut |v| timeline.add(&v));
    let data = ReportData {
        log_dir: args.path.display().to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        verify,
        retention,
        groups,
        history,
        timeline,
    };
    let (output, file) = OutputFile::create(&args.output)?;
    let mut w = std::io::BufWriter::new(file);
    write_report(&mut w, &data)?;
    w.flush()?;
    drop(w);
    output.commit()?;
    eprintln!("kseg: wrote {}", args.output.display());
    Ok(ExitCode::Ok)
}
