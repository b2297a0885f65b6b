//! The frame's GPU passes, in the order a frame records them.

pub mod cull;
pub mod draw;
