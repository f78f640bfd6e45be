//! The two stages; each has a kernel called `apply`.
pub mod coarse;
pub mod fine;
