//! Files: the unit work files of a level being solved ([`work`]) and the
//! names and temporaries of an output folder ([`folder`]), the table writer
//! ([`write`](mod@write)) and the whole-table decoder ([`decode`]) of both
//! metrics, with what a DTC table needs besides: its losses recovered
//! ([`recover`]) and any table's win/draw/loss read as draw splits
//! ([`splits`]).

pub mod decode;
pub mod folder;
pub mod reblock;
pub mod recover;
pub mod seeds;
pub mod splits;
pub mod work;
pub mod write;
