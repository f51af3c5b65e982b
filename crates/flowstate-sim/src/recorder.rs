//! Recording on a second core: a run of many flows hands what it only records (its
//! trace records, for the run's fingerprint, and its flows' window-histogram samples)
//! to one helper thread, in batches, so the event loop does not wait on them.
//!
//! Why: from a few hundred flows on, a flow's histograms are rarely in cache when its
//! next sample comes, and the FNV-1a fingerprint is a serial chain of multiplications
//! (27 bytes a record, four records a packet). Both are pure consumers: nothing in the
//! run reads them before its end. The helper consumes the batches in the order the loop
//! wrote them, so the hash and every histogram are those the loop would have computed
//! itself (a test runs both ways and compares): a run stays a pure function of
//! `(scenario, seed)`. The loop's own work (events, links, endpoints, bins) stays on
//! one thread.
//!
//! When: [`crate::metrics::RecorderThread::Auto`] (the default) uses the helper from
//! [`crate::metrics::AUTO_RECORDER_MIN_FLOWS`] flows on, where the measurements showed a gain
//! (docs/investigations/2026-11-scaling-passes.md); below, the state stays in the caches and the
//! batches would only add their copies (and a thread per run, which a pool running one
//! run per core would not want). If the thread cannot be started, the run records
//! in the loop.

use crate::metrics::{WindowHistograms, WindowSample};
use crate::scheduler::Fnv64;
use crate::trace_record::TraceRecord;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// Records (trace plus samples) a batch holds before it is handed over: 4,096 trace
/// records are 128 kB, well inside a core's L2 cache when the helper reads them.
const BATCH: usize = 4096;
/// Batches in flight to the helper before the loop waits for it (bounds the memory).
const IN_FLIGHT: usize = 4;

/// One hand-over: trace records and window samples, each in loop order.
#[derive(Debug, Default)]
struct Batch {
    trace: Vec<TraceRecord>,
    samples: Vec<WindowSample>,
}

/// What the helper computed: the fingerprint and every flow's window histograms.
#[derive(Debug)]
pub struct Recorded {
    pub hash: Fnv64,
    pub histograms: Vec<WindowHistograms>,
}

/// The loop's side of the helper.
#[derive(Debug)]
pub struct Recorder {
    trace: Vec<TraceRecord>,
    to_helper: SyncSender<Batch>,
    /// Emptied batches coming back, reused so that the steady state allocates nothing.
    spares: Receiver<Batch>,
    helper: JoinHandle<Recorded>,
}

impl Recorder {
    /// Starts the helper for a run of `flows` flows; `None` if the thread cannot be
    /// started (the run then records in the loop).
    pub fn start(flows: usize) -> Option<Self> {
        let (to_helper, batches) = sync_channel::<Batch>(IN_FLIGHT);
        let (back, spares) = channel::<Batch>();
        let helper = std::thread::Builder::new()
            .name("flowstate-recorder".into())
            .spawn(move || record(&batches, &back, flows))
            .ok()?;
        Some(Self {
            trace: Vec::with_capacity(BATCH),
            to_helper,
            spares,
            helper,
        })
    }

    /// A trace record for the fingerprint.
    #[inline]
    pub fn trace(&mut self, rec: TraceRecord) {
        self.trace.push(rec);
    }

    /// Hands the records and `samples` (the window samples the metrics deferred) to the
    /// helper when together they fill a batch; `samples` is left empty then.
    #[inline]
    pub fn maybe_hand_over(&mut self, samples: &mut Vec<WindowSample>) {
        if self.trace.len() + samples.len() >= BATCH {
            self.hand_over(samples);
        }
    }

    #[cold]
    fn hand_over(&mut self, samples: &mut Vec<WindowSample>) {
        let mut next = self.spares.try_recv().unwrap_or_else(|_| Batch {
            trace: Vec::with_capacity(BATCH),
            samples: Vec::with_capacity(BATCH),
        });
        std::mem::swap(&mut next.trace, &mut self.trace);
        std::mem::swap(&mut next.samples, samples);
        // A helper that is gone has panicked: `finish` reports it.
        let _ = self.to_helper.send(next);
    }

    /// Hands over what is left, waits for the helper and returns what it computed.
    /// A panic in the helper (a bug) is raised again here, in the run's thread.
    pub fn finish(mut self, samples: &mut Vec<WindowSample>) -> Recorded {
        self.hand_over(samples);
        drop(self.to_helper);
        match self.helper.join() {
            Ok(recorded) => recorded,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The helper: consumes the batches in order until the loop hangs up.
fn record(batches: &Receiver<Batch>, back: &Sender<Batch>, flows: usize) -> Recorded {
    let mut hash = Fnv64::new();
    let mut histograms = vec![WindowHistograms::default(); flows];
    for mut batch in batches.iter() {
        for rec in &batch.trace {
            rec.hash_into(&mut hash);
        }
        for s in &batch.samples {
            if let Some(h) = histograms.get_mut(s.flow as usize) {
                h.record(s.kind, s.value);
            }
        }
        batch.trace.clear();
        batch.samples.clear();
        // The loop may have finished already: then the batch is not needed back.
        let _ = back.send(batch);
    }
    Recorded { hash, histograms }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{RecorderThread, WindowKind, AUTO_RECORDER_MIN_FLOWS};
    use crate::trace_record::TraceKind;
    use flowstate_core::TimeDelta;

    fn rec(i: u64) -> TraceRecord {
        TraceRecord {
            time_us: i * 7,
            kind: TraceKind::Send,
            link: 0,
            flow: (i % 3) as u32,
            dir: 0,
            size: 1200,
            packet: i,
        }
    }

    /// The helper's hash and histograms are the loop's own, over several batches.
    #[test]
    fn helper_computes_what_the_loop_would() {
        let mut r = Recorder::start(3).expect("thread");
        let mut samples = Vec::new();
        let mut local_hash = Fnv64::new();
        let mut local = vec![WindowHistograms::default(); 3];
        for i in 0..(3 * BATCH as u64 + 17) {
            let t = rec(i);
            t.hash_into(&mut local_hash);
            r.trace(t);
            let s = WindowSample {
                flow: (i % 3) as u32,
                kind: WindowKind::Delay,
                value: TimeDelta::from_micros(i as i64 % 5000),
            };
            local[s.flow as usize].record(s.kind, s.value);
            samples.push(s);
            r.maybe_hand_over(&mut samples);
        }
        let done = r.finish(&mut samples);
        assert_eq!(done.hash.finish(), local_hash.finish());
        assert_eq!(done.histograms, local);
    }

    #[test]
    fn auto_uses_the_helper_from_the_threshold() {
        assert!(!RecorderThread::Auto.used(AUTO_RECORDER_MIN_FLOWS - 1));
        assert!(RecorderThread::Auto.used(AUTO_RECORDER_MIN_FLOWS));
        assert!(RecorderThread::On.used(1));
        assert!(!RecorderThread::Off.used(10_000));
    }
}
