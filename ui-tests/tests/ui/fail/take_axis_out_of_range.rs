use xla::computation;

#[computation]
fn f(table: Tensor<f32, 10, 4>, ids: Tensor<i32, 3>) -> Tensor<f32, 3, 4> {
    table.take(ids, 2)
}

fn main() {}
