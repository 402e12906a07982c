//! Ctrl-C: the first SIGINT cancels the running execution (its [`CancelToken`]), so the
//! command stops cleanly and removes what it had not finished writing; a second one
//! kills the process as usual.

use std::sync::OnceLock;
use xla::cpu::CancelToken;

/// The token SIGINT cancels.
static TOKEN: OnceLock<CancelToken> = OnceLock::new();

/// The exit status after an interrupt (128 + SIGINT, as shells report it).
pub const INTERRUPTED: u8 = 130;

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    // Only async-signal-safe work: an atomic load, an atomic store, and `signal`.
    if let Some(t) = TOKEN.get() {
        t.cancel();
    }
    // SAFETY: `signal` is async-signal-safe; SIG_DFL makes the next Ctrl-C kill the
    // process as usual.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Installs the SIGINT handler (once) and returns the token it cancels.
pub fn token() -> CancelToken {
    let t = TOKEN.get_or_init(CancelToken::new).clone();
    #[cfg(unix)]
    {
        let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installs a handler that only touches an atomic flag (see `on_sigint`).
        unsafe {
            libc::signal(libc::SIGINT, handler);
        }
    }
    t
}

/// True once Ctrl-C was pressed.
pub fn interrupted() -> bool {
    TOKEN.get().is_some_and(CancelToken::is_cancelled)
}
