//! Parse time of a trace file per format (crate::trace): 1, 4 and 16 MB of Mahimahi,
//! csv and gym-json text, generated here (a cellular-like rate around 5 Mbit/s). The
//! throughput is in bytes, so criterion prints MiB/s: parse time per MB is its inverse,
//! the same at every size when parsing is linear.
//!
//! `cargo bench -p flowstate-sim --bench trace_parse -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_sim::trace::{LinkTrace, TraceFormat};
use std::fmt::Write;
use std::hint::black_box;

/// About `bytes` of trace text in `format`.
fn trace_text(format: TraceFormat, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 100);
    match format {
        TraceFormat::Mahimahi => {
            // Two or three opportunities per ms, as a 12-18 Mbit/s link.
            let mut ms = 1u64;
            while text.len() < bytes {
                for _ in 0..(2 + ms % 2) {
                    let _ = writeln!(text, "{ms}");
                }
                ms += 1;
            }
        }
        TraceFormat::Csv => {
            text.push_str("time_s,rate_Mbps\n");
            let mut k = 0u64;
            while text.len() < bytes {
                let _ = writeln!(text, "{:.3},{:.3}", k as f64 * 0.1, 3.0 + (k % 7) as f64);
                k += 1;
            }
        }
        TraceFormat::GymJson => {
            text.push_str("{\"type\": \"video\", \"uplink\": {\"trace_pattern\": [\n");
            let mut k = 0u64;
            while text.len() < bytes {
                let _ = writeln!(
                    text,
                    "{{\"duration\": 200, \"capacity\": {}, \"loss\": 0, \"rtt\": {}, \"jitter\": 0, \"time\": 0.0}},",
                    3000 + (k % 7) * 500,
                    40 + k % 5
                );
                k += 1;
            }
            text.push_str("{\"duration\": 200, \"capacity\": 3000}\n]}}\n");
        }
    }
    text
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("trace_parse");
    g.sample_size(10);
    for format in TraceFormat::ALL {
        for mb in [1usize, 4, 16] {
            let text = trace_text(format, mb << 20);
            LinkTrace::parse(&text, format, true).expect("a valid trace");
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_function(format!("{}/{mb}MiB", format.name()), |b| {
                b.iter(|| LinkTrace::parse(black_box(&text), format, true).expect("valid"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
