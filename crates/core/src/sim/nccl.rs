//! The simulator's NCCL: the same rendezvous and matching rules as the real library, over
//! local sockets, so ranks may be threads of one process, worker threads, or separate processes.
//!
//! As in NCCL, the process that calls `getUniqueId` hosts the rendezvous (a "hub" thread on a
//! loopback port named in the id). Each rank connects and says who it is; `init` returns once
//! all `nranks` have joined. A collective is an operation on the rank's stream: when the stream
//! reaches it, the rank sends its part to the hub and waits; the hub matches the k-th
//! collective of every rank (they must agree on kind, type, count, op and root: NCCL's rule),
//! computes the result on the host and sends each rank its part. `send`/`recv` match the k-th
//! send from a to b with the k-th receive at b from a. A call inside `groupStart`/`groupEnd`
//! is deferred to `groupEnd`, and a stream's grouped calls post together before waiting, so
//! paired sends and receives do not deadlock; outside a group they wait in turn, as NCCL's do.
//! A rank that leaves (destroy, abort, a process that exits) fails what is pending on the
//! others with `NCCL_ERROR_REMOTE_ERROR` instead of hanging them.
//!
//! The WebAssembly build has neither threads nor sockets: there every NCCL call is refused with
//! `CUDA_ERROR_NOT_SUPPORTED`, and the rest of this file is unused.
#![cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]

use super::engine::Queue;
use super::memory::{sim_alloc, Buffer};
use super::stream::SimStream;
use super::{lock, SimBackend, SimDevice};
use crate::error::{Error, Result};
use crate::ops::nccl::{result_name, Buf, Call, Collective, CommOps, DataType, NcclOps, RedOp, UniqueId, UNIQUE_ID_BYTES};
use crate::ops::StreamOps;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

const MAGIC: &[u8; 10] = b"cnsimnccl1";
/// The NCCL version the simulator reports (2.23.4).
const VERSION: i32 = 22304;

const SYSTEM: i32 = 2;
const INVALID_ARGUMENT: i32 = 4;
const INVALID_USAGE: i32 = 5;
const REMOTE: i32 = 6;

fn nccl_error(code: i32, message: impl Into<String>) -> Error {
    Error::named(result_name(code), message)
}

// ---- framing -------------------------------------------------------------------------------

fn write_frame(s: &mut TcpStream, body: &[u8]) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    s.write_all(&out)
}

fn read_frame(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut body)?;
    Ok(body)
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }
}

/// What a rank posts: which match it belongs to, and what it agrees to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    /// 0 collective, 1 send, 2 receive.
    class: u8,
    seq: u64,
    call: Call,
}

/// A call's kind number, reduction and root or peer on the wire (`Collective::kind`).
fn kind_code(c: Collective) -> (u8, u8, u32) {
    let (kind, op, rank) = c.kind();
    (kind as u8, op as u8, rank as u32)
}

fn from_kind(k: u8, op: u8, r: u32) -> Option<Collective> {
    Collective::from_kind(k as u32, RedOp::from_code(op as u32).ok()?, r as usize)
}

fn encode_tag(out: &mut Vec<u8>, t: &Tag) {
    let (k, op, r) = kind_code(t.call.coll);
    out.push(t.class);
    out.extend_from_slice(&t.seq.to_le_bytes());
    out.extend_from_slice(&[k, op, t.call.dtype as u8]);
    out.extend_from_slice(&t.call.count.to_le_bytes());
    out.extend_from_slice(&r.to_le_bytes());
}

fn decode_tag(r: &mut Reader) -> Option<Tag> {
    let class = r.u8()?;
    let seq = r.u64()?;
    let (k, op, dt) = (r.u8()?, r.u8()?, r.u8()?);
    let count = r.u64()?;
    let root = r.u32()?;
    Some(Tag { class, seq, call: Call { coll: from_kind(k, op, root)?, count, dtype: DataType::from_code(dt as u32).ok()? } })
}

fn describe(c: &Call) -> String {
    format!("{:?} of {} x {:?}", c.coll, c.count, c.dtype)
}

// ---- the hub -------------------------------------------------------------------------------

type Reply = std::result::Result<Vec<u8>, (i32, String)>;

struct Posted {
    rank: usize,
    post: u64,
    tag: Tag,
    data: Vec<u8>,
}

#[derive(Default)]
struct HubState {
    nranks: Option<usize>,
    conns: Vec<Option<Arc<Mutex<TcpStream>>>>,
    devices: Vec<Option<u32>>,
    joined: usize,
    colls: HashMap<u64, Vec<Posted>>,
    sends: HashMap<(usize, usize, u64), Posted>,
    recvs: HashMap<(usize, usize, u64), Posted>,
    failed: Option<(i32, String)>,
    /// Why each rank that has left did (collectives need every rank; a send or receive, its peer).
    left: HashMap<usize, String>,
}

