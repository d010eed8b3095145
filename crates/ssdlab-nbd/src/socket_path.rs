//! The one rule for the control socket's path: the plugin may only replace a stale socket (a
//! socket file nobody answers on), and at exit it removes only the socket it bound itself.
//! Anything else at the path (a regular file, a backing image, a folder, a live socket) is
//! refused, naming the path and what is there. Issue 19, cause 1: `--control` used to delete
//! whatever was at the path.

use std::io::ErrorKind;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::UnixStream;
use std::path::Path;

/// What the plugin bound: the path and the socket file's identity (device, inode), so that only
/// that very file is removed at exit.
#[derive(Debug, Clone)]
pub struct Bound {
    path: String,
    dev: u64,
    ino: u64,
}

/// What kind of file `meta` describes, in words for a message.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a socket"
    }
}

/// Make `path` free for a new socket: nothing there is fine; a stale socket (connection refused)
/// is removed; anything else is refused with a one-line reason naming the path.
pub fn claim(path: &str) -> Result<(), String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("control socket {path}: {e}")),
    };
    if !meta.file_type().is_socket() {
        return Err(format!("control socket {path}: is {} (only a stale socket is replaced; give another path)", kind_of(&meta)));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(format!("control socket {path}: a running server answers on it (stop it first or give another path)")),
        Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
            std::fs::remove_file(path).map_err(|e| format!("control socket {path}: cannot remove the stale socket: {e}"))
        }
        Err(e) => Err(format!("control socket {path}: {e}")),
    }
}

/// Remember the socket just bound at `path`.
pub fn bound(path: &str) -> std::io::Result<Bound> {
    let meta = std::fs::symlink_metadata(path)?;
    Ok(Bound { path: path.to_string(), dev: meta.dev(), ino: meta.ino() })
}

/// Remove the socket this plugin bound, only if the path still holds that very socket file.
pub fn release(bound: &Bound) {
    if let Ok(meta) = std::fs::symlink_metadata(&bound.path) {
        if meta.file_type().is_socket() && meta.dev() == bound.dev && meta.ino() == bound.ino {
            let _ = std::fs::remove_file(&bound.path);
        }
    }
}

/// `path` made absolute against the current folder (nbdkit changes folder when it
/// daemonises, so a relative path would land in `/`).
pub fn absolute(path: &str) -> String {
    std::path::absolute(Path::new(path)).map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-nbd-socket-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_refused_and_kept() {
        let dir = temp("file");
        let path = dir.join("image");
        std::fs::write(&path, b"precious").unwrap();
        let e = claim(path.to_str().unwrap()).unwrap_err();
        assert!(e.contains("is a regular file"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
    }

    #[test]
    fn a_live_socket_is_refused_and_a_stale_one_replaced() {
        let dir = temp("sock");
        let path = dir.join("s");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let e = claim(path.to_str().unwrap()).unwrap_err();
        assert!(e.contains("a running server answers"), "{e}");
        drop(listener); // the file stays, nobody answers: stale
        claim(path.to_str().unwrap()).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn release_removes_only_the_socket_it_bound() {
        let dir = temp("release");
        let path = dir.join("s");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let b = bound(path.to_str().unwrap()).unwrap();
        drop(listener);
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone else's").unwrap();
        release(&b);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    }
}
