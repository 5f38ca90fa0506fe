//! The backup directory: a copy of every file kseg changes or removes, and a
//! manifest that `kseg recover --undo` reads to put them back.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::lock::lock_log_dirs;
use super::write::{TEMP_SUFFIX, crash_point, replace_file};

const MANIFEST: &str = "MANIFEST";

/// A backup directory being filled.
#[derive(Debug)]
pub struct Backup {
    dir: PathBuf,
    manifest: File,
    count: usize,
}

impl Backup {
    /// Creates `dir` (it must not exist) with an empty manifest.
    pub fn create(dir: &Path) -> io::Result<Self> {
        fs::create_dir_all(dir.parent().unwrap_or(Path::new(".")))?;
        fs::create_dir(dir)?;
        let manifest = File::create(dir.join(MANIFEST))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            manifest,
            count: 0,
        })
    }

    /// The backup directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Copies `original` into the backup (fsynced) and records it; a file
    /// that does not exist is recorded as absent, so undo removes it.
    pub fn save(&mut self, original: &Path) -> io::Result<()> {
        let absolute = std::path::absolute(original)?;
        self.count += 1;
        if absolute.exists() {
            let copy = self.dir.join(format!("{:06}", self.count));
            fs::copy(&absolute, &copy)?;
            File::open(&copy)?.sync_all()?;
            crash_point("after-backup-copy");
            writeln!(self.manifest, "{:06}\t{}", self.count, absolute.display())?;
        } else {
            writeln!(self.manifest, "absent\t{}", absolute.display())?;
        }
        self.manifest.sync_all()?;
        File::open(&self.dir)?.sync_all()?;
        crash_point("after-backup-manifest");
        Ok(())
    }
}

/// Puts every file recorded in the backup at `dir` back, byte for byte, and
/// removes temporary files an interrupted write left beside them. Holds the
/// `.lock` of every log dir it writes into (refusing if a broker holds
/// one), unless `ignore_lock`.
/// Returns the restored paths.
pub fn restore(dir: &Path, ignore_lock: bool) -> io::Result<Vec<PathBuf>> {
    let manifest = fs::read_to_string(dir.join(MANIFEST))?;
    let mut restored = Vec::new();
    let mut dirs: Vec<PathBuf> = manifest
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(_, p)| Path::new(p).parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    let log_dirs: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| d.parent().map(Path::to_path_buf))
        .collect();
    let _locks = if ignore_lock {
        Vec::new()
    } else {
        lock_log_dirs(&log_dirs)?
    };
    for d in &dirs {
        for entry in fs::read_dir(d)?.flatten() {
            if entry.file_name().to_string_lossy().ends_with(TEMP_SUFFIX) {
                fs::remove_file(entry.path())?;
            }
        }
    }
    for line in manifest.lines().rev() {
        let Some((copy, original)) = line.split_once('\t') else {
            continue;
        };
        let original = PathBuf::from(original);
        if copy == "absent" {
            if original.exists() {
                fs::remove_file(&original)?;
            }
        } else {
            replace_file(&original, &fs::read(dir.join(copy))?)?;
        }
        restored.push(original);
    }
    Ok(restored)
}
