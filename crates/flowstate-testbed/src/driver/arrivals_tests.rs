use super::*;

#[test]
fn the_queuing_delay_is_the_one_way_delay_above_the_smallest() {
    let mut a = Arrivals::default();
    assert_eq!(a.on_packet(0, 40_000).queue_us, 0);
    assert_eq!(a.on_packet(1, 55_000).queue_us, 15_000);
    // A new smallest one-way delay: no queue, and later packets measured from it.
    assert_eq!(a.on_packet(2, 30_000).queue_us, 0);
    assert_eq!(a.on_packet(3, 45_000).queue_us, 15_000);
}

#[test]
fn gaps_in_the_sequence_numbers_are_losses_and_late_packets_are_not() {
    let mut a = Arrivals::default();
    assert_eq!(a.on_packet(10, 1).lost, 0);
    assert_eq!(a.on_packet(11, 1).lost, 0);
    // 12, 13 and 14 missing.
    assert_eq!(a.on_packet(15, 1).lost, 3);
    // A late one (reordered): no loss, and the highest stays 15.
    assert_eq!(a.on_packet(13, 1).lost, 0);
    assert_eq!(a.on_packet(16, 1).lost, 0);
    // A duplicate of the highest: no loss either.
    assert_eq!(a.on_packet(16, 1).lost, 0);
}
