use super::*;

fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}

#[test]
fn a_loop_sleeps_until_its_deadline_at_most_max_wait() {
    // No deadline: the longest sleep (the loop still looks at the clock).
    assert_eq!(wait_until(ms(10), None), MAX_WAIT);
    // Due or past: no sleep.
    assert_eq!(wait_until(ms(10), Some(ms(10))), Duration::ZERO);
    assert_eq!(wait_until(ms(10), Some(ms(3))), Duration::ZERO);
    // Near: exactly until then; far: capped.
    assert_eq!(
        wait_until(ms(10), Some(Timestamp::from_micros(12_500))),
        Duration::from_micros(2_500)
    );
    assert_eq!(wait_until(ms(10), Some(ms(1_000))), MAX_WAIT);
}

#[test]
fn the_earliest_of_two_optional_deadlines() {
    assert_eq!(earliest(None, None), None);
    assert_eq!(earliest(Some(ms(5)), None), Some(ms(5)));
    assert_eq!(earliest(None, Some(ms(7))), Some(ms(7)));
    assert_eq!(earliest(Some(ms(9)), Some(ms(7))), Some(ms(7)));
}

#[test]
fn the_clock_counts_from_its_origin() {
    let origin = Instant::now() - Duration::from_secs(2);
    let clock = Clock(origin);
    let (a, b) = (clock.now(), clock.now());
    assert!(
        a >= Timestamp::from_secs(2) && a < Timestamp::from_secs(60),
        "{a}"
    );
    assert!(b >= a);
}
