//! Choosing an adapter: deterministic, overridable by environment
//! variables, and loud (with what to install) when nothing suitable exists.

use unbound::{Capacities, check_adapter};

/// Environment variable: substring of the adapter name to use (case-insensitive).
pub const ADAPTER_ENV: &str = "UNBOUND_ADAPTER";
/// Environment variable: backend to use (`vulkan`, `dx12`, `metal`, `gl`).
pub const BACKEND_ENV: &str = "UNBOUND_BACKEND";

/// What to install when no adapter qualifies (Debian/Ubuntu).
pub const INSTALL_HINT: &str = "\
unbound's full tier needs a Vulkan adapter with descriptor indexing and multi-draw-indirect-count
(lower tiers need at least compute shaders, storage buffers in vertex shaders and indirect draws
with first instance). Without a GPU, install Mesa's lavapipe (software Vulkan) from Debian 12
backports:
  echo 'deb http://deb.debian.org/debian bookworm-backports main' | sudo tee /etc/apt/sources.list.d/backports.list
  sudo apt-get update && sudo apt-get install -t bookworm-backports mesa-vulkan-drivers
(Debian 12's own Mesa 22 lacks descriptor indexing; Ubuntu 24.04's Mesa works as is.)
./scripts/test.sh and ./scripts/demo.sh do this when they can.";

/// Which adapter to pick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdapterChoice {
    /// Backends to search.
    pub backends: Option<wgpu::Backends>,
    /// Substring of the adapter name; `None`: prefer a software (CPU) adapter
    /// if `prefer_software`, else the first suitable one.
    pub name: Option<String>,
    /// Prefer a CPU adapter when no name is given (deterministic tests).
    pub prefer_software: bool,
}

impl AdapterChoice {
    /// From `UNBOUND_ADAPTER` and `UNBOUND_BACKEND`, else `default_software`.
    pub fn from_env(prefer_software: bool) -> Self {
        let backends = std::env::var(BACKEND_ENV)
            .ok()
            .and_then(|b| parse_backend(&b));
        Self {
            backends,
            name: std::env::var(ADAPTER_ENV).ok().filter(|n| !n.is_empty()),
            prefer_software,
        }
    }
}

/// Parses `vulkan`, `dx12`, `metal` or `gl`.
pub fn parse_backend(name: &str) -> Option<wgpu::Backends> {
    match name.to_ascii_lowercase().as_str() {
        "vulkan" | "vk" => Some(wgpu::Backends::VULKAN),
        "dx12" | "d3d12" => Some(wgpu::Backends::DX12),
        "metal" => Some(wgpu::Backends::METAL),
        "gl" | "gles" | "opengl" => Some(wgpu::Backends::GL),
        _ => None,
    }
}

/// No adapter could be used.
#[derive(Debug, thiserror::Error)]
#[error("no suitable adapter ({choice:?}). Adapters found:\n{}\n{INSTALL_HINT}", describe(.rejected))]
pub struct NoAdapterError {
    /// What was asked for.
    pub choice: AdapterChoice,
    /// Every adapter seen, with why it was not used.
    pub rejected: Vec<(wgpu::AdapterInfo, String)>,
}

fn describe(rejected: &[(wgpu::AdapterInfo, String)]) -> String {
    if rejected.is_empty() {
        return "  (none)".into();
    }
    rejected
        .iter()
        .map(|(info, why)| {
            format!(
                "  {} ({:?}, {:?}, {}): {why}",
                info.name, info.backend, info.device_type, info.driver_info
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Instance flags for headless use: wgpu's defaults for the build, without
/// the DEBUG flag (with it, validation layers report a false SPIR-V error),
/// then overridden by `WGPU_VALIDATION`, `WGPU_DEBUG`, ... from the environment.
pub fn instance_flags() -> wgpu::InstanceFlags {
    (wgpu::InstanceFlags::from_build_config() - wgpu::InstanceFlags::DEBUG).with_env()
}

/// A headless instance over the chosen backends.
pub fn create_instance(choice: &AdapterChoice, flags: wgpu::InstanceFlags) -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = choice.backends.unwrap_or(wgpu::Backends::all());
    descriptor.flags = flags;
    wgpu::Instance::new(descriptor)
}

/// Picks the adapter `choice` names, checking it against `capacities`.
/// Adapters are considered in a fixed order (software first when
/// preferred, then by name).
pub async fn select_adapter(
    instance: &wgpu::Instance,
    choice: &AdapterChoice,
    capacities: &Capacities,
) -> Result<wgpu::Adapter, NoAdapterError> {
    select_adapter_for(instance, choice, capacities, None).await
}

/// As [`select_adapter`], for an adapter that can also present to `surface`
/// (a window's).
pub async fn select_adapter_for_surface(
    instance: &wgpu::Instance,
    choice: &AdapterChoice,
    capacities: &Capacities,
    surface: &wgpu::Surface<'_>,
) -> Result<wgpu::Adapter, NoAdapterError> {
    select_adapter_for(instance, choice, capacities, Some(surface)).await
}

pub(crate) async fn select_adapter_for(
    instance: &wgpu::Instance,
    choice: &AdapterChoice,
    capacities: &Capacities,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, NoAdapterError> {
    let mut adapters = instance
        .enumerate_adapters(choice.backends.unwrap_or(wgpu::Backends::all()))
        .await;
    adapters.sort_by_key(|a| {
        let info = a.get_info();
        let software_rank =
            u8::from(!(choice.prefer_software && info.device_type == wgpu::DeviceType::Cpu));
        (
            software_rank,
            info.backend != wgpu::Backend::Vulkan,
            info.name,
        )
    });
    let mut rejected = Vec::new();
    for adapter in adapters {
        let info = adapter.get_info();
        if let Some(name) = &choice.name
            && !info.name.to_lowercase().contains(&name.to_lowercase())
        {
            rejected.push((info, format!("name does not contain {name:?}")));
            continue;
        }
        if let Some(surface) = surface
            && !adapter.is_surface_supported(surface)
        {
            rejected.push((info, "cannot present to the window's surface".into()));
            continue;
        }
        match check_adapter(&adapter, capacities) {
            Ok(_) => return Ok(adapter),
            Err(why) => rejected.push((info, why.to_string())),
        }
    }
    Err(NoAdapterError {
        choice: choice.clone(),
        rejected,
    })
}
