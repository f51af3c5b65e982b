//! Reading a file a user names (a scenario, a trace) in bounded time and memory: only a
//! regular file is read (a FIFO, a device, a socket or a folder is refused before it is
//! opened, and the file is opened without blocking, so a FIFO put in its place between
//! the check and the open cannot block either), and at most a limit of bytes, counted
//! on what is read rather than on the size the file system reports (0 for `/proc`
//! files, devices and pipes).

use std::path::Path;

/// Largest scenario file read (bytes): 64 MiB, a thousand times the largest scenario
/// of the catalogue; a scenario of 100,000 flows written out one by one is about 20 MB.
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;

/// What a file that is not a regular file is, for the error.
fn file_type_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

fn not_regular(t: std::fs::FileType, what: &str) -> String {
    format!("is {}; {what} must be a regular file", file_type_name(t))
}

/// Open for reading without blocking: a FIFO swapped in after the metadata check must
/// not wait for a writer (`O_NONBLOCK`; regular files ignore it).
pub(crate) fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "cannot read: permission denied".to_string(),
        _ => format!("cannot read: {e}"),
    }
}

/// The UTF-8 text of the regular file `path`, at most `limit` bytes; `what` names the
/// file in errors (`"a trace"`). The error is one line without the path (the caller
/// names it): `no such file`, `is a FIFO; a trace must be a regular file`, `larger
/// than the 67108864-byte limit of a trace`, `not UTF-8 text`.
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    use std::io::Read;
    let io = |e: std::io::Error| io_message(&e);
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type(), what));
    }
    let file = open_nonblocking(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type(), what));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than the {limit}-byte limit of {what}"));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh path in the temporary folder for this test process.
    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("flowstate-input-{}-{name}", std::process::id()))
    }

    /// `f()` on another thread; `None` if it has not returned within 10 s.
    fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(std::time::Duration::from_secs(10)).ok()
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let path = temp_path("fifo");
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("no mkfifo here: skipped");
            return;
        }
        let p = path.clone();
        let read = within_10s(move || read_text(&p, 100, "a trace"));
        // A FIFO swapped in after the metadata check: the open itself must not block.
        let p = path.clone();
        let opened = within_10s(move || {
            open_nonblocking(&p).map(|f| f.metadata().map(|m| m.file_type().is_file()))
        });
        let _ = std::fs::remove_file(&path);
        let e = read.expect("returns at once").unwrap_err();
        assert_eq!(e, "is a FIFO; a trace must be a regular file");
        let is_file = opened
            .expect("opens at once")
            .expect("opens")
            .expect("metadata");
        assert!(!is_file);
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_folders_are_refused_before_reading() {
        let e = within_10s(|| read_text(Path::new("/dev/zero"), 1 << 30, "a scenario"))
            .expect("returns at once")
            .unwrap_err();
        assert_eq!(e, "is a device; a scenario must be a regular file");
        let e = read_text(&std::env::temp_dir(), 100, "a trace").unwrap_err();
        assert_eq!(e, "is a folder; a trace must be a regular file");
        let e = read_text(&temp_path("missing"), 100, "a trace").unwrap_err();
        assert_eq!(e, "no such file");
    }

    #[test]
    fn the_byte_limit_counts_what_is_read() {
        let path = temp_path("limit");
        std::fs::write(&path, "1\n2\n3\n4\n5\n").expect("write");
        let at_limit = read_text(&path, 10, "a trace");
        let over = read_text(&path, 9, "a trace");
        let _ = std::fs::remove_file(&path);
        assert_eq!(at_limit.expect("10 bytes"), "1\n2\n3\n4\n5\n");
        assert_eq!(over.unwrap_err(), "larger than the 9-byte limit of a trace");
        // A regular file whose reported size (0) is not its length.
        let proc_file = Path::new("/proc/self/status");
        if std::fs::metadata(proc_file).is_ok_and(|m| m.is_file() && m.len() == 0) {
            let e = read_text(proc_file, 16, "a trace").unwrap_err();
            assert_eq!(e, "larger than the 16-byte limit of a trace");
        }
    }

    #[test]
    fn text_must_be_utf8() {
        let path = temp_path("latin1");
        std::fs::write(&path, b"caf\xe9\n").expect("write");
        let e = read_text(&path, 100, "a trace");
        let _ = std::fs::remove_file(&path);
        assert_eq!(e.unwrap_err(), "not UTF-8 text");
    }
}
