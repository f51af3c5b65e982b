//! Which complete frames the decoder can take.
//!
//! The crate's encoders code every delta frame from the frame before it (one reference,
//! as VP8 without temporal layers), and their senders have no key-frame request (no
//! PLI / FIR): a key frame comes only at the start and when the statistics codec's rate
//! jumps (`keyframe_change`). libwebrtc's frame buffer (`modules/video_coding/
//! frame_buffer3.cc`) decodes a frame only when all its references were decoded
//! (`IsContinuous` / decodable), so after a lost frame it waits for a key frame, which
//! a real receiver asks for at once.
//!
//! With no such request modelled, the rule is an option:
//! - `reference_chain` off (the default): every complete frame is decodable (as if the
//!   loss were concealed or a key frame came at once); a frame missing when a later one
//!   is decoded is lost.
//! - `reference_chain` on: a delta frame is decodable only when the frame before it
//!   was decoded; after a loss, nothing is until the next key frame. Frames the GCC
//!   sender's `cwnd_frame_drop` does not encode use up a frame id, so with that option
//!   they count as lost references here.

/// The decodability rule and the last decoded frame.
#[derive(Debug, Clone, Default)]
pub struct ReferenceChain {
    enabled: bool,
    last_decoded: Option<u64>,
}

impl ReferenceChain {
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled,
            last_decoded: None,
        }
    }

    /// Whether the decoder can take frame `id` now.
    pub fn decodable(&self, id: u64, keyframe: bool) -> bool {
        !self.enabled || keyframe || (id > 0 && self.last_decoded == Some(id - 1))
    }

    pub fn on_decoded(&mut self, id: u64) {
        self.last_decoded = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_the_chain_a_delta_frame_needs_its_predecessor() {
        let mut c = ReferenceChain::new(true);
        assert!(!c.decodable(1, false), "nothing decoded yet");
        assert!(c.decodable(0, true));
        c.on_decoded(0);
        assert!(c.decodable(1, false));
        assert!(!c.decodable(2, false), "frame 1 not decoded");
        assert!(c.decodable(5, true), "a key frame always is");
        let off = ReferenceChain::new(false);
        assert!(off.decodable(7, false));
    }
}
