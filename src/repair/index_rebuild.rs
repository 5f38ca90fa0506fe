//! Writes the index files a `rebuild-index` plan marks for writing, each
//! backed up first and replaced atomically.

use std::sync::Mutex;

use crate::inspect::index::plan::{IndexAction, RebuiltIndexes, SegmentIndexPlan};

use super::backup::{Backup, LazyBackup};
use super::error::RepairError;
use super::write::replace_file;

/// Writes planned index files, from any number of threads.
#[derive(Debug)]
pub struct IndexWriter {
    backup: Option<Mutex<LazyBackup>>,
}

impl IndexWriter {
    /// A writer that saves every file it replaces into `backup` (`None`:
    /// no copies kept), created when the first file is saved.
    pub fn new(backup: Option<LazyBackup>) -> Self {
        Self {
            backup: backup.map(Mutex::new),
        }
    }

    /// Writes the files of `plan` whose action is [`IndexAction::Write`],
    /// from `rebuilt`, backing each up first.
    pub fn apply(
        &self,
        plan: &SegmentIndexPlan,
        rebuilt: &RebuiltIndexes,
    ) -> Result<(), RepairError> {
        for (file, bytes) in plan.files.iter().zip(rebuilt) {
            if file.action != IndexAction::Write {
                continue;
            }
            if let Some(backup) = &self.backup {
                backup
                    .lock()
                    .map_err(|_| {
                        RepairError::Refused("a backup write failed on another thread".into())
                    })?
                    .save(&file.path)?;
            }
            replace_file(&file.path, bytes)?;
        }
        Ok(())
    }

    /// The backup, once every write is done (`None` when nothing was saved).
    pub fn into_backup(self) -> Result<Option<Backup>, RepairError> {
        let Some(lazy) = self.backup else {
            return Ok(None);
        };
        let lazy = lazy
            .into_inner()
            .map_err(|_| RepairError::Refused("a backup write failed".into()))?;
        Ok(lazy.into_backup())
    }
}
