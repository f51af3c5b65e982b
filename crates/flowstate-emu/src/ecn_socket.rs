//! UDP sockets that carry the IP header's ECN bits (RFC 3168 section 5): each received
//! datagram's TOS (IPv4) or traffic class (IPv6) byte, and a chosen byte on each sent
//! datagram.
//!
//! Linux `ip(7)` / `ipv6(7)`: with `IP_RECVTOS` / `IPV6_RECVTCLASS` set, `recvmsg`
//! returns the arriving byte as an `IP_TOS` / `IPV6_TCLASS` control message; a
//! `sendmsg` with such a control message sends that one datagram with the byte given.
//! Used by the emulator's UDP relay (the ECN field travels through the link model and
//! CE marks leave on the wire) and by the testbed's endpoints (a sender's ECT codepoint;
//! the receiver's view of marks). Through the `nix` crate's safe wrappers. A datagram
//! sent with byte 0 goes out through a plain `send_to`, as before ECN.
//!
//! On other systems nothing is read (every datagram counts as byte 0) and a non-zero
//! byte is an error: [`send_to`] says so instead of dropping the codepoint silently.

use std::io;
use std::net::{SocketAddr, UdpSocket};

/// Ask the kernel for every arriving datagram's TOS / traffic-class byte (IPv4 or IPv6
/// by the socket's own address family).
pub fn receive_traffic_class(sock: &UdpSocket) -> io::Result<()> {
    imp::receive_traffic_class(sock)
}

/// One datagram: its length, its sender, and the TOS / traffic-class byte its IP
/// header carried (0 when the kernel gave none: [`receive_traffic_class`] not set).
/// Errors as `UdpSocket::recv_from` (a read timeout is `WouldBlock` / `TimedOut`).
pub fn recv_from(sock: &UdpSocket, buf: &mut [u8]) -> io::Result<(usize, SocketAddr, u8)> {
    imp::recv_from(sock, buf)
}

/// Send `buf` to `addr` with TOS / traffic class `traffic_class` for this datagram only
/// (the socket's own setting, 0 by default, applies to the others).
pub fn send_to(
    sock: &UdpSocket,
    buf: &[u8],
    addr: SocketAddr,
    traffic_class: u8,
) -> io::Result<usize> {
    if traffic_class == 0 {
        return sock.send_to(buf, addr);
    }
    imp::send_with(sock, buf, addr, traffic_class)
}

#[cfg(target_os = "linux")]
mod imp {
    use nix::sys::socket::{
        recvmsg, sendmsg, setsockopt, sockopt, ControlMessage, ControlMessageOwned, MsgFlags,
        SockaddrIn, SockaddrIn6, SockaddrStorage,
    };
    use std::io::{self, IoSlice, IoSliceMut};
    use std::net::{SocketAddr, UdpSocket};
    use std::os::fd::AsRawFd;

    pub(super) fn receive_traffic_class(sock: &UdpSocket) -> io::Result<()> {
        match sock.local_addr()? {
            SocketAddr::V4(_) => setsockopt(sock, sockopt::IpRecvTos, &true),
            SocketAddr::V6(_) => setsockopt(sock, sockopt::Ipv6RecvTClass, &true),
        }
        .map_err(io::Error::from)
    }

    pub(super) fn recv_from(
        sock: &UdpSocket,
        buf: &mut [u8],
    ) -> io::Result<(usize, SocketAddr, u8)> {
        // Room for either control message (an int covers both).
        let mut space = nix::cmsg_space!(i32);
        let mut iov = [IoSliceMut::new(buf)];
        let msg = recvmsg::<SockaddrStorage>(
            sock.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::empty(),
        )
        .map_err(io::Error::from)?;
        let mut traffic_class = 0u8;
        for c in msg.cmsgs().map_err(io::Error::from)? {
            match c {
                ControlMessageOwned::Ipv4Tos(t) => traffic_class = t,
                ControlMessageOwned::Ipv6TClass(t) => traffic_class = (t & 0xff) as u8,
                _ => {}
            }
        }
        let from = msg
            .address
            .as_ref()
            .and_then(to_std)
            .ok_or_else(|| io::Error::other("datagram without a sender address"))?;
        Ok((msg.bytes, from, traffic_class))
    }

