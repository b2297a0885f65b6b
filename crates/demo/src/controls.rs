//! Camera: start poses (`--camera`), recorded paths (`--camera-path`) and
//! the interactive fly / orbit controller.

use std::path::Path;

use glam::{Vec2, Vec3};
use unbound::Camera;

pub const HELP: &str = "\
mouse (right button or left button outside the overlay): look / orbit
W A S D: move   Q E: down / up   Shift: 4x faster   Ctrl: 4x slower   wheel: speed (fly) / distance (orbit)
Tab: fly <-> orbit   F: frame the scene   1-8: debug view   H: highlight missing texture
C: freeze / unfreeze the cull camera   B: bounding boxes (culled red, occluded orange)   G: sun shadows   V: vsync   F1: overlay
P: pause / play the animation   F12: screenshot   R: record camera path / stop   Esc: quit";

/// A camera pose: `eye=x,y,z target=x,y,z fovy=deg` (fovy optional, 45).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPose {
    pub eye: Vec3,
    pub target: Vec3,
    pub fovy_degrees: f32,
}

fn parse_vec3(text: &str) -> Result<Vec3, String> {
    let parts: Vec<f32> = text
        .split(',')
        .map(|p| p.trim().parse::<f32>().map_err(|e| format!("{text}: {e}")))
        .collect::<Result<_, _>>()?;
    match parts[..] {
        [x, y, z] if x.is_finite() && y.is_finite() && z.is_finite() => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("{text}: expected three finite numbers x,y,z")),
    }
}

impl CameraPose {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (mut eye, mut target, mut fovy) = (None, None, 45.0);
        for part in text.split_whitespace() {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part}: expected key=value"))?;
            match key {
                "eye" => eye = Some(parse_vec3(value)?),
                "target" => target = Some(parse_vec3(value)?),
                "fovy" => {
                    fovy = value
                        .parse::<f32>()
                        .map_err(|e| format!("fovy={value}: {e}"))?;
                    if !(fovy > 0.0 && fovy < 180.0) {
                        return Err(format!("fovy={value}: must lie in (0, 180) degrees"));
                    }
                }
                other => return Err(format!("unknown key {other} (eye, target, fovy)")),
            }
        }
        let eye = eye.ok_or("eye=x,y,z is missing")?;
        let target = target.ok_or("target=x,y,z is missing")?;
        if (target - eye).length() < 1e-6 {
            return Err("eye and target coincide".into());
        }
        Ok(Self {
            eye,
            target,
            fovy_degrees: fovy,
        })
    }

    pub fn format(&self) -> String {
        let v = |v: Vec3| format!("{},{},{}", v.x, v.y, v.z);
        format!(
            "eye={} target={} fovy={}",
            v(self.eye),
            v(self.target),
            self.fovy_degrees
        )
    }

    /// The camera for this pose with the scene's near and far planes.
    pub fn camera(&self, aspect: f32, near: f32, far: f32) -> Camera {
        let up = if (self.target - self.eye).normalize().cross(Vec3::Y).length() < 1e-3 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        Camera {
            position: self.eye,
            target: self.target,
            up,
            fov_y_radians: self.fovy_degrees.to_radians(),
            aspect,
            z_near: near,
            z_far: far,
        }
    }

    /// Looks at the box `(min, max)` from the front, slightly above.
    pub fn framing(min: Vec3, max: Vec3) -> Self {
        let center = (min + max) * 0.5;
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let direction = Vec3::new(0.35, 0.25, 1.0).normalize();
        Self {
            eye: center + direction * radius * 2.6,
            target: center,
            fovy_degrees: 45.0,
        }
    }
}

/// Poses to replay, one per frame (a text file: one `--camera` pose per
/// line; blank lines and `#` comments ignored). The last pose holds once
/// the path ends.
#[derive(Clone, Debug, Default)]
pub struct CameraPath {
    pub poses: Vec<CameraPose>,
}

