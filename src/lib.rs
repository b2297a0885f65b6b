//! unbound
pub mod capabilities;
pub mod gpu_types;
pub mod handles;
pub mod shaders;
