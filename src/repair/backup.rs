//! The backup directory: a copy of every file kseg changes or removes, and a
//! manifest that `kseg recover --undo` reads to put them back.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::{AtStep, RepairError};
use super::lock::lock_log_dirs;
use super::ownership::FileOwner;
use super::write::{TEMP_SUFFIX, crash_point, replace_file_as};

const MANIFEST: &str = "MANIFEST";

/// Marks the manifest column holding a copy's owner, group and mode
/// (`000001\t@1001:1001:640\t/path`); manifests written before it have
/// two columns, and their copies carry the mode.
const OWNER_MARK: char = '@';

/// A backup directory being filled.
#[derive(Debug)]
pub struct Backup {
    dir: PathBuf,
    manifest: File,
    count: usize,
}

/// How many names [`Backup::create_unique`] tries before giving up.
const UNIQUE_ATTEMPTS: u32 = 1000;

impl Backup {
    /// Creates `dir` (it must not exist) with an empty manifest.
    pub fn create(dir: &Path) -> Result<Self, RepairError> {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        fs::create_dir_all(parent).at("creating the parent of the backup directory", parent)?;
        fs::create_dir(dir).at("creating the backup directory", dir)?;
        Self::start(dir)
    }

    /// Creates a new backup directory named `stem`, or `stem-2`, `stem-3`, …
    /// when another run took that name first: each run gets its own, however
    /// many start at once (the name is claimed by `mkdir`, which is atomic).
    pub fn create_unique(stem: &Path) -> Result<Self, RepairError> {
        for attempt in 1..=UNIQUE_ATTEMPTS {
            let dir = if attempt == 1 {
                stem.to_path_buf()
            } else {
                let mut name = stem.as_os_str().to_owned();
                name.push(format!("-{attempt}"));
                PathBuf::from(name)
            };
            match Self::create(&dir) {
                Err(RepairError::Io { cause, .. })
                    if cause.kind() == io::ErrorKind::AlreadyExists => {}
                other => return other,
            }
        }
        Err(RepairError::Io {
            step: "creating the backup directory",
            path: stem.to_path_buf(),
            cause: io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("it and {} numbered variants exist", UNIQUE_ATTEMPTS - 1),
            ),
        })
    }

    fn start(dir: &Path) -> Result<Self, RepairError> {
        let manifest_path = dir.join(MANIFEST);
        let manifest =
            File::create(&manifest_path).at("creating the backup manifest", &manifest_path)?;
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
    pub fn save(&mut self, original: &Path) -> Result<(), RepairError> {
        let absolute = std::path::absolute(original).at("resolving", original)?;
        self.count += 1;
        let manifest_path = self.dir.join(MANIFEST);
        if let Some(owner) = FileOwner::of_path(&absolute).at("reading the owner of", &absolute)? {
            let copy = self.dir.join(format!("{:06}", self.count));
            fs::copy(&absolute, &copy).at("copying into the backup", &absolute)?;
            File::open(&copy)
                .and_then(|f| {
                    owner.apply(&f)?;
                    f.sync_all()
                })
                .at(
                    "giving the owner and mode of its original to the backup copy",
                    &copy,
                )?;
            crash_point("after-backup-copy");
            writeln!(
                self.manifest,
                "{:06}\t{OWNER_MARK}{}\t{}",
                self.count,
                owner.to_manifest(),
                absolute.display()
            )
            .at("writing the backup manifest", &manifest_path)?;
        } else {
            writeln!(self.manifest, "absent\t{}", absolute.display())
                .at("writing the backup manifest", &manifest_path)?;
        }
        self.manifest
            .sync_all()
            .at("fsyncing the backup manifest", &manifest_path)?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .at("fsyncing the backup directory", &self.dir)?;
        crash_point("after-backup-manifest");
        Ok(())
    }
}

/// A backup directory not created until the first file is saved, so a run
/// that changes nothing leaves no empty directory behind.
#[derive(Debug)]
pub struct LazyBackup {
    dir: PathBuf,
    unique: bool,
    backup: Option<Backup>,
}

impl LazyBackup {
    /// A backup at `dir` (which must not exist), or with `unique` at the
    /// first free name of [`Backup::create_unique`].
    pub fn new(dir: PathBuf, unique: bool) -> Self {
        Self {
            dir,
            unique,
            backup: None,
        }
    }

    /// Saves `original`, creating the directory first if needed.
    pub fn save(&mut self, original: &Path) -> Result<(), RepairError> {
        let backup = match &mut self.backup {
            Some(backup) => backup,
            None => self.backup.insert(if self.unique {
                Backup::create_unique(&self.dir)?
            } else {
                Backup::create(&self.dir)?
            }),
        };
        backup.save(original)
    }

    /// Where the backup goes (before `-2`, `-3`, … if that name is taken).
    pub fn planned_dir(&self) -> &Path {
        &self.dir
    }

    /// The backup directory, once something was saved into it.
    pub fn created_dir(&self) -> Option<&Path> {
        self.backup.as_ref().map(Backup::dir)
    }

    /// The backup, if anything was saved.
    pub fn into_backup(self) -> Option<Backup> {
        self.backup
    }
}

/// One line of the manifest: the copy's name (or `absent`), the owner,
/// group and mode recorded for it, and the original's path.
struct ManifestEntry<'m> {
    copy: &'m str,
    owner: Option<FileOwner>,
    original: PathBuf,
}

impl<'m> ManifestEntry<'m> {
    fn parse(line: &'m str) -> Option<Self> {
        let (copy, rest) = line.split_once('\t')?;
        let (owner, original) = match rest
            .strip_prefix(OWNER_MARK)
            .and_then(|r| r.split_once('\t'))
        {
            Some((owner, path)) => (FileOwner::from_manifest(owner), path),
            None => (None, rest),
        };
        Some(Self {
            copy,
            owner,
            original: PathBuf::from(original),
        })
    }
}

/// Puts every file recorded in the backup at `dir` back, byte for byte, and
/// removes temporary files an interrupted write left beside them. Holds the
/// `.lock` of every log dir it writes into (refusing if a broker holds
/// one), unless `ignore_lock`.
/// Returns the restored paths.
pub fn restore(dir: &Path, ignore_lock: bool) -> Result<Vec<PathBuf>, RepairError> {
    let manifest_path = dir.join(MANIFEST);
    let manifest =
        fs::read_to_string(&manifest_path).at("reading the backup manifest", &manifest_path)?;
    let mut restored = Vec::new();
    let entries: Vec<ManifestEntry<'_>> =
        manifest.lines().filter_map(ManifestEntry::parse).collect();
    let mut dirs: Vec<PathBuf> = entries
        .iter()
        .filter_map(|e| e.original.parent().map(Path::to_path_buf))
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
        for entry in fs::read_dir(d).at("listing", d)?.flatten() {
            if entry.file_name().to_string_lossy().ends_with(TEMP_SUFFIX) {
                fs::remove_file(entry.path()).at("removing temporary file", &entry.path())?;
            }
        }
    }
    for entry in entries.iter().rev() {
        let original = entry.original.clone();
        if entry.copy == "absent" {
            if original.exists() {
                fs::remove_file(&original).at("removing", &original)?;
            }
        } else {
            let copy = dir.join(entry.copy);
            let owner = match entry.owner {
                Some(owner) => owner,
                None => FileOwner::of(&fs::metadata(&copy).at("reading the backup copy", &copy)?),
            };
            replace_file_as(
                &original,
                &fs::read(&copy).at("reading the backup copy", &copy)?,
                &owner,
            )?;
        }
        restored.push(original);
    }
    Ok(restored)
}
