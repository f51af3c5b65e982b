//! Entering a named network namespace from one thread.
//!
//! A namespace is named as `ip netns add NAME` names it (the bind mount
//! `/run/netns/NAME`) or by an absolute path to a namespace file. setns(2) moves only
//! the calling thread, so callers do the namespace-bound step (bind a socket, open a
//! TUN device) on a short-lived thread of its own: the caller's namespace never
//! changes, and a socket or device stays in the namespace it was made in whichever
//! thread uses it later.

use std::io;
use std::path::{Path, PathBuf};

/// The namespace file of `name`: an absolute path as given, else `/run/netns/NAME`.
pub fn netns_path(name: &str) -> PathBuf {
    if name.starts_with('/') {
        PathBuf::from(name)
    } else {
        PathBuf::from("/run/netns").join(name)
    }
}

/// Run `f` on a new thread inside the network namespace `name` and return its result;
/// the calling thread stays where it is. Errors name the namespace file.
pub fn in_netns<T: Send>(name: &str, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
    let path = netns_path(name);
    std::thread::scope(|s| {
        s.spawn(|| -> io::Result<T> {
            enter(&path)?;
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the namespace thread panicked (a bug)")))
    })
}

/// Move the calling thread into the network namespace at `path`.
#[cfg(target_os = "linux")]
pub fn enter(path: &Path) -> io::Result<()> {
    use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};
    use std::os::fd::AsFd;
    let file = std::fs::File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display())))?;
    move_into_link_name_space(file.as_fd(), Some(LinkNameSpaceType::Network)).map_err(|e| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "cannot enter the network namespace {} ({e}; it needs root)",
                path.display()
            ),
        )
    })
}

#[cfg(not(target_os = "linux"))]
pub fn enter(_path: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "network namespaces exist on Linux only",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_the_ip_netns_mount_and_paths_stay() {
        assert_eq!(netns_path("fsk-a"), PathBuf::from("/run/netns/fsk-a"));
        assert_eq!(
            netns_path("/proc/1/ns/net"),
            PathBuf::from("/proc/1/ns/net")
        );
    }

    #[test]
    fn a_missing_namespace_is_an_error_naming_its_file() {
        let e = in_netns("flowstate-no-such-namespace", || Ok(())).expect_err("no such namespace");
        assert!(
            e.to_string()
                .contains("/run/netns/flowstate-no-such-namespace"),
            "{e}"
        );
    }
}
