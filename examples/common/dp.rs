//! Data-parallel training of the CNN of `cnn.rs` on `R` replicas (one thread each): every
//! batch is split into `R` equal shards, each replica computes the loss and gradients of its
//! shard, and the gradients are averaged with an all-reduce inside the step, as JAX's
//! `pmap` + `lax.pmean` does.
//!
//! Batch norm couples the samples of a batch, so the replicas normalise with the statistics
//! of the whole global batch (synchronised batch norm: the per-channel sums are
//! all-reduced); the gradient then flows back through those all-reduces (an adding
//! all-reduce transposes to itself). With equal shards, the mean of the replicas'
//! gradients is the gradient of the global batch's loss, so training follows the
//! single-device run up to float rounding.

// A network's computations take every weight as a parameter.
#![allow(clippy::too_many_arguments)]

use super::{Classifier, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use xla::computation;
use xla::cpu::Executable;
use xla::generic::Variant;
use xla::train::tree;
use xla::{Literal, Shape};

/// Batch norm (feature dim 1, epsilon 0.001) with the statistics of the global batch: the
/// per-channel sums are all-reduced over the replicas and divided by `count`, the global
/// number of values per channel. Returns the normalised value, the mean and the variance.
#[computation]
pub fn sync_batch_norm<const B: usize, const C: usize, const H: usize, const W: usize>(
    c: Tensor<f32, B, C, H, W>,
    gamma: Tensor<f32, C>,
    beta: Tensor<f32, C>,
    count: f32,
) -> (Tensor<f32, B, C, H, W>, Tensor<f32, C>, Tensor<f32, C>) {
    let mean = c.sum([0, 2, 3]).all_reduce(|p, q| p + q) / count;
    let d = c - mean.broadcast_in_dim([B, C, H, W], [1]);
    let var = (d * d).sum([0, 2, 3]).all_reduce(|p, q| p + q) / count;
    let scale = ((var + 0.001).rsqrt() * gamma).broadcast_in_dim([B, C, H, W], [1]);
    (
        d * scale + beta.broadcast_in_dim([B, C, H, W], [1]),
        mean,
        var,
    )
}

// The training loss of one replica's shard and the global batch's statistics (the same on
// every replica), with batch norm over the global batch (`count1`, `count2`: the global
// number of values per channel of each batch norm); the network is written once, in
// `cnn.rs`.
super::cnn::cnn_training!(loss_sync, stats_sync, sync_batch_norm, count1, count2);

/// Where the replicas run.
pub enum Backend {
    /// One thread per replica in this process.
    Threads,
    /// One replica per MPI rank (this process runs its rank's replica).
    #[cfg(feature = "mpi")]
    Mpi(xla::cpu::devices::mpi::MpiWorld),
}

impl Backend {
    /// This process's rank (0 on threads).
    pub fn rank(&self) -> usize {
        match self {
            Backend::Threads => 0,
            #[cfg(feature = "mpi")]
            Backend::Mpi(world) => world.communicator().rank(),
        }
    }

    /// Runs `exe` on the replicas with `args[r]` for replica `r`: every replica's result on
    /// threads, this rank's alone on MPI.
    fn run(&self, exe: &Executable, args: &[Vec<Literal>]) -> Result<Vec<Literal>> {
        match self {
            Backend::Threads => Ok(exe.execute_replicated(args)?),
            #[cfg(feature = "mpi")]
            Backend::Mpi(world) => {
                let comm = world.communicator();
                let mine = args.get(comm.rank()).ok_or("no arguments for this rank")?;
                Ok(vec![exe.execute_on_device(
                    exe.topology(),
                    comm.rank(),
                    comm,
                    mine,
                )?])
            }
        }
    }
}

/// The CNN trained data-parallel on `replicas` devices (threads or MPI ranks); evaluation
/// (and a batch that does not split into equal shards, such as an epoch's last) runs on one
/// device through `single` (on every rank: they hold the same weights).
pub struct DataParallel {
    /// The single-device model (its `predict`, and the fallback step).
    pub single: super::BatchNormNet,
    /// The number of replicas.
    pub replicas: usize,
    /// Where they run.
    pub backend: Backend,
    /// The replicated executables by shard size: `(value_and_grad, stats)`.
    compiled: Mutex<HashMap<usize, Arc<(Executable, Executable)>>>,
    /// The gradient mean, compiled on first use.
    mean: Mutex<Option<Arc<Executable>>>,
}

impl DataParallel {
    /// The CNN of `cnn.rs` on `replicas` devices of `backend`.
    ///
    /// # Errors
    /// On MPI, if the number of ranks is not `replicas`.
    pub fn new(
        single: super::BatchNormNet,
        replicas: usize,
        backend: Backend,
    ) -> Result<DataParallel> {
        #[cfg(feature = "mpi")]
        if let Backend::Mpi(world) = &backend {
            let ranks = world.communicator().size();
            if ranks != replicas {
                return Err(format!("--replicas {replicas} needs {replicas} MPI ranks, found {ranks} (mpirun -np {replicas})").into());
            }
        }
        Ok(DataParallel {
            single,
            replicas,
            backend,
            compiled: Mutex::new(HashMap::new()),
            mean: Mutex::new(None),
        })
    }

    /// The replicated loss gradient and statistics at shard size `b` (8×8 images).
    fn executables(&self, b: usize) -> Result<Arc<(Executable, Executable)>> {
        let mut cache = self
            .compiled
            .lock()
            .map_err(|_| "a training thread panicked")?;
        if let Some(e) = cache.get(&b) {
            return Ok(Arc::clone(e));
        }
        let at = |module: Option<&xla::Module>| -> Result<Executable> {
            let mut m = module.ok_or("no module")?.clone();
            m.config.replica_count = self.replicas as i64;
            Ok(Executable::compile(&m)?)
        };
        let grad = loss_sync::instance(&[b, 8, 8])?;
        let stats = stats_sync::instance(&[b, 8, 8])?;
        let pair = Arc::new((
            at(grad.module(Variant::ValueAndGrad))?,
            at(stats.module(Variant::Value))?,
        ));
        cache.insert(b, Arc::clone(&pair));
        Ok(pair)
    }

    /// `(loss, gradient leaves...)` averaged over the replicas by an all-reduce: one module
    /// of `replica_count = R` taking the arrays `parts`.
    fn mean_executable(&self, parts: &[Literal]) -> Result<Arc<Executable>> {
        let mut slot = self.mean.lock().map_err(|_| "a training thread panicked")?;
        if let Some(e) = slot.as_ref() {
            return Ok(Arc::clone(e));
        }
        let shapes: Vec<&Shape> = parts.iter().map(Literal::shape).collect();
        let module = xla::core::text::parse_module(&mean_hlo(&shapes, self.replicas))?;
        let exe = Arc::new(Executable::compile(&module)?);
        *slot = Some(Arc::clone(&exe));
        Ok(exe)
    }
}

/// `HloModule mean, replica_count=R`: each parameter all-reduced (in replica order) and
/// divided by `R`.
fn mean_hlo(shapes: &[&Shape], replicas: usize) -> String {
    let mut body = String::new();
    let mut roots = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        body.push_str(&format!(
            "p{i} = {s} parameter({i})\n s{i} = {s} all-reduce(p{i}), replica_groups={{}}, to_apply=add\n \
             d{i} = {s} broadcast(r), dimensions={{}}\n m{i} = {s} divide(s{i}, d{i})\n "
        ));
        roots.push(format!("m{i}"));
    }
    format!(
        "HloModule mean, replica_count={replicas}\n\
         add {{ a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }}\n\
         ENTRY e {{ r = f32[] constant({replicas})\n {body}ROOT t = ({}) tuple({}) }}",
        shapes
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        roots.join(", ")
    )
}

