mod common;
use common::{Gpu, Target, save_output};
use unbound::procedural::{DemoSceneConfig, build_demo_scene};

#[test]
fn demo_scene_renders() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let target = Target::new(&gpu, 256, 256);
    build_demo_scene(&mut renderer, &DemoSceneConfig { instances: 500, textures: 32, ..Default::default() }, 1.0).unwrap();
    let (image, stats) = target.render(&gpu, &mut renderer);
    println!("{stats}");
    save_output("smoke", &image);
    let (_, stats) = target.render(&gpu, &mut renderer);
    println!("{stats}");
    gpu.finish();
}
