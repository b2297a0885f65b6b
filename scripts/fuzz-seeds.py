#!/usr/bin/env python3
"""Writes the fuzz seed corpora. fuzz/corpus/gltf_parse/: from Debian's
assimp-testmodels, self-contained files as they are, and files with one
external .bin buffer repacked as GLB, so the fuzzer (which reads nothing from
disk) starts from complete scenes. fuzz/corpus/meshopt_decode/ and
fuzz/corpus/draco_decode/: the compressed streams of the repository's
gltfpack and glTF Transform files, with the header each target reads
(fuzz/fuzz_targets/meshopt_decode.rs, draco_decode.rs)."""
import json
import pathlib
import shutil
import struct

ROOT = pathlib.Path("/usr/share/assimp/models/glTF2")
REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "fuzz/corpus"
OUT = CORPUS / "gltf_parse"
AS_IS = [
    "BoxTextured-glTF-Binary/BoxTextured.glb",
    "BoxTextured-glTF-Embedded/BoxTextured.gltf",
    "BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
    "simple_skin/simple_skin.gltf",
    "RecursiveNodes/RecursiveNodes.gltf",
    "wrongTypes/badArray.gltf",
    "SchemaFailures/sceneWrongType.gltf",
]
REPACK = [
    "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf",
    "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf",
    "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf",
    "IndexOutOfRange/IndexOutOfRange.gltf",
    "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf",
]


def pad(data: bytes, fill: bytes) -> bytes:
    return data + fill * (-len(data) % 4)


def glb(path: pathlib.Path) -> bytes:
    doc = json.loads(path.read_text())
    (buffer,) = doc["buffers"]
    binary = (path.parent / buffer.pop("uri")).read_bytes()
    text = pad(json.dumps(doc, separators=(",", ":")).encode(), b" ")
    binary = pad(binary, b"\0")
    length = 12 + 8 + len(text) + 8 + len(binary)
    return (
        struct.pack("<4sII", b"glTF", 2, length)
        + struct.pack("<I4s", len(text), b"JSON")
        + text
        + struct.pack("<I4s", len(binary), b"BIN\0")
        + binary
    )


def ktx2(vk_format: int, width: int, height: int, levels: list) -> bytes:
    """A KTX2 file without supercompression and with an empty DFD."""
    magic = bytes([0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A])
    dfd_offset = 80 + 24 * len(levels)
    offset = (dfd_offset + 4 + 7) // 8 * 8
    out = magic + struct.pack("<9I", vk_format, 1, width, height, 0, 0, 1, len(levels), 0)
    out += struct.pack("<4I2Q", dfd_offset, 4, 0, 0, 0, 0)
    for level in levels:
        out += struct.pack("<3Q", offset, len(level), len(level))
        offset += (len(level) + 7) // 8 * 8
    out += struct.pack("<I", 4)
    for level in levels:
        out += b"\0" * (-len(out) % 8) + level
    return out


def quad_glb(image: bytes) -> bytes:
    """A textured unit quad whose base colour image lives in the BIN chunk."""
    geometry = b"".join(struct.pack("<3f", *p) for p in [(-.5, -.5, 0), (.5, -.5, 0), (.5, .5, 0), (-.5, .5, 0)])
    geometry += b"".join(struct.pack("<2f", *uv) for uv in [(0, 1), (1, 1), (1, 0), (0, 0)])
    geometry += struct.pack("<6H", 0, 1, 2, 0, 2, 3)
    binary = pad(geometry, b"\0") + image
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": 3, "mimeType": "image/ktx2"}],
        "buffers": [{"byteLength": len(binary)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 32},
            {"buffer": 0, "byteOffset": 80, "byteLength": 12},
            {"buffer": 0, "byteOffset": len(pad(geometry, b"\0")), "byteLength": len(image)},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-.5, -.5, 0], "max": [.5, .5, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
    }
    text = pad(json.dumps(doc, separators=(",", ":")).encode(), b" ")
    binary = pad(binary, b"\0")
    length = 12 + 8 + len(text) + 8 + len(binary)
    return (
        struct.pack("<4sII", b"glTF", 2, length)
        + struct.pack("<I4s", len(text), b"JSON") + text
        + struct.pack("<I4s", len(binary), b"BIN\0") + binary
    )


def bc1_block(color: int) -> bytes:
    return struct.pack("<HHI", color, color, 0)


