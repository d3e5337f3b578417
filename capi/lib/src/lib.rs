//! `libtogyz_tb.so` and `libtogyz_tb.a`: the C ABI of `togyz-tb-capi`
//! under the name C links. A cdylib exports the `#[no_mangle]` functions of
//! the crates it links, so re-exporting them is all there is to it.

pub use togyz_tb_capi::*;
