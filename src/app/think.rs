//! A computer's think, interruptible by Ctrl-C.
//!
//! The searches count work, not time ([`bot::Work`]), and stop when
//! [`bot::interrupted`] says so. This is the shell's side: while a think
//! runs, SIGINT only sets that flag (and is passed on to a handler that was
//! there before, such as `starry serve`'s); the think then stops at its next
//! check and its command fails with nothing written. Outside a think SIGINT
//! does what it did before (by default it ends the program).

use std::sync::Mutex;
#[cfg(unix)]
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::bot;
use crate::error::{Error, Result};

/// The error of an interrupted think: nothing was written.
pub fn interrupted_error() -> Error {
    Error::Other("interrupted (Ctrl-C) while the computer was thinking; nothing was written".into())
}

/// Runs `think` with Ctrl-C turned into [`bot::interrupt`]; an interrupted
/// think's result is thrown away for [`interrupted_error`].
pub fn interruptible<T>(think: impl FnOnce() -> T) -> Result<T> {
    let guard = Guard::enter();
    let out = think();
    drop(guard);
    if bot::interrupted() {
        return Err(interrupted_error());
    }
    Ok(out)
}

/// Thinks running now, and the SIGINT disposition to restore when the last
/// ends (threads of `starry arena -j` or `starry serve` think at once).
static ACTIVE: Mutex<(usize, Option<Saved>)> = Mutex::new((0, None));

struct Guard;

impl Guard {
    fn enter() -> Guard {
        let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        if active.0 == 0 {
            active.1 = install();
        }
        active.0 += 1;
        Guard
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        active.0 -= 1;
        if active.0 == 0
            && let Some(saved) = active.1.take()
        {
            restore(saved);
        }
    }
}

#[cfg(unix)]
type Saved = libc::sigaction;
#[cfg(not(unix))]
type Saved = ();

/// The handler that was there before ours, called after ours when it is a
/// function (the default action and "ignore" are not), and whether it takes
/// the three arguments of SA_SIGINFO.
#[cfg(unix)]
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
#[cfg(unix)]
static PREVIOUS_SIGINFO: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // Only async-signal-safe work: atomic loads and stores, and a call.
    bot::interrupt();
    let previous = PREVIOUS.load(Ordering::SeqCst);
    if previous == 0 {
        return;
    }
    // SAFETY: `previous` is the handler installed for SIGINT before ours,
    // of the kind its flags said (`install`), called as the kernel would.
    unsafe {
        if PREVIOUS_SIGINFO.load(Ordering::SeqCst) {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(previous);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(previous);
            f(signal);
        }
    }
}

#[cfg(unix)]
fn install() -> Option<Saved> {
    // SAFETY: plain sigaction calls on zeroed structs; `on_sigint` is
    // async-signal-safe.
    unsafe {
        let mut new: libc::sigaction = std::mem::zeroed();
        new.sa_sigaction = on_sigint
            as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
            as libc::sighandler_t;
        new.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut new.sa_mask);
        let mut old: libc::sigaction = std::mem::zeroed();
        // What to chain to is set before ours can run.
        if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0 {
            return None;
        }
        let function = old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN;
        PREVIOUS_SIGINFO.store(old.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
        PREVIOUS.store(
            if function { old.sa_sigaction } else { 0 },
            Ordering::SeqCst,
        );
        if libc::sigaction(libc::SIGINT, &new, &mut old) != 0 {
            return None;
        }
        Some(old)
    }
}

#[cfg(unix)]
fn restore(saved: Saved) {
    // SAFETY: puts back the disposition `install` found.
    unsafe {
        libc::sigaction(libc::SIGINT, &saved, std::ptr::null_mut());
    }
}

#[cfg(not(unix))]
fn install() -> Option<Saved> {
    None
}

#[cfg(not(unix))]
fn restore(_: Saved) {}
