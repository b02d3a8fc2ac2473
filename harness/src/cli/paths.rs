//! Where a command's outputs really land, checked before anything runs: no output may
//! overwrite an input, a result or another output.
//!
//! Paths are compared as the files they will be written to, not as spellings: `out.json` and
//! `./out.json` are one file; so are a symlink (even a dangling one: writing through it
//! creates its target) and its target, and two hard links. Output directories count with the
//! files the harness writes into them (`--plot`'s SVGs, `--qlog`'s sqlog files, the shard
//! files of a sweep's `--out`), so `--json plots/goodput-a.svg --plot plots` is refused too.

use std::path::{Component, Path, PathBuf};

use crate::error::{HarnessError, Result};

/// Most symlinks followed to find where a path is written (Linux's own limit, `ELOOP`).
const MAX_SYMLINK_HOPS: usize = 40;

/// `path` with its longest existing ancestor canonicalized and the rest appended, `.` and
/// `..` resolved lexically in that rest: `out.json`, `./out.json` and `d/../out.json` are one
/// path, whether or not the file or its directories exist yet.
fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |cwd| cwd.join(path))
    };
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut out = canonical;
            for component in rest.iter().rev() {
                match component {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    other => out.push(other),
                }
            }
            return out;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// The file that writing `path` writes: symlinks followed, dangling ones included (opening a
/// dangling symlink for writing creates its target).
fn write_target(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        let Ok(target) = std::fs::read_link(&path) else {
            break;
        };
        path = match path.parent() {
            Some(parent) => parent.join(target),
            None => target,
        };
    }
    resolved(&path)
}

/// The device and inode of the file `path` names (through symlinks), where it exists.
#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// What a path names on the file system: the file it writes, and its device and inode where
/// it exists.
struct FileKey {
    target: PathBuf,
    inode: Option<(u64, u64)>,
}

impl FileKey {
    fn of(path: &Path) -> Self {
        Self {
            target: write_target(path),
            inode: inode(path),
        }
    }

    /// The same file: one target path, or one device and inode (a hard link).
    fn same_file(&self, other: &Self) -> bool {
        self.target == other.target || (self.inode.is_some() && self.inode == other.inode)
    }
}

/// A directory the harness writes files into, and which names there are its files.
#[derive(Clone, Copy)]
pub(super) struct OutputDir<'a> {
    /// The option that named it (`--plot`).
    pub(super) flag: &'a str,
    /// The directory.
    pub(super) dir: &'a Path,
    /// The files it writes there, for messages (`its plots, *.svg`).
    pub(super) writes: &'static str,
    /// Whether a file name there is (or may become) one of its files.
    pub(super) owns: fn(&str) -> bool,
}

impl OutputDir<'_> {
    /// `--plot DIR`: `goodput-*.svg`, `cwnd-*.svg`.
    pub(super) fn plot(dir: &Path) -> OutputDir<'_> {
        OutputDir {
            flag: "--plot",
            dir,
            writes: "its plots, *.svg",
            owns: |name| name.ends_with(".svg"),
        }
    }

    /// `--qlog DIR`: one `.sqlog` per connection.
    pub(super) fn qlog(dir: &Path) -> OutputDir<'_> {
        OutputDir {
            flag: "--qlog",
            dir,
            writes: "its qlog files, *.sqlog",
            owns: |name| name.ends_with(".sqlog"),
        }
    }

    /// A sweep's `--out DIR`: every shard's result file (`shard-I-of-N.jsonl`), whichever
    /// shard this process runs, since the other shards write theirs there too.
    pub(super) fn sweep_out(dir: &Path) -> OutputDir<'_> {
        OutputDir {
            flag: "--out",
            dir,
            writes: "the sweep's result files, shard-I-of-N.jsonl",
            owns: crate::batch::result_file::is_shard_file_name,
        }
    }
}

/// Whether `path` holds a harness result file (its first bytes are a header line's).
fn holds_results(path: &Path) -> bool {
    use std::io::Read as _;
    const HEADER_START: &[u8] = b"{\"kind\":\"header\"";
    let mut start = [0u8; HEADER_START.len()];
    if !path.is_file() {
        return false;
    }
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|()| start == HEADER_START)
}

