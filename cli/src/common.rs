//! What the commands share: one path from a question to its reply
//! ([`ask`]), the search above the tables ([`above`]), move arguments
//! ([`moves`]), the tables folder ([`tables`]), text for people
//! ([`render`]), and failures with their exit codes ([`failure`]).

pub mod above;
pub mod ask;
pub mod failure;
pub mod moves;
pub mod render;
pub mod tables;
