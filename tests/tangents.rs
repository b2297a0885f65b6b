//! Generated tangents (MikkTSpace, `MeshData::generated_tangents`) against
//! the tangents two exporters wrote, and the glTF loader's generation for a
//! normal-mapped primitive without `TANGENT`: from the normal texture's UV
//! set, vertices split and charged to the limits. CPU only.

mod common;

use std::path::Path;

use common::*;
use glam::{Vec3, Vec4};
use unbound::MeshData;
use unbound::loaders::gltf::{
    GltfDocument, GltfError, Limit, LoadLimits, ParseOptions, parse_gltf,
    parse_gltf_slice_with_options,
};

/// Tolerance on a tangent's direction, in degrees. MikkTSpace weights the
/// faces around a vertex by angle; other tools weight them otherwise, which
/// turns the tangent of a vertex on a curved surface by a degree or so.
const DIRECTION_TOLERANCE_DEGREES: f32 = 5.0;

/// How generated tangents agree with a file's, over every vertex of every
/// mesh with tangents (a split vertex counts once per copy, against the
/// file's tangent of the vertex it copies).
#[derive(Debug, Default)]
struct Agreement {
    vertices: usize,
    /// Vertices whose handedness (w) is the file's.
    same_handedness: usize,
    /// Vertices with the file's handedness and a direction within
    /// [`DIRECTION_TOLERANCE_DEGREES`].
    agreeing: usize,
}

impl Agreement {
    fn handedness_fraction(&self) -> f64 {
        self.same_handedness as f64 / self.vertices as f64
    }

    fn agreeing_fraction(&self) -> f64 {
        self.agreeing as f64 / self.vertices as f64
    }
}

/// Strips each mesh's tangents, generates them from its normal texture's
/// UV set and compares them with the file's.
fn agreement(document: &GltfDocument) -> Agreement {
    let mut agreement = Agreement::default();
    for mesh in &document.meshes {
        let Some(provided) = &mesh.tangents else {
            continue;
        };
        let stripped = MeshData {
            tangents: None,
            ..mesh.as_mesh_data()
        };
        let generated = stripped
            .generated_tangents()
            .unwrap()
            .expect("a normal-mapped mesh with UVs");
        assert_eq!(generated.indices.len(), mesh.indices.len());
        for (tangent, source) in generated.tangents.iter().zip(generated.sources()) {
            let (want, got) = (Vec4::from(provided[source]), Vec4::from(*tangent));
            let cos = want.truncate().normalize().dot(got.truncate());
            let same_handedness = want.w.signum() == got.w.signum();
            agreement.vertices += 1;
            agreement.same_handedness += usize::from(same_handedness);
            agreement.agreeing += usize::from(
                same_handedness && cos >= DIRECTION_TOLERANCE_DEGREES.to_radians().cos(),
            );
        }
    }
    agreement
}

/// FlightHelmet's tangents come from Maya (babylon.js exporter), the
/// AnisotropyBarnLamp's from 3ds Max. Neither file says its tangents are
/// MikkTSpace, so the directions are compared within a tolerance and a
/// fraction; the handedness is glTF's convention and must match.
///
/// Measured: FlightHelmet 99.98% same handedness, 94.84% agreeing;
/// AnisotropyBarnLamp 94.27% and 77.91%. The per-vertex accumulation from
/// the first UV set that MikkTSpace replaced had the handedness backwards
/// (bitangent down the image, against a normal map's +Y): 0.33% and 0.31%
/// on FlightHelmet, 2.93% and 0.04% on the lamp.
#[test]
fn generated_tangents_agree_with_two_exporters_tangents() {
    let cases = [
        ("FlightHelmet/FlightHelmet.gltf", 0.999, 0.93),
        ("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf", 0.93, 0.75),
    ];
    for (file, min_handedness, min_agreeing) in cases {
        let document = parse_gltf(&asset(file)).unwrap();
        let agreement = agreement(&document);
        println!(
            "{file}: {} vertices, same handedness {:.2}%, within {DIRECTION_TOLERANCE_DEGREES} degrees {:.2}%",
            agreement.vertices,
            100.0 * agreement.handedness_fraction(),
            100.0 * agreement.agreeing_fraction()
        );
        assert!(agreement.vertices > 5000, "{file}: {agreement:?}");
        assert!(
            agreement.handedness_fraction() >= min_handedness,
            "{file}: {agreement:?}"
        );
        assert!(
            agreement.agreeing_fraction() >= min_agreeing,
            "{file}: {agreement:?}"
        );
    }
}

/// FlightHelmet's JSON with every `attributes` named removed from each
/// primitive.
fn helmet_without(attributes: &[&str]) -> Vec<u8> {
    let path = asset("FlightHelmet/FlightHelmet.gltf");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for mesh in json["meshes"].as_array_mut().unwrap() {
        for primitive in mesh["primitives"].as_array_mut().unwrap() {
            let present = primitive["attributes"].as_object_mut().unwrap();
            for attribute in attributes {
                assert!(present.remove(*attribute).is_some());
            }
        }
    }
    serde_json::to_vec(&json).unwrap()
}

fn parse_helmet(json: &[u8], limits: LoadLimits) -> Result<GltfDocument, GltfError> {
    let options = ParseOptions {
        limits,
        ..ParseOptions::default()
    };
    let folder = asset("FlightHelmet");
    let path = folder.join("without-tangents.gltf");
    parse_gltf_slice_with_options(json, &path, Some(&folder), &options)
}

