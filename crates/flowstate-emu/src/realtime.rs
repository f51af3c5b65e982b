//! Real-time scheduling for the emulator's threads: a bottleneck that waits behind a
//! browser's or a kernel's work for a core misses its departure times. With root (or
//! CAP_SYS_NICE) a thread asks for SCHED_FIFO at [`PRIORITY`]; without, it stays at
//! normal priority and says so through the result. The kernel's RT throttling
//! (`sched_rt_runtime_us`, 95 % by default) keeps a spinning thread from locking up a
//! core.

/// SCHED_FIFO priority on thread-priority's cross-platform 0-99 scale: below the
/// kernel's threaded interrupt handlers (50), above every normal thread.
pub const PRIORITY: u8 = 40;

/// Ask for SCHED_FIFO at [`PRIORITY`] for the calling thread; `false` when refused
/// (not root) or not supported on this system.
#[cfg(target_os = "linux")]
pub fn make_current_thread_realtime() -> bool {
    use thread_priority::{
        set_thread_priority_and_policy, thread_native_id, RealtimeThreadSchedulePolicy,
        ThreadPriority, ThreadPriorityValue, ThreadSchedulePolicy,
    };
    let Ok(value) = ThreadPriorityValue::try_from(PRIORITY) else {
        return false;
    };
    set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Crossplatform(value),
        ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo),
    )
    .is_ok()
}

#[cfg(not(target_os = "linux"))]
pub fn make_current_thread_realtime() -> bool {
    false
}
