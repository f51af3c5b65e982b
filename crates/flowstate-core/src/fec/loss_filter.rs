//! The FEC controller's loss filter: `VCMLossProtectionLogic::FilteredLoss` with
//! `kMaxFilter` (the mode `FecControllerDefault::UpdateFecRates` uses): the largest loss
//! of each 1 s window (`kLossPrShortFilterWinMs`) kept for `kLossPrHistorySize` = 10
//! windows, and the maximum over the current window and the history younger than 10 s
//! (`UpdateMaxLossHistory`, `MaxFilteredLossPr`; libwebrtc
//! `modules/video_coding/media_opt_util.{h,cc}`, WebRTC M150, signalapp/webrtc
//! bd635df). The recursive average filter the sources also update is not read in this
//! mode and is not modelled.

/// `kLossPrHistorySize`.
pub const LOSS_PR_HISTORY_SIZE: usize = 10;
/// `kLossPrShortFilterWinMs`.
pub const LOSS_PR_SHORT_FILTER_WIN_MS: i64 = 1000;

/// The max-window loss filter (loss in Q8).
#[derive(Debug, Clone)]
pub struct MaxLossFilter {
    /// (loss, time ms; -1 unset), newest first.
    history: [(u8, i64); LOSS_PR_HISTORY_SIZE],
    short_max: u8,
}

impl Default for MaxLossFilter {
    fn default() -> Self {
        Self {
            history: [(0, -1); LOSS_PR_HISTORY_SIZE],
            short_max: 0,
        }
    }
}

impl MaxLossFilter {
    pub fn new() -> Self {
        Self::default()
    }

    /// `UpdateMaxLossHistory(lossPr255, now)`.
    fn update(&mut self, loss: u8, now_ms: i64) {
        let (_, t0) = self.history[0];
        if t0 >= 0 && now_ms - t0 < LOSS_PR_SHORT_FILTER_WIN_MS {
            self.short_max = self.short_max.max(loss);
            return;
        }
        if t0 == -1 {
            self.short_max = loss;
        } else {
            self.history.copy_within(0..LOSS_PR_HISTORY_SIZE - 1, 1);
        }
        if self.short_max == 0 {
            self.short_max = loss;
        }
        self.history[0] = (self.short_max, now_ms);
        self.short_max = 0;
    }

    /// `MaxFilteredLossPr(now)`.
    pub fn max_filtered(&self, now_ms: i64) -> u8 {
        let mut found = self.short_max;
        if self.history[0].1 == -1 {
            return found;
        }
        for &(loss, t) in &self.history {
            if t == -1 || now_ms - t > LOSS_PR_HISTORY_SIZE as i64 * LOSS_PR_SHORT_FILTER_WIN_MS {
                break;
            }
            found = found.max(loss);
        }
        found
    }

    /// `FilteredLoss(now, kMaxFilter, loss)`: record, then the filtered value.
    pub fn filtered(&mut self, now_ms: i64, loss: u8) -> u8 {
        self.update(loss, now_ms);
        self.max_filtered(now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_is_remembered_for_ten_seconds() {
        let mut f = MaxLossFilter::new();
        assert_eq!(f.filtered(0, 30), 30);
        // Within the same second a lower value does not lower it.
        assert_eq!(f.filtered(500, 5), 30);
        // Windows later the 30 is still the maximum...
        for s in 1..=9 {
            assert_eq!(f.filtered(s * 1000, 0), 30, "at {s} s");
        }
        // ... until its window leaves the 10 windows of history; then the 5 (the
        // maximum of the first window's later samples, stored with the next window).
        assert_eq!(f.filtered(10_000, 0), 5);
        assert_eq!(f.filtered(11_000, 0), 0);
    }

    #[test]
    fn a_window_keeps_its_largest_value() {
        let mut f = MaxLossFilter::new();
        f.filtered(0, 0);
        f.filtered(100, 7);
        f.filtered(200, 3);
        // A new window stores the previous window's maximum (7).
        assert_eq!(f.filtered(1000, 1), 7);
        assert_eq!(f.history[0], (7, 1000));
    }

    #[test]
    fn no_loss_is_zero() {
        let mut f = MaxLossFilter::new();
        for t in 0..30 {
            assert_eq!(f.filtered(t * 400, 0), 0);
        }
    }
}
