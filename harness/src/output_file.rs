//! Files the harness names itself inside an output directory (`--plot`'s SVGs, `--qlog`'s
//! sqlog files) are replaced, never written through: a symlink or a hard link that happens to
//! sit under such a name (to a scenario, to a result file) keeps its target as it was.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Creates `path` as a new file, first removing whatever directory entry has that name (the
/// entry only: a symlink's target and a hard link's other names are untouched).
pub fn create_replacing(path: &Path) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "a directory has this name",
            ));
        }
        Ok(_) => std::fs::remove_file(path)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// [`create_replacing`], then writes `contents`.
pub fn write_replacing(path: &Path, contents: impl AsRef<[u8]>) -> io::Result<()> {
    use std::io::Write as _;
    create_replacing(path)?.write_all(contents.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_and_a_hard_link_keep_their_targets() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("input"), "mine").unwrap();
        std::os::unix::fs::symlink(d.join("input"), d.join("soft.svg")).unwrap();
        std::fs::hard_link(d.join("input"), d.join("hard.svg")).unwrap();
        write_replacing(&d.join("soft.svg"), "plot").unwrap();
        write_replacing(&d.join("hard.svg"), "plot").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("input")).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(d.join("soft.svg")).unwrap(), "plot");
        assert_eq!(std::fs::read_to_string(d.join("hard.svg")).unwrap(), "plot");
    }
}