impl CameraPath {
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut poses = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            poses.push(
                CameraPose::parse(line)
                    .map_err(|e| format!("{}:{}: {e}", path.display(), number + 1))?,
            );
        }
        if poses.is_empty() {
            return Err(format!("{}: no camera poses", path.display()));
        }
        Ok(Self { poses })
    }

    pub fn pose(&self, frame: u64) -> CameraPose {
        let i = usize::try_from(frame).unwrap_or(usize::MAX);
        self.poses[i.min(self.poses.len() - 1)]
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        let mut text = String::from("# unbound-demo camera path: one pose per frame\n");
        for pose in &self.poses {
            text.push_str(&pose.format());
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Fly,
    Orbit,
}

/// Keys held down, as movement axes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Held {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub down: bool,
    pub up: bool,
    pub fast: bool,
    pub slow: bool,
}

/// Fly (position + yaw/pitch) or orbit (target + yaw/pitch/distance).
#[derive(Clone, Debug)]
pub struct Controller {
    pub mode: Mode,
    pub eye: Vec3,
    /// Orbit centre (and where the fly camera looked when it started).
    pub pivot: Vec3,
    yaw: f32,
    pitch: f32,
    pub fovy_degrees: f32,
    /// Fly speed in scene units per second.
    pub speed: f32,
    pub held: Held,
    /// The pose given, until the camera moves: replayed exactly (no
    /// round trip through yaw and pitch), so a still window renders what a
    /// headless run of the same pose does.
    untouched: Option<CameraPose>,
    scene_radius: f32,
}

impl Controller {
    pub fn new(pose: CameraPose, scene_radius: f32) -> Self {
        let mut controller = Self {
            mode: Mode::Fly,
            eye: pose.eye,
            pivot: pose.target,
            yaw: 0.0,
            pitch: 0.0,
            fovy_degrees: pose.fovy_degrees,
            speed: scene_radius.max(1e-3) * 0.5,
            held: Held::default(),
            untouched: Some(pose),
            scene_radius: scene_radius.max(1e-3),
        };
        controller.look_at(pose.target);
        controller
    }

    fn look_at(&mut self, target: Vec3) {
        let d = (target - self.eye).normalize_or(Vec3::NEG_Z);
        self.yaw = d.x.atan2(-d.z);
        self.pitch = d.y.clamp(-1.0, 1.0).asin();
    }

