//! [`Tracked`]: a flowstate-core sender (any [`Controller`]) as the simulator drives
//! it: its newest RTT sample turned into metrics samples (reported when the newest
//! value changes, so two consecutive equal samples count once; senders that count
//! their samples, `ledbat`, report every one), a schedule of application rates
//! (`desired_rate_schedule`) applied on time, and the coupling calls forwarded.

use crate::app_stats::{AppControl, AppStats};
use crate::flow::SenderHooks;
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::{Controller, Endpoint, Transmit};
use flowstate_core::{Bitrate, Ecn, TimeDelta, Timestamp};

/// What the simulator needs from a flowstate-core sender besides its
/// [`Controller`] seam: the `web-api` coupling mode's view of it (what a web
/// application's getStats shows, and its control). Every kind's file implements it
/// for its sender, most with the defaults (`impl SimSender for TcpSender {}`).
pub trait SimSender: Controller {
    /// What getStats would show (Web-API coupling); default: nothing.
    fn web_stats(&self) -> Option<AppStats> {
        None
    }
    /// The web application's decision; default: ignored.
    fn web_control(&mut self, _now: Timestamp, _control: AppControl) {}
    /// A video sender's encoded and dropped frames.
    fn encoder_log(&self) -> Option<&flowstate_core::playout::EncoderLog> {
        None
    }
}

/// A flowstate-core sender with the simulator hooks.
#[derive(Debug)]
pub struct Tracked<S> {
    inner: S,
    last_rtt: Option<TimeDelta>,
    /// The sender's sample count at the last report ([`Controller::rtt_samples`]).
    last_rtt_count: u64,
    /// `(at, rate)` application rate changes not yet applied (sorted).
    app_rates: Vec<(Timestamp, Bitrate)>,
    next_app_rate: usize,
}

impl<S> Tracked<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            last_rtt: None,
            last_rtt_count: 0,
            app_rates: Vec::new(),
            next_app_rate: 0,
        }
    }
    /// With a `desired_rate_schedule`: `(at, rate)` sorted by time.
    pub fn with_app_rates(mut self, schedule: Vec<(Timestamp, Bitrate)>) -> Self {
        self.app_rates = schedule;
        self.next_app_rate = 0;
        self
    }
    pub fn inner(&self) -> &S {
        &self.inner
    }
    pub fn inner_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

impl<S: SimSender> Tracked<S> {
    /// Apply every scheduled application rate due at `now`.
    fn apply_app_rates(&mut self, now: Timestamp) {
        while let Some(&(at, rate)) = self.app_rates.get(self.next_app_rate) {
            if at > now {
                break;
            }
            self.inner.set_app_rate(Some(rate));
            self.next_app_rate += 1;
        }
    }
}

impl<S: SimSender> Endpoint for Tracked<S> {
    type Outgoing = S::Outgoing;
    type Incoming = S::Incoming;
    fn handle_input(&mut self, now: Timestamp, msg: Self::Incoming) {
        self.apply_app_rates(now);
        self.inner.handle_input(now, msg);
    }
    fn handle_input_ecn(&mut self, now: Timestamp, msg: Self::Incoming, ecn: Ecn) {
        self.apply_app_rates(now);
        self.inner.handle_input_ecn(now, msg, ecn);
    }
    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<Self::Outgoing>> {
        self.apply_app_rates(now);
        self.inner.poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        let next = self.app_rates.get(self.next_app_rate).map(|&(at, _)| at);
        match (self.inner.poll_timeout(), next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn handle_timeout(&mut self, now: Timestamp) {
        self.apply_app_rates(now);
        self.inner.handle_timeout(now);
    }
}

impl<S: SimSender> SenderHooks for Tracked<S> {
    /// The wrapper's own input, a scheduled application rate, is a deadline in its
    /// `poll_timeout`.
    const INPUT_DRIVEN: bool = S::INPUT_DRIVEN;
    fn ecn_codepoint(&self) -> Ecn {
        self.inner.ecn_codepoint()
    }
    fn on_pause(&mut self, now: Timestamp) {
        self.inner.pause(now);
    }
    fn on_resume(&mut self, now: Timestamp) {
        self.inner.resume(now);
    }
    fn encoder_log(&self) -> Option<&flowstate_core::playout::EncoderLog> {
        self.inner.encoder_log()
    }
    fn ecn_responses(&self) -> Option<u64> {
        self.inner.ecn_responses()
    }
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.inner.poll_cc_report()
    }
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.inner.apply_allowance(now, allowance);
    }
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        let r = self.inner.latest_rtt();
        if let Some(n) = self.inner.rtt_samples() {
            if n != self.last_rtt_count && r.is_some() {
                self.last_rtt_count = n;
                self.last_rtt = r;
                return r;
            }
            return None;
        }
        if r.is_some() && r != self.last_rtt {
            self.last_rtt = r;
            return r;
        }
        None
    }
    fn cc_snapshot(&self) -> Option<FlowReport> {
        Some(self.inner.snapshot())
    }
    fn delay_based_decreases(&self) -> Option<u64> {
        self.inner.delay_based_decreases()
    }
    fn app_stats(&self) -> Option<AppStats> {
        self.inner.web_stats()
    }
    fn apply_app_control(&mut self, now: Timestamp, control: AppControl) {
        self.inner.web_control(now, control);
    }
}