OUT.mkdir(parents=True, exist_ok=True)
# KTX2 images unbound decodes: BC1 with a full chain, RGBA8 and RGB8.
bc1 = [bc1_block(0xF800) * 4, bc1_block(0x07E0), bc1_block(0x001F), bc1_block(0xFFFF)]
(OUT / "ktx2_bc1.glb").write_bytes(quad_glb(ktx2(133, 8, 8, bc1)))
(OUT / "ktx2_rgba8.glb").write_bytes(quad_glb(ktx2(37, 2, 2, [bytes(range(16))])))
(OUT / "ktx2_rgb8.glb").write_bytes(quad_glb(ktx2(23, 2, 2, [bytes(range(12))])))
for name in AS_IS:
    shutil.copy(ROOT / name, OUT / name.replace("/", "_"))
for name in REPACK:
    (OUT / name.replace("/", "_").replace(".gltf", ".glb")).write_bytes(glb(ROOT / name))
print(f"{len(AS_IS) + len(REPACK) + 3} seeds in {OUT}")


def parts(path: pathlib.Path) -> tuple:
    """A .glb's or .gltf's JSON and its buffers' bytes (a GLB's first
    buffer is its BIN chunk; a buffer without a URI otherwise is None)."""
    data = path.read_bytes()
    if data[:4] == b"glTF":
        (json_length,) = struct.unpack_from("<I", data, 12)
        doc = json.loads(data[20:20 + json_length])
        rest = 20 + json_length
        binary = data[rest + 8:rest + 8 + struct.unpack_from("<I", data, rest)[0]] if rest < len(data) else None
    else:
        doc = json.loads(data)
        binary = None
    buffers = []
    for i, buffer in enumerate(doc.get("buffers", [])):
        if "uri" in buffer:
            buffers.append((path.parent / buffer["uri"]).read_bytes())
        else:
            buffers.append(binary if i == 0 else None)
    return doc, buffers


# meshopt_decode: header (mode, filter, KHR bit, stride, count as u16, view
# slack 0) and the stream of every compressed view of at most 32 KB.
MODES = ["ATTRIBUTES", "TRIANGLES", "INDICES"]
FILTERS = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"]
meshopt_out = CORPUS / "meshopt_decode"
meshopt_out.mkdir(parents=True, exist_ok=True)
meshopt_seeds = 0
for path in sorted((REPO / "assets/gltfpack").glob("*.glb")) + [REPO / "assets/AnisotropyBarnLamp/AnisotropyBarnLamp_meshopt.gltf"]:
    doc, buffers = parts(path)
    for i, view in enumerate(doc.get("bufferViews", [])):
        extensions = view.get("extensions", {})
        khr = "KHR_meshopt_compression" in extensions
        ext = extensions.get("KHR_meshopt_compression") or extensions.get("EXT_meshopt_compression")
        if ext is None or ext["count"] > 0xFFFF or ext["byteLength"] > 32768:
            continue
        start = ext.get("byteOffset", 0)
        stream = buffers[ext["buffer"]][start:start + ext["byteLength"]]
        header = bytes([
            MODES.index(ext["mode"]),
            FILTERS.index(ext.get("filter", "NONE")),
            int(khr),
            ext["byteStride"],
        ]) + struct.pack("<H", ext["count"]) + b"\0"
        (meshopt_out / f"{path.stem}_view{i}").write_bytes(header + stream)
        meshopt_seeds += 1
print(f"{meshopt_seeds} seeds in {meshopt_out}")

# draco_decode: the primitive's index and point counts (u32 each) and its
# stream.
draco_out = CORPUS / "draco_decode"
draco_out.mkdir(parents=True, exist_ok=True)
draco_seeds = 0
for path in [REPO / "assets/gltf-transform/Fox_draco.glb", REPO / "assets/AnisotropyBarnLamp/AnisotropyBarnLamp_draco.gltf"]:
    doc, buffers = parts(path)
    seen = set()
    for mesh in doc["meshes"]:
        for primitive in mesh["primitives"]:
            ext = primitive.get("extensions", {}).get("KHR_draco_mesh_compression")
            if ext is None or ext["bufferView"] in seen:
                continue
            seen.add(ext["bufferView"])
            view = doc["bufferViews"][ext["bufferView"]]
            start = view.get("byteOffset", 0)
            stream = buffers[view["buffer"]][start:start + view["byteLength"]]
            indices = doc["accessors"][primitive["indices"]]["count"]
            points = doc["accessors"][primitive["attributes"]["POSITION"]]["count"]
            (draco_out / f"{path.stem}_view{ext['bufferView']}").write_bytes(struct.pack("<II", indices, points) + stream)
            draco_seeds += 1
print(f"{draco_seeds} seeds in {draco_out}")
