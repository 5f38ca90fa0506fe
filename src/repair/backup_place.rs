//! Where a writing command's backup goes, decided before anything is
//! written: never inside a log dir, judged after resolving `..` and
//! symlinks.

use std::path::{Path, PathBuf};

use super::backup::LazyBackup;
use super::error::{AtStep, RepairError};

/// Where a writing command's backup goes: the directory asked for (which
/// must not exist yet), or a new `kseg-backup-<unix ms>-<pid>` (with `-2`,
/// `-3`, … appended if taken, so runs in a loop or in parallel never share
/// one) in the current directory, or beside the log dir when the current
/// directory is inside one. Never inside a log dir, where the broker would
/// take it for a partition and refuse to start; paths are compared after
/// resolving `..` and symlinks. Nothing is created yet.
pub fn backup_place(asked: Option<&Path>, log_dirs: &[PathBuf]) -> Result<LazyBackup, RepairError> {
    let log_dirs = log_dirs
        .iter()
        .map(|d| resolved(d).map(|r| (d, r)))
        .collect::<Result<Vec<_>, _>>()?;
    let inside = |path: &Path| log_dirs.iter().find(|(_, real)| path.starts_with(real));
    let dir = match asked {
        Some(dir) => resolved(dir)?,
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let name = format!("kseg-backup-{now}-{}", std::process::id());
            let cwd = resolved(Path::new("."))?;
            match inside(&cwd) {
                None => cwd.join(name),
                Some((_, log_dir)) => log_dir.parent().unwrap_or(Path::new("/")).join(name),
            }
        }
    };
    if let Some((log_dir, _)) = inside(&dir) {
        return Err(RepairError::Refused(format!(
            "backup directory {} is inside log dir {}; Kafka would refuse to start with it there. Pass --backup-dir elsewhere",
            dir.display(),
            log_dir.display()
        )));
    }
    Ok(LazyBackup::new(dir, asked.is_none()))
}

/// `path` made absolute, with symlinks and `..` resolved as far as it
/// exists, and the rest (not created yet) appended without `.` and `..`.
fn resolved(path: &Path) -> Result<PathBuf, RepairError> {
    let absolute = std::path::absolute(path).at("resolving", path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::Normal(name) => out.push(name),
                    _ => {}
                }
            }
            return Ok(out);
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return Ok(absolute),
        }
    }
}
