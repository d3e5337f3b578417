//! retro (in progress)
