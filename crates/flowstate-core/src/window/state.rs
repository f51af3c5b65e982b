//! The bookkeeping every window controller embeds (flight size, cap, queued change
//! reports) and the crate-private accessor the [`super::WindowController`] defaults use.
//! The module is private: `WindowCore` and `EmbedsCore` cannot be named outside the
//! crate, which seals `WindowController`.

use super::{AckEvent, CwndChange};
use crate::units::{DataSize, TimeDelta};

/// Hands out the controller's [`WindowCore`].
pub trait EmbedsCore {
    fn core(&self) -> &WindowCore;
    fn core_mut(&mut self) -> &mut WindowCore;
}

/// `EmbedsCore` for a controller whose `WindowCore` is its field `core`.
macro_rules! embeds_core {
    ($controller:ty) => {
        impl $crate::window::state::EmbedsCore for $controller {
            fn core(&self) -> &$crate::window::state::WindowCore {
                &self.core
            }
            fn core_mut(&mut self) -> &mut $crate::window::state::WindowCore {
                &mut self.core
            }
        }
    };
}
pub(crate) use embeds_core;

/// Bookkeeping shared by the controllers: flight size, cap, queued change reports.
#[derive(Debug, Clone, Default)]
pub struct WindowCore {
    pub mtu: DataSize,
    pub cwnd: DataSize,
    pub ssthresh: DataSize,
    pub flight: DataSize,
    pub max_cwnd: Option<DataSize>,
    pub last_rtt: Option<TimeDelta>,
    reported: Option<(DataSize, DataSize)>,
    pending: Option<CwndChange>,
}

impl WindowCore {
    pub fn new(mtu: DataSize, cwnd: DataSize, ssthresh: DataSize) -> Self {
        let mtu = mtu.max(DataSize::bytes(1));
        let mut core = WindowCore {
            mtu,
            cwnd: cwnd.max(mtu),
            ssthresh,
            ..Default::default()
        };
        core.reported = Some((core.cwnd, core.ssthresh));
        core
    }

    /// Apply floor and cap: `mtu <= cwnd <= max(max_cwnd, mtu)`.
    pub fn clamp(&mut self) {
        if let Some(max) = self.max_cwnd {
            self.cwnd = self.cwnd.min(max.max(self.mtu));
        }
        self.cwnd = self.cwnd.max(self.mtu);
    }

    /// Apply floor and cap, then queue a report if cwnd or ssthresh changed: the end of
    /// every reaction to an input.
    pub fn settle(&mut self) {
        self.clamp();
        self.note_change();
    }

    /// A cwnd (and ssthresh) set from outside (`WindowController::set_cwnd`): floor and
    /// cap applied, not reported back, since the manager that set it already knows it.
    pub fn set_quietly(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>) {
        self.cwnd = cwnd;
        if let Some(s) = ssthresh {
            self.ssthresh = s;
        }
        self.clamp();
        self.mark_reported();
    }

    /// An ack's bookkeeping before any window rule: its bytes leave the flight and its
    /// RTT sample, if any, becomes the latest.
    pub fn on_ack(&mut self, ack: &AckEvent) {
        self.remove_from_flight(ack.removed_from_flight);
        if let Some(rtt) = ack.rtt {
            self.last_rtt = Some(rtt);
        }
    }

    pub fn set_max_cwnd(&mut self, max: Option<DataSize>) {
        self.max_cwnd = max.map(|m| m.max(self.mtu));
        self.settle();
    }

    /// Queue a report if cwnd or ssthresh changed since the last one.
    pub fn note_change(&mut self) {
        let now = (self.cwnd, self.ssthresh);
        if self.reported != Some(now) {
            self.reported = Some(now);
            self.pending = Some(CwndChange {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
                max_cwnd: self.max_cwnd,
                rtt: self.last_rtt,
            });
        }
    }

    /// Record an externally set window as already reported (no echo back to the
    /// coupling manager that set it).
    pub fn mark_reported(&mut self) {
        self.reported = Some((self.cwnd, self.ssthresh));
    }

    pub fn poll_change(&mut self) -> Option<CwndChange> {
        self.pending.take()
    }

    pub fn on_sent(&mut self, bytes: DataSize) {
        self.flight += bytes;
    }

    pub fn remove_from_flight(&mut self, bytes: DataSize) {
        self.flight = self.flight.saturating_sub(bytes);
    }
}