struct Hub {
    nonce: u64,
    port: u16,
    full: AtomicBool,
    st: Mutex<HubState>,
}

fn reply(conn: &Arc<Mutex<TcpStream>>, post: u64, r: &Reply) {
    let mut out = vec![3u8];
    out.extend_from_slice(&post.to_le_bytes());
    match r {
        Ok(data) => {
            out.push(1);
            out.extend_from_slice(data);
        }
        Err((code, msg)) => {
            out.push(0);
            out.push(*code as u8);
            out.extend_from_slice(msg.as_bytes());
        }
    }
    let _ = write_frame(&mut lock(conn), &out);
}

impl Hub {
    fn send_to(st: &HubState, rank: usize, post: u64, r: &Reply) {
        if let Some(Some(c)) = st.conns.get(rank) {
            reply(c, post, r);
        }
    }

    /// Fails everything pending, and everything posted later.
    fn fail(st: &mut HubState, code: i32, msg: String) {
        if st.failed.is_none() {
            st.failed = Some((code, msg.clone()));
        }
        let err: Reply = Err((code, msg));
        let mut pending: Vec<(usize, u64)> = Vec::new();
        pending.extend(st.colls.drain().flat_map(|(_, v)| v.into_iter().map(|p| (p.rank, p.post))));
        pending.extend(st.sends.drain().map(|(_, p)| (p.rank, p.post)));
        pending.extend(st.recvs.drain().map(|(_, p)| (p.rank, p.post)));
        for (rank, post) in pending {
            Self::send_to(st, rank, post, &err);
        }
    }

    /// `rank` has gone: what needs it fails now and later; sends and receives between the
    /// others go on, as NCCL's point-to-point calls between two live ranks do.
    fn leave(st: &mut HubState, rank: usize, why: String) {
        st.left.insert(rank, why.clone());
        let err: Reply = Err((REMOTE, why));
        let mut pending: Vec<(usize, u64)> = st.colls.drain().flat_map(|(_, v)| v.into_iter().map(|p| (p.rank, p.post))).collect();
        for map in [&mut st.sends, &mut st.recvs] {
            let gone: Vec<_> = map.keys().filter(|(from, to, _)| *from == rank || *to == rank).copied().collect();
            pending.extend(gone.into_iter().filter_map(|k| map.remove(&k)).map(|p| (p.rank, p.post)));
        }
        for (r, post) in pending {
            Self::send_to(st, r, post, &err);
        }
    }

    fn post(&self, p: Posted) {
        let mut st = lock(&self.st);
        if let Some((code, msg)) = st.failed.clone() {
            Self::send_to(&st, p.rank, p.post, &Err((code, msg)));
            return;
        }
        let needs = match p.tag.call.coll {
            Collective::Send { peer } | Collective::Recv { peer } => st.left.get(&peer).cloned(),
            _ => st.left.values().next().cloned(),
        };
        if let Some(why) = needs {
            Self::send_to(&st, p.rank, p.post, &Err((REMOTE, why)));
            return;
        }
        let nranks = st.nranks.unwrap_or(1);
        match p.tag.class {
            0 => {
                let seq = p.tag.seq;
                let parts = st.colls.entry(seq).or_default();
                parts.push(p);
                if parts.len() == nranks {
                    let mut parts = st.colls.remove(&seq).unwrap_or_default();
                    parts.sort_by_key(|p| p.rank);
                    Self::complete(&st, seq, parts);
                }
            }
            1 | 2 => {
                let (from, to) = match p.tag.call.coll {
                    Collective::Send { peer } => (p.rank, peer),
                    Collective::Recv { peer } => (peer, p.rank),
                    _ => return,
                };
                let key = (from, to, p.tag.seq);
                let other = if p.tag.class == 1 { st.recvs.remove(&key) } else { st.sends.remove(&key) };
                match other {
                    None if p.tag.class == 1 => drop(st.sends.insert(key, p)),
                    None => drop(st.recvs.insert(key, p)),
                    Some(o) => {
                        let (send, recv) = if p.tag.class == 1 { (p, o) } else { (o, p) };
                        if send.tag.call.count * send.tag.call.dtype.size() != recv.tag.call.count * recv.tag.call.dtype.size() {
                            let msg = format!(
                                "rank {from} sends {} and rank {to} receives {}: the sizes must match",
                                describe(&send.tag.call),
                                describe(&recv.tag.call)
                            );
                            Self::send_to(&st, send.rank, send.post, &Err((INVALID_USAGE, msg.clone())));
                            Self::send_to(&st, recv.rank, recv.post, &Err((INVALID_USAGE, msg)));
                            return;
                        }
                        Self::send_to(&st, recv.rank, recv.post, &Ok(send.data));
                        Self::send_to(&st, send.rank, send.post, &Ok(Vec::new()));
                    }
                }
            }
            _ => {}
        }
    }

