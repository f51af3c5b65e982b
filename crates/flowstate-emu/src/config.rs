//! A bottleneck path's static description, and its conversion to and from the
//! simulator's link model (so a scenario's `[link]` means the same in both).

use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use flowstate_sim::link::{LinkConfig, LinkTrace};
pub use flowstate_sim::queue::Discipline;
use flowstate_sim::queue::QueueLimit as SimQueueLimit;
use flowstate_sim::scenario::LinkSpec;

/// How much the drop-tail queue may hold (packets waiting, not the one being sent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueLimit {
    /// At most this many bytes waiting.
    Bytes(DataSize),
    /// At most this many packets waiting.
    Packets(u32),
    /// At most as many bytes as the link sends in this time at its current rate.
    Time(TimeDelta),
}

impl QueueLimit {
    fn to_sim(self) -> SimQueueLimit {
        match self {
            QueueLimit::Bytes(b) => SimQueueLimit::Bytes(b.as_bytes()),
            QueueLimit::Packets(n) => SimQueueLimit::Packets(u64::from(n)),
            QueueLimit::Time(t) => SimQueueLimit::Time(t),
        }
    }
    fn from_sim(q: SimQueueLimit) -> Self {
        match q {
            SimQueueLimit::Bytes(b) => QueueLimit::Bytes(DataSize::bytes(b)),
            SimQueueLimit::Packets(n) => QueueLimit::Packets(u32::try_from(n).unwrap_or(u32::MAX)),
            SimQueueLimit::Time(t) => QueueLimit::Time(t),
        }
    }
}

/// One direction's bottleneck.
#[derive(Debug, Clone, PartialEq)]
pub struct PathConfig {
    /// Capacity schedule: `(from time since start, rate)`, first entry at 0, times
    /// increasing.
    pub capacity: Vec<(TimeDelta, Bitrate)>,
    /// One-way propagation delay added after serialization.
    pub delay: TimeDelta,
    pub queue: QueueLimit,
    /// The queue discipline (the simulator's [`LinkConfig::discipline`]; drop-tail by
    /// default).
    pub discipline: Discipline,
    /// Standard deviation of the RFC 8868 truncated-Gaussian jitter (`None`: none).
    pub jitter: Option<TimeDelta>,
    /// Probability that a packet is lost after serialization, in [0, 1).
    pub loss: f64,
    /// Seed of the jitter and loss streams (same streams as the simulator's link with
    /// the same run seed and direction).
    pub seed: u64,
    /// The trace a trace-driven link plays (the simulator's [`LinkConfig::trace`]:
    /// looping capacity, Mahimahi delivery, per-segment delay, jitter and loss);
    /// `capacity` then holds one period of it.
    pub trace: Option<std::sync::Arc<LinkTrace>>,
}

