//! Carrying a pool's file descriptor to another process of the same user, since Node's
//! `child_process` cannot: a Unix socket in a private directory (mode 0700, the socket 0600),
//! answered by a thread of its own, which checks each peer's credentials (`SO_PEERCRED`: its
//! user must be ours) and sends the descriptor with `SCM_RIGHTS`. The thread is no handle of
//! Node's event loop, so a shared pool never keeps a process alive; dropping the [`Server`]
//! stops it and removes the socket and its directory.

use crate::error::{Code, Error, Result};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
use std::io::{IoSlice, IoSliceMut, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The first bytes of every answer: what it is and the protocol's version.
pub const MAGIC: &[u8; 8] = b"CNPOOL\0\x01";
/// The answer's status byte after [`MAGIC`]: the descriptor comes with it, or the peer is refused.
const ADMITTED: u8 = 0;
const REFUSED: u8 = 1;
/// How long a client waits for an answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// The most an answer may hold.
const MAX_ANSWER: usize = 512;

fn os_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::cuda(Code::CUDA_ERROR_OPERATING_SYSTEM, format!("{what}: {e}"))
}

/// A hard-to-guess name part (not a secret: the directory's permissions are the guard).
fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

/// 16 bytes naming a pool, for telling its exported pointers from another's.
pub fn pool_id() -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&nonce().to_le_bytes());
    id[8..].copy_from_slice(&nonce().to_le_bytes());
    id
}

/// Where private directories go: `$XDG_RUNTIME_DIR` (the user's own, 0700) where set, else the
/// temporary directory (`$TMPDIR`, as Node's `os.tmpdir()`).
fn runtime_base() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() && dir.is_dir() => dir,
        _ => std::env::temp_dir(),
    }
}

/// A new directory only this user reaches (0700, ours), checked after it is made.
pub fn private_dir() -> Result<PathBuf> {
    let dir = runtime_base().join(format!("cuda-node-pool-{}-{:016x}", std::process::id(), nonce()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir).map_err(|e| os_error(&format!("making {}", dir.display()), e))?;
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| os_error("reading the socket's directory", e))?;
    if !meta.is_dir() || meta.uid() != rustix::process::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
        let _ = std::fs::remove_dir(&dir);
        return Err(Error::cuda(Code::CUDA_ERROR_NOT_PERMITTED, format!("{} is not a directory private to this user", dir.display())));
    }
    Ok(dir)
}

/// Whether a peer of user `peer` may have the pool of user `own`: only the same user.
pub fn admits(peer: u32, own: u32) -> bool {
    peer == own
}

/// A socket answering every admitted peer with `hello` and the descriptor.
pub struct Server {
    dir: PathBuf,
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts answering on a new socket in a new private directory.
    pub fn start(hello: Vec<u8>, fd: OwnedFd) -> Result<Server> {
        Server::admitting(rustix::process::geteuid().as_raw(), hello, fd)
    }

    /// As [`Server::start`], admitting the peers of user `uid` (the tests pretend to be another).
    pub(crate) fn admitting(uid: u32, hello: Vec<u8>, fd: OwnedFd) -> Result<Server> {
        let dir = private_dir()?;
        let path = dir.join("pool.sock");
        let listener = match UnixListener::bind(&path) {
            Ok(l) => l,
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                return Err(os_error(&format!("listening on {}", path.display()), e));
            }
        };
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("cuda-node pool socket".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stopping.load(Ordering::Acquire) {
                        break;
                    }
                    if let Ok(conn) = conn {
                        let _ = answer(conn, uid, &hello, &fd);
                    }
                }
            })
            .map_err(|e| os_error("starting the pool socket's thread", e))?;
        Ok(Server { dir, path, stop, thread: Some(thread) })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// One peer: its credentials checked, then the descriptor or a refusal.
fn answer(conn: UnixStream, uid: u32, hello: &[u8], fd: &OwnedFd) -> std::io::Result<()> {
    conn.set_write_timeout(Some(ANSWER_TIMEOUT))?;
    let peer = rustix::net::sockopt::socket_peercred(&conn)?;
    if !admits(peer.uid.as_raw(), uid) {
        let mut refusal = MAGIC.to_vec();
        refusal.push(REFUSED);
        refusal.extend_from_slice(b"this pool is shared only with processes of its own user");
        return (&conn).write_all(&refusal);
    }
    let mut message = MAGIC.to_vec();
    message.push(ADMITTED);
    message.extend_from_slice(hello);
    let fds = [fd.as_fd()];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    control.push(SendAncillaryMessage::ScmRights(&fds));
    rustix::net::sendmsg(&conn, &[IoSlice::new(&message)], &mut control, SendFlags::empty())?;
    Ok(())
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // The thread waits in accept: a connection of our own wakes it to see the flag.
        let woke = UnixStream::connect(&self.path).is_ok();
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_dir(&self.dir);
        if let Some(thread) = self.thread.take() {
            if woke {
                let _ = thread.join();
            }
        }
    }
}