    /// The k-th collective of every rank: checked alike, computed, each rank sent its part.
    fn complete(st: &HubState, seq: u64, parts: Vec<Posted>) {
        let first = parts[0].tag.call;
        if let Some(odd) = parts.iter().find(|p| p.tag.call != first) {
            let msg = format!(
                "collective #{seq} differs between ranks: rank {} called {}, rank {} called {} (every rank must make the same calls in the same order)",
                parts[0].rank,
                describe(&first),
                odd.rank,
                describe(&odd.tag.call)
            );
            for p in &parts {
                Self::send_to(st, p.rank, p.post, &Err((INVALID_USAGE, msg.clone())));
            }
            return;
        }
        let n = parts.len();
        let data: Vec<&[u8]> = parts.iter().map(|p| p.data.as_slice()).collect();
        let one = (first.count * first.dtype.size()) as usize;
        let out: Vec<Vec<u8>> = match first.coll {
            Collective::AllReduce { op } => vec![host_reduce(first.dtype, op, &data); n],
            Collective::Reduce { op, root } => {
                let r = host_reduce(first.dtype, op, &data);
                (0..n).map(|i| if i == root { r.clone() } else { Vec::new() }).collect()
            }
            Collective::Broadcast { root } => vec![data[root].to_vec(); n],
            Collective::AllGather => vec![data.concat(); n],
            Collective::ReduceScatter { op } => {
                let r = host_reduce(first.dtype, op, &data);
                (0..n).map(|i| r[i * one..(i + 1) * one].to_vec()).collect()
            }
            Collective::Send { .. } | Collective::Recv { .. } => return,
        };
        for (p, o) in parts.iter().zip(out) {
            Self::send_to(st, p.rank, p.post, &Ok(o));
        }
    }

    /// One rank's connection: its hello, then its posts until it leaves.
    fn serve(self: &Arc<Self>, mut s: TcpStream) {
        let Ok(hello) = read_frame(&mut s) else { return };
        let mut r = Reader(&hello);
        let (Some(1), Some(nonce), Some(nranks), Some(rank), Some(device)) = (r.u8(), r.u64(), r.u32(), r.u32(), r.u32()) else { return };
        let (nranks, rank) = (nranks as usize, rank as usize);
        let conn = Arc::new(Mutex::new(s.try_clone().expect("a socket clones")));
        let refuse = |code: i32, msg: String| {
            let mut out = vec![2u8, code as u8];
            out.extend_from_slice(msg.as_bytes());
            let _ = write_frame(&mut lock(&conn), &out);
        };
        {
            let mut st = lock(&self.st);
            if nonce != self.nonce {
                return refuse(INVALID_ARGUMENT, "the unique id does not match its rendezvous".into());
            }
            if rank >= nranks {
                return refuse(INVALID_ARGUMENT, format!("rank {rank} is not below nranks ({nranks})"));
            }
            match st.nranks {
                None => {
                    st.nranks = Some(nranks);
                    st.conns = vec![None; nranks];
                    st.devices = vec![None; nranks];
                }
                Some(n) if n != nranks => {
                    return refuse(INVALID_ARGUMENT, format!("rank {rank} gave nranks {nranks}, but the communicator was begun with {n}"));
                }
                _ => {}
            }
            if st.conns[rank].is_some() {
                return refuse(INVALID_USAGE, format!("rank {rank} joined this communicator twice"));
            }
            // NCCL refuses two ranks on one GPU ("Duplicate GPU detected"); each process of the
            // simulator presents the same devices, so a device is the same GPU in every process.
            if let Some((code, msg)) = st.failed.clone() {
                return refuse(code, msg);
            }
            if let Some(other) = st.devices.iter().position(|d| *d == Some(device)) {
                // The whole init fails, as NCCL's does: every rank that joined hears it too.
                let msg = format!("Duplicate GPU detected: rank {rank} and rank {other} both on device {device}");
                let mut out = vec![2u8, INVALID_USAGE as u8];
                out.extend_from_slice(msg.as_bytes());
                for c in st.conns.iter().flatten() {
                    let _ = write_frame(&mut lock(c), &out);
                }
                st.failed = Some((INVALID_USAGE, msg.clone()));
                return refuse(INVALID_USAGE, msg);
            }
            st.devices[rank] = Some(device);
            st.conns[rank] = Some(conn.clone());
            st.joined += 1;
            if st.joined == nranks {
                for c in st.conns.iter().flatten() {
                    let _ = write_frame(&mut lock(c), &[1u8]);
                }
                self.full.store(true, Ordering::Release);
                // Wakes the accept loop so that it sees the communicator is full and stops.
                let _ = TcpStream::connect(("127.0.0.1", self.port));
            }
        }
        while let Ok(frame) = read_frame(&mut s) {
            let mut r = Reader(&frame);
            match r.u8() {
                Some(2) => {
                    let (Some(post), Some(tag)) = (r.u64(), decode_tag(&mut r)) else { break };
                    self.post(Posted { rank, post, tag, data: r.0.to_vec() });
                }
                Some(3) => {
                    let mut st = lock(&self.st);
                    Self::fail(&mut st, REMOTE, format!("rank {rank} aborted the communicator"));
                }
                _ => break,
            }
        }
        let mut st = lock(&self.st);
        st.conns[rank] = None;
        Self::leave(&mut st, rank, format!("rank {rank} left the communicator (destroyed, aborted, or its process exited)"));
    }
}

fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish()
}

fn unique_id() -> Result<UniqueId> {
    let listener =
        TcpListener::bind(("127.0.0.1", 0)).map_err(|e| nccl_error(SYSTEM, format!("could not open the rendezvous socket: {e}")))?;
    let port = listener.local_addr().map_err(|e| nccl_error(SYSTEM, e.to_string()))?.port();
    let hub = Arc::new(Hub { nonce: nonce(), port, full: AtomicBool::new(false), st: Mutex::new(HubState::default()) });
    let mut id = [0u8; UNIQUE_ID_BYTES];
    id[..10].copy_from_slice(MAGIC);
    id[10..12].copy_from_slice(&port.to_le_bytes());
    id[12..20].copy_from_slice(&hub.nonce.to_le_bytes());
    // As NCCL's root thread, the hub lives until every rank has joined.
    std::thread::Builder::new()
        .name("sim-nccl-hub".into())
        .spawn(move || {
            for s in listener.incoming() {
                if hub.full.load(Ordering::Acquire) {
                    break;
                }
                let Ok(s) = s else { continue };
                let _ = s.set_nodelay(true);
                let hub = hub.clone();
                let _ = std::thread::Builder::new().name("sim-nccl-rank".into()).spawn(move || hub.serve(s));
            }
        })
        .map_err(|e| nccl_error(SYSTEM, format!("could not start the rendezvous: {e}")))?;
    Ok(id)
}

// ---- a rank --------------------------------------------------------------------------------

#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, mpsc::Sender<Reply>>,
    dead: Option<(i32, String)>,
}

struct Rank {
    rank: usize,
    nranks: usize,
    writer: Mutex<TcpStream>,
    pending: Arc<Mutex<Pending>>,
    next_post: AtomicU64,
    coll_seq: AtomicU64,
    /// Per peer: sends to it and receives from it, counted as they run.
    p2p_seq: Mutex<(Vec<u64>, Vec<u64>)>,
    async_error: Mutex<Option<Error>>,
    aborted: AtomicBool,
}

impl Drop for Rank {
    fn drop(&mut self) {
        let _ = lock(&self.writer).shutdown(Shutdown::Both);
    }
}

fn join(device: usize, nranks: usize, id: &UniqueId, rank: usize) -> Result<Rank> {
    if &id[..10] != MAGIC {
        return Err(nccl_error(INVALID_ARGUMENT, "this is not a unique id from nccl.getUniqueId() of the simulator"));
    }
    let port = u16::from_le_bytes([id[10], id[11]]);
    let nonce = u64::from_le_bytes(id[12..20].try_into().unwrap());
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| {
        nccl_error(
            SYSTEM,
            format!(
                "could not reach the rendezvous of this unique id (the process that made it must still run, and the id must be new): {e}"
            ),
        )
    })?;
    let _ = s.set_nodelay(true);
    let mut hello = vec![1u8];
    hello.extend_from_slice(&nonce.to_le_bytes());
    hello.extend_from_slice(&(nranks as u32).to_le_bytes());
    hello.extend_from_slice(&(rank as u32).to_le_bytes());
    hello.extend_from_slice(&(device as u32).to_le_bytes());
    let io = |e: std::io::Error| nccl_error(SYSTEM, format!("the rendezvous failed: {e}"));
    write_frame(&mut s, &hello).map_err(io)?;
    let answer = read_frame(&mut s)
        .map_err(|_| nccl_error(SYSTEM, "the rendezvous closed before every rank joined (this id may be in use by a full communicator)"))?;
    match answer.first() {
        Some(1) => {}
        Some(2) if answer.len() >= 2 => return Err(nccl_error(answer[1] as i32, String::from_utf8_lossy(&answer[2..]).into_owned())),
        _ => return Err(nccl_error(SYSTEM, "the rendezvous answered with something unexpected")),
    }
    let pending = Arc::new(Mutex::new(Pending::default()));
    let mut rd = s.try_clone().map_err(io)?;
    let p = pending.clone();
    std::thread::Builder::new()
        .name("sim-nccl-reader".into())
        .spawn(move || {
            while let Ok(frame) = read_frame(&mut rd) {
                let mut r = Reader(&frame);
                let (Some(3), Some(post), Some(ok)) = (r.u8(), r.u64(), r.u8()) else { break };
                let res: Reply =
                    if ok == 1 { Ok(r.0.to_vec()) } else { Err((r.u8().unwrap_or(3) as i32, String::from_utf8_lossy(r.0).into_owned())) };
                if let Some(tx) = lock(&p).waiting.remove(&post) {
                    let _ = tx.send(res);
                }
            }
            let mut st = lock(&p);
            let why = (
                REMOTE,
                "the communicator's connection closed (the process that made the unique id exited, or this rank was destroyed)".to_string(),
            );
            for (_, tx) in st.waiting.drain() {
                let _ = tx.send(Err(why.clone()));
            }
            st.dead = Some(why);
        })
        .map_err(|e| nccl_error(SYSTEM, e.to_string()))?;
    Ok(Rank {
        rank,
        nranks,
        writer: Mutex::new(s),
        pending,
        next_post: AtomicU64::new(0),
        coll_seq: AtomicU64::new(0),
        p2p_seq: Mutex::new((vec![0; nranks], vec![0; nranks])),
        async_error: Mutex::new(None),
        aborted: AtomicBool::new(false),
    })
}