    fn to_std(a: &SockaddrStorage) -> Option<SocketAddr> {
        if let Some(v4) = a.as_sockaddr_in() {
            return Some(SocketAddr::V4((*v4).into()));
        }
        a.as_sockaddr_in6().map(|v6| SocketAddr::V6((*v6).into()))
    }

    pub(super) fn send_with(
        sock: &UdpSocket,
        buf: &[u8],
        addr: SocketAddr,
        traffic_class: u8,
    ) -> io::Result<usize> {
        let iov = [IoSlice::new(buf)];
        let fd = sock.as_raw_fd();
        let sent = match addr {
            SocketAddr::V4(a) => {
                let cmsg = [ControlMessage::Ipv4Tos(&traffic_class)];
                sendmsg(
                    fd,
                    &iov,
                    &cmsg,
                    MsgFlags::empty(),
                    Some(&SockaddrIn::from(a)),
                )
            }
            SocketAddr::V6(a) => {
                let tc = i32::from(traffic_class);
                let cmsg = [ControlMessage::Ipv6TClass(&tc)];
                sendmsg(
                    fd,
                    &iov,
                    &cmsg,
                    MsgFlags::empty(),
                    Some(&SockaddrIn6::from(a)),
                )
            }
        };
        sent.map_err(io::Error::from)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io;
    use std::net::{SocketAddr, UdpSocket};

    pub(super) fn receive_traffic_class(_sock: &UdpSocket) -> io::Result<()> {
        Ok(())
    }

    pub(super) fn recv_from(
        sock: &UdpSocket,
        buf: &mut [u8],
    ) -> io::Result<(usize, SocketAddr, u8)> {
        sock.recv_from(buf).map(|(n, a)| (n, a, 0))
    }

    pub(super) fn send_with(
        _sock: &UdpSocket,
        _buf: &[u8],
        _addr: SocketAddr,
        traffic_class: u8,
    ) -> io::Result<usize> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("sending with TOS {traffic_class:#04x} (ECN) needs Linux"),
        ))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn pair(any: &str) -> (UdpSocket, UdpSocket) {
        let a = UdpSocket::bind(any).expect("bind");
        let b = UdpSocket::bind(any).expect("bind");
        b.set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        receive_traffic_class(&b).expect("IP_RECVTOS");
        (a, b)
    }

    /// Every codepoint (with a DSCP above it) arrives as sent, on IPv4 and IPv6
    /// loopback; a plain send arrives as 0.
    #[test]
    fn the_byte_sent_is_the_byte_received() {
        for any in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(probe) = UdpSocket::bind(any) else {
                continue; // no IPv6 loopback here
            };
            drop(probe);
            let (a, b) = pair(any);
            let to = b.local_addr().expect("addr");
            let mut buf = [0u8; 64];
            for tc in [0x00u8, 0x01, 0x02, 0x03, 0xb8 | 0x02] {
                send_to(&a, b"hello", to, tc).expect("send");
                let (n, from, got) = recv_from(&b, &mut buf).expect("recv");
                assert_eq!((&buf[..n], got), (&b"hello"[..], tc), "{any} tc {tc:#x}");
                assert_eq!(from, a.local_addr().expect("addr"));
            }
        }
    }

    #[test]
    fn without_the_option_the_byte_reads_as_zero() {
        let a = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let b = UdpSocket::bind("127.0.0.1:0").expect("bind");
        b.set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        send_to(&a, b"x", b.local_addr().expect("addr"), 0x02).expect("send");
        let mut buf = [0u8; 8];
        assert_eq!(recv_from(&b, &mut buf).expect("recv").2, 0);
    }
}