/// The gradient mean's arguments, one set per replica: on MPI this rank holds only its own
/// results, which go in every slot (only this rank's slot is read).
fn mean_args(per_replica: Vec<Vec<Literal>>, replicas: usize) -> Vec<Vec<Literal>> {
    match per_replica.as_slice() {
        [own] if replicas > 1 => vec![own.clone(); replicas],
        _ => per_replica,
    }
}

/// Copies of the array leaves of `lits`, depth first.
fn leaves(lits: &[Literal]) -> Vec<Literal> {
    tree::leaves(lits)
        .into_iter()
        .map(|(_, l)| l.clone())
        .collect()
}

/// Rows `[start, start + n)` of a batch `f32[B, ...]`.
fn rows(x: &Literal, start: usize, n: usize) -> Result<Literal> {
    let dims = x.shape().dims().to_vec();
    let total = usize::try_from(*dims.first().ok_or("a batch has a leading dim")?)?;
    let data = x.typed_data::<f32>()?;
    let row = data.len() / total.max(1);
    let part = data
        .get(start * row..(start + n) * row)
        .ok_or("shard out of range")?;
    let mut shard_dims = dims;
    if let Some(d) = shard_dims.first_mut() {
        *d = n as i64;
    }
    Ok(Literal::from_vec(&shard_dims, part.to_vec())?)
}

