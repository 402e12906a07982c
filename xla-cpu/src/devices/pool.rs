//! Persistent device threads: a multi-device run borrows one parked thread per device instead
//! of spawning its threads (spawning and joining cost ~60 µs per run on 2 devices, most of a
//! small module's replicated step; see the README's "fixed cost per replicated run").
//!
//! A [`Pool`] keeps idle workers, each parked on its own job channel. A run runs its first
//! task on the caller's thread and checks out one worker per other task (starting new ones when too few are idle, so every task has a thread of its
//! own: tasks wait for each other at collectives, and two tasks on one thread would deadlock),
//! hands each its task, waits for all of them, and returns the workers. A worker left idle for
//! [`Pool::idle_exit`] ends; so does every idle worker when its pool drops. The process-wide
//! pool is [`global`].
//!
//! Tasks borrow the caller's data (the executable, the arguments), so a task's lifetime is
//! erased to hand it to a thread that outlives it; [`Pool::run`] does not return before every
//! task has finished (a guard waits even while unwinding), which is what makes that sound.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

/// A task with its lifetime erased (see [`Pool::run`]).
type Job = Box<dyn FnOnce() + Send + 'static>;

/// A parked worker: where to send its next job.
struct Worker {
    id: u64,
    jobs: Sender<Job>,
}

#[derive(Default)]
struct Idle {
    workers: Vec<Worker>,
    next_id: u64,
}

struct Shared {
    idle: Mutex<Idle>,
    idle_exit: Duration,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Idle> {
        // Nothing panics while holding the lock, and the list stays valid if it did.
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Idle device threads, reused across runs.
pub struct Pool {
    shared: Arc<Shared>,
}

/// The process-wide pool: workers idle for 10 s end.
pub fn global() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(Duration::from_secs(10)))
}

impl Pool {
    /// An empty pool whose idle workers end after `idle_exit`.
    pub fn new(idle_exit: Duration) -> Pool {
        Pool {
            shared: Arc::new(Shared {
                idle: Mutex::new(Idle::default()),
                idle_exit,
            }),
        }
    }

    /// How long an idle worker waits for a job before it ends.
    pub fn idle_exit(&self) -> Duration {
        self.shared.idle_exit
    }

    /// The number of parked workers.
    pub fn idle(&self) -> usize {
        self.shared.lock().workers.len()
    }

