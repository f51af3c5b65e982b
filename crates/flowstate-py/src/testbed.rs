//! Python binding of flowstate-testbed: run a scenario over real UDP sockets.
//!
//! The run goes to a worker thread with the GIL released; the calling thread wakes
//! every [`SIGNAL_POLL`] to look for Ctrl-C, which sets the run's stop flag: the run
//! then ends at once and returns what it measured (`interrupted` is True).

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use flowstate_sim::Scenario;
use flowstate_testbed::{NetnsSide, NetnsSides, SideStats, TestbedOptions};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::run_results::{run_dict, ScenarioError};

/// One `(namespace, address)` pair of the `netns` argument.
fn netns_side((netns, ip): (String, String)) -> PyResult<NetnsSide> {
    if netns.is_empty() {
        return Err(ScenarioError::new_err("--netns: empty namespace name"));
    }
    let ip = ip
        .parse()
        .map_err(|_| ScenarioError::new_err(format!("--netns: '{ip}' is not an IP address")))?;
    Ok(NetnsSide { netns, ip })
}

/// How often the waiting thread looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

fn side<'py>(py: Python<'py>, s: &SideStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("received", s.received)?;
    d.set_item("decoded", s.decoded)?;
    d.set_item("malformed", s.malformed)?;
    d.set_item("foreign", s.foreign)?;
    d.set_item("sent", s.sent)?;
    d.set_item("send_errors", s.send_errors)?;
    d.set_item("ecn_capable_received", s.ecn_capable_received)?;
    d.set_item("ce_received", s.ce_received)?;
    Ok(d)
}

/// Runs the scenario in `text` (`file` names it in errors) in real time for at most
/// `duration` seconds (None: the scenario's duration). Returns a dict with the keys of
/// `simulate`'s runs (`seed`, `summary_json`, `series`, `trace_hash`, `events`) plus
/// `interrupted`, `sender_pcap` / `receiver_pcap` (bytes), `sender` / `receiver`
/// (datagram counters), `bottleneck` (its counters per direction), `bottleneck_records`
/// (its per-packet records per direction, as columns) and `sctp` (per SCTP flow
/// transfer counters).
/// `netns = ((sender_ns, sender_ip), (receiver_ns, receiver_ip))` puts each side in a
/// network namespace, with the host's path between them as the bottleneck.
#[pyfunction]
#[pyo3(signature = (text, file, *, seed = None, duration = None, direct = false, netns = None))]
fn testbed<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    seed: Option<u64>,
    duration: Option<f64>,
    direct: bool,
    netns: Option<((String, String), (String, String))>,
) -> PyResult<Bound<'py, PyDict>> {
    let scenario =
        Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    if let Some(d) = duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(ScenarioError::new_err(format!(
                "--duration: expected a positive number of seconds, got {d}"
            )));
        }
    }
    let netns = match netns {
        None => None,
        Some((sender, receiver)) => Some(NetnsSides {
            sender: netns_side(sender)?,
            receiver: netns_side(receiver)?,
        }),
    };
    let opts = TestbedOptions {
        seed,
        duration,
        direct,
        netns,
        ..TestbedOptions::default()
    };
    let stop = opts.stop.clone();
    let (tx, rx) = mpsc::channel();
    // Sync wrapper: the wait runs with the GIL released.
    let rx = std::sync::Mutex::new(rx);
    let worker = std::thread::Builder::new()
        .name("flowstate-testbed".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                flowstate_testbed::run(&scenario, opts)
            }));
            let _ = tx.send(r);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the testbed: {e}")))?;
    let outcome = loop {
        match py.detach(|| match rx.lock() {
            Ok(rx) => rx.recv_timeout(SIGNAL_POLL),
            Err(_) => Err(mpsc::RecvTimeoutError::Disconnected),
        }) {
            Ok(r) => break r,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if py.check_signals().is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the testbed worker ended without a result (a bug: please report it)",
                ))
            }
        }
    };
    let _ = worker.join();
    let r = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return Err(ScenarioError::new_err(format!("{file}: {e}"))),
        Err(_) => {
            return Err(PyRuntimeError::new_err(format!(
                "{file}: the testbed panicked (a bug: please report it)"
            )))
        }
    };
    let d = run_dict(py, r.run.summary.seed, &r.run)?;
    d.set_item("interrupted", r.interrupted)?;
    d.set_item("sender_pcap", PyBytes::new(py, &r.sender_pcap))?;
    d.set_item("receiver_pcap", PyBytes::new(py, &r.receiver_pcap))?;
    d.set_item("sender", side(py, &r.sender)?)?;
    d.set_item("receiver", side(py, &r.receiver)?)?;
    let b = PyDict::new(py);
    for (name, p) in [
        ("forward", &r.bottleneck.forward),
        ("reverse", &r.bottleneck.reverse),
    ] {
        b.set_item(name, crate::ipemu::counters(py, p)?)?;
    }
    d.set_item("bottleneck", b)?;
    let records = PyDict::new(py);
    for (name, p) in [
        ("forward", &r.bottleneck.forward),
        ("reverse", &r.bottleneck.reverse),
    ] {
        records.set_item(name, crate::ipemu::record_columns(py, p, p.records.len())?)?;
    }
    d.set_item("bottleneck_records", records)?;
    let mut sctp = Vec::new();
    for t in &r.sctp {
        let s = PyDict::new(py);
        s.set_item("flow", t.flow)?;
        s.set_item("bytes_delivered", t.bytes_delivered)?;
        s.set_item("messages_delivered", t.messages_delivered)?;
        s.set_item("order_errors", t.order_errors)?;
        s.set_item("bytes_written", t.bytes_written)?;
        s.set_item("established", t.established)?;
        s.set_item("shut_down", t.shut_down)?;
        sctp.push(s);
    }
    d.set_item("sctp", sctp)?;
    Ok(d)
}

/// Adds `testbed` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(testbed, m)?)
}