/// One call as it runs: the rank, what it posts, where its result goes.
struct Item {
    rank: Arc<Rank>,
    call: Call,
    send: Option<(Arc<Buffer>, usize, usize)>,
    recv: Option<(Arc<Buffer>, usize, usize)>,
}

impl Rank {
    /// Posts `item`'s part; the receiver gets the hub's answer.
    fn post(&self, item: &Item) -> mpsc::Receiver<Reply> {
        let (tx, rx) = mpsc::channel();
        if self.aborted.load(Ordering::Acquire) {
            let _ = tx.send(Err((REMOTE, "this communicator was aborted".into())));
            return rx;
        }
        let (class, seq) = match item.call.coll {
            Collective::Send { peer } => {
                let mut q = lock(&self.p2p_seq);
                q.0[peer] += 1;
                (1, q.0[peer] - 1)
            }
            Collective::Recv { peer } => {
                let mut q = lock(&self.p2p_seq);
                q.1[peer] += 1;
                (2, q.1[peer] - 1)
            }
            _ => (0, self.coll_seq.fetch_add(1, Ordering::Relaxed)),
        };
        let post = self.next_post.fetch_add(1, Ordering::Relaxed);
        let mut body = vec![2u8];
        body.extend_from_slice(&post.to_le_bytes());
        encode_tag(&mut body, &Tag { class, seq, call: item.call });
        if let Some((buf, off, len)) = &item.send {
            body.extend_from_slice(&buf.lock()[*off..off + len]);
        }
        {
            let mut p = lock(&self.pending);
            if let Some(dead) = p.dead.clone() {
                let _ = tx.send(Err(dead));
                return rx;
            }
            p.waiting.insert(post, tx);
        }
        if write_frame(&mut lock(&self.writer), &body).is_err() {
            if let Some(tx) = lock(&self.pending).waiting.remove(&post) {
                let _ = tx.send(Err((REMOTE, "the communicator's connection closed".into())));
            }
        }
        rx
    }
}

/// Runs `items` as one operation of a stream: all post, then all wait (a group's semantics).
fn run(items: &[Item]) {
    let waits: Vec<_> = items.iter().map(|i| i.rank.post(i)).collect();
    for (item, rx) in items.iter().zip(waits) {
        let res = rx.recv().unwrap_or_else(|_| Err((REMOTE, "the communicator's connection closed".into())));
        match res {
            Ok(data) => {
                if let Some((buf, off, len)) = &item.recv {
                    if data.len() == *len {
                        buf.lock()[*off..off + len].copy_from_slice(&data);
                    }
                }
            }
            Err((code, msg)) => {
                let mut e = lock(&item.rank.async_error);
                if e.is_none() {
                    *e = Some(nccl_error(code, format!("rank {} of {}: {msg}", item.rank.rank, item.rank.nranks)));
                }
            }
        }
    }
}

/// Calls deferred by `groupStart` on this thread, and the group's depth.
struct Group {
    depth: usize,
    calls: Vec<(Arc<SimDevice>, Arc<Queue>, Item)>,
}

thread_local! {
    static GROUP: RefCell<Group> = const { RefCell::new(Group { depth: 0, calls: Vec::new() }) };
}

fn submit(dev: &Arc<SimDevice>, queue: &Arc<Queue>, items: Vec<Item>) -> Result<()> {
    let label = items.iter().map(|i| format!("{:?}", i.call.coll)).collect::<Vec<_>>().join(", ");
    let items = Arc::new(items);
    dev.scheduler.submit(queue, "nccl", label, vec![], Arc::new(move || run(&items))).map(|_| ())
}

