//! The scenario's part of [`crate::bounds`]: counts and intervals that size a run's
//! work and memory, checked by [`Scenario::validate`] before anything is allocated.

use crate::bounds::{
    check_count, check_secs, MAX_FLOWS, MAX_SBD_INTERVAL_SECS, MAX_SBD_N, MAX_SBD_VERDICTS,
    MAX_SERIES_ROWS, MAX_TRACE_CHANGES, MIN_SBD_INTERVAL_SECS,
};
use crate::error::{FieldError, ScenarioError};
use crate::scenario::{LinkSpec, Scenario, MAX_FLOW_COUNT};

/// Default `[measure] bin` (seconds).
const DEFAULT_BIN_SECS: f64 = 0.5;

impl Scenario {
    /// Check every bound of [`crate::bounds`] that the scenario's own values decide.
    pub(crate) fn check_bounds(&self, file: &str) -> Result<(), ScenarioError> {
        self.bounds().map_err(|e| e.in_file(file))
    }

    fn bounds(&self) -> Result<(), FieldError> {
        let duration = self.duration.0;
        let flows: u64 = self
            .flows
            .iter()
            .map(|f| u64::from(f.count.unwrap_or(1).clamp(1, MAX_FLOW_COUNT)))
            .sum();
        check_count(
            "flows",
            "the number of flows (after count)",
            flows,
            MAX_FLOWS as u64,
        )?;
        let links = self.links_with_traces();
        if self.measure.series.unwrap_or(true) {
            let bin = self.measure.bin.map_or(DEFAULT_BIN_SECS, |b| b.0);
            if bin > 0.0 {
                let bins = (duration / bin).ceil();
                let rows = bins * (flows + links.len() as u64) as f64;
                if rows > MAX_SERIES_ROWS as f64 {
                    return Err(FieldError::new(
                        "measure.bin",
                        format!(
                            "the time series would hold {rows:.0} rows ((flows + links) x duration / bin), more than {MAX_SERIES_ROWS}: use a longer bin or series = false"
                        ),
                    ));
                }
            }
        }
        if let Some(spec) = &self.sbd {
            if let Some(t) = spec.base_interval {
                check_secs(
                    "sbd.base_interval",
                    t.0,
                    MIN_SBD_INTERVAL_SECS,
                    MAX_SBD_INTERVAL_SECS,
                )?;
            }
            if let Some(n) = spec.n {
                check_count("sbd.n", "N", n as u64, MAX_SBD_N as u64)?;
            }
        }
        if let Some(config) = self.sbd_config() {
            let runs = (duration / config.t.as_secs_f64().max(MIN_SBD_INTERVAL_SECS)).ceil();
            let verdicts = runs * flows as f64;
            if verdicts > MAX_SBD_VERDICTS as f64 {
                return Err(FieldError::new(
                    "sbd.base_interval",
                    format!(
                        "SBD would keep {verdicts:.0} verdicts (flows x duration / base interval), more than {MAX_SBD_VERDICTS}: use a longer base_interval"
                    ),
                ));
            }
        }
        for (field, link) in links {
            let Some(trace) = &link.trace else { continue };
            let points = trace.rates.len() as f64;
            let period = trace.period.as_secs_f64();
            let changes = if trace.looped && period > 0.0 {
                points * (duration / period).ceil()
            } else {
                points
            };
            if changes > MAX_TRACE_CHANGES as f64 {
                return Err(FieldError::new(
                    format!("{field}.capacity_trace"),
                    format!(
                        "the trace would change the capacity {changes:.0} times in the run ({} points every {period} s), more than {MAX_TRACE_CHANGES}: use a longer trace or a shorter duration",
                        trace.rates.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every link of the scenario with its field name.
    fn links_with_traces(&self) -> Vec<(String, &LinkSpec)> {
        let mut links: Vec<(String, &LinkSpec)> = Vec::new();
        if let Some(l) = &self.link {
            links.push(("link".into(), l));
            // The default reverse link is a link too (a constant one, or the trace's
            // delays).
            let reverse = self.reverse_link.as_ref().unwrap_or(l);
            links.push(("reverse_link".into(), reverse));
        }
        if let Some(p) = &self.parking_lot {
            for _ in 0..p.hops.min(crate::topology::MAX_LINKS as u32) {
                links.push(("parking_lot.link".into(), &p.link));
            }
        }
        for (k, l) in self.links.iter().enumerate() {
            links.push((format!("links[{k}]"), l));
        }
        links
    }
}
