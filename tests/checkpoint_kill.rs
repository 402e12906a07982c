//! Durability of checkpoints: a child process saves checkpoints in a loop and is killed
//! with SIGKILL at random points, again and again; after every kill the checkpoint on
//! disk must load, be internally consistent (every value and the step agree), and be no
//! older than the last save the child reported complete.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use xla::train::{load_checkpoint, save_checkpoint, TrainState};
use xla::Literal;

/// Where the child writes (set by the parent).
const DIR_ENV: &str = "XLA_CHECKPOINT_KILL_DIR";
/// Elements of the tensor saved: 4 MB, so a save takes long enough to be hit mid-write.
const N: usize = 1 << 20;

fn ckpt(dir: &Path) -> PathBuf {
    dir.join("model.safetensors")
}

/// The child: saves step 1, 2, 3, ... forever, the tensor filled with the step number,
/// and prints `saved N` after each save returns.
#[test]
#[ignore = "the child process of kill_9_mid_write_never_corrupts_the_checkpoint"]
fn checkpoint_writer_child() {
    let dir = PathBuf::from(std::env::var(DIR_ENV).expect("run by the parent test"));
    let start = match load_checkpoint(
        ckpt(&dir),
        &[(
            "w",
            &xla::Shape::array(xla::PrimitiveType::F32, vec![N as i64]),
        )],
    ) {
        Ok((_, s)) => s.step + 1,
        Err(_) => 1,
    };
    for step in start.. {
        let w = Literal::vec1(&vec![step as f32; N]);
        save_checkpoint(ckpt(&dir), &[("w", &w)], TrainState { epoch: 0, step }).unwrap();
        println!("saved {step}");
    }
}

/// Small deterministic pseudo-random delays (1..=60 ms).
fn delays(seed: u64) -> impl Iterator<Item = u64> {
    let mut s = seed | 1;
    std::iter::repeat_with(move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        1 + s % 60
    })
}

#[test]
fn kill_9_mid_write_never_corrupts_the_checkpoint() {
    let dir = std::env::temp_dir().join(format!("xla-ckpt-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shape = xla::Shape::array(xla::PrimitiveType::F32, vec![N as i64]);
    let mut last_reported = 0u64;
    let mut kills_with_a_file = 0;
    for (round, delay) in delays(0x5eed).take(16).enumerate() {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "checkpoint_writer_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(DIR_ENV, &dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The child's lines, read as they come (a thread, so the wait below has a timeout).
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            let mut all = String::new();
            for line in BufReader::new(&mut stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line.clone());
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        if round == 0 {
            // The first round waits for two completed saves, however slow the machine (a
            // debug child under load needs about a second for its first): every later
            // round then starts from a checkpoint and is killed at a random point.
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(left) {
                    Ok(l) if l.trim() == "saved 2" => break,
                    Ok(_) => {}
                    Err(e) => panic!("the child did not report two saves in 120 s: {e}"),
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20 + delay * 3));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let out = reader.join().unwrap();
        if let Some(n) = out.lines().rev().find_map(|l| l.strip_prefix("saved ")) {
            last_reported = n.trim().parse().unwrap();
        }
        let path = ckpt(&dir);
        if !path.exists() {
            assert_eq!(last_reported, 0, "round {round}: the checkpoint vanished");
            continue;
        }
        kills_with_a_file += 1;
        let (params, state) = load_checkpoint(&path, &[("w", &shape)])
            .unwrap_or_else(|e| panic!("round {round}: corrupt checkpoint: {e}"));
        let w = params[0].data::<f32>().unwrap();
        assert!(
            w.iter().all(|&x| x == state.step as f32),
            "round {round}: tensor and step {} disagree",
            state.step
        );
        assert!(
            state.step >= last_reported,
            "round {round}: step {} is older than the last save reported ({last_reported})",
            state.step
        );
    }
    assert!(
        kills_with_a_file >= 8,
        "only {kills_with_a_file} rounds had a checkpoint"
    );
    assert!(
        last_reported >= 2,
        "the child completed too few saves to test anything"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
