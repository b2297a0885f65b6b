//! Real and malformed glTF files from Debian's `assimp-testmodels`, each
//! loaded by the demo binary in its own process, so a panic or an abort is
//! caught as a failure: valid files must render, broken ones must end with a
//! typed error (exit code 1, the file named), never a crash; a missing
//! image is a warning.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = "/usr/share/assimp/models/glTF2";

fn corpus(relative: &str) -> PathBuf {
    let root = Path::new(ROOT);
    assert!(
        root.is_dir(),
        "{ROOT} is missing: install Debian's assimp-testmodels (apt-get install assimp-testmodels; ./scripts/test.sh does when it can)"
    );
    root.join(relative)
}

fn run_demo(file: &Path) -> (Option<i32>, String) {
    run_demo_with(file, &[])
}

/// [`run_demo`] with more arguments.
fn run_demo_with(file: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = std::env::temp_dir().join(format!("unbound-corpus-{}.png", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_unbound-demo"))
        .args(["--headless", "--width", "48", "--height", "48", "--out"])
        .arg(&out)
        .arg("--scene")
        .arg(file)
        .args(args)
        .env(
            "UNBOUND_ADAPTER",
            std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| "llvmpipe".into()),
        )
        .output()
        .expect("run unbound-demo");
    std::fs::remove_file(out).ok();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), text)
}

#[test]
fn valid_files_load_and_render() {
    for (file, objects) in [
        ("BoxTextured-glTF/BoxTextured.gltf", 1),
        ("BoxTextured-glTF-Binary/BoxTextured.glb", 1),
        ("BoxTextured-glTF-Embedded/BoxTextured.gltf", 1),
        ("2CylinderEngine-glTF-Binary/2CylinderEngine.glb", 115),
        ("textureTransform/TextureTransformTest.gltf", 12),
        ("simple_skin/simple_skin.gltf", 1),
        ("ClearCoat-glTF/ClearCoatTest.gltf", 27),
    ] {
        let (code, text) = run_demo(&corpus(file));
        assert_eq!(code, Some(0), "{file} failed:\n{text}");
        assert!(
            text.contains(&format!("({objects} objects")),
            "{file}:\n{text}"
        );
        assert!(!text.contains("panicked"), "{file}:\n{text}");
    }
}

/// glTF-Asset-Generator's Mesh_PrimitiveMode: triangles, strips and fans
/// (indexed or not) render; points and lines load with their primitives
/// skipped and reported once.
#[test]
fn every_primitive_mode_loads() {
    for n in 0..16 {
        let file =
            format!("glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_{n:02}.gltf");
        let (code, text) = run_demo(&corpus(&file));
        assert_eq!(code, Some(0), "{file} failed:\n{text}");
        let triangles = matches!(n, 4 | 5 | 6 | 11 | 12 | 13 | 14 | 15);
        if triangles {
            assert!(text.contains("(1 objects"), "{file}:\n{text}");
            assert!(text.contains("visible instances: 1 "), "{file}:\n{text}");
        } else {
            assert!(text.contains("(0 objects"), "{file}:\n{text}");
            assert_eq!(
                text.matches("point and line primitives were skipped")
                    .count(),
                1,
                "{file}:\n{text}"
            );
        }
    }
}

#[test]
fn malformed_files_are_typed_errors_not_crashes() {
    for file in [
        "IndexOutOfRange/IndexOutOfRange.gltf",
        "IndexOutOfRange/AllIndicesOutOfRange.gltf",
        "RecursiveNodes/RecursiveNodes.gltf",
        "MissingBin/BoxTextured.gltf",
        "wrongTypes/badArray.gltf",
        "wrongTypes/badNumber.gltf",
        "wrongTypes/badUint.gltf",
        "SchemaFailures/sceneWrongType.gltf",
        "BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
        "draco/2CylinderEngine.gltf",
        "IncorrectVertexArrays/Cube.gltf",
        "../glTF/BoxTextured-glTF/BoxTextured.gltf",
        "../glTF/BoxTextured-glTF-Binary/BoxTextured.glb",
    ] {
        let path = corpus(file);
        let (code, text) = run_demo(&path);
        assert_eq!(code, Some(1), "{file} should fail cleanly:\n{text}");
        assert!(!text.contains("panicked"), "{file}:\n{text}");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = name
            .trim_end_matches(".gltf")
            .trim_end_matches(".glb")
            .to_owned();
        assert!(
            text.contains(&stem),
            "{file}: the error names the file:\n{text}"
        );
    }
}

/// A GLB whose header claims fewer bytes than the header itself: glTF 1.4
/// would underflow into a huge allocation and abort (uncatchable); unbound
/// checks the header first.
#[test]
fn truncated_glb_header_is_a_typed_error() {
    let dir = std::env::temp_dir().join(format!("unbound-glb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("short-header.glb");
    let mut bytes = b"glTF".to_vec();
    bytes.extend(2u32.to_le_bytes());
    bytes.extend(4u32.to_le_bytes());
    bytes.extend([0u8; 16]);
    std::fs::write(&file, bytes).unwrap();
    let (code, text) = run_demo(&file);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("short-header.glb") && text.contains("claims 4 bytes"),
        "{text}"
    );
}

/// Files that place nothing render an empty frame, with a camera from the
/// command line too (issue 12): a glTF with no scene at all (it used to be
/// refused) and one whose only primitive is points. Their empty bounds
/// (min > max) used to make the camera's near and far planes infinite.
#[test]
fn files_that_place_nothing_render_empty_frames() {
    let dir = std::env::temp_dir().join(format!("unbound-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("no-scene.gltf");
    std::fs::write(&empty, r#"{"asset": {"version": "2.0"}}"#).unwrap();
    let points = corpus("glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf");
    for (file, warning) in [
        (&empty, "warning: no scene: nothing is placed"),
        (&points, "warning: point and line primitives were skipped"),
    ] {
        let (code, text) = run_demo_with(file, &["--camera", "eye=0,0,3 target=0,0,0"]);
        assert_eq!(code, Some(0), "{}:\n{text}", file.display());
        assert!(
            text.contains("(0 objects") && text.contains(warning),
            "{text}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A scene whose image file is missing renders (issue 13): BoxTextured
/// without its PNG, the box on the missing texture, and the file named once
/// in a warning.
#[test]
fn a_missing_image_renders_with_one_warning() {
    let dir = std::env::temp_dir().join(format!("unbound-no-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["BoxTextured.gltf", "BoxTextured0.bin"] {
        std::fs::copy(corpus("BoxTextured-glTF").join(file), dir.join(file)).unwrap();
    }
    let (code, text) = run_demo(&dir.join("BoxTextured.gltf"));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("(1 objects"), "{text}");
    assert_eq!(
        text.matches("warning: image CesiumLogoFlat.png: unreadable: ")
            .count(),
        1,
        "{text}"
    );
}
