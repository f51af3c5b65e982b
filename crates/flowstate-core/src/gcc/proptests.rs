//! Property tests over random arrival sequences.
