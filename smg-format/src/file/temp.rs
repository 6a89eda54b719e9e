//! The temporary files of atomic writes, named after their target and their writer's
//! process (`.NAME.PID.RANDOM.smg-tmp`), so that the one a killed writer left behind
//! is found and removed by the next writer of the same file.

use std::path::Path;

/// The end of every temporary file's name.
pub(super) const SUFFIX: &str = ".smg-tmp";

/// The start of the temporary file's name for a target named `name`, in this process.
pub(super) fn prefix(name: &str) -> String {
    format!(".{name}.{}.", std::process::id())
}

/// Remove, in `dir`, the temporary files of writers of `name` that are no longer
/// running. Best effort: what cannot be read or removed is left.
pub(super) fn sweep(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let head = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&head))
            .and_then(|r| r.strip_suffix(SUFFIX))
        else {
            continue;
        };
        // Exactly PID.RANDOM: a longer rest belongs to another file named NAME.xyz.
        let Some((pid, random)) = rest.split_once('.') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if !random.contains('.') && pid != std::process::id() && !running(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` runs. Where that cannot be told, it is taken to run, so
/// that nothing is removed.
fn running(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_writers_temp_file_goes_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        // No process has this id (Linux caps ids far below it).
        let dead = u32::MAX - 7;
        let live = std::process::id();
        let names = [
            format!(".m.smg.{dead}.abc123{SUFFIX}"),
            format!(".m.smg.{live}.abc123{SUFFIX}"),
            format!(".m.smg.1.{dead}.abc123{SUFFIX}"),
            format!(".other.smg.{dead}.abc123{SUFFIX}"),
            "m.smg".to_string(),
        ];
        for n in &names {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        sweep(dir.path(), "m.smg");
        let left: Vec<bool> = names.iter().map(|n| dir.path().join(n).exists()).collect();
        let gone_on_linux = !cfg!(target_os = "linux");
        assert_eq!(left, [gone_on_linux, true, true, true, true]);
    }
}
