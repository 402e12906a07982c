//! The persistent device threads (`devices::pool`) through their public API and through
//! `execute_replicated`: workers reused across runs, ended when their pool drops (no leaked
//! thread), a task's panic confined to its result, and a device that fails — with an error or
//! a panic, before the collective the others wait in — failing the whole run promptly
//! (no deadlock, no waiting for the collective timeout) and leaving the pool usable.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Barrier;
use std::time::{Duration, Instant};
use xla::core::Literal;
use xla::cpu::devices::pool::{self, Pool};
use xla::cpu::devices::ReplicaOptions;
use xla::cpu::Executable;

type Task<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

fn boxed<'a, T, F: FnOnce() -> T + Send + 'a>(f: F) -> Task<'a, T> {
    Box::new(f)
}

fn thread_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_string()
}

/// Five runs of three tasks meeting at a barrier (so each has its own thread) use the
/// same two workers every time.
#[test]
fn workers_are_reused_across_runs() {
    let pool = Pool::new(Duration::from_secs(30));
    let mut seen = Vec::new();
    for _ in 0..5 {
        let barrier = Barrier::new(3);
        let tasks = (0..3)
            .map(|_| {
                let barrier = &barrier;
                boxed(move || {
                    barrier.wait();
                    thread_name()
                })
            })
            .collect();
        let mut names: Vec<String> = pool.run(tasks).unwrap().into_iter().flatten().collect();
        // The first task runs on the caller's thread.
        assert_eq!(names.remove(0), thread_name());
        names.sort();
        seen.push(names);
        assert_eq!(pool.idle(), 2);
    }
    assert!(seen.iter().all(|n| n == &seen[0]), "{seen:?}");
    assert!(
        seen[0].iter().all(|n| n.starts_with("xla-device-")),
        "{seen:?}"
    );
}

/// Each worker keeps a sender in a thread-local, dropped when its thread ends: after the
/// pool drops, every sender is gone.
#[test]
fn dropping_the_pool_ends_every_worker() {
    thread_local! {
        static KEEP: std::cell::RefCell<Option<mpsc::Sender<()>>> =
            const { std::cell::RefCell::new(None) };
    }
    let pool = Pool::new(Duration::from_secs(600));
    let (tx, rx) = mpsc::channel::<()>();
    let on_worker = AtomicUsize::new(0);
    let barrier = Barrier::new(4);
    let tasks = (0..4)
        .map(|_| {
            let (tx, on_worker, barrier) = (tx.clone(), &on_worker, &barrier);
            boxed(move || {
                barrier.wait();
                if thread_name().starts_with("xla-device-") {
                    on_worker.fetch_add(1, Ordering::SeqCst);
                    KEEP.with(|k| *k.borrow_mut() = Some(tx));
                }
            })
        })
        .collect();
    pool.run(tasks).unwrap();
    assert_eq!(on_worker.load(Ordering::SeqCst), 3);
    drop(tx);
    drop(pool);
    let ended = rx.recv_timeout(Duration::from_secs(10));
    assert_eq!(ended, Err(RecvTimeoutError::Disconnected));
}

/// A panicking task is `None`; the others finish and the worker that ran it is reused.
#[test]
fn a_panic_is_confined_to_its_task() {
    let pool = Pool::new(Duration::from_secs(30));
    let tasks = (0..3)
        .map(|i| {
            boxed(move || {
                if i == 1 {
                    std::panic::panic_any("task 1 fails");
                }
                i * 10
            })
        })
        .collect();
    assert_eq!(pool.run(tasks).unwrap(), vec![Some(0), None, Some(20)]);
    let again = pool.run((0..3).map(|i| boxed(move || i)).collect());
    assert_eq!(again.unwrap(), vec![Some(0), Some(1), Some(2)]);
    assert_eq!(pool.idle(), 2);
}

const ADD: &str =
    "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n";

/// Four devices; device 2 calls the host function `fail` before the all-gather the others
/// wait in.
fn failing_module() -> Executable {
    let text = format!(
        "HloModule m, replica_count=4\n{ADD}\
         yes {{ p = f32[1] parameter(0)\n ROOT f = f32[1] custom-call(p), custom_call_target=\"fail\" }}\n\
         no {{ ROOT p = f32[1] parameter(0) }}\n\
         ENTRY e {{ x = f32[1] parameter(0)\n r = u32[] replica-id()\n two = u32[] constant(2)\n \
         c = pred[] compare(r, two), direction=EQ\n \
         y = f32[1] conditional(c, x, x), true_computation=yes, false_computation=no\n \
         g = f32[4] all-gather(y), replica_groups={{}}, dimensions={{0}}\n \
         ROOT s = f32[4] all-reduce(g), replica_groups={{}}, to_apply=add }}"
    );
    Executable::compile(&xla::core::text::parse_module(&text).unwrap()).unwrap()
}

fn args() -> Vec<Vec<Literal>> {
    (0..4).map(|d| vec![Literal::vec1(&[d as f32])]).collect()
}

/// The collective timeout is long: a run that waited for it would take 60 s.
fn long_timeout() -> ReplicaOptions {
    ReplicaOptions {
        timeout: Duration::from_secs(60),
    }
}

/// Runs `exe` on [`args`], which must fail well before the collective timeout; the error.
fn fails_promptly(exe: &Executable) -> String {
    let start = Instant::now();
    let e = exe
        .execute_replicated_with(&args(), long_timeout())
        .unwrap_err()
        .to_string();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "waited for the timeout: {e}"
    );
    e
}

#[test]
fn a_device_error_before_a_collective_fails_every_device_promptly() {
    let mut exe = failing_module();
    exe.register_custom_call("fail", |_: &[Literal], _: &xla::core::Shape, _: &str| {
        Err("the host function failed on purpose".into())
    });
    let e = fails_promptly(&exe);
    assert!(e.starts_with("device 2 (replica 2, partition 0)"), "{e}");
    assert!(e.contains("failed on purpose"), "{e}");
    // The pool is usable afterwards: the same devices run a module that succeeds.
    exe.register_custom_call("fail", |a: &[Literal], _: &xla::core::Shape, _: &str| {
        Ok(a[0].clone())
    });
    let out = exe
        .execute_replicated_with(&args(), long_timeout())
        .unwrap();
    for o in &out {
        // Every device gathers [0, 1, 2, 3] and the four sum it.
        assert_eq!(o.data::<f32>().unwrap(), &[0.0, 4.0, 8.0, 12.0]);
    }
    assert!(pool::global().idle() >= 3);
}

#[test]
fn a_device_panic_before_a_collective_fails_every_device_promptly() {
    let mut exe = failing_module();
    exe.register_custom_call("fail", |_: &[Literal], _: &xla::core::Shape, _: &str| {
        panic!("the host function panicked on purpose")
    });
    let e = fails_promptly(&exe);
    assert!(e.contains("device 2") && e.contains("panicked"), "{e}");
    // Run again: no device is left waiting in the old run's all-gather.
    assert_eq!(fails_promptly(&exe), e);
}
