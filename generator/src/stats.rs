//! stats (in progress)
