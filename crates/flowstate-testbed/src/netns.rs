//! Sockets bound inside named network namespaces, so that the testbed's two sides can
//! exchange their packets over a path the host builds between two namespaces (veth or
//! TUN devices, a kernel `tbf` bottleneck, kernel TCP cross traffic) instead of through
//! the flowstate-emu emulator on loopback.
//!
//! A namespace is named as `ip netns add NAME` names it (the bind mount
//! `/run/netns/NAME`) or by an absolute path to a namespace file. setns(2) moves only
//! the calling thread, so each socket is made on a short-lived thread of its own: the
//! caller's namespace never changes, and a socket stays in the namespace it was made in
//! whichever thread uses it later.

use flowstate_emu::netns::in_netns;
use std::io;
use std::net::{IpAddr, SocketAddr, UdpSocket};

/// One side of the testbed inside a network namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetnsSide {
    /// `ip netns` name, or an absolute path to a namespace file.
    pub netns: String,
    /// The address the side's socket binds to (an address of that namespace); the
    /// other side sends to it.
    pub ip: IpAddr,
}

/// Both sides, each in its own namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetnsSides {
    pub sender: NetnsSide,
    pub receiver: NetnsSide,
}

/// A UDP socket bound to `side.ip` (port chosen by the kernel) inside `side.netns`.
/// Errors name the namespace file or the address that failed.
pub fn bind_udp_in(side: &NetnsSide) -> io::Result<UdpSocket> {
    let addr = SocketAddr::new(side.ip, 0);
    in_netns(&side.netns, || {
        UdpSocket::bind(addr)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot bind {addr}: {e}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_namespace_is_an_error_naming_its_file() {
        let side = NetnsSide {
            netns: "flowstate-no-such-namespace".into(),
            ip: [127, 0, 0, 1].into(),
        };
        let e = bind_udp_in(&side).expect_err("no such namespace");
        assert!(
            e.to_string()
                .contains("/run/netns/flowstate-no-such-namespace"),
            "{e}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_own_namespace_binds_and_the_caller_stays_where_it_was() {
        // /proc/self/ns/net of the test process: entering it needs CAP_SYS_ADMIN;
        // without root the error must say so instead of panicking.
        let side = NetnsSide {
            netns: "/proc/self/ns/net".into(),
            ip: [127, 0, 0, 1].into(),
        };
        match bind_udp_in(&side) {
            Ok(sock) => {
                let addr = sock.local_addr().expect("bound");
                assert_eq!(addr.ip(), side.ip);
                assert_ne!(addr.port(), 0);
            }
            Err(e) => assert!(e.to_string().contains("needs root"), "{e}"),
        }
        // This thread never left its namespace: loopback still binds here.
        UdpSocket::bind("127.0.0.1:0").expect("caller's namespace unchanged");
    }
}
