//! Proportional Rate Reduction (RFC 6937), the fast-recovery window of a SACK sender in
//! Linux (since 3.2) and ns-3 (`TcpPrrRecovery`, its default since 3.30): during
//! recovery cwnd follows the data the receiver gets, so the window falls to ssthresh
//! over one round trip instead of RFC 6675's halt until the pipe drains below ssthresh.
//! The reduction bound is PRR-SSRB, the RFC's recommendation (section 6) and the
//! default of both.

use crate::units::DataSize;

/// The state of one recovery episode (RFC 6937 section 3.1, "Initialization on
/// entering recovery").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prr {
    /// RecoverFS: the flight when recovery began (snd.nxt - snd.una).
    recover_fs: DataSize,
    /// prr_delivered: bytes delivered to the receiver since recovery began.
    delivered: DataSize,
    /// prr_out: bytes sent since recovery began.
    out: DataSize,
}

impl Prr {
    /// A recovery that began with `flight` bytes outstanding.
    pub fn start(flight: DataSize) -> Self {
        Prr {
            recover_fs: flight.max(DataSize::bytes(1)),
            delivered: DataSize::ZERO,
            out: DataSize::ZERO,
        }
    }

    /// "On any data transmission or retransmission": prr_out += data sent.
    pub fn on_sent(&mut self, bytes: DataSize) {
        self.out += bytes;
    }

    /// "On every ACK starting or during fast recovery" (RFC 6937 section 3.1): adds
    /// the ack's DeliveredData and returns the new cwnd, pipe + sndcnt. `pipe` is RFC
    /// 6675's (the flight without SACKed and lost segments), after this ack.
    pub fn on_ack(
        &mut self,
        delivered: DataSize,
        pipe: DataSize,
        ssthresh: DataSize,
        mss: DataSize,
    ) -> DataSize {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction:
            // sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let num = self.delivered.as_bytes() as u128 * ssthresh.as_bytes() as u128;
            let den = self.recover_fs.as_bytes() as u128;
            let target = num.div_ceil(den).min(u64::MAX as u128) as u64;
            target.saturating_sub(self.out.as_bytes())
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS;
            // sndcnt = MIN(ssthresh - pipe, limit).
            let owed = self.delivered.saturating_sub(self.out);
            let limit = owed.max(delivered) + mss;
            ssthresh.saturating_sub(pipe).min(limit).as_bytes()
        };
        pipe + DataSize::bytes(sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: DataSize = DataSize::bytes(1000);

    fn kb(n: u64) -> DataSize {
        DataSize::bytes(n * 1000)
    }

    #[test]
    fn sends_ssthresh_over_recover_fs_per_delivered_byte_rfc6937_3_1() {
        // Flight 20 segments, ssthresh 10: one segment out per two delivered while the
        // pipe is above ssthresh (the RFC's example, section 4).
        let mut prr = Prr::start(kb(20));
        let mut sent = DataSize::ZERO;
        let mut pipe = kb(19); // the first loss left the pipe
        for _ in 0..8 {
            pipe -= MSS; // one segment delivered (SACKed) per ack
            let cwnd = prr.on_ack(MSS, pipe, kb(10), MSS);
            while pipe < cwnd {
                pipe += MSS;
                prr.on_sent(MSS);
                sent += MSS;
            }
        }
        assert_eq!(sent, kb(4), "8 delivered x 10 / 20");
    }

    #[test]
    fn below_ssthresh_the_slow_start_reduction_bound_rfc6937_3_1() {
        // Pipe under ssthresh: at most what was delivered and not yet sent again, plus
        // one MSS, and never past ssthresh.
        let mut prr = Prr::start(kb(20));
        assert_eq!(prr.on_ack(kb(2), kb(5), kb(10), MSS), kb(5) + kb(3));
        let mut prr = Prr::start(kb(20));
        assert_eq!(prr.on_ack(kb(8), kb(8), kb(10), MSS), kb(10));
    }

    #[test]
    fn sent_data_holds_back_the_next_ack_rfc6937_3_1() {
        let mut prr = Prr::start(kb(20));
        prr.on_sent(kb(3));
        // ceil(2 * 10 / 20) = 1 segment owed, 3 already sent: nothing more.
        assert_eq!(prr.on_ack(kb(2), kb(15), kb(10), MSS), kb(15));
    }
}