    /// Runs every task on a thread of its own, all at once (the first on the caller's
    /// thread, the others on workers), and returns their results in task order (`None` for a
    /// task that panicked).
    ///
    /// # Errors
    /// If the OS refuses a new thread (no task has run then).
    pub fn run<'a, T: Send + 'static>(
        &self,
        tasks: Vec<Box<dyn FnOnce() -> T + Send + 'a>>,
    ) -> std::io::Result<Vec<Option<T>>> {
        let latch = Arc::new(Latch::new(tasks.len()));
        let mut tasks = tasks.into_iter();
        // The first task runs on the caller's thread, which would wait anyway.
        let first = tasks.next();
        let mut workers = self.checkout(tasks.len())?;
        let wait = WaitAll(&latch);
        for (i, (task, worker)) in tasks.zip(&mut workers).enumerate() {
            let done = Arc::clone(&latch);
            let job: Box<dyn FnOnce() + Send + 'a> = Box::new(move || {
                // The task (and what it borrows) is consumed here, before `done` signals.
                let r = catch_unwind(AssertUnwindSafe(task));
                done.finish(i + 1, r.ok());
            });
            // SAFETY: only the lifetime changes (same layout). The job borrows data of
            // lifetime 'a; it runs and is dropped before it signals the latch, and `wait`
            // below (a guard, so also while unwinding) blocks until every dispatched job (each
            // counted just before it is sent) has signalled, so nothing the job borrows is
            // used after this function returns. A job that cannot be dispatched runs here, on
            // the caller's thread.
            let job: Job =
                unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Job>(job) };
            latch.start_one();
            self.dispatch(worker, job);
        }
        if let Some(task) = first {
            latch.start_one();
            let r = catch_unwind(AssertUnwindSafe(task));
            latch.finish(0, r.ok());
        }
        drop(wait);
        let results = latch.take();
        self.checkin(workers);
        Ok(results)
    }

    /// Sends `job` to `worker`; a worker that has died is replaced, and if no thread can be
    /// started the job runs on the caller's thread.
    fn dispatch(&self, worker: &mut Worker, job: Job) {
        let Err(mpsc::SendError(job)) = worker.jobs.send(job) else {
            return;
        };
        match self.spawn() {
            Ok(fresh) => {
                *worker = fresh;
                if let Err(mpsc::SendError(job)) = worker.jobs.send(job) {
                    job();
                }
            }
            Err(_) => job(),
        }
    }

    /// `n` workers: idle ones first, then new ones.
    fn checkout(&self, n: usize) -> std::io::Result<Vec<Worker>> {
        let mut out = {
            let mut idle = self.shared.lock();
            let keep = idle.workers.len().saturating_sub(n);
            idle.workers.split_off(keep)
        };
        while out.len() < n {
            match self.spawn() {
                Ok(w) => out.push(w),
                Err(e) => {
                    self.checkin(out);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Parks `workers` again.
    fn checkin(&self, workers: Vec<Worker>) {
        self.shared.lock().workers.extend(workers);
    }

    /// Starts a worker (not yet parked: the caller owns it until [`Pool::checkin`]).
    fn spawn(&self) -> std::io::Result<Worker> {
        let id = {
            let mut idle = self.shared.lock();
            idle.next_id += 1;
            idle.next_id
        };
        let (tx, rx) = mpsc::channel::<Job>();
        let shared = Arc::downgrade(&self.shared);
        let idle_exit = self.shared.idle_exit;
        std::thread::Builder::new()
            .name(format!("xla-device-{id}"))
            .spawn(move || work(id, &rx, &shared, idle_exit))?;
        Ok(Worker { id, jobs: tx })
    }
}

/// A worker's loop: run jobs until idle for `idle_exit` (while parked) or the pool is gone.
fn work(id: u64, jobs: &Receiver<Job>, shared: &Weak<Shared>, idle_exit: Duration) {
    loop {
        match jobs.recv_timeout(idle_exit) {
            Ok(job) => job(),
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                let mut idle = shared.lock();
                // Checked out meanwhile: a job is on its way, so keep waiting.
                if let Some(k) = idle.workers.iter().position(|w| w.id == id) {
                    idle.workers.swap_remove(k);
                    return;
                }
            }
        }
    }
}

/// The results of a run's tasks and how many of those started are still running.
struct Latch<T> {
    state: Mutex<(Vec<Option<T>>, usize)>,
    all_done: Condvar,
}

impl<T> Latch<T> {
    fn new(n: usize) -> Latch<T> {
        Latch {
            state: Mutex::new(((0..n).map(|_| None).collect(), 0)),
            all_done: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, (Vec<Option<T>>, usize)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One more task is running.
    fn start_one(&self) {
        self.lock().1 += 1;
    }

    /// Task `i` has finished with `result` (`None`: it panicked).
    fn finish(&self, i: usize, result: Option<T>) {
        let mut s = self.lock();
        if let Some(slot) = s.0.get_mut(i) {
            *slot = result;
        }
        s.1 = s.1.saturating_sub(1);
        drop(s);
        self.all_done.notify_all();
    }

    /// Blocks until every task has finished.
    fn wait(&self) {
        let mut s = self.lock();
        while s.1 > 0 {
            s = self
                .all_done
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn take(&self) -> Vec<Option<T>> {
        std::mem::take(&mut self.lock().0)
    }
}

/// Waits for every task of a latch when dropped (also while unwinding).
struct WaitAll<'l, T>(&'l Latch<T>);

impl<T> Drop for WaitAll<'_, T> {
    fn drop(&mut self) {
        self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Barrier;

    fn boxed<'a, T, F: FnOnce() -> T + Send + 'a>(f: F) -> Box<dyn FnOnce() -> T + Send + 'a> {
        Box::new(f)
    }

    #[test]
    fn tasks_borrow_and_run_at_once_in_order() {
        let pool = Pool::new(Duration::from_secs(5));
        let data = vec![10u64, 20, 30];
        // Every task waits for all the others: only one thread per task gets past it.
        let barrier = Barrier::new(3);
        let tasks = (0..3)
            .map(|i| {
                let (data, barrier) = (&data, &barrier);
                boxed(move || {
                    barrier.wait();
                    data[i] + i as u64
                })
            })
            .collect();
        let got = pool.run(tasks).unwrap();
        assert_eq!(got, vec![Some(10), Some(21), Some(32)]);
        // The first task ran on this thread.
        assert_eq!(pool.idle(), 2);
    }

    #[test]
    fn workers_are_reused() {
        let pool = Pool::new(Duration::from_secs(5));
        let names = || {
            let tasks = (0..2)
                .map(|_| boxed(|| std::thread::current().name().map(str::to_string)))
                .collect();
            let mut v: Vec<_> = pool.run(tasks).unwrap().into_iter().flatten().collect();
            v.sort();
            v
        };
        let first = names();
        assert_eq!(first.len(), 2);
        assert_eq!(names(), first);
        assert_eq!(pool.idle(), 1);
    }

    #[test]
    fn a_panicking_task_is_none_and_the_others_finish() {
        let pool = Pool::new(Duration::from_secs(5));
        let ran = AtomicUsize::new(0);
        let tasks = (0..3)
            .map(|i| {
                let ran = &ran;
                boxed(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    // Task 0 runs on this thread, task 1 on a worker.
                    if i < 2 {
                        std::panic::panic_any("this task fails");
                    }
                    i
                })
            })
            .collect();
        let got = pool.run(tasks).unwrap();
        assert_eq!(got, vec![None, None, Some(2)]);
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        // The worker survives its task's panic and is reused.
        let again = pool.run((0..3).map(|i| boxed(move || i)).collect());
        assert_eq!(again.unwrap(), vec![Some(0), Some(1), Some(2)]);
        assert_eq!(pool.idle(), 2);
    }

    #[test]
    fn idle_workers_end() {
        let pool = Pool::new(Duration::from_millis(20));
        pool.run((0..3).map(|i| boxed(move || i)).collect())
            .unwrap();
        // Two workers ran tasks (some may have ended already on a loaded machine).
        assert!(pool.idle() <= 2);
        let start = std::time::Instant::now();
        while pool.idle() > 0 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(pool.idle(), 0);
        // A pool whose workers ended starts new ones.
        let got = pool
            .run((0..2).map(|i| boxed(move || i * 2)).collect())
            .unwrap();
        assert_eq!(got, vec![Some(0), Some(2)]);
    }

    #[test]
    fn dropping_the_pool_ends_its_workers() {
        let pool = Pool::new(Duration::from_secs(60));
        let weak = Arc::downgrade(&pool.shared);
        // Each worker keeps a sender in a thread-local, dropped when its thread ends.
        thread_local! {
            static KEEP: std::cell::RefCell<Option<mpsc::Sender<()>>> =
                const { std::cell::RefCell::new(None) };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let on_worker = || {
            let name = std::thread::current().name().map(str::to_string);
            name.is_some_and(|n| n.starts_with("xla-device-"))
        };
        let tasks = (0..3)
            .map(|_| {
                let tx = tx.clone();
                boxed(move || {
                    if on_worker() {
                        KEEP.with(|k| *k.borrow_mut() = Some(tx));
                    }
                })
            })
            .collect();
        pool.run(tasks).unwrap();
        drop(tx);
        drop(pool);
        // Workers hold only a weak reference: the shared state (and the job senders) went
        // with the pool, so the parked workers see a closed channel and end.
        assert!(weak.upgrade().is_none());
        let ended = rx.recv_timeout(Duration::from_secs(5));
        assert_eq!(ended, Err(RecvTimeoutError::Disconnected));
    }
}
