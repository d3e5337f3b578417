//! Failures: a call's status and message, the per-thread last error, the
//! guard that keeps panics on this side, and the checked pointer reads and
//! writes.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use togyz_answer::Kind;
use togyz_tb::ProbeError;

use crate::TogyzStatus;

/// Why a call failed: its status and message.
pub(crate) struct Failure {
    pub(crate) status: TogyzStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: TogyzStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn null(what: &str) -> Failure {
        Failure::new(
            TogyzStatus::NullPointer,
            format!("{what} is a null pointer"),
        )
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match Kind::of_probe(&e) {
            Kind::NoTable => TogyzStatus::MissingTable,
            Kind::UnreadableTable => TogyzStatus::Io,
            _ => TogyzStatus::DamagedTable,
        };
        Failure::new(status, e.to_string())
    }
}

thread_local! {
    /// The message of this thread's last failed call.
    pub(crate) static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(message: &str) {
    // A NUL inside would cut the message short in C.
    let text = CString::new(message.replace('\0', "?")).unwrap_or_default();
    // `try_with`: a call from a thread-local destructor must not panic.
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            *e = text;
        }
    });
}

/// Runs `f`, turning its failure or panic into a status and the thread's
/// last-error message.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Failure>) -> TogyzStatus {
    let failure = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return TogyzStatus::Ok,
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Failure::new(
                TogyzStatus::Internal,
                format!("internal error in togyz-tb (please report it): {what}"),
            )
        }
    };
    set_last_error(&failure.message);
    failure.status
}

/// A reference from a pointer that must not be null.
///
/// # Safety
/// `p` is null or points to a live, aligned `T` for `'a`.
pub(crate) unsafe fn deref<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract; null is refused by `as_ref`.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::null(what))
}

/// Writes `value` through an output pointer that must not be null.
///
/// # Safety
/// `p` is null or valid for writing a `T`.
pub(crate) unsafe fn put<T>(p: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not null, and valid for writes by the caller's contract;
    // `write` does not read or drop the old (maybe uninitialised) value.
    unsafe { p.write(value) };
    Ok(())
}

/// The text of a NUL-terminated string that must be UTF-8.
///
/// # Safety
/// `s` is null or points to a NUL-terminated string live for `'a`.
pub(crate) unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if s.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not null and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map_err(|_| Failure::new(TogyzStatus::BadArgument, format!("{what} is not UTF-8")))
}
