use flowstate_sim::run_toml;

#[test]
#[ignore]
fn explore() {
    let text = std::fs::read_to_string(std::env::var("SBD_SCENARIO").unwrap()).unwrap();
    let r = run_toml(&text, "x.toml", Some(1)).unwrap();
    let s = r.summary;
    let sbd = s.sbd.as_ref().unwrap();
    for v in sbd.timeline.iter().step_by(8) {
        println!("{:6.2} {:?} truth {:?} {}/{}", v.time_s, v.groups, v.truth, v.correct_pairs, v.pairs);
    }
    println!("acc {:?} ttc {:?} regroups {:?}", s.aggregate.sbd_accuracy, s.aggregate.sbd_time_to_correct_s, s.aggregate.sbd_regroups);
    for f in &s.flows { println!("{} {:.3} share {:.3} q {:?}", f.name, f.throughput_mbps, f.share, f.queuing_delay_ms.mean); }
    println!("util {:.3}", s.aggregate.utilization);
}
