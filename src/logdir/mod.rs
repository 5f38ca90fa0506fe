//! From file names to segments, partitions and log dirs; the one place that
//! maps files. Read-only.

pub mod checkpoint_file;
pub mod chunked;
pub mod error;
pub mod file_name;
pub mod file_type;
pub mod identify;
pub mod lock;
pub mod log_dir;
pub mod mapped;
pub mod mapped_walk;
pub mod page_cache;
pub mod partition;
pub mod properties_file;
pub mod salvage_walk;
pub mod segment;
pub mod target;

pub use error::LogDirError;
pub use file_name::FileKind;
pub use log_dir::LogDir;
pub use mapped::{CachePolicy, MappedFile};
pub use page_cache::PageCacheGuard;
pub use partition::Partition;
pub use segment::Segment;