/// Refuses, before anything is written, every output that would overwrite something: two
/// outputs (files or directories) naming one file, an output naming an input (the scenario
/// or trace file, a result file being merged, adopted or resumed) or an existing result file,
/// a file output that is one of the files an output directory writes, and an input that is
/// one. Each file entry is (flag, path).
pub(super) fn check_collisions(
    files: &[(&str, &Path)],
    dirs: &[OutputDir<'_>],
    inputs: &[(&str, &Path)],
) -> Result<()> {
    let keyed = |entries: &[(&str, &Path)]| -> Vec<(String, PathBuf, FileKey)> {
        entries
            .iter()
            .map(|&(flag, path)| (flag.to_owned(), path.to_path_buf(), FileKey::of(path)))
            .collect()
    };
    let mut outputs = keyed(files);
    outputs.extend(
        dirs.iter()
            .map(|d| (d.flag.to_owned(), d.dir.to_path_buf(), FileKey::of(d.dir))),
    );
    let inputs = keyed(inputs);
    for (i, (flag, path, key)) in outputs.iter().enumerate() {
        // Two output directories may be one: each writes only its own kind of file there.
        let earlier = &outputs[..i.min(files.len())];
        if let Some((other, _, _)) = earlier.iter().find(|(_, _, k)| k.same_file(key)) {
            return Err(HarnessError::bad_input(format!(
                "{other} and {flag} both name `{}`: one would overwrite the other; give each its own path",
                path.display()
            )));
        }
        if let Some((input_flag, input, _)) = inputs.iter().find(|(_, _, k)| k.same_file(key)) {
            return Err(HarnessError::bad_input(format!(
                "{flag} `{}` is an input ({input_flag} `{}`): writing it would destroy it; choose another path",
                path.display(),
                input.display()
            )));
        }
    }
    // A result file already under a name an output directory writes (copied or linked there)
    // would be replaced.
    for dir in dirs.iter().filter(|d| d.flag != "--out") {
        let Ok(entries) = std::fs::read_dir(dir.dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_str().is_some_and(dir.owns) && holds_results(&entry.path()) {
                return Err(HarnessError::bad_input(format!(
                    "{} `{}` holds a harness result file under a name it writes (`{}`): results \
                     are never overwritten; move it, or choose another directory",
                    dir.flag,
                    dir.dir.display(),
                    entry.path().display()
                )));
            }
        }
    }
    for (flag, path) in files {
        if holds_results(path) {
            return Err(HarnessError::bad_input(format!(
                "{flag} `{}` is a harness result file: results are never overwritten; choose another path",
                path.display()
            )));
        }
    }
    let owner = |key: &FileKey| {
        let (parent, name) = (key.target.parent()?, key.target.file_name()?.to_str()?);
        dirs.iter()
            .find(|d| resolved(d.dir) == parent && (d.owns)(name))
    };
    for (flag, path, key) in &outputs[..files.len()] {
        if let Some(dir) = owner(key) {
            return Err(HarnessError::bad_input(format!(
                "{flag} `{}` is one of the files {} `{}` writes ({}): one would overwrite the other; choose another name or directory",
                path.display(),
                dir.flag,
                dir.dir.display(),
                dir.writes
            )));
        }
    }
    for (flag, path, key) in &inputs {
        // A sweep writes one file in --out, its own shard's, which is already an input
        // (resumed, not overwritten); other shards' files there are other processes'.
        if let Some(dir) = owner(key).filter(|d| d.flag != "--out") {
            return Err(HarnessError::bad_input(format!(
                "{} `{}` would overwrite the input {flag} `{}` ({}): move the input or choose another directory",
                dir.flag,
                dir.dir.display(),
                path.display(),
                dir.writes
            )));
        }
    }
    Ok(())
}

/// Creates every output file and directory (flag, path) before any run starts, so that a path
/// that cannot be written fails now rather than after hours of runs. If one cannot be made,
/// those this call created are removed again: a refused command leaves no file behind.
pub(super) fn create_outputs(files: &[(&str, &Path)], dirs: &[(&str, &Path)]) -> Result<()> {
    let mut created: Vec<(PathBuf, bool)> = Vec::new();
    let result = (|| {
        for &(flag, file) in files {
            if !file.exists() {
                created.push((file.to_path_buf(), false));
            }
            check_file(flag, file)?;
        }
        for &(flag, dir) in dirs {
            if let Some(top) = first_missing(dir) {
                created.push((top, true));
            }
            check_dir(flag, dir)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (path, is_dir) in created.iter().rev() {
            let _ = if *is_dir {
                std::fs::remove_dir_all(path)
            } else {
                std::fs::remove_file(path)
            };
        }
    }
    result
}

/// The outermost directory of `path` that does not exist yet (what `create_dir_all` makes).
fn first_missing(path: &Path) -> Option<PathBuf> {
    if path.exists() {
        return None;
    }
    let mut top = path.to_path_buf();
    while let Some(parent) = top.parent() {
        if parent.as_os_str().is_empty() || parent.exists() {
            break;
        }
        top = parent.to_path_buf();
    }
    Some(top)
}

/// Checks that `path` (given with `flag`) can be written (creating nothing but the file).
pub(super) fn check_file(flag: &str, path: &Path) -> Result<()> {
    if crate::input_file::is_pipe(path) {
        return Err(HarnessError::bad_input(format!(
            "{flag} `{}` is a FIFO or a socket: writing it would block until someone reads; give a file path",
            path.display()
        )));
    }
    if path.is_dir() {
        return Err(HarnessError::bad_input(format!(
            "{flag} `{}` is a directory: give a file path",
            path.display()
        )));
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|e| {
            HarnessError::bad_input(format!("{flag}: cannot write `{}`: {e}", path.display()))
        })
}

/// Creates `dir` (given with `flag`) and checks that files can be created in it.
pub(super) fn check_dir(flag: &str, dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(HarnessError::bad_input(format!(
            "{flag} `{}` exists and is not a directory: give a directory",
            dir.display()
        )));
    }
    let cannot = |e: std::io::Error| {
        HarnessError::bad_input(format!("{flag}: cannot write in `{}`: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let test_file = dir.join(".harness-write-test");
    std::fs::write(&test_file, b"").map_err(cannot)?;
    let _ = std::fs::remove_file(test_file);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_paths_ignore_spelling_for_files_that_do_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        assert_eq!(
            resolved(&base.join("new/./a/../out.json")),
            resolved(&base.join("new/out.json"))
        );
    }

    #[test]
    fn a_dangling_symlink_is_its_target() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("x.json", dir.path().join("y.csv")).unwrap();
        assert_eq!(
            write_target(&dir.path().join("y.csv")),
            resolved(&dir.path().join("x.json"))
        );
    }

    #[test]
    fn a_symlink_loop_ends() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let _ = write_target(&dir.path().join("a"));
    }
}
