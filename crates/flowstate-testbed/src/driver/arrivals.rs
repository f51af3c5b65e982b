//! What the receiver measures of a flow's data packets beyond their count: the
//! queuing delay (the one-way delay above the flow's smallest: both sides share one
//! clock) and the losses (gaps in the sequence numbers).

/// A flow's arrivals so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Arrivals {
    highest: Option<u64>,
    min_owd: Option<i64>,
}

/// What one arriving data packet tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Arrival {
    /// Its one-way delay above the flow's smallest, microseconds.
    pub(super) queue_us: i64,
    /// Sequence numbers skipped since the highest one seen before it.
    pub(super) lost: u64,
}

impl Arrivals {
    /// Packet `seq` arrived `owd` microseconds after it was sent.
    pub(super) fn on_packet(&mut self, seq: u64, owd: i64) -> Arrival {
        let min = self.min_owd.map_or(owd, |m| m.min(owd));
        self.min_owd = Some(min);
        let lost = match self.highest {
            Some(h) if seq > h + 1 => seq - h - 1,
            _ => 0,
        };
        self.highest = Some(self.highest.map_or(seq, |h| h.max(seq)));
        Arrival {
            queue_us: owd - min,
            lost,
        }
    }
}

#[cfg(test)]
#[path = "arrivals_tests.rs"]
mod tests;
