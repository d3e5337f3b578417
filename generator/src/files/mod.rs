//! Files: the unit work files of a level being solved ([`work`]) and the
//! names and temporaries of an output folder ([`folder`]), the table writer
//! of both metrics ([`write`](mod@write)) and the whole-table
//! decoder ([`decode`], [`decode_dtc`], over [`blocks`]).

pub mod blocks;
pub mod decode;
pub mod decode_dtc;
pub mod folder;
pub mod work;
pub mod write;