struct SimComm(Arc<Rank>);

impl CommOps for SimComm {
    fn enqueue(&self, call: &Call, send: Buf, recv: Buf, stream: &dyn StreamOps) -> Result<()> {
        if let Some(e) = lock(&self.0.async_error).clone() {
            return Err(e);
        }
        let s = stream.as_any().downcast_ref::<SimStream>().expect("the simulator is given its own streams");
        let (need_send, need_recv) = call.extents(self.0.rank, self.0.nranks)?;
        let part = |b: Buf, need: Option<u64>| b.zip(need).map(|((a, at), n)| (sim_alloc(a).buffer.clone(), at as usize, n as usize));
        let item = Item { rank: self.0.clone(), call: *call, send: part(send, need_send), recv: part(recv, need_recv) };
        let deferred = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if g.depth > 0 {
                g.calls.push((s.dev.clone(), s.queue.clone(), item));
                None
            } else {
                Some(item)
            }
        });
        match deferred {
            Some(item) => submit(&s.dev, &s.queue, vec![item]),
            None => Ok(()),
        }
    }

    fn abort(&self) -> Result<()> {
        self.0.aborted.store(true, Ordering::Release);
        let _ = write_frame(&mut lock(&self.0.writer), &[3u8]);
        let _ = lock(&self.0.writer).shutdown(Shutdown::Both);
        Ok(())
    }

    fn async_error(&self) -> Result<()> {
        match lock(&self.0.async_error).clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The WebAssembly build has no threads and no sockets, which the ranks' rendezvous needs: NCCL
/// is refused there, as where the library is missing, but typed.
#[cfg(target_family = "wasm")]
fn no_nccl() -> Error {
    Error::cuda(
        crate::error::Code::CUDA_ERROR_NOT_SUPPORTED,
        "NCCL is not available in the WebAssembly build: the simulator's ranks meet over threads and local sockets, which it has not; \
         use the native addon (the simulator included) for NCCL",
    )
}

#[cfg(target_family = "wasm")]
impl NcclOps for SimBackend {
    fn version(&self) -> Result<i32> {
        Err(no_nccl())
    }

    fn unique_id(&self) -> Result<UniqueId> {
        Err(no_nccl())
    }

    fn init_rank(&self, _device: usize, _nranks: usize, _id: &UniqueId, _rank: usize) -> Result<Box<dyn CommOps>> {
        Err(no_nccl())
    }

    fn init_all(&self, _devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>> {
        Err(no_nccl())
    }

    fn group_start(&self) -> Result<()> {
        Err(no_nccl())
    }

    fn group_end(&self) -> Result<()> {
        Err(no_nccl())
    }
}

#[cfg(not(target_family = "wasm"))]
impl NcclOps for SimBackend {
    fn version(&self) -> Result<i32> {
        Ok(VERSION)
    }

    fn unique_id(&self) -> Result<UniqueId> {
        unique_id()
    }

    fn init_rank(&self, device: usize, nranks: usize, id: &UniqueId, rank: usize) -> Result<Box<dyn CommOps>> {
        Ok(Box::new(SimComm(Arc::new(join(device, nranks, id, rank)?))))
    }

    fn init_all(&self, devices: &[usize]) -> Result<Vec<Box<dyn CommOps>>> {
        let id = unique_id()?;
        let n = devices.len();
        let joins: Vec<_> = devices.iter().enumerate().map(|(r, &d)| std::thread::spawn(move || join(d, n, &id, r))).collect();
        let mut out: Vec<Box<dyn CommOps>> = Vec::with_capacity(n);
        for j in joins {
            let rank = j.join().map_err(|_| nccl_error(3, "a rank's join panicked"))??;
            out.push(Box::new(SimComm(Arc::new(rank))));
        }
        Ok(out)
    }

    fn group_start(&self) -> Result<()> {
        GROUP.with(|g| g.borrow_mut().depth += 1);
        Ok(())
    }

    fn group_end(&self) -> Result<()> {
        let calls = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            if g.depth == 0 {
                return Err(nccl_error(INVALID_USAGE, "groupEnd() without groupStart()"));
            }
            g.depth -= 1;
            Ok(if g.depth == 0 { std::mem::take(&mut g.calls) } else { Vec::new() })
        })?;
        // One operation per stream, in the order the calls were made.
        let mut by_queue: Vec<(Arc<SimDevice>, Arc<Queue>, Vec<Item>)> = Vec::new();
        for (dev, queue, item) in calls {
            match by_queue.iter_mut().find(|(_, q, _)| Arc::ptr_eq(q, &queue)) {
                Some((_, _, items)) => items.push(item),
                None => by_queue.push((dev, queue, vec![item])),
            }
        }
        for (dev, queue, items) in by_queue {
            submit(&dev, &queue, items)?;
        }
        Ok(())
    }
}

