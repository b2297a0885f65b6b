//! Devices, render targets, and the adapter's measured copy bandwidth.

use unbound::Capacities;
use unbound_harness::{AdapterChoice, DeviceLimits, Gpu, instance_flags, open_headless};

/// Devices opened so far, one per indirect-call validation setting (an
/// instance flag), each with the adapter's largest limits.
#[derive(Debug)]
pub struct Gpus {
    choice: AdapterChoice,
    opened: Vec<(bool, Gpu)>,
}

impl Gpus {
    pub fn new(choice: AdapterChoice) -> Self {
        Self {
            choice,
            opened: Vec::new(),
        }
    }

    /// The device with `validation_indirect_call`, opened on first use.
    pub fn get(&mut self, validation_indirect_call: bool) -> Result<&Gpu, String> {
        let index = match self
            .opened
            .iter()
            .position(|(v, _)| *v == validation_indirect_call)
        {
            Some(index) => index,
            None => {
                let gpu = open_gpu(&self.choice, validation_indirect_call)?;
                self.opened.push((validation_indirect_call, gpu));
                self.opened.len() - 1
            }
        };
        Ok(&self.opened[index].1)
    }
}

fn open_gpu(choice: &AdapterChoice, validation_indirect_call: bool) -> Result<Gpu, String> {
    let mut flags = instance_flags();
    flags.set(
        wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL,
        validation_indirect_call,
    );
    let gpu = open_headless(
        choice,
        &Capacities::default(),
        flags,
        DeviceLimits::AdapterMax,
    )
    .map_err(|e| e.to_string())?;
    gpu.device
        .on_uncaptured_error(std::sync::Arc::new(|e| panic!("wgpu error: {e}")));
    Ok(gpu)
}

/// Format of the colour target.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Submissions timed for the round trip; the first few warm up.
const ROUND_TRIPS: usize = 100;

/// The median time from submitting a command buffer that does almost
/// nothing (one 4-byte buffer clear) to `poll` returning with it finished,
/// in ms: the part of every frame's submit-to-completion time that is the
/// platform's (submission, fence, wake-up), not the frame's work.
pub fn submit_round_trip_ms(gpu: &Gpu) -> Result<f64, String> {
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench round trip"),
        size: 4,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut times = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..ROUND_TRIPS + 10 {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&buffer, 0, None);
        let start = std::time::Instant::now();
        gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let mut measured = times.split_off(10);
    measured.sort_by(f64::total_cmp);
    Ok(measured[measured.len() / 2])
}

/// Size of the timed copy (at most the device's largest buffer).
const COPY_BYTES: u64 = 256 << 20;
/// Timed copies; the fastest counts (the first also warms up).
const COPY_REPETITIONS: u32 = 5;

/// The device's copy bandwidth in bytes read plus written per second: the
/// fastest of a few `copy_buffer_to_buffer`s of 256 MiB, timed by GPU
/// timestamps. `None` without timestamp queries.
pub fn copy_bandwidth(gpu: &Gpu) -> Result<Option<f64>, String> {
    let device = &gpu.device;
    if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        return Ok(None);
    }
    let size = COPY_BYTES.min(device.limits().max_buffer_size) & !(wgpu::COPY_BUFFER_ALIGNMENT - 1);
    let buffer = |label, size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let source = buffer("bench copy source", size, wgpu::BufferUsages::COPY_SRC);
    let destination = buffer("bench copy destination", size, wgpu::BufferUsages::COPY_DST);
    let resolve = buffer(
        "bench copy timestamps",
        16,
        wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
    );
    let readback = buffer(
        "bench copy timestamps readback",
        16,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench copy timestamps"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let period_ns = f64::from(gpu.queue.get_timestamp_period());
    let mut fastest_s = f64::INFINITY;
    for _ in 0..COPY_REPETITIONS {
        let mut encoder = device.create_command_encoder(&Default::default());
        // Empty passes carry the timestamps (no feature needed inside
        // encoders): one after all earlier work, one after the copy.
        timestamp_pass(&mut encoder, &queries, None, Some(0));
        encoder.copy_buffer_to_buffer(&source, 0, &destination, 0, size);
        timestamp_pass(&mut encoder, &queries, Some(1), None);
        encoder.resolve_query_set(&queries, 0..2, &resolve, 0);
        encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, 16);
        encoder.map_buffer_on_submit(&readback, wgpu::MapMode::Read, .., |_| {});
        gpu.queue.submit([encoder.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let ticks: Vec<u64> = {
            let bytes = readback.get_mapped_range(..).map_err(|e| e.to_string())?;
            bytes
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect()
        };
        readback.unmap();
        let seconds = ticks[1].saturating_sub(ticks[0]) as f64 * period_ns / 1e9;
        if seconds > 0.0 {
            fastest_s = fastest_s.min(seconds);
        }
    }
    Ok(fastest_s.is_finite().then(|| 2.0 * size as f64 / fastest_s))
}

fn timestamp_pass(
    encoder: &mut wgpu::CommandEncoder,
    queries: &wgpu::QuerySet,
    beginning: Option<u32>,
    end: Option<u32>,
) {
    encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("bench copy timestamp"),
        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
            query_set: queries,
            beginning_of_pass_write_index: beginning,
            end_of_pass_write_index: end,
        }),
    });
}

/// `count` words of `buffer` from byte `offset` (it needs `COPY_SRC`),
/// waiting for the device.
pub fn read_u32s(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    offset: u64,
    count: u64,
) -> Result<Vec<u32>, String> {
    let bytes = unbound_harness::read_buffer(&gpu.device, &gpu.queue, buffer, offset, count * 4)
        .map_err(|e| e.to_string())?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect())
}
