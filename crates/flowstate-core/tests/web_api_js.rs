//! Differential test: the Web-API rule in Rust (coupling/web_api.rs) and in JavaScript
//! (js/flowstate-coupling/index.js) on the same 2000 random input sequences must give
//! the same outputs within float rounding. Writes the Rust inputs and outputs as JSON and
//! runs `node --test` on js/flowstate-coupling/test/differential.test.js. Without node
//! on PATH (or FLOWSTATE_NODE) the test prints SKIPPED and passes; set
//! FLOWSTATE_REQUIRE_NODE=1 to make a missing node a failure (CI does).

use flowstate_core::coupling::web_api::UNBOUNDED_BACKLOG;
use flowstate_core::coupling::{DataInput, MediaInput, WebApiConfig, WebApiInput, WebApiRule};
use flowstate_core::endpoint::data_source::XorShift64;
use flowstate_core::{Bitrate, DataSize, TimeDelta};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

const SEQUENCES: usize = 2000;

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "null".into()
    }
}

struct Gen(XorShift64);
impl Gen {
    fn f(&mut self) -> f64 {
        self.0.next_f64()
    }
    fn chance(&mut self, p: f64) -> bool {
        self.f() < p
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f()
    }
    /// A rate around `scale` bit/s, sometimes exactly zero or a round number.
    fn rate(&mut self, scale: f64) -> f64 {
        match self.0.next_u64() % 10 {
            0 => 0.0,
            1 => (self.range(0.0, 10.0)).round() * scale / 10.0,
            _ => self.range(0.0, 2.0 * scale),
        }
    }
}

/// A generated configuration and its JSON; the defaults are written as `{}` so that the
/// JS module's own defaults are compared too.
fn config(g: &mut Gen) -> (WebApiConfig, String) {
    let mut c = WebApiConfig::default();
    if !g.chance(0.3) {
        return (c, "{}".into());
    }
    {
        c.decrease_threshold = g.range(0.0, 0.2);
        c.encoder_limited_ratio = g.range(0.5, 0.95);
        c.encoder_headroom = g.range(1.0, 2.0);
        c.min_media_rate = Bitrate::bps(g.range(0.0, 3e5));
        c.rtt_guard = g.chance(0.5).then(|| g.range(1.1, 3.0));
        c.rtt_guard_factor = g.range(0.5, 0.99);
        c.max_growth = g.chance(0.8).then(|| g.range(0.05, 3.0));
    }
    let opt = |x: Option<f64>| x.map_or("null".into(), num);
    let json = format!(
        "{{\"decreaseThreshold\":{},\"encoderLimitedRatio\":{},\"encoderHeadroom\":{},\"minMediaRate\":{},\"rttGuard\":{},\"rttGuardFactor\":{},\"maxGrowth\":{}}}",
        num(c.decrease_threshold),
        num(c.encoder_limited_ratio),
        num(c.encoder_headroom),
        num(c.min_media_rate.as_bps()),
        opt(c.rtt_guard),
        num(c.rtt_guard_factor),
        opt(c.max_growth),
    );
    (c, json)
}

