//! A minimal pcap writer (libpcap classic format, LINKTYPE_RAW = 101:
//! each record is an IPv4 packet) for looking at emitted packets in
//! Wireshark/tshark. Each UDP payload is wrapped in an IPv4 + UDP header
//! (UDP checksum 0 = not computed, allowed for IPv4 by RFC 768).

/// LINKTYPE_RAW: the record starts with an IPv4/IPv6 header.
pub const LINKTYPE_RAW: u32 = 101;

/// Builds a pcap file in memory.
#[derive(Debug, Clone)]
pub struct PcapWriter {
    out: Vec<u8>,
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl PcapWriter {
    /// An empty capture (global header only).
    pub fn new() -> Self {
        let mut out = Vec::new();
        out.extend_from_slice(&0xA1B2_C3D4u32.to_le_bytes()); // magic, microsecond timestamps
        out.extend_from_slice(&2u16.to_le_bytes()); // version major
        out.extend_from_slice(&4u16.to_le_bytes()); // version minor
        out.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        out.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        out.extend_from_slice(&65_535u32.to_le_bytes()); // snaplen
        out.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        Self { out }
    }

    /// Append one UDP datagram from 10.0.0.1:`src_port` to 10.0.0.2:`dst_port`
    /// captured at `time_us` microseconds. Payloads longer than
    /// 65 507 bytes are truncated to fit the IPv4 total length.
    pub fn udp(&mut self, time_us: u64, src_port: u16, dst_port: u16, payload: &[u8]) {
        self.udp_tos(time_us, 0, src_port, dst_port, payload);
    }

    /// As [`PcapWriter::udp`] with `tos` in the IPv4 header's TOS byte (its two low bits
    /// the ECN field, RFC 3168 section 5: tshark's `ip.dsfield.ecn`).
    pub fn udp_tos(&mut self, time_us: u64, tos: u8, src_port: u16, dst_port: u16, payload: &[u8]) {
        let payload = payload.get(..payload.len().min(65_507)).unwrap_or(&[]);
        let udp_len = 8 + payload.len() as u16;
        let total = 20 + udp_len;
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[1] = tos;
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        ip[8] = 64; // TTL
        ip[9] = 17; // UDP
        ip[12..16].copy_from_slice(&[10, 0, 0, 1]);
        ip[16..20].copy_from_slice(&[10, 0, 0, 2]);
        let mut sum: u32 = ip
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
            .sum();
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());

        let rec_len = u32::from(total);
        self.out
            .extend_from_slice(&((time_us / 1_000_000) as u32).to_le_bytes());
        self.out
            .extend_from_slice(&((time_us % 1_000_000) as u32).to_le_bytes());
        self.out.extend_from_slice(&rec_len.to_le_bytes());
        self.out.extend_from_slice(&rec_len.to_le_bytes());
        self.out.extend_from_slice(&ip);
        self.out.extend_from_slice(&src_port.to_be_bytes());
        self.out.extend_from_slice(&dst_port.to_be_bytes());
        self.out.extend_from_slice(&udp_len.to_be_bytes());
        self.out.extend_from_slice(&0u16.to_be_bytes());
        self.out.extend_from_slice(payload);
    }

    /// Append an IP packet as captured (it already starts with its IPv4/IPv6 header),
    /// keeping at most `snap` bytes of it; the record's original length stays the
    /// packet's, so Wireshark shows it as truncated, not as short.
    pub fn raw(&mut self, time_us: u64, packet: &[u8], snap: usize) {
        let kept = &packet[..packet.len().min(snap).min(65_535)];
        let orig = u32::try_from(packet.len()).unwrap_or(u32::MAX);
        self.out
            .extend_from_slice(&((time_us / 1_000_000) as u32).to_le_bytes());
        self.out
            .extend_from_slice(&((time_us % 1_000_000) as u32).to_le_bytes());
        self.out
            .extend_from_slice(&(kept.len() as u32).to_le_bytes());
        self.out.extend_from_slice(&orig.to_le_bytes());
        self.out.extend_from_slice(kept);
    }

    /// The capture file bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_records_keep_the_snap_length_and_the_original_length() {
        let mut w = PcapWriter::new();
        let packet: Vec<u8> = (0..200u8).collect();
        w.raw(3_000_007, &packet, 96);
        w.raw(3_000_008, &packet[..40], 96);
        let b = w.into_bytes();
        assert_eq!(
            u32::from_le_bytes(b[20..24].try_into().unwrap()),
            LINKTYPE_RAW
        );
        let rec = &b[24..];
        // ts_sec, ts_usec, incl_len, orig_len, then the kept bytes.
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 7);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 96);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 200);
        assert_eq!(&rec[16..16 + 96], &packet[..96]);
        let second = &rec[16 + 96..];
        assert_eq!(u32::from_le_bytes(second[8..12].try_into().unwrap()), 40);
        assert_eq!(u32::from_le_bytes(second[12..16].try_into().unwrap()), 40);
        assert_eq!(second.len(), 16 + 40);
    }

    #[test]
    fn udp_records_carry_the_tos_byte_with_a_valid_header_checksum() {
        for tos in [0u8, 0x02, 0x03, 0xb9] {
            let mut w = PcapWriter::new();
            w.udp_tos(1, tos, 5004, 5004, b"payload");
            let b = w.into_bytes();
            let ip = &b[24 + 16..24 + 16 + 20];
            assert_eq!(ip[1], tos);
            let mut sum: u32 = ip
                .chunks_exact(2)
                .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
                .sum();
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            assert_eq!(sum, 0xffff, "checksum valid with tos {tos:#x}");
        }
    }
}
