//! Counts from C that no call could honour are refused before anything is
//! sized by them (issue 30: a huge `ndirs` aborted the process in an
//! allocation).

use std::ffi::{c_char, CStr, CString};
use std::ptr::null_mut;

use togyz_tb_capi::*;

fn last_error() -> String {
    // SAFETY: never null, NUL-terminated.
    unsafe { CStr::from_ptr(togyz_tb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_huge_folder_count_is_a_bad_argument() {
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(dir.path().to_str().unwrap()).unwrap();
    let one = [path.as_ptr()];
    // Counts past 4096 are refused before `dirs` is read; 4096 folders
    // (one folder repeated: the first wins) open.
    for ndirs in [1 << 40, isize::MAX as usize / 8, usize::MAX, 4097] {
        let mut tb = null_mut();
        // SAFETY: `one` is a live array of one path; a count beyond it is
        // what the call must refuse without reading.
        let s = unsafe { togyz_tb_open(one.as_ptr(), ndirs, 0, &mut tb) };
        assert_eq!(s, TogyzStatus::BadArgument, "ndirs {ndirs}");
        assert!(tb.is_null());
        assert!(
            last_error().contains(&format!("ndirs = {ndirs}: at most 4096")),
            "{}",
            last_error()
        );
    }
    let many: Vec<*const c_char> = vec![path.as_ptr(); 4096];
    let mut tb = null_mut();
    // SAFETY: `many` holds 4096 live paths.
    let s = unsafe { togyz_tb_open(many.as_ptr(), many.len(), 0, &mut tb) };
    assert_eq!(s, TogyzStatus::Ok, "{}", last_error());
    // SAFETY: opened above, closed once.
    unsafe { togyz_tb_close(tb) };
}
