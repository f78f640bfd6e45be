//! Device kernels of the crate. Their launches live in `lib.rs`: whether an index is unique
//! over a launch depends on the `CubeDim` / `CubeCount` chosen there.

use cubecl::prelude::*;

//@ case: hazard thread_index_collision
// Column partial sums indexed by `ABSOLUTE_POS_X` only; `lib.rs` launches it with `CubeDim::new(32, 8, 1)`, so the 8 units of a column (one per row chunk) overwrite each other's partial (intended: `partials[ABSOLUTE_POS_Y * cols + col]`).
#[cube(launch)]
pub fn column_partials<F: Float>(matrix: &Array<F>, partials: &mut Array<F>, rows: u32, cols: u32) {
    let col = ABSOLUTE_POS_X;
    let chunk = rows / CUBE_DIM_Y;
    let first_row = ABSOLUTE_POS_Y * chunk;

    let mut acc = F::new(0.0);
    for r in first_row..first_row + chunk {
        acc += matrix[r * cols + col];
    }
    if col < cols {
        partials[col] = acc; //~ WARN thread_index_collision
    }
}

//@ case: correct
// In-place column normalization on a 2-D launch: `ABSOLUTE_POS_X/Y` guarded on both axes, one `&mut` matrix read and written at the same element.
#[cube(launch_unchecked)]
pub fn normalize_columns<F: Float>(matrix: &mut Array<F>, col_norms: &Array<F>, rows: u32, cols: u32) {
    let row = ABSOLUTE_POS_Y;
    let col = ABSOLUTE_POS_X;
    if row < rows && col < cols {
        let idx = row * cols + col;
        matrix[idx] = matrix[idx] / col_norms[col];
    }
}

//@ case: correct
// Horizontal box blur with a comptime radius and an unrolled tap loop; taps are kept inside the unit's own row.
#[cube(launch_unchecked)]
pub fn blur_rows<F: Float>(input: &Array<F>, output: &mut Array<F>, width: u32, #[comptime] radius: u32) {
    if ABSOLUTE_POS < output.len() {
        let x = ABSOLUTE_POS % width;
        let row_start = ABSOLUTE_POS - x;
        let mut acc = F::new(0.0);
        let mut taps = 0u32;
        #[unroll]
        for d in 0..2 * radius + 1 {
            let xs = x + d;
            if xs >= radius && xs - radius < width {
                acc += input[row_start + xs - radius];
                taps += 1;
            }
        }
        output[ABSOLUTE_POS] = acc / F::cast_from(taps);
    }
}
