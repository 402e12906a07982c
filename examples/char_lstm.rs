//! A character-level LSTM trained on seven of Shakespeare's sonnets (`data/sonnets.txt`,
//! public domain, compiled in), built from `xla::nn` layers. The whole training step —
//! the unrolled LSTM over 32 characters, its gradient and the Adam update of every weight —
//! is one computation (`train_step`, with `value_and_grad` inside), as a jitted JAX step
//! is. Prints the loss curve and a sample generated from a prompt.
//!
//! ```sh
//! cargo run --release --example char_lstm            # 1000 steps
//! cargo run --release --example char_lstm -- 100     # fewer steps
//! ```

use std::time::Instant;
use xla::computation;
use xla::train::Rng;
use xla::Literal;

/// The text, lower-cased when read.
const TEXT: &str = include_str!("../data/sonnets.txt");
/// Characters per training sequence.
const SEQ: usize = 32;
/// Sequences per batch.
const BATCH: usize = 16;
/// Embedding width.
const EMBED: usize = 16;
/// LSTM features.
const FEATURES: usize = 64;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The mean cross-entropy of predicting each next character: `B` sequences of `T`
/// characters `ids` (time-major), the next characters one-hot in `next`; the LSTM starts
/// from `zero` (zeros) for both `c` and `h`. The parameters `p` are a tuple per layer:
/// `(embedding, (LSTM input kernel, recurrent kernel, bias), (output kernel, bias))`.
#[computation]
pub fn seq_loss<const T: usize, const B: usize, const V: usize>(
    p: (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    zero: Tensor<f32, B, 64>,
    ids: Tensor<i32, T, B>,
    next: Tensor<f32, T, B, V>,
) -> f32 {
    let (emb, (wi, wh, b), (wo, bo)) = p;
    let mut c = zero;
    let mut h = zero;
    let mut total = zero.sum() * 0.0;
    for t in 0..T {
        let x = nn::embedding(emb, ids.dynamic_slice([t, 0], [1, B]).reshape([B]));
        let (c2, h2) = nn::lstm_cell(x, c, h, wi, wh, b);
        c = c2;
        h = h2;
        let y = next.dynamic_slice([t, 0, 0], [1, B, V]).reshape([B, V]);
        total += nn::softmax_cross_entropy(nn::dense(h, wo, bo), y);
    }
    total / T
}

/// One training step (`t` counts steps from 1): the loss, then the parameters, their Adam
/// first moments and second moments after the step, each a tuple per layer like `p`.
#[computation]
#[allow(clippy::type_complexity)]
pub fn train_step<const T: usize, const B: usize, const V: usize>(
    p: (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    m: (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    v: (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    t: f32,
    zero: Tensor<f32, B, 64>,
    ids: Tensor<i32, T, B>,
    next: Tensor<f32, T, B, V>,
) -> (
    f32,
    (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
) {
    let (loss, g) = value_and_grad(seq_loss, p, zero, ids, next);
    let (emb, (wi, wh, b), (wo, bo)) = p;
    let (g_emb, (g_wi, g_wh, g_b), (g_wo, g_bo)) = g;
    let (m_emb, (m_wi, m_wh, m_b), (m_wo, m_bo)) = m;
    let (v_emb, (v_wi, v_wh, v_b), (v_wo, v_bo)) = v;
    let lr = 0.01;
    let (emb, m_emb, v_emb) = nn::adam(emb, g_emb, m_emb, v_emb, t, lr);
    let (wi, m_wi, v_wi) = nn::adam(wi, g_wi, m_wi, v_wi, t, lr);
    let (wh, m_wh, v_wh) = nn::adam(wh, g_wh, m_wh, v_wh, t, lr);
    let (b, m_b, v_b) = nn::adam(b, g_b, m_b, v_b, t, lr);
    let (wo, m_wo, v_wo) = nn::adam(wo, g_wo, m_wo, v_wo, t, lr);
    let (bo, m_bo, v_bo) = nn::adam(bo, g_bo, m_bo, v_bo, t, lr);
    (
        loss,
        (emb, (wi, wh, b), (wo, bo)),
        (m_emb, (m_wi, m_wh, m_b), (m_wo, m_bo)),
        (v_emb, (v_wi, v_wh, v_b), (v_wo, v_bo)),
    )
}

/// One step of generation: the new LSTM state and the logits of the next character.
#[computation]
pub fn next_char<const V: usize>(
    p: (
        Tensor<f32, V, 16>,
        (Tensor<f32, 16, 256>, Tensor<f32, 64, 256>, Tensor<f32, 256>),
        (Tensor<f32, 64, V>, Tensor<f32, V>),
    ),
    c: Tensor<f32, 1, 64>,
    h: Tensor<f32, 1, 64>,
    id: Tensor<i32, 1>,
) -> (Tensor<f32, 1, 64>, Tensor<f32, 1, 64>, Tensor<f32, 1, V>) {
    let (emb, (wi, wh, b), (wo, bo)) = p;
    let (c, h) = nn::lstm_cell(nn::embedding(emb, id), c, h, wi, wh, b);
    (c, h, nn::dense(h, wo, bo))
}

/// The six weights `[emb, wi, wh, b, wo, bo]` as the computations' tuple per layer.
fn nest(w: &[Literal]) -> Result<Literal, Error> {
    let [emb, wi, wh, b, wo, bo] = w else {
        return Err(format!("expected 6 weights, found {}", w.len()).into());
    };
    Ok(Literal::tuple(vec![
        emb.clone(),
        Literal::tuple(vec![wi.clone(), wh.clone(), b.clone()]),
        Literal::tuple(vec![wo.clone(), bo.clone()]),
    ]))
}

/// The arrays of a (nested) tuple, depth first: [`nest`] undone.
fn flatten(t: &Literal) -> Vec<Literal> {
    match t.tuple_elements() {
        Some(elems) => elems.iter().flat_map(flatten).collect(),
        None => vec![t.clone()],
    }
}

/// The text as character ids, and the characters.
fn vocabulary() -> (Vec<i32>, Vec<char>) {
    let text = TEXT.to_lowercase();
    let mut chars: Vec<char> = text.chars().collect();
    chars.sort_unstable();
    chars.dedup();
    let ids = text
        .chars()
        .filter_map(|c| chars.binary_search(&c).ok())
        .map(|i| i as i32)
        .collect();
    (ids, chars)
}

/// Glorot-uniform kernels, a small normal embedding, zero biases.
fn init(rng: &mut Rng, v: i64) -> Result<Vec<Literal>, Error> {
    let zeros = |n: i64| Literal::from_vec(&[n], vec![0f32; n as usize]);
    Ok(vec![
        rng.normal_literal(&[v, EMBED as i64], 0.0, 0.1)?,
        rng.glorot_uniform(&[EMBED as i64, 4 * FEATURES as i64])?,
        rng.glorot_uniform(&[FEATURES as i64, 4 * FEATURES as i64])?,
        zeros(4 * FEATURES as i64)?,
        rng.glorot_uniform(&[FEATURES as i64, v])?,
        zeros(v)?,
    ])
}

/// `BATCH` random windows of `SEQ + 1` characters: the inputs (time-major) and the one-hot next
/// characters.
fn batch(rng: &mut Rng, ids: &[i32], v: usize) -> Result<[Literal; 2], Error> {
    let mut inputs = vec![0i32; SEQ * BATCH];
    let mut next = vec![0f32; SEQ * BATCH * v];
    for s in 0..BATCH {
        let start = rng.below(ids.len() - SEQ - 1);
        for t in 0..SEQ {
            inputs[t * BATCH + s] = ids[start + t];
            next[(t * BATCH + s) * v + ids[start + t + 1] as usize] = 1.0;
        }
    }
    Ok([
        Literal::from_vec(&[SEQ as i64, BATCH as i64], inputs)?,
        Literal::from_vec(&[SEQ as i64, BATCH as i64, v as i64], next)?,
    ])
}

/// `n` characters generated after `prompt`, each drawn from the softmax of the logits at
/// temperature 0.6.
fn sample(weights: &[Literal], chars: &[char], prompt: &str, n: usize) -> Result<String, Error> {
    let mut rng = Rng::new(7);
    let p = nest(weights)?;
    let zero = || Literal::from_vec(&[1, FEATURES as i64], vec![0f32; FEATURES]);
    let (mut c, mut h) = (zero()?, zero()?);
    let mut out = prompt.to_string();
    if n == 0 {
        return Ok(out);
    }
    let mut generated = 0;
    let mut id = 0;
    let feed: Vec<usize> = prompt
        .chars()
        .filter_map(|ch| chars.binary_search(&ch).ok())
        .collect();
    for k in 0..feed.len() + n {
        if let Some(&i) = feed.get(k) {
            id = i;
        }
        let args = [p.clone(), c, h, Literal::from_vec(&[1], vec![id as i32])?];
        let out_state = next_char::run(&args)?;
        let parts = out_state.tuple_elements().ok_or("next_char: not a tuple")?;
        let [nc, nh, logits] = parts else {
            return Err("next_char: not a 3-tuple".into());
        };
        (c, h) = (nc.clone(), nh.clone());
        if k + 1 >= feed.len() {
            id = draw(&mut rng, logits.data::<f32>().ok_or("logits")?, 0.6);
            out.extend(chars.get(id));
            generated += 1;
            if generated == n {
                break;
            }
        }
    }
    Ok(out)
}

/// A draw from `softmax(logits / temperature)`.
fn draw(rng: &mut Rng, logits: &[f32], temperature: f32) -> usize {
    let top = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let p: Vec<f32> = logits
        .iter()
        .map(|l| ((l - top) / temperature).exp())
        .collect();
    let mut u = rng.uniform_f32() * p.iter().sum::<f32>();
    for (i, pi) in p.iter().enumerate() {
        u -= pi;
        if u <= 0.0 {
            return i;
        }
    }
    p.len() - 1
}

/// Trains for `steps` steps from seed 0: the weights (the six of [`next_char`], in order)
/// and the loss of every step.
pub fn train(steps: usize) -> Result<(Vec<Literal>, Vec<f32>), Error> {
    let (ids, chars) = vocabulary();
    let v = chars.len();
    let mut rng = Rng::new(0);
    let weights = init(&mut rng, v as i64)?;
    let zeros: Vec<Literal> = weights
        .iter()
        .map(|w| Literal::from_vec(w.shape().dims(), vec![0f32; w.element_count()]))
        .collect::<Result<_, _>>()?;
    // The state the step threads: weights, first moments, second moments.
    let mut state = vec![nest(&weights)?, nest(&zeros)?, nest(&zeros)?];
    let zero = Literal::from_vec(
        &[BATCH as i64, FEATURES as i64],
        vec![0f32; BATCH * FEATURES],
    )?;
    let mut losses = Vec::new();
    for step in 1..=steps {
        let [inputs, next] = batch(&mut rng, &ids, v)?;
        let mut args = state.clone();
        args.extend([Literal::scalar(step as f32), zero.clone(), inputs, next]);
        let out = train_step::run(&args)?;
        let parts = out.tuple_elements().ok_or("train_step: not a tuple")?;
        let (loss, rest) = parts.split_first().ok_or("train_step: empty tuple")?;
        losses.extend(loss.data::<f32>().ok_or("loss")?.first());
        state = rest.to_vec();
    }
    let weights = state.first().map(flatten).unwrap_or_default();
    Ok((weights, losses))
}

/// Prompts the trained model: `n` characters after `prompt` (lower-case).
pub fn generate(weights: &[Literal], prompt: &str, n: usize) -> Result<String, Error> {
    let (_, chars) = vocabulary();
    sample(weights, &chars, prompt, n)
}

#[allow(dead_code)]
fn main() -> Result<(), Error> {
    let steps: usize = std::env::args().nth(1).map_or(Ok(1000), |s| s.parse())?;
    let (ids, chars) = vocabulary();
    println!(
        "{} characters, {} distinct; LSTM {EMBED}→{FEATURES}, sequences of {SEQ}, batches of {BATCH}",
        ids.len(),
        chars.len()
    );
    let started = Instant::now();
    let (weights, losses) = train(steps)?;
    let seconds = started.elapsed().as_secs_f64();
    for (k, chunk) in losses.chunks(50).enumerate() {
        let mean = chunk.iter().sum::<f32>() / chunk.len() as f32;
        let step = k * 50 + chunk.len();
        println!(
            "step {step:4}  loss {mean:.3}  {}",
            "#".repeat((mean * 10.0) as usize)
        );
    }
    println!(
        "trained {steps} steps in {seconds:.1} s ({:.1} ms/step)",
        seconds * 1e3 / steps as f64
    );
    println!(
        "---\n{}\n---",
        generate(&weights, "shall i compare thee", 300)?
    );
    Ok(())
}
