//! Atomic file writes: the new contents go to a temporary file in the same directory, are
//! flushed to disk (`fsync`), and the file is renamed over the target only when complete;
//! then the directory is flushed so the rename itself is durable. A failure leaves the
//! target untouched and removes the temporary file; a process killed mid-write (tested by
//! `tests/checkpoint_kill.rs`, `kill -9` at random points) leaves the previous file intact
//! and at worst a stale `.tmp-PID-N-NAME` beside it.

use super::error::{Result, TrainError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh temporary path next to `path` that keeps its file name (and so its extension).
fn temp_path(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        TrainError::invalid("write", format!("{} is not a file path", path.display()))
    })?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(".tmp-{}-{n}-{}", std::process::id(), name.to_string_lossy());
    Ok(path.with_file_name(tmp))
}

/// Runs `write` on a temporary path next to `path`, then renames it to `path`. On any error
/// the temporary file is removed and `path` keeps its old contents (or stays absent).
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    let tmp = temp_path(path)?;
    let result =
        write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| TrainError::io(path, e)));
    if result.is_err() {
        // Best effort: the file may not exist if `write` failed before creating it.
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    sync_parent(path)
}

/// Flushes the directory entry of `path` (the rename) to disk, so after a crash or power
/// loss the directory names either the old file or the new one, never neither.
fn sync_parent(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = std::fs::File::open(parent).map_err(|e| TrainError::io(parent, e))?;
        dir.sync_all().map_err(|e| TrainError::io(parent, e))?;
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically (see the module docs), flushing them to disk first.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |tmp| {
        let mut f = std::fs::File::create(tmp).map_err(|e| TrainError::io(path, e))?;
        f.write_all(bytes).map_err(|e| TrainError::io(path, e))?;
        f.sync_all().map_err(|e| TrainError::io(path, e))
    })
}