impl Classifier for DataParallel {
    const BATCH: usize = 32;

    fn names(&self) -> &[&'static str] {
        self.single.names()
    }

    fn trainable(&self) -> usize {
        self.single.trainable()
    }

    fn init(&self, seed: u64) -> Result<Vec<Literal>> {
        self.single.init(seed)
    }

    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)> {
        let batch = usize::try_from(*x.shape().dims().first().ok_or("empty batch")?)?;
        let r = self.replicas;
        if r <= 1 || batch % r != 0 {
            return self.single.step(state, x, y);
        }
        let b = batch / r;
        let exes = self.executables(b)?;
        let (trained, running) = state.split_at_mut(self.trainable());
        let counts = [(batch * 64) as f32, (batch * 16) as f32];
        let mut grad_args = Vec::with_capacity(r);
        let mut stats_args = Vec::with_capacity(r);
        for i in 0..r {
            let mut args = trained.to_vec();
            args.push(rows(&x, i * b, b)?);
            let mut stats = args.clone();
            stats.extend(counts.map(Literal::scalar));
            args.push(rows(&y, i * b, b)?);
            args.extend(counts.map(Literal::scalar));
            grad_args.push(args);
            stats_args.push(stats);
        }
        let stats = self.backend.run(&exes.1, &stats_args)?;
        let batch_stats = stats
            .into_iter()
            .next()
            .ok_or("no replica")?
            .decompose_tuple()?;
        super::update_running(running, &batch_stats)?;
        // Each replica's `(loss, gradient)`, the gradient of the parameters' structure, as
        // its array leaves: the mean all-reduces each leaf.
        let per_replica: Vec<Vec<Literal>> = self
            .backend
            .run(&exes.0, &grad_args)?
            .iter()
            .map(|result| leaves(std::slice::from_ref(result)))
            .collect();
        let mean_exe = self.mean_executable(per_replica.first().ok_or("no replica")?)?;
        let mean = self.backend.run(&mean_exe, &mean_args(per_replica, r))?;
        let mut parts = mean
            .into_iter()
            .next()
            .ok_or("no replica")?
            .decompose_tuple()?;
        let grads = tree::unflatten_like(trained, parts.split_off(1))?;
        let loss = parts.first().ok_or("no loss")?.get_as_f64(&[])?;
        Ok((loss, grads))
    }

    fn logits(&self, state: &[Literal], x: Literal) -> Result<Literal> {
        self.single.logits(state, x)
    }
}