/// A path that cannot be emulated: `{field}: {message}` on one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl PathConfig {
    /// A constant-rate path without jitter or loss.
    pub fn constant(rate: Bitrate, delay: TimeDelta, queue: QueueLimit) -> Self {
        Self {
            capacity: vec![(TimeDelta::ZERO, rate)],
            delay,
            queue,
            discipline: Discipline::DropTail,
            jitter: None,
            loss: 0.0,
            seed: 0,
            trace: None,
        }
    }

    /// The path a scenario's `[link]` / `[reverse_link]` describes (the simulator's
    /// own conversion, `flowstate_sim::run::link_config`).
    pub fn from_link(link: &LinkSpec, seed: u64) -> Self {
        Self::from_sim(&flowstate_sim::run::link_config(link), seed)
    }

    /// The forward and reverse paths of a scenario: its one bottleneck per direction
    /// (`Scenario::bottleneck`: the dumbbell's `[link]` / `[reverse_link]`, or the one
    /// named link every flow crosses). A scenario with several bottlenecks in a
    /// direction is refused with one line naming the field (`file` names the file).
    pub fn from_scenario(
        sc: &flowstate_sim::Scenario,
        file: &str,
        seed: u64,
    ) -> Result<(Self, Self), flowstate_sim::ScenarioError> {
        let b = sc.bottleneck(file)?;
        let forward = Self::from_link(&b.forward, seed);
        let reverse = b.reverse.as_ref().map_or_else(
            || Self::default_reverse(&forward),
            |l| Self::from_link(l, seed),
        );
        Ok((forward, reverse))
    }

    /// The reverse path a scenario without `[reverse_link]` gets (the simulator's
    /// default: the forward delay and queue at the forward initial capacity).
    pub fn default_reverse(forward: &PathConfig) -> Self {
        Self::from_sim(
            &flowstate_sim::run::default_reverse(&forward.to_sim()),
            forward.seed,
        )
    }

    /// From the simulator's link description.
    pub fn from_sim(l: &LinkConfig, seed: u64) -> Self {
        Self {
            capacity: l
                .schedule
                .iter()
                .map(|&(t, r)| (t - Timestamp::ZERO, r))
                .collect(),
            delay: l.delay,
            queue: QueueLimit::from_sim(l.queue),
            discipline: l.discipline,
            jitter: l.jitter,
            loss: l.loss,
            seed,
            trace: l.trace.clone(),
        }
    }

    /// To the simulator's link description.
    pub fn to_sim(&self) -> LinkConfig {
        LinkConfig {
            schedule: self
                .capacity
                .iter()
                .map(|&(t, r)| (Timestamp::ZERO + t.max(TimeDelta::ZERO), r))
                .collect(),
            delay: self.delay,
            queue: self.queue.to_sim(),
            discipline: self.discipline,
            jitter: self.jitter,
            loss: self.loss,
            trace: self.trace.clone(),
        }
    }

    /// Check every field; `name` prefixes the field in errors (`forward`, `reverse`).
    pub fn validate(&self, name: &str) -> Result<(), ConfigError> {
        let err = |field: &str, message: String| ConfigError {
            field: format!("{name}.{field}"),
            message,
        };
        let Some(&(first, _)) = self.capacity.first() else {
            return Err(err(
                "capacity",
                "needs at least one (at, rate) point".into(),
            ));
        };
        if first != TimeDelta::ZERO {
            return Err(err(
                "capacity",
                format!("first point must be at 0 s, got {first}"),
            ));
        }
        for (i, w) in self.capacity.windows(2).enumerate() {
            if w[1].0 <= w[0].0 {
                return Err(err(
                    &format!("capacity[{}]", i + 1),
                    "times must increase".into(),
                ));
            }
        }
        for (i, &(_, r)) in self.capacity.iter().enumerate() {
            // A trace may hold outages (rate 0); the link waits them out.
            let zero_ok = self.trace.is_some() && r.as_bps() == 0.0;
            if !(zero_ok || (r.as_bps() > 0.0 && r.is_finite())) {
                return Err(err(
                    &format!("capacity[{i}]"),
                    format!("rate must be finite and > 0, got {r}"),
                ));
            }
        }
        if self.delay < TimeDelta::ZERO {
            return Err(err("delay", format!("must be >= 0, got {}", self.delay)));
        }
        if let Some(j) = self.jitter {
            if j < TimeDelta::ZERO {
                return Err(err("jitter", format!("must be >= 0, got {j}")));
            }
        }
        if !(0.0..1.0).contains(&self.loss) {
            return Err(err("loss", format!("must be in [0, 1), got {}", self.loss)));
        }
        let empty = match self.queue {
            QueueLimit::Bytes(b) => b == DataSize::ZERO,
            QueueLimit::Packets(n) => n == 0,
            QueueLimit::Time(t) => t <= TimeDelta::ZERO,
        };
        if empty {
            return Err(err("queue", "must hold something (> 0)".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowstate_sim::Scenario;

    const SCENARIO: &str = r#"
name = "emu"
duration = "10s"
[link]
capacity_schedule = [ { at = "0s", rate = "2Mbps" }, { at = "5s", rate = "1Mbps" } ]
delay = "50ms"
queue = "62pkt"
jitter = "5ms"
loss = 0.01
[reverse_link]
capacity = "1Mbps"
delay = "20ms"
queue = "75kB"
[[flows]]
name = "a"
kind = "cbr"
overrides = { rate = "1Mbps" }
"#;

    #[test]
    fn from_link_matches_the_scenario() {
        let s = Scenario::from_toml(SCENARIO, "emu.toml").expect("valid scenario");
        let f = PathConfig::from_link(s.link.as_ref().expect("given"), 7);
        assert_eq!(
            f.capacity,
            vec![
                (TimeDelta::ZERO, Bitrate::mbps(2.0)),
                (TimeDelta::secs(5), Bitrate::mbps(1.0))
            ]
        );
        assert_eq!(f.delay, TimeDelta::millis(50));
        assert_eq!(f.queue, QueueLimit::Packets(62));
        assert_eq!(f.jitter, Some(TimeDelta::millis(5)));
        assert_eq!(f.loss, 0.01);
        assert_eq!(f.seed, 7);
        assert_eq!(f.validate("forward"), Ok(()));
        let r = PathConfig::from_link(s.reverse_link.as_ref().expect("given"), 7);
        assert_eq!(r.queue, QueueLimit::Bytes(DataSize::bytes(75_000)));
        assert_eq!(r.capacity, vec![(TimeDelta::ZERO, Bitrate::mbps(1.0))]);
        // Round trip through the simulator's type.
        assert_eq!(PathConfig::from_sim(&f.to_sim(), 7), f);
        let d = PathConfig::default_reverse(&f);
        assert_eq!(d.capacity, vec![(TimeDelta::ZERO, Bitrate::mbps(2.0))]);
        assert_eq!(
            (d.delay, d.queue, d.jitter, d.loss),
            (f.delay, f.queue, None, 0.0)
        );
    }

    #[test]
    fn validation_names_the_field() {
        let good = PathConfig::constant(
            Bitrate::mbps(1.0),
            TimeDelta::millis(10),
            QueueLimit::Packets(10),
        );
        assert_eq!(good.validate("forward"), Ok(()));
        let mut bad = good.clone();
        bad.loss = 1.0;
        assert_eq!(
            bad.validate("forward").map_err(|e| e.field),
            Err("forward.loss".into())
        );
        let mut bad = good.clone();
        bad.capacity.clear();
        assert_eq!(
            bad.validate("reverse").map_err(|e| e.field),
            Err("reverse.capacity".into())
        );
        let mut bad = good.clone();
        bad.capacity.push((TimeDelta::ZERO, Bitrate::mbps(2.0)));
        assert_eq!(
            bad.validate("f").map_err(|e| e.field),
            Err("f.capacity[1]".into())
        );
        let mut bad = good.clone();
        bad.capacity[0].1 = Bitrate::ZERO;
        assert_eq!(
            bad.validate("f").map_err(|e| e.field),
            Err("f.capacity[0]".into())
        );
        let mut bad = good.clone();
        bad.queue = QueueLimit::Packets(0);
        assert_eq!(
            bad.validate("f").map_err(|e| e.field),
            Err("f.queue".into())
        );
        let mut bad = good;
        bad.delay = TimeDelta::millis(-1);
        assert_eq!(
            bad.validate("f").map_err(|e| e.field),
            Err("f.delay".into())
        );
    }

    /// The scenario's queue discipline reaches the emulator's link as the simulator's
    /// (the UDP testbed, `flowstate browser`): the forward and reverse links' tables.
    #[test]
    fn the_queue_discipline_of_the_scenario_is_the_paths() {
        use flowstate_sim::queue::Discipline;
        let sc = Scenario::from_toml(
            r#"
name = "aqm"
duration = "10s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = { discipline = "codel", limit = "500pkt", target = "3ms" }
[reverse_link]
capacity = "10Mbps"
delay = "20ms"
queue = { discipline = "fq-codel" }
[[flows]]
name = "f"
kind = "cbr"
overrides = { rate = "1Mbps" }
"#,
            "aqm.toml",
        )
        .expect("valid");
        let (f, r) = PathConfig::from_scenario(&sc, "aqm.toml", 1).expect("one bottleneck");
        let Discipline::Codel(p) = f.discipline else {
            panic!("forward: {:?}", f.discipline)
        };
        assert_eq!(p.target, TimeDelta::millis(3));
        assert_eq!(f.queue, QueueLimit::Packets(500));
        assert_eq!(f.to_sim().discipline, f.discipline);
        assert!(matches!(r.discipline, Discipline::FqCodel(_)));
        // Without a table: drop-tail, as before.
        let (d, _) = PathConfig::from_scenario(
            &Scenario::from_toml(
                "name = \"d\"\nduration = \"1s\"\n[link]\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"10pkt\"\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"1Mbps\" }\n",
                "d.toml",
            )
            .expect("valid"),
            "d.toml",
            1,
        )
        .expect("one bottleneck");
        assert_eq!(d.discipline, Discipline::DropTail);
    }

    /// A flow over one named link (feedback after a fixed delay) is one bottleneck: the
    /// emulator takes that link forward and a 10 Gbit/s link of the delay back; a flow
    /// over two links is refused with one line naming the field.
    #[test]
    fn from_scenario_takes_one_named_link_and_refuses_two() {
        let links = r#"
name = "emu-links"
duration = "10s"
[[links]]
name = "a"
capacity = "3Mbps"
delay = "15ms"
queue = "40pkt"
[[links]]
name = "b"
capacity = "1Mbps"
delay = "5ms"
queue = "40pkt"
[[flows]]
name = "f"
kind = "cbr"
overrides = { rate = "1Mbps" }
"#;
        let one = Scenario::from_toml(
            &format!("{links}route = [\"a\"]\nreturn_delay = \"7ms\"\n"),
            "e.toml",
        )
        .expect("valid");
        let (f, r) = PathConfig::from_scenario(&one, "e.toml", 3).expect("one bottleneck");
        assert_eq!(f.capacity, vec![(TimeDelta::ZERO, Bitrate::mbps(3.0))]);
        assert_eq!(f.delay, TimeDelta::millis(15));
        assert_eq!(r.delay, TimeDelta::millis(7));
        assert_eq!(r.capacity, vec![(TimeDelta::ZERO, Bitrate::mbps(10_000.0))]);
        let two = Scenario::from_toml(&format!("{links}route = [\"a\", \"b\"]\n"), "e.toml")
            .expect("valid");
        assert_eq!(
            PathConfig::from_scenario(&two, "e.toml", 3)
                .expect_err("two links")
                .to_string(),
            "e.toml: flows[0].route: crosses 2 links (a, b); the emulator and the testbed emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)"
        );
    }
}
