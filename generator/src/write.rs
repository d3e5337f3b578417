//! write (in progress)
