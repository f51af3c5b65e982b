//! A flow's histograms over the measurement window, and the samples that go into them
//! (counted at once, or handed to the recorder thread).

use super::histogram::Histogram;
use flowstate_core::TimeDelta;

/// A flow's histograms over the measurement window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowHistograms {
    pub rtt: Histogram,
    pub qdelay: Histogram,
    /// One-way delay of the delivered data packets.
    pub delay: Histogram,
}

/// Which of a flow's [`WindowHistograms`] a sample goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    Rtt,
    QueueWait,
    Delay,
}

impl WindowHistograms {
    #[inline]
    pub fn record(&mut self, kind: WindowKind, value: TimeDelta) {
        match kind {
            WindowKind::Rtt => self.rtt.record(value),
            WindowKind::QueueWait => self.qdelay.record(value),
            WindowKind::Delay => self.delay.record(value),
        }
    }
}

/// A window-histogram sample on its way to the recorder thread (crate::recorder).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSample {
    pub flow: u32,
    pub kind: WindowKind,
    pub value: TimeDelta,
}

/// Counts a window sample into `hist`, or keeps it for the recorder thread.
#[inline(always)]
pub(super) fn window_sample(
    deferred: &mut Option<Vec<WindowSample>>,
    hist: &mut WindowHistograms,
    flow: usize,
    kind: WindowKind,
    value: TimeDelta,
) {
    match deferred {
        Some(d) => d.push(WindowSample {
            flow: flow as u32,
            kind,
            value,
        }),
        None => hist.record(kind, value),
    }
}
