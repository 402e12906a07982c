//! The cost of one small collective on our MPI backend against the same MPI call made
//! directly with the `mpi` crate (README, "MPI per-exchange cost"). Run on 2 ranks:
//!
//! ```sh
//! cargo build --release --features mpi --example mpi_exchange_cost
//! mpirun -np 2 target/release/examples/mpi_exchange_cost [ITERS]
//! ```
//!
//! For f32[1], f32[1K] and f32[1M] per rank (sum), rank 0 prints the median time of one
//! call (a barrier before each, as `benches/mpi_allreduce_probe.c` times Open MPI):
//! `MPI_Allreduce` on the world communicator and on a communicator made for the group
//! (the plain `mpi`-crate probe), the same as `MPI_Iallreduce` completed by polling, one
//! point-to-point note each way (what our handshake before each collective costs at least),
//! our `Communicator::all_reduce` (what an `all-reduce`
//! instruction costs on MPI beyond its arithmetic), our `Communicator::exchange` (the
//! `MPI_Allgatherv` path of gathers and folds) and a whole run of an all-reduce module on
//! this rank's device (`Executable::execute_on_device`).

use std::time::{Duration, Instant};
use xla::core::attrs::BinaryOp;
use xla::core::Literal;
use xla::cpu::devices::mpi::raw::collective::{CommunicatorCollectives, SystemOperation};
use xla::cpu::devices::mpi::raw::point_to_point::{Destination, MatchedReceiveVec, Source};
use xla::cpu::devices::mpi::raw::request;
use xla::cpu::devices::mpi::raw::topology::{Communicator as _, Group as _, SimpleCommunicator};
use xla::cpu::devices::mpi::MpiWorld;
use xla::cpu::devices::{Communicator, Exchange};
use xla::cpu::Executable;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The median of `iters` timings of `f`, each after a barrier on `world`.
fn median(world: &SimpleCommunicator, iters: usize, mut f: impl FnMut(u64) -> Res<()>) -> Res<f64> {
    f(0)?; // warm-up: communicators made, buffers touched
    let mut t = Vec::with_capacity(iters);
    for i in 0..iters {
        world.barrier();
        let t0 = Instant::now();
        f(i as u64 + 1)?;
        t.push(t0.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok(t.get(iters / 2).copied().unwrap_or(f64::NAN))
}

/// What our handshake costs at least: a 40-byte note sent to the other rank (non-blocking)
/// and the other's received by probing, as `devices/mpi/p2p.rs` does, without its framing;
/// with `yielding`, `std::thread::yield_now()` between probes as p2p.rs's first 2 ms do.
fn note_round(world: &SimpleCommunicator, rank: i32, yielding: bool) {
    let peer = world.process_at_rank(1 - rank);
    let note = [7u8; 40];
    request::scope(|scope| {
        let sent = peer.immediate_send_with_tag(scope, &note[..], 99);
        loop {
            if let Some(m) = peer.immediate_matched_probe_with_tag(99) {
                let _ = m.matched_receive_vec::<u8>();
                break;
            }
            if yielding {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        sent.wait();
    });
}

/// The all-reduce module of `n` f32 on 2 replicas.
fn module(n: usize) -> Res<Executable> {
    let text = format!(
        "HloModule ar, replica_count=2\n\
         add {{ a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }}\n\
         ENTRY e {{ x = f32[{n}] parameter(0)\n \
         ROOT s = f32[{n}] all-reduce(x), replica_groups={{}}, to_apply=add }}\n"
    );
    Ok(Executable::compile(&xla::core::text::parse_module(&text)?)?)
}

fn main() -> Res<()> {
    let iters: usize = std::env::args().nth(1).map_or(Ok(200), |s| s.parse())?;
    let mw = MpiWorld::initialize(Duration::from_secs(60))?;
    let world = SimpleCommunicator::world();
    let (rank, size) = (world.rank(), world.size());
    if size != 2 {
        return Err(format!("run on 2 ranks (mpirun -np 2), not {size}").into());
    }
    let sub = world
        .split_by_subgroup(&world.group().include(&[0, 1]))
        .ok_or("no sub-communicator")?;
    let comm = mw.communicator();
    let group = [0usize, 1];
    let device = usize::try_from(rank)?;
    if rank == 0 {
        println!("| f32 per rank | mpi crate: MPI_Allreduce, world | same, group communicator | same, MPI_Iallreduce polled | mpi crate: one 40-byte note each way, spinning | same, yield_now between probes | ours: all_reduce | ours: exchange | ours: one run of the module |");
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    }
    for n in [1usize, 1 << 10, 1 << 20] {
        let its = if n > 1 << 16 { iters.min(40) } else { iters };
        let v = vec![1f32; n];
        let mut out = vec![0f32; n];
        let world_s = median(&world, its, |_| {
            world.all_reduce_into(&v[..], &mut out[..], SystemOperation::sum());
            Ok(())
        })?;
        let sub_s = median(&world, its, |_| {
            sub.all_reduce_into(&v[..], &mut out[..], SystemOperation::sum());
            Ok(())
        })?;
        let polled_s = median(&world, its, |_| {
            request::scope(|scope| {
                let mut req = sub.immediate_all_reduce_into(
                    scope,
                    &v[..],
                    &mut out[..],
                    SystemOperation::sum(),
                );
                while let Err(r) = req.test() {
                    req = r;
                }
            });
            Ok(())
        })?;
        let note_s = median(&world, its, |_| {
            note_round(&world, rank, false);
            Ok(())
        })?;
        let yield_s = median(&world, its, |_| {
            note_round(&world, rank, true);
            Ok(())
        })?;
        let lit = Literal::vec1(&v);
        let ours_s = median(&world, its, |i| {
            let x = Exchange {
                op: "all-reduce",
                group: &group,
                device,
                sequence: i,
            };
            comm.all_reduce(x, &lit, BinaryOp::Add)?
                .ok_or("not reduced on MPI")?;
            Ok(())
        })?;
        let ex_s = median(&world, its, |i| {
            let x = Exchange {
                op: "all-gather",
                group: &group,
                device,
                sequence: 1 << 40 | i,
            };
            comm.exchange(x, lit.clone())?;
            Ok(())
        })?;
        let exe = module(n)?;
        let args = [lit.clone()];
        let run_s = median(&world, its, |_| {
            exe.execute_on_device(exe.topology(), device, comm, &args)?;
            Ok(())
        })?;
        if rank == 0 {
            let us = |s: f64| format!("{:.1} µs", s * 1e6);
            println!(
                "| {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
                us(world_s),
                us(sub_s),
                us(polled_s),
                us(note_s),
                us(yield_s),
                us(ours_s),
                us(ex_s),
                us(run_s)
            );
        }
    }
    Ok(())
}