// ---- the host reductions -------------------------------------------------------------------

/// Reduces `parts` (each `count` elements of `dtype`, little-endian) with `op` into one.
/// The simulator's reduction; also the reference its tests compare with.
pub fn host_reduce(dtype: DataType, op: RedOp, parts: &[&[u8]]) -> Vec<u8> {
    let n = parts.len();
    let mut out = parts[0].to_vec();
    macro_rules! ints {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            for (i, chunk) in out.chunks_exact_mut(W).enumerate() {
                let mut acc = <$t>::from_le_bytes(chunk.try_into().unwrap());
                for p in &parts[1..] {
                    let v = <$t>::from_le_bytes(p[i * W..i * W + W].try_into().unwrap());
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc.wrapping_add(v),
                        RedOp::Prod => acc.wrapping_mul(v),
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as $t;
                }
                chunk.copy_from_slice(&acc.to_le_bytes());
            }
        }};
    }
    macro_rules! floats {
        ($w:expr, $read:expr, $write:expr) => {{
            for (i, chunk) in out.chunks_exact_mut($w).enumerate() {
                let mut acc: f64 = $read(&*chunk);
                for p in &parts[1..] {
                    let v: f64 = $read(&p[i * $w..i * $w + $w]);
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc + v,
                        RedOp::Prod => acc * v,
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as f64;
                }
                chunk.copy_from_slice(&$write(acc));
            }
        }};
    }
    match dtype {
        DataType::I8 => ints!(i8),
        DataType::U8 => ints!(u8),
        DataType::I32 => ints!(i32),
        DataType::U32 => ints!(u32),
        DataType::I64 => ints!(i64),
        DataType::U64 => ints!(u64),
        DataType::F32 => floats!(4, |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap()) as f64, |v: f64| (v as f32).to_le_bytes()),
        DataType::F64 => floats!(8, |b: &[u8]| f64::from_le_bytes(b.try_into().unwrap()), |v: f64| v.to_le_bytes()),
        DataType::F16 => {
            floats!(2, |b: &[u8]| f16_to_f32(u16::from_le_bytes(b.try_into().unwrap())) as f64, |v: f64| f32_to_f16(v as f32).to_le_bytes())
        }
        DataType::BF16 => floats!(
            2,
            |b: &[u8]| f32::from_bits((u16::from_le_bytes(b.try_into().unwrap()) as u32) << 16) as f64,
            |v: f64| f32_to_bf16(v as f32).to_le_bytes()
        ),
    }
    out
}