/// The hello and descriptor the pool socket at `path` answers with: `CUDA_ERROR_NOT_FOUND` where
/// nothing answers there (its process may have exited), `CUDA_ERROR_INVALID_VALUE` where what
/// answers is no pool socket, `CUDA_ERROR_NOT_PERMITTED` where its owner is another user or it
/// refuses us.
pub fn connect(path: &Path) -> Result<(Vec<u8>, OwnedFd)> {
    let conn = UnixStream::connect(path).map_err(|e| {
        Error::cuda(
            Code::CUDA_ERROR_NOT_FOUND,
            format!("no shared pool answers at {} ({e}): its process may have exited, or the pool was unshared", path.display()),
        )
    })?;
    let peer = rustix::net::sockopt::socket_peercred(&conn).map_err(|e| os_error("reading the pool socket's credentials", e))?;
    if !admits(peer.uid.as_raw(), rustix::process::geteuid().as_raw()) {
        return Err(Error::cuda(Code::CUDA_ERROR_NOT_PERMITTED, format!("the socket at {} belongs to another user", path.display())));
    }
    conn.set_read_timeout(Some(ANSWER_TIMEOUT)).map_err(|e| os_error("setting the pool socket's timeout", e))?;
    let mut buf = [0u8; MAX_ANSWER];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let not_pool =
        |why: String| Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("{} is not a cuda-node pool socket: {why}", path.display()));
    let got = rustix::net::recvmsg(&conn, &mut [IoSliceMut::new(&mut buf)], &mut control, RecvFlags::CMSG_CLOEXEC)
        .map_err(|e| not_pool(format!("no answer ({e})")))?;
    let mut fds: Vec<OwnedFd> = Vec::new();
    for msg in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = msg {
            fds.extend(received);
        }
    }
    let answer = &buf[..got.bytes];
    if answer.len() < MAGIC.len() + 1 || &answer[..MAGIC.len()] != MAGIC {
        return Err(not_pool("its answer does not start as one does".into()));
    }
    let body = &answer[MAGIC.len() + 1..];
    match answer[MAGIC.len()] {
        REFUSED => Err(Error::cuda(
            Code::CUDA_ERROR_NOT_PERMITTED,
            format!("the pool at {} refused us: {}", path.display(), String::from_utf8_lossy(body)),
        )),
        ADMITTED if fds.len() == 1 => Ok((body.to_vec(), fds.pop().expect("one descriptor"))),
        ADMITTED => Err(not_pool(format!("it sent {} descriptors, not one", fds.len()))),
        s => Err(not_pool(format!("unknown status {s}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    /// A descriptor to send: a file with known bytes.
    fn file_fd(text: &[u8]) -> (OwnedFd, PathBuf) {
        let path = private_dir().unwrap().join("f");
        std::fs::write(&path, text).unwrap();
        (OwnedFd::from(std::fs::File::open(&path).unwrap()), path)
    }

    fn cleanup(path: &Path) {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_dir(path.parent().unwrap());
    }

    #[test]
    fn the_descriptor_crosses_with_the_hello() {
        let (fd, file) = file_fd(b"pool bytes");
        let server = Server::start(b"hello".to_vec(), fd).unwrap();
        for _ in 0..2 {
            let (hello, got) = connect(server.path()).unwrap();
            assert_eq!(hello, b"hello");
            let mut f = std::fs::File::from(got);
            f.rewind().unwrap();
            let mut s = String::new();
            f.read_to_string(&mut s).unwrap();
            assert_eq!(s, "pool bytes");
        }
        drop(server);
        cleanup(&file);
    }

    #[test]
    fn the_directory_and_socket_are_private_and_go_with_the_server() {
        let (fd, file) = file_fd(b"x");
        let server = Server::start(Vec::new(), fd).unwrap();
        let path = server.path().to_path_buf();
        let dir = std::fs::metadata(path.parent().unwrap()).unwrap();
        assert_eq!(dir.mode() & 0o777, 0o700);
        assert_eq!(dir.uid(), rustix::process::geteuid().as_raw());
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o077, 0);
        drop(server);
        assert!(!path.exists() && !path.parent().unwrap().exists());
        let e = connect(&path).unwrap_err();
        assert!(e.is_code(Code::CUDA_ERROR_NOT_FOUND), "{e:?}");
        cleanup(&file);
    }

    #[test]
    fn a_peer_of_another_user_is_refused() {
        assert!(admits(1000, 1000) && !admits(1001, 1000));
        let (fd, file) = file_fd(b"x");
        let other = rustix::process::geteuid().as_raw().wrapping_add(1);
        let server = Server::admitting(other, Vec::new(), fd).unwrap();
        let e = connect(server.path()).unwrap_err();
        assert!(e.is_code(Code::CUDA_ERROR_NOT_PERMITTED), "{e:?}");
        drop(server);
        cleanup(&file);
    }

    #[test]
    fn a_socket_that_is_no_pool_is_told_apart() {
        let dir = private_dir().unwrap();
        let path = dir.join("other.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let t = std::thread::spawn(move || {
            let (mut c, _) = listener.accept().unwrap();
            c.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap();
        });
        let e = connect(&path).unwrap_err();
        assert!(e.is_code(Code::CUDA_ERROR_INVALID_VALUE), "{e:?}");
        t.join().unwrap();
        cleanup(&path);
    }
}
