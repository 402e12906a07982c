//! Writing `out0.npy, out1.npy, ...` so that no partial file is ever left: each is written
//! to a temporary name in the same directory, and all are renamed into place only once
//! every one is complete (and Ctrl-C was not pressed meanwhile).

use crate::common::CliError;
use std::path::{Path, PathBuf};
use xla::Literal;

/// Writes `leaves` as `dir/out{i}.npy`; on any failure or an interrupt, removes the
/// temporaries and leaves `dir` as it was.
pub fn write_all(dir: &Path, leaves: &[Literal]) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::new(format!("{}: cannot create: {e}", dir.display())))?;
    let mut written: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(leaves.len());
    let result = write_temporaries(dir, leaves, &mut written);
    if result.is_err() {
        for (tmp, _) in &written {
            let _ = std::fs::remove_file(tmp);
        }
        return result;
    }
    for (tmp, path) in &written {
        std::fs::rename(tmp, path).map_err(|e| {
            CliError::new(format!("{}: cannot rename into place: {e}", path.display()))
        })?;
    }
    Ok(())
}

fn write_temporaries(
    dir: &Path,
    leaves: &[Literal],
    written: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), CliError> {
    let pid = std::process::id();
    for (i, leaf) in leaves.iter().enumerate() {
        let path = dir.join(format!("out{i}.npy"));
        let tmp = dir.join(format!(".out{i}.npy.{pid}.partial"));
        written.push((tmp.clone(), path.clone()));
        leaf.write_npy(&tmp)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        if crate::interrupt::interrupted() {
            let mut err = CliError::new(format!(
                "{}: interrupted (Ctrl-C) while writing outputs; none written",
                dir.display()
            ));
            err.code = crate::interrupt::INTERRUPTED;
            return Err(err);
        }
    }
    Ok(())
}
