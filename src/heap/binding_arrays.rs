//! Tiers A and B's texture storage: every 2D texture, cube texture and
//! sampler in its own binding array of group 0 (`wgsl/heap.wgsl`), indexed
//! by slot.

use std::num::NonZeroU32;

use wgpu::TextureViewDimension::{Cube, D2};

use crate::handles::{SamplerSlot, TextureCubeSlot, TextureHandle};

use super::layout::{filterable_texture, fragment_entry};
use super::slots::{SlotArray, Slots2d};
use super::textures::{Rgba8, Uploader, texture_bytes};
use super::{CompressedTextureDesc, HeapError, TextureDesc};

/// The bind group layout and the view of every 2D slot.
#[derive(Debug)]
pub(super) struct BindingArrays {
    layout: wgpu::BindGroupLayout,
    /// The view of each 2D slot (`None`: free).
    views_2d: Vec<Option<wgpu::TextureView>>,
}

impl BindingArrays {
    /// Group 0 with room for the given number of slots per array.
    pub fn new(device: &wgpu::Device, textures_2d: u32, textures_cube: u32, samplers: u32) -> Self {
        let array = |binding, ty, count| fragment_entry(binding, ty, NonZeroU32::new(count));
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound resource heap"),
            entries: &[
                array(0, filterable_texture(D2), textures_2d),
                array(1, filterable_texture(Cube), textures_cube),
                array(
                    2,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    samplers,
                ),
            ],
        });
        Self {
            layout,
            views_2d: Vec::new(),
        }
    }

    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Uploads an RGBA8 texture (mips as asked) into the lowest free slot.
    pub fn add_2d(
        &mut self,
        uploader: &mut Uploader,
        slots: &mut Slots2d,
        desc: &TextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        let texture = uploader.rgba8(&Rgba8::from(desc));
        self.insert(slots, &texture)
    }

    /// Uploads a block-compressed texture as it is into the lowest free slot.
    pub fn add_compressed_2d(
        &mut self,
        uploader: &Uploader,
        slots: &mut Slots2d,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        let texture = uploader.compressed(desc);
        self.insert(slots, &texture)
    }

    fn insert(
        &mut self,
        slots: &mut Slots2d,
        texture: &wgpu::Texture,
    ) -> Result<TextureHandle, HeapError> {
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let handle = slots.insert((), texture_bytes(texture))?;
        let slot = handle.slot() as usize;
        if slot >= self.views_2d.len() {
            self.views_2d.resize_with(slot + 1, || None);
        }
        self.views_2d[slot] = Some(view);
        Ok(handle)
    }

    /// Drops a freed slot's view.
    pub fn remove_2d(&mut self, slot: u32) {
        self.views_2d[slot as usize] = None;
    }

    /// Group 0 over the bound prefix of each array, free slots bound to
    /// slot 0's fallback.
    pub fn bind_group(
        &self,
        device: &wgpu::Device,
        textures_2d: &Slots2d,
        textures_cube: &SlotArray<TextureCubeSlot, wgpu::TextureView>,
        samplers: &SlotArray<SamplerSlot, wgpu::Sampler>,
    ) -> wgpu::BindGroup {
        let fallback = self.views_2d[0].as_ref().expect("slot 0 is reserved");
        let views_2d: Vec<&wgpu::TextureView> = self.views_2d[..textures_2d.bound_len() as usize]
            .iter()
            .map(|view| view.as_ref().unwrap_or(fallback))
            .collect();
        let views_cube = textures_cube.bound();
        let samplers = samplers.bound();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound resource heap"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureViewArray(&views_2d),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureViewArray(&views_cube),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::SamplerArray(&samplers),
                },
            ],
        })
    }
}