/// IEEE half to single (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | (((m << shift) & 0x3ff) << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Single to IEEE half, rounding to nearest even.
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Single to bfloat16, rounding to nearest even.
pub fn f32_to_bf16(f: f32) -> u16 {
    let x = f.to_bits();
    if f.is_nan() {
        return ((x >> 16) | 0x40) as u16;
    }
    ((x + 0x7fff + ((x >> 16) & 1)) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn two_ranks_all_reduce_and_exchange_in_a_group() {
        let b = SimBackend::new(2, 1 << 20);
        let comms = b.init_all(&[0, 1]).unwrap();
        let streams: Vec<_> = (0..2).map(|d| b.stream_create(d, true, 0).unwrap()).collect();
        let bufs: Vec<_> = (0..2).map(|d| (b.alloc(d, 8).unwrap(), b.alloc(d, 8).unwrap())).collect();
        for (d, (send, _)) in bufs.iter().enumerate() {
            streams[d].copy_htod(&**send, 0, &f32s(&[d as f32 + 1.0, 10.0])).unwrap();
        }
        let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 2, dtype: DataType::F32 };
        for d in 0..2 {
            comms[d].enqueue(&call, Some((&*bufs[d].0, 0)), Some((&*bufs[d].1, 0)), &*streams[d]).unwrap();
        }
        for d in 0..2 {
            let mut out = [0u8; 8];
            streams[d].copy_dtoh(&mut out, &*bufs[d].1, 0).unwrap();
            assert_eq!(out.to_vec(), f32s(&[3.0, 20.0]));
        }
        // Each rank sends its send buffer to the other, in one group: no deadlock.
        b.group_start().unwrap();
        for d in 0..2usize {
            let peer = 1 - d;
            let n = Call { coll: Collective::Send { peer }, count: 2, dtype: DataType::F32 };
            comms[d].enqueue(&n, Some((&*bufs[d].0, 0)), None, &*streams[d]).unwrap();
            let n = Call { coll: Collective::Recv { peer }, count: 2, dtype: DataType::F32 };
            comms[d].enqueue(&n, None, Some((&*bufs[d].1, 0)), &*streams[d]).unwrap();
        }
        b.group_end().unwrap();
        for d in 0..2 {
            let mut out = [0u8; 8];
            streams[d].copy_dtoh(&mut out, &*bufs[d].1, 0).unwrap();
            assert_eq!(out.to_vec(), f32s(&[(2 - d) as f32, 10.0]));
            comms[d].async_error().unwrap();
        }
    }

    #[test]
    fn ranks_that_disagree_get_invalid_usage() {
        let b = SimBackend::new(2, 1 << 20);
        let comms = b.init_all(&[0, 1]).unwrap();
        let s: Vec<_> = (0..2).map(|d| b.stream_create(d, true, 0).unwrap()).collect();
        let m: Vec<_> = (0..2).map(|d| b.alloc(d, 16).unwrap()).collect();
        for d in 0..2usize {
            let call = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 1 + d as u64, dtype: DataType::F32 };
            comms[d].enqueue(&call, Some((&*m[d], 0)), Some((&*m[d], 8)), &*s[d]).unwrap();
        }
        for d in 0..2 {
            s[d].synchronize().unwrap();
            let e = comms[d].async_error().unwrap_err();
            assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_USAGE"), "{e}");
        }
    }

    #[test]
    fn a_rank_that_leaves_fails_collectives_but_not_sends_between_the_others() {
        let b = SimBackend::new(3, 1 << 20);
        let mut comms = b.init_all(&[0, 1, 2]).unwrap();
        drop(comms.remove(0)); // rank 0 destroyed
        let s: Vec<_> = (1..3).map(|d| b.stream_create(d, true, 0).unwrap()).collect();
        let m: Vec<_> = (1..3).map(|d| b.alloc(d, 8).unwrap()).collect();
        s[0].copy_htod(&*m[0], 0, &f32s(&[4.0, 5.0])).unwrap();
        b.group_start().unwrap();
        let send = Call { coll: Collective::Send { peer: 2 }, count: 2, dtype: DataType::F32 };
        comms[0].enqueue(&send, Some((&*m[0], 0)), None, &*s[0]).unwrap();
        let recv = Call { coll: Collective::Recv { peer: 1 }, count: 2, dtype: DataType::F32 };
        comms[1].enqueue(&recv, None, Some((&*m[1], 0)), &*s[1]).unwrap();
        b.group_end().unwrap();
        let mut out = [0u8; 8];
        s[1].copy_dtoh(&mut out, &*m[1], 0).unwrap();
        assert_eq!(out.to_vec(), f32s(&[4.0, 5.0]));
        comms[1].async_error().unwrap();
        let all = Call { coll: Collective::AllReduce { op: RedOp::Sum }, count: 2, dtype: DataType::F32 };
        comms[0].enqueue(&all, Some((&*m[0], 0)), Some((&*m[0], 0)), &*s[0]).unwrap();
        s[0].synchronize().unwrap();
        let e = comms[0].async_error().unwrap_err();
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_REMOTE_ERROR"), "{e}");
    }

    #[test]
    fn a_bad_id_is_an_invalid_argument() {
        let b = SimBackend::new(1, 1 << 20);
        let e = b.init_rank(0, 1, &[0u8; UNIQUE_ID_BYTES], 0).err().unwrap();
        assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_ARGUMENT"));
    }

    #[test]
    fn two_ranks_on_one_device_are_refused_as_nccl_refuses_them() {
        let b = SimBackend::new(1, 1 << 20);
        let id = b.unique_id().unwrap();
        let other = std::thread::spawn(move || join(0, 2, &id, 1));
        let mine = join(0, 2, &id, 0);
        let errs: Vec<Error> = [mine.err(), other.join().unwrap().err()].into_iter().flatten().collect();
        assert_eq!(errs.len(), 2, "both ranks' init fails");
        for e in errs {
            assert!(e.message().contains("Duplicate GPU"), "{e}");
            assert_eq!(e.code_name().as_deref(), Some("NCCL_ERROR_INVALID_USAGE"));
        }
    }

    #[test]
    fn reductions_of_each_kind() {
        let a = [1i32, -2, 7].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let b = [3i32, 5, -1].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let read = |v: Vec<u8>| v.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Sum, &[&a, &b])), [4, 3, 6]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Max, &[&a, &b])), [3, 5, 7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Prod, &[&a, &b])), [3, -10, -7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Avg, &[&a, &b])), [2, 1, 3]);
        let h = |v: f32| f32_to_f16(v).to_le_bytes();
        let r = host_reduce(DataType::F16, RedOp::Sum, &[&h(1.5), &h(2.25)]);
        assert_eq!(f16_to_f32(u16::from_le_bytes([r[0], r[1]])), 3.75);
    }

    #[test]
    fn half_conversions_round_trip() {
        for v in [0.0f32, -0.0, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8, 0.33325195] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
        assert_eq!(f32_to_f16(1e6), 0x7c00);
        assert_eq!(f32::from_bits((f32_to_bf16(1.5) as u32) << 16), 1.5);
    }
}