fn vectors() -> String {
    let mut g = Gen(XorShift64::new(0x5EED_0023));
    let mut out = String::from("[");
    for k in 0..SEQUENCES {
        let (cfg, cfg_json) = config(&mut g);
        let mut rule = WebApiRule::new(cfg).expect("valid generated config");
        let scale = [3e5, 2e6, 1e7, 1e8][(g.0.next_u64() % 4) as usize];
        // Flows come and go between steps (ids stay stable while present).
        let mut media: Vec<(u64, f64, Option<f64>)> = Vec::new();
        let mut data: Vec<(u64, f64, bool)> = Vec::new();
        let mut next_id = 1u64;
        let steps = 1 + (g.0.next_u64() % 40) as usize;
        let _ = write!(
            out,
            "{}{{\"config\":{cfg_json},\"steps\":[",
            if k > 0 { "," } else { "" }
        );
        for s in 0..steps {
            if (media.is_empty() || g.chance(0.08)) && media.len() < 4 {
                let max = g.chance(0.5).then(|| g.rate(scale));
                media.push((next_id, g.range(0.1, 5.0), max));
                next_id += 1;
            }
            if g.chance(0.05) && !media.is_empty() {
                let i = (g.0.next_u64() % media.len() as u64) as usize;
                media.remove(i);
            }
            if ((data.is_empty() && g.chance(0.5)) || g.chance(0.05)) && data.len() < 4 {
                data.push((next_id, g.range(0.1, 5.0), g.chance(0.6)));
                next_id += 1;
            }
            if g.chance(0.05) && !data.is_empty() {
                let j = (g.0.next_u64() % data.len() as u64) as usize;
                data.remove(j);
            }
            let elapsed = TimeDelta::from_micros(50_000 + (g.0.next_u64() % 250_000) as i64);
            let rtt = g
                .chance(0.6)
                .then(|| TimeDelta::from_micros(5_000 + (g.0.next_u64() % 500_000) as i64));
            let mi: Vec<MediaInput> = media
                .iter()
                .map(|&(id, priority, max)| MediaInput {
                    id,
                    priority,
                    target: Bitrate::bps(g.rate(scale)),
                    sent: Bitrate::bps(g.rate(scale)),
                    max: max.map(Bitrate::bps),
                })
                .collect();
            let di: Vec<DataInput> = data
                .iter()
                .map(|&(id, priority, greedy)| DataInput {
                    id,
                    priority,
                    sent: Bitrate::bps(g.rate(scale)),
                    backlog: if greedy {
                        UNBOUNDED_BACKLOG
                    } else {
                        DataSize::bytes(g.0.next_u64() % 2_000_000)
                    },
                })
                .collect();
            // Sometimes no media at all (the rule leaves data unpaced and forgets).
            let no_media = g.chance(0.03);
            let mi_used: &[MediaInput] = if no_media { &[] } else { &mi };
            let d = rule
                .update(&WebApiInput {
                    elapsed,
                    rtt,
                    media: mi_used,
                    data: &di,
                })
                .expect("valid generated input");
            let media_json: Vec<String> = mi_used
                .iter()
                .map(|m| {
                    format!(
                        "{{\"id\":{},\"priority\":{},\"target\":{},\"sent\":{},\"max\":{}}}",
                        m.id,
                        num(m.priority),
                        num(m.target.as_bps()),
                        num(m.sent.as_bps()),
                        m.max.map_or("null".into(), |b| num(b.as_bps()))
                    )
                })
                .collect();
            let data_json: Vec<String> = di
                .iter()
                .map(|x| {
                    let backlog = if x.backlog == UNBOUNDED_BACKLOG {
                        "null".into()
                    } else {
                        x.backlog.as_bytes().to_string()
                    };
                    format!(
                        "{{\"id\":{},\"priority\":{},\"sent\":{},\"backlog\":{backlog}}}",
                        x.id,
                        num(x.priority),
                        num(x.sent.as_bps())
                    )
                })
                .collect();
            let list = |v: &[Bitrate]| {
                v.iter()
                    .map(|b| num(b.as_bps()))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let _ = write!(
                out,
                "{}{{\"elapsed_us\":{},\"rtt_us\":{},\"media\":[{}],\"data\":[{}],\"media_max\":[{}],\"data_pacing\":[{}],\"aggregate\":{},\"decrease\":{}}}",
                if s > 0 { "," } else { "" },
                elapsed.as_micros(),
                rtt.map_or("null".into(), |r| r.as_micros().to_string()),
                media_json.join(","),
                data_json.join(","),
                list(&d.media_max),
                list(&d.data_pacing),
                num(d.aggregate.as_bps()),
                num(d.decrease),
            );
        }
        out.push_str("]}");
    }
    out.push(']');
    out
}

#[test]
fn rust_and_js_rules_agree() {
    let node = std::env::var_os("FLOWSTATE_NODE").unwrap_or_else(|| "node".into());
    let require = std::env::var_os("FLOWSTATE_REQUIRE_NODE").is_some();
    let version = Command::new(&node).arg("--version").output();
    if !version.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            !require,
            "node not found ({node:?}) but FLOWSTATE_REQUIRE_NODE is set"
        );
        println!("SKIPPED: node not found ({node:?})");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let test = root.join("js/flowstate-coupling/test");
    let file = std::env::temp_dir().join(format!("flowstate-web-api-{}.json", std::process::id()));
    std::fs::write(&file, vectors()).expect("write vectors");
    let out = Command::new(&node)
        .arg("--test")
        .arg(&test)
        .env("FLOWSTATE_WEB_API_VECTORS", &file)
        .output()
        .expect("run node");
    let _ = std::fs::remove_file(&file);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "node --test failed:\n{text}");
    assert!(
        text.contains("# fail 0") && text.contains("# skipped 0"),
        "{text}"
    );
    assert!(
        text.contains("sequences,"),
        "the comparison did not run:\n{text}"
    );
}
