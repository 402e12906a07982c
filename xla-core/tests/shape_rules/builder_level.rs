//! Rules of builder ops that XLA lowers to other HLO (Broadcast, Collapse, AllToAll with
//! distinct split and concat dims), called directly.

use crate::util::sh;
use xla_core::shape_inference::collective::all_to_all_split;
use xla_core::shape_inference::structural::{broadcast_in_front, collapse};
use xla_core::{Shape, ShapeError};

fn show(r: Result<Shape, ShapeError>) -> String {
    match r {
        Ok(s) => s.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn broadcast_prepends_sizes() {
    // Spec, Broadcast: scalar 2.0f with broadcast_sizes {2, 3} gives f32[2,3].
    assert_eq!(show(broadcast_in_front(&sh("f32[]"), &[2, 3])), "f32[2,3]");
    assert_eq!(
        show(broadcast_in_front(&sh("s32[4,5]"), &[2])),
        "s32[2,4,5]"
    );
    assert_eq!(
        show(broadcast_in_front(&sh("s32[4]"), &[-1])),
        "error: broadcast: broadcast_sizes {-1} contains negative size -1"
    );
}

#[test]
fn collapse_consecutive_dims() {
    // Spec, Collapse of v = f32[4x2x3].
    let v = sh("f32[4,2,3]");
    assert_eq!(show(collapse(&v, &[0, 1, 2])), "f32[24]");
    assert_eq!(show(collapse(&v, &[0, 1])), "f32[8,3]");
    assert_eq!(show(collapse(&v, &[1, 2])), "f32[4,6]");
    assert_eq!(show(collapse(&v, &[])), "f32[4,2,3]");
    assert!(show(collapse(&v, &[1, 0])).contains("must be consecutive and in order"));
    assert!(show(collapse(&v, &[0, 2])).contains("must be consecutive and in order"));
    assert!(show(collapse(&v, &[2, 3])).contains("out of range"));
}

#[test]
fn all_to_all_split_and_concat() {
    // Spec, AllToAll: f32[4,16] split 4 ways along 1, concatenated along 0: f32[16,4].
    assert_eq!(
        show(all_to_all_split(&sh("f32[4,16]"), 1, 0, 4)),
        "f32[16,4]"
    );
    assert_eq!(
        show(all_to_all_split(&sh("f32[4,16]"), 1, 1, 4)),
        "f32[4,16]"
    );
    assert!(show(all_to_all_split(&sh("f32[4,16]"), 0, 1, 3))
        .contains("divisible by the split count 3"));
    assert!(show(all_to_all_split(&sh("f32[4,16]"), 2, 0, 2))
        .contains("split_dimension 2 is out of range"));
}
