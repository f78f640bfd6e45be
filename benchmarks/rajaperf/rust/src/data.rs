//! Host-only helpers: RAJAPerf's data initialisation, the meshes of `ADomain`, the comparison
//! with the CPU references, and launch timing.

/// A heap array of `N` f64, element i = f(i).
pub fn array<const N: usize>(f: impl FnMut(usize) -> f64) -> Box<[f64; N]> {
    let v: Vec<f64> = (0..N).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is N by construction"),
    }
}

/// A heap array of `N` indices, element i = f(i).
pub fn indices<const N: usize>(f: impl Fn(usize) -> usize) -> Box<[usize; N]> {
    let v: Vec<usize> = (0..N).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is N by construction"),
    }
}

/// The 64-bit LCG (Knuth's MMIX constants) behind every pseudo-random value of both programs
/// (../cuda/rajaperf.cu has the same): the top 53 bits of the next state, in [0, 1).
pub fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 11) as f64 * (1.0 / 9007199254740992.0)
}

/// Seed of the random values (RAJAPerf seeds its `rand()` with 4793).
pub const SEED: u64 = 4793;

/// A `--check-data` value: uniform in [-2, 2).
fn check_value(state: &mut u64) -> f64 {
    4.0 * (lcg(state) - 0.5)
}

/// RAJAPerf's data initialisation (src/common/DataUtils.cpp): a counter, reset before each
/// kernel's setUp and incremented by every init call, picks the factor 0.2 (even) or 0.1 (odd).
///
/// With `check` (the `--check-data` validation runs) every array RAJAPerf fills with
/// `initData` gets random values in [-2, 2) instead, and mesh coordinates a random jitter:
/// RAJAPerf's values are so smooth in i (factor * (i + 1.1) / (i + 1.12345)) that a kernel
/// reading a neighbour's element instead of its own gives the same result to 1e-12, ENERGY
/// never takes its `delvc <= 0` branches and PRESSURE's output is `pmin` everywhere; random
/// values over [-2, 2) (the thresholds are near 0.1 and 0.2) exercise every branch.
pub struct Init {
    count: u32,
    random: Option<u64>,
}

impl Init {
    pub fn new(check: bool) -> Self {
        Init { count: 0, random: check.then_some(SEED) }
    }

    fn factor(&mut self) -> f64 {
        let f = if self.count % 2 == 1 { 0.1 } else { 0.2 };
        self.count += 1;
        f
    }

    /// `allocAndInitData`: element i = factor * (i + 1.1) / (i + 1.12345), in (0, 1).
    pub fn data<const N: usize>(&mut self) -> Box<[f64; N]> {
        let f = self.factor();
        match &mut self.random {
            Some(s) => array(|_| check_value(s)),
            None => array(|i| f * (i as f64 + 1.1) / (i as f64 + 1.12345)),
        }
    }

    /// `allocAndInitDataRandValue` (FIR's input): values in [0, 1) from a fresh LCG stream
    /// (RAJAPerf: glibc `rand()` after `srand(4793)`); in [-2, 2) with `check`.
    pub fn rand_values<const N: usize>(&mut self) -> Box<[f64; N]> {
        self.count += 1;
        let check = self.random.is_some();
        let mut s = SEED;
        array(|_| if check { check_value(&mut s) } else { lcg(&mut s) })
    }

    /// `allocAndInitDataConst`: every element `v`.
    pub fn constant<const N: usize>(&mut self, v: f64) -> Box<[f64; N]> {
        self.count += 1;
        array(|_| v)
    }

    /// `initData(Real_type&)`: factor * 1.1 / 1.12345 (the same with `check`).
    pub fn scalar(&mut self) -> f64 {
        self.factor() * 1.1 / 1.12345
    }

    /// An init call whose values are replaced afterwards (mesh coordinates, a real-zone list).
    pub fn skip(&mut self) {
        self.count += 1;
    }

    /// The node coordinates `setMeshPositions_3d` / `_2d` leave: every node of the domain is a
    /// corner of some zone their loops visit, and each corner write stores the node's own
    /// coordinate, (index along the axis) * spacing; with `check`, plus a jitter of up to
    /// +-10% of the spacing.
    pub fn coordinate<const N: usize>(&mut self, stride: usize, extent: usize, spacing: f64) -> Box<[f64; N]> {
        let random = &mut self.random;
        array(|n| {
            let c = ((n / stride) % extent) as f64 * spacing;
            match random {
                Some(s) => c + 0.2 * spacing * (lcg(s) - 0.5),
                None => c,
            }
        })
    }
}

/// `setRealZones_3d` / `setRealZones_2d`: the node index of each real zone, i fastest.
/// `dims` = 2 or 3; the real zones are [imin, imax) in every dimension.
pub fn real_zones<const N: usize>(imin: usize, imax: usize, jp: usize, kp: usize, dims: usize) -> Box<[usize; N]> {
    let n = imax - imin;
    indices(|id| {
        let (i, j, k) = (id % n + imin, (id / n) % n + imin, if dims == 3 { id / (n * n) + imin } else { 0 });
        i + j * jp + k * kp
    })
}

/// Number of elements where `got` and `want` differ by more than 1e-10 relative (absolute
/// below 1): room for nvcc's FMA contraction against rustc's separate multiply and add; a
/// wrong element (a flipped threshold, a wrong index) is far outside it. Prints the first.
pub fn mismatches(kernel: &str, got: &[f64], want: &[f64]) -> usize {
    let mut bad = 0;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !((g - w).abs() <= 1e-10 * w.abs().max(1.0)) {
            if bad == 0 {
                eprintln!("FAIL {kernel}: element {i}: got {g:e}, expected {w:e}");
            }
            bad += 1;
        }
    }
    bad
}

/// Host wall time of each launch (milliseconds), copies to and from the device included.
pub struct Walls(pub Vec<f64>);

impl Walls {
    pub fn time(&mut self, launch: impl FnOnce()) {
        let t = std::time::Instant::now();
        launch();
        self.0.push(t.elapsed().as_secs_f64() * 1e3);
    }

    /// `host_wall <kernel> median_ms_incl_copies=..`, the warm-up launch left out.
    pub fn print(&self, kernel: &str) {
        let mut ms: Vec<f64> = self.0.iter().skip(1).copied().collect();
        if ms.is_empty() {
            ms = self.0.clone();
        }
        ms.sort_by(f64::total_cmp);
        if let Some(m) = ms.get(ms.len() / 2) {
            println!("host_wall {kernel} median_ms_incl_copies={m:.3} launches={}", self.0.len());
        }
    }
}
