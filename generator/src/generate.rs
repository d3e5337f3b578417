//! generate (in progress)
