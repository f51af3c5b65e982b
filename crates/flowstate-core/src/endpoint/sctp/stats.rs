//! What an SCTP sender and receiver count.

/// Sender statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SctpSenderStats {
    /// Wire bytes of all DATA packets sent (first transmissions and retransmissions).
    pub bytes_sent: u64,
    /// Wire bytes of retransmitted DATA packets.
    pub bytes_retransmitted: u64,
    /// Payload bytes cumulatively acknowledged by the peer.
    pub bytes_delivered: u64,
    pub packets_sent: u64,
    pub packets_retransmitted: u64,
    pub fast_retransmits: u64,
    pub t3_expiries: u64,
    pub sacks_received: u64,
    /// cwnd reductions for an ECNE (RFC 9260 appendix A).
    pub ecn_responses: u64,
}

/// Receiver statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SctpReceiverStats {
    pub packets_received: u64,
    /// Payload bytes handed to the application.
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    pub duplicate_chunks: u64,
    /// Chunks dropped for lack of receive buffer.
    pub dropped_chunks: u64,
    /// Chunks whose stream offset did not continue the stream (must stay 0).
    pub order_errors: u64,
    pub sacks_sent: u64,
    /// Packets that arrived CE-marked.
    pub ce_marks: u64,
}