    fn forward(&self) -> Vec3 {
        Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            -self.yaw.cos() * self.pitch.cos(),
        )
    }

    pub fn pose(&self) -> CameraPose {
        if let Some(pose) = self.untouched {
            return pose;
        }
        let target = match self.mode {
            Mode::Fly => self.eye + self.forward(),
            Mode::Orbit => self.pivot,
        };
        CameraPose {
            eye: self.eye,
            target,
            fovy_degrees: self.fovy_degrees,
        }
    }

    /// Back to `pose` (the scene's framing).
    pub fn reset(&mut self, pose: CameraPose) {
        self.eye = pose.eye;
        self.pivot = pose.target;
        self.fovy_degrees = pose.fovy_degrees;
        self.look_at(pose.target);
        self.untouched = Some(pose);
    }

    pub fn toggle_mode(&mut self) {
        self.untouched = None;
        self.mode = match self.mode {
            Mode::Fly => {
                // Orbit around the point the camera looks at, at the distance
                // of the old pivot.
                let distance = (self.pivot - self.eye)
                    .length()
                    .max(self.scene_radius * 0.1);
                self.pivot = self.eye + self.forward() * distance;
                Mode::Orbit
            }
            Mode::Orbit => Mode::Fly,
        };
    }

    /// Mouse movement in pixels.
    pub fn rotate(&mut self, delta: Vec2) {
        self.untouched = None;
        let sensitivity = 0.004;
        self.yaw += delta.x * sensitivity;
        self.pitch = (self.pitch - delta.y * sensitivity).clamp(-1.55, 1.55);
        if self.mode == Mode::Orbit {
            let distance = (self.pivot - self.eye).length();
            self.eye = self.pivot - self.forward() * distance;
        }
    }

    /// Mouse wheel: speed in fly mode, distance in orbit mode.
    pub fn scroll(&mut self, lines: f32) {
        self.untouched = None;
        let factor = 1.15f32.powf(lines);
        match self.mode {
            Mode::Fly => self.speed = (self.speed * factor).clamp(1e-4, 1e7),
            Mode::Orbit => {
                let distance = (self.pivot - self.eye).length() / factor;
                self.eye = self.pivot - self.forward() * distance.max(1e-4);
            }
        }
    }

    /// Moves for `dt` seconds with the held keys.
    pub fn update(&mut self, dt: f32) {
        let h = self.held;
        let axis = |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
        let forward = self.forward();
        let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
        let movement = forward * axis(h.forward, h.back)
            + right * axis(h.right, h.left)
            + Vec3::Y * axis(h.up, h.down);
        if movement == Vec3::ZERO {
            return;
        }
        self.untouched = None;
        let mut speed = self.speed;
        if h.fast {
            speed *= 4.0;
        }
        if h.slow {
            speed *= 0.25;
        }
        let step = movement.normalize() * speed * dt;
        self.eye += step;
        if self.mode == Mode::Orbit {
            self.pivot += step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_parse_format_and_reject_nonsense() {
        let pose = CameraPose::parse("eye=1,2,3 target=0,0.5,0 fovy=60").unwrap();
        assert_eq!(pose.eye, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(pose.fovy_degrees, 60.0);
        assert_eq!(CameraPose::parse(&pose.format()).unwrap(), pose);
        for bad in [
            "eye=1,2 target=0,0,0",
            "eye=1,2,3",
            "eye=1,2,3 target=1,2,3",
            "eye=1,2,3 target=0,0,0 fovy=0",
            "eye=nan,0,0 target=0,0,0",
            "pos=1,2,3 target=0,0,0",
        ] {
            assert!(CameraPose::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn controller_keeps_the_pose_it_starts_from() {
        let pose = CameraPose::parse("eye=3,4,5 target=1,1,-2").unwrap();
        let mut controller = Controller::new(pose, 2.0);
        assert_eq!(controller.pose(), pose, "exact until moved");
        controller.rotate(Vec2::ZERO);
        let back = controller.pose();
        let direction = (back.target - back.eye).normalize();
        let expected = (pose.target - pose.eye).normalize();
        assert!(
            (direction - expected).length() < 1e-5,
            "{direction} vs {expected}"
        );
        assert_eq!(back.eye, pose.eye);
    }

    #[test]
    fn fly_moves_along_the_view_and_orbit_keeps_its_distance() {
        let pose = CameraPose::parse("eye=0,0,10 target=0,0,0").unwrap();
        let mut c = Controller::new(pose, 2.0);
        c.held.forward = true;
        c.update(1.0);
        assert!(
            (c.pose().eye - Vec3::new(0.0, 0.0, 9.0)).length() < 1e-4,
            "{}",
            c.pose().eye
        );
        c.held.fast = true;
        c.update(1.0);
        assert!(
            (c.pose().eye.z - 5.0).abs() < 1e-4,
            "4x faster: {}",
            c.pose().eye
        );
        c.held = Held::default();
        c.reset(pose);
        c.toggle_mode();
        assert_eq!(c.mode, Mode::Orbit);
        let distance = (c.pose().target - c.pose().eye).length();
        c.rotate(Vec2::new(300.0, -120.0));
        let after = c.pose();
        assert!(((after.target - after.eye).length() - distance).abs() < 1e-3);
        assert!((after.eye - pose.eye).length() > 1.0, "it moved");
        c.scroll(3.0);
        assert!(
            (c.pose().target - c.pose().eye).length() < distance,
            "wheel zooms in"
        );
    }
}