/// The loader generates what `generated_tangents` gives for the file's own
/// mesh, extends every attribute over the split vertices, and charges them
/// to `max_vertices`; `max_tangent_indices` bounds a primitive it generates
/// for.
#[test]
fn the_loader_generates_tangents_for_normal_mapped_primitives_without_them() {
    let with_tangents = parse_gltf(&asset("FlightHelmet/FlightHelmet.gltf")).unwrap();
    let json = helmet_without(&["TANGENT"]);
    let generated_document = parse_helmet(&json, LoadLimits::DEFAULT).unwrap();
    let mut added = 0;
    for (file, loaded) in with_tangents.meshes.iter().zip(&generated_document.meshes) {
        let expected = MeshData {
            tangents: None,
            ..file.as_mesh_data()
        }
        .generated_tangents()
        .unwrap()
        .unwrap();
        assert_eq!(loaded.tangents.as_ref(), Some(&expected.tangents));
        assert_eq!(loaded.indices, expected.indices);
        assert_eq!(
            Some(&loaded.positions),
            expected.gather(&file.positions).as_ref()
        );
        assert_eq!(
            loaded.normals,
            file.normals.as_deref().and_then(|n| expected.gather(n))
        );
        assert_eq!(
            loaded.uv0,
            file.uv0.as_deref().and_then(|uv| expected.gather(uv))
        );
        added += expected.split_from.len();
    }
    // MikkTSpace splits a few of the helmet's vertices (measured: 13).
    assert!(added > 0);
    // Without normals either, those of a mesh whose vertices are split are
    // computed before the split (after it, the copies' normals would only
    // see their own triangles), and stay computed on upload otherwise.
    let bare = parse_helmet(&helmet_without(&["TANGENT", "NORMAL"]), LoadLimits::DEFAULT);
    for (file, loaded) in with_tangents.meshes.iter().zip(&bare.unwrap().meshes) {
        let stripped = MeshData {
            tangents: None,
            normals: None,
            ..file.as_mesh_data()
        };
        let expected = stripped.generated_tangents().unwrap().unwrap();
        let computed: Vec<[f32; 3]> = stripped
            .vertex_normals()
            .iter()
            .map(|n| n.to_array())
            .collect();
        let normals =
            (!expected.split_from.is_empty()).then(|| expected.gather(&computed).unwrap());
        assert_eq!(loaded.normals, normals);
        assert_eq!(loaded.tangents.as_ref(), Some(&expected.tangents));
    }
    let file_vertices: usize = with_tangents.meshes.iter().map(|m| m.positions.len()).sum();
    let exactly = |max_vertices: usize| LoadLimits {
        max_vertices: max_vertices as u64,
        ..LoadLimits::DEFAULT
    };
    parse_helmet(&json, exactly(file_vertices + added)).unwrap();
    assert_matches!(
        parse_helmet(&json, exactly(file_vertices + added - 1)),
        Err(GltfError::LimitExceeded {
            limit: Limit::Vertices,
            ..
        })
    );
    let largest = with_tangents.meshes.iter().map(|m| m.indices.len()).max();
    let tangent_limit = LoadLimits {
        max_tangent_indices: largest.unwrap() as u64 - 1,
        ..LoadLimits::DEFAULT
    };
    assert_matches!(
        parse_helmet(&json, tangent_limit),
        Err(GltfError::LimitExceeded {
            limit: Limit::TangentIndices,
            ..
        })
    );
    // The file's own tangents are never regenerated, whatever the limit.
    let options = ParseOptions {
        limits: tangent_limit,
        ..ParseOptions::default()
    };
    let path = asset("FlightHelmet/FlightHelmet.gltf");
    let bytes = std::fs::read(&path).unwrap();
    let folder = path.parent().map(Path::to_path_buf);
    parse_gltf_slice_with_options(&bytes, &path, folder.as_deref(), &options).unwrap();
}

/// A quad whose normal texture samples TEXCOORD_1, turned a quarter against
/// TEXCOORD_0: the tangent follows TEXCOORD_1's u (up the quad, +Y). Without
/// a normal texture nothing is generated (the arena's fallback tangent).
#[test]
fn generated_tangents_follow_the_normal_textures_uv_set() {
    let normal = ktx2_file(37, 1, 1, &[vec![128, 128, 255, 255]]);
    let turned = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]];
    let parse = |material: &str| {
        let file = material_quad_gltf(material, &[("image/ktx2", normal.clone())], turned, &[]);
        let path = Path::new("quad.gltf");
        parse_gltf_slice_with_options(file.as_bytes(), path, None, &ParseOptions::default())
            .unwrap()
    };
    let document = parse(r#"{"normalTexture": {"index": 0, "texCoord": 1}}"#);
    let mesh = &document.meshes[0];
    assert_eq!(mesh.tangent_uv_set, Some(1));
    for tangent in mesh.tangents.as_ref().unwrap() {
        // TEXCOORD_1's v grows along +X (down its image): up the image is
        // -X, so bitangent = cross(+Z, +Y) * w = -X * w needs w = +1.
        let tangent = Vec4::from(*tangent);
        assert!(tangent.distance(Vec3::Y.extend(1.0)) < 1e-6, "{tangent}");
    }
    let on_first_set = parse(r#"{"normalTexture": {"index": 0}}"#);
    let tangents = on_first_set.meshes[0].tangents.as_ref().unwrap();
    assert!(
        tangents
            .iter()
            .all(|t| Vec4::from(*t).distance(Vec4::new(1.0, 0.0, 0.0, 1.0)) < 1e-6)
    );
    let without_normal_texture = parse(r#"{"occlusionTexture": {"index": 0}}"#);
    let mesh = &without_normal_texture.meshes[0];
    assert_eq!((mesh.tangent_uv_set, mesh.tangents.as_ref()), (None, None));
}
