//! The GPU stage: a parsed [`GltfDocument`] into a [`Renderer`], its
//! indices checked first, removing what was added again if the renderer
//! refuses anything. A missing texture is the heap's reserved "missing"
//! texture: nothing is uploaded for it, and nothing removed.

use glam::Mat4;

use super::{DocumentError, GltfDocument, GltfError, GltfScene, LoadStage, Progress, TexelData};
use crate::errors::Error;
use crate::handles::SamplerHandle;
use crate::heap::{CompressedTextureDesc, Mips, TextureDesc};
use crate::renderer::Renderer;
use crate::scene::ObjectDesc;

pub(super) fn upload(
    document: &GltfDocument,
    renderer: &mut Renderer,
    (world_from_scene, mesh_options): (Mat4, &crate::MeshOptions),
    progress: &mut Progress<'_, '_>,
) -> Result<GltfScene, GltfError> {
    // Every index `add_all` follows is in range from here on.
    document
        .validate_references()
        .map_err(|source| GltfError::Document {
            path: document.path.clone(),
            source,
        })?;
    let (capacity, live) = (
        renderer.config().capacities.objects,
        renderer.objects().len(),
    );
    let objects = document.placements.len() as u64;
    if objects > u64::from(capacity.saturating_sub(live)) {
        return Err(GltfError::ObjectCapacity {
            path: document.path.clone(),
            objects,
            capacity,
            live,
        });
    }
    let mut scene = GltfScene {
        warnings: document.warnings.clone(),
        bounds: document.bounds(world_from_scene),
        ..GltfScene::default()
    };
    let mut new_samplers = Vec::new();
    let result = add_all(
        document,
        renderer,
        (world_from_scene, mesh_options),
        &mut scene,
        &mut new_samplers,
        progress,
    )
    .and_then(|()| {
        scene.animation = document
            .animated_scene(Some(&scene), world_from_scene)
            .map_err(Failure::Animation)?;
        Ok(())
    });
    if let Err(failure) = result {
        // Leave the renderer as it was.
        for &light in &scene.lights {
            renderer.remove_light(light).ok();
        }
        for &object in &scene.objects {
            renderer.remove_object(object).ok();
        }
        for &material in &scene.materials {
            renderer.remove_material(material).ok();
        }
        for &mesh in &scene.meshes {
            renderer.remove_mesh(mesh).ok();
        }
        let missing = renderer.heap().missing_texture();
        for &texture in scene.textures.iter().filter(|&&t| t != missing) {
            renderer.remove_texture(texture).ok();
        }
        for &sampler in &new_samplers {
            renderer.remove_sampler(sampler).ok();
        }
        let path = document.path.clone();
        return Err(match failure {
            Failure::Renderer(error) => GltfError::Renderer {
                path,
                source: Box::new(error),
            },
            Failure::Document(source) => GltfError::Document { path, source },
            Failure::Animation(error) => error,
        });
    }
    Ok(scene)
}

/// Why `add_all` stopped.
enum Failure {
    Renderer(Error),
    Document(DocumentError),
    Animation(GltfError),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self::Renderer(error)
    }
}

fn add_all(
    document: &GltfDocument,
    renderer: &mut Renderer,
    (world_from_scene, mesh_options): (Mat4, &crate::MeshOptions),
    scene: &mut GltfScene,
    new_samplers: &mut Vec<SamplerHandle>,
    progress: &mut Progress<'_, '_>,
) -> Result<(), Failure> {
    let total = document.textures.len();
    progress.report(LoadStage::UploadTextures, 0, total);
    for texture in &document.textures {
        let handle = match &texture.data {
            TexelData::Rgba8(rgba) => renderer.add_texture(&TextureDesc {
                label: texture.name.as_deref(),
                width: texture.width,
                height: texture.height,
                format: texture.format(),
                data: rgba,
                mips: Mips::Generate,
            })?,
            TexelData::Compressed { format, levels } => {
                let levels: Vec<&[u8]> = levels.iter().map(Vec::as_slice).collect();
                renderer.add_compressed_texture(&CompressedTextureDesc {
                    label: texture.name.as_deref(),
                    width: texture.width,
                    height: texture.height,
                    format: *format,
                    levels: &levels,
                })?
            }
            TexelData::Missing => renderer.heap().missing_texture(),
        };
        scene.textures.push(handle);
        progress.report(LoadStage::UploadTextures, scene.textures.len(), total);
    }
    // Samplers are shared by the heap (equal descriptions, one slot): only
    // those this upload created are removed again on failure.
    for desc in &document.samplers {
        let before = renderer.heap().live_counts().samplers;
        let sampler = renderer.add_sampler(desc)?;
        if renderer.heap().live_counts().samplers > before {
            new_samplers.push(sampler);
        }
        scene.samplers.push(sampler);
    }

    let total = document.meshes.len();
    progress.report(LoadStage::UploadMeshes, 0, total);
    for mesh in &document.meshes {
        scene
            .meshes
            .push(renderer.add_mesh_with(&mesh.as_mesh_data(), mesh_options)?);
        progress.report(LoadStage::UploadMeshes, scene.meshes.len(), total);
    }

    let total = document.materials.len() + document.placements.len() + document.lights.len();
    progress.report(LoadStage::UploadObjects, 0, total);
    for (index, material) in document.materials.iter().enumerate() {
        let material = material
            .to_material(&scene.textures, &scene.samplers)
            .map_err(|source| {
                Failure::Document(DocumentError::Material {
                    material: index,
                    source,
                })
            })?;
        scene.materials.push(renderer.add_material(&material)?);
        progress.report(LoadStage::UploadObjects, scene.materials.len(), total);
    }
    // Indices in range: checked in `upload`.
    for placement in &document.placements {
        let mesh = &document.meshes[placement.mesh];
        let desc = ObjectDesc {
            mesh: scene.meshes[placement.mesh],
            material: scene.materials[mesh.material],
            world_from_object: world_from_scene * placement.scene_from_object,
        };
        scene.objects.push(renderer.add_object(&desc)?);
        scene.placements.push(desc);
        progress.report(
            LoadStage::UploadObjects,
            scene.materials.len() + scene.objects.len(),
            total,
        );
    }
    for light in &document.lights {
        scene
            .lights
            .push(renderer.add_light(&light.world_light(&world_from_scene))?);
        progress.report(
            LoadStage::UploadObjects,
            scene.materials.len() + scene.objects.len() + scene.lights.len(),
            total,
        );
    }
    // The file's sun, unless one is named already (see `lights.rs`).
    if let Some(sun) = super::lights::brightest_directional(&document.lights)
        && renderer.sun_light().is_none()
    {
        renderer.set_sun_light(Some(scene.lights[sun]))?;
    }
    Ok(())
}
