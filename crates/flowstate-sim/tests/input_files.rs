//! Scenario files named by path are read as trace files are (crate::input_file): a
//! FIFO or a device is refused at once with one line naming the file, never read
//! until memory runs out or a writer comes.

use flowstate_sim::run::load;
use std::path::{Path, PathBuf};

/// `f()` on another thread; `None` if it has not returned within 10 s.
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(10)).ok()
}

/// The one-line error of loading `path` as a scenario (within 10 s).
fn load_error(path: PathBuf) -> String {
    within_10s(move || load(&path).map(|_| ()).map_err(|e| e.to_string()))
        .expect("returns at once")
        .expect_err("refused")
}

#[cfg(unix)]
#[test]
fn a_scenario_that_is_a_fifo_or_a_device_is_refused() {
    let fifo = std::env::temp_dir().join(format!("flowstate-scenario-{}.toml", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = load_error(fifo.clone());
        let _ = std::fs::remove_file(&fifo);
        assert_eq!(
            e,
            format!(
                "{}: is a FIFO; a scenario must be a regular file",
                fifo.display()
            )
        );
    }
    let e = load_error(Path::new("/dev/zero").to_path_buf());
    assert_eq!(
        e,
        "/dev/zero: is a device; a scenario must be a regular file"
    );
}

#[test]
fn a_missing_scenario_is_one_line() {
    let e = load_error(PathBuf::from("no/such/scenario.toml"));
    assert_eq!(e, "no/such/scenario.toml: no such file");
}
