//! The smaller levels as a solve or a check reads them back from their
//! table files: the distances for DTM ([`lower`]), the win/draw/loss for
//! DTC ([`lower_wdl`]); the small levels whole, of the larger ones what a
//! unit's exits reach.

pub mod lower;
pub mod lower_wdl;
