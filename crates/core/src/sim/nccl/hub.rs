//! The rendezvous: the thread that the process calling `getUniqueId` runs, as NCCL's root
//! does. Each rank connects and says who it is; once all `nranks` have joined, the hub matches
//! the k-th collective of every rank (checked alike, computed on the host, each rank sent its
//! part) and the k-th send from a to b with the k-th receive at b from a, and fails what a
//! departed rank leaves pending.

use super::reduce::host_reduce;
use super::wire::{
    decode_tag, describe, nccl_error, read_frame, write_frame, Reader, Reply, Tag, INVALID_ARGUMENT, INVALID_USAGE, MAGIC, REMOTE, SYSTEM,
};
use crate::error::Result;
use crate::ops::nccl::{Collective, UniqueId, UNIQUE_ID_BYTES};
use crate::sim::lock;
use std::collections::HashMap;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
    /// Each rank's node and device: two ranks on one device of one node are refused.
    devices: Vec<Option<(String, u32)>>,
    /// Which ranks run in the hub's own process: they are answered last (`answer`).
    local: Vec<bool>,
    joined: usize,
    colls: HashMap<u64, Vec<Posted>>,
    sends: HashMap<(usize, usize, u64), Posted>,
    recvs: HashMap<(usize, usize, u64), Posted>,
    failed: Option<(i32, String)>,
    /// Why each rank that has left did (collectives need every rank; a send or receive, its peer).
    left: HashMap<usize, String>,
    /// The ranks' pending `split`s: post, color (None: no color) and key, until every rank has called it.
    splits: Vec<(usize, u64, Option<u32>, i32)>,
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

    /// Answers several posts, the ranks of other processes first. A rank of the hub's own process
    /// that has its answer may end the process, and the hub's thread with it: what was still to be
    /// written to the others would never reach them, and their connection would close with their
    /// part of a finished collective unwritten.
    fn answer(st: &HubState, mut answers: Vec<(usize, u64, Reply)>) {
        answers.sort_by_key(|&(rank, _, _)| st.local.get(rank).copied().unwrap_or(false));
        for (rank, post, r) in &answers {
            Self::send_to(st, *rank, *post, r);
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
        pending.extend(st.splits.drain(..).map(|(r, p, _, _)| (r, p)));
        Self::answer(st, pending.into_iter().map(|(rank, post)| (rank, post, err.clone())).collect());
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
        pending.extend(st.splits.drain(..).map(|(r, p, _, _)| (r, p)));
        Self::answer(st, pending.into_iter().map(|(rank, post)| (rank, post, err.clone())).collect());
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
                            let err: Reply = Err((INVALID_USAGE, msg));
                            return Self::answer(&st, vec![(send.rank, send.post, err.clone()), (recv.rank, recv.post, err)]);
                        }
                        Self::answer(&st, vec![(recv.rank, recv.post, Ok(send.data)), (send.rank, send.post, Ok(Vec::new()))]);
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
            return Self::answer(st, parts.iter().map(|p| (p.rank, p.post, Err((INVALID_USAGE, msg.clone())))).collect());
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
            // Rank i receives the i-th part of every rank's send buffer, in rank order.
            Collective::AllToAll => (0..n).map(|i| data.iter().flat_map(|d| d[i * one..(i + 1) * one].iter().copied()).collect()).collect(),
            Collective::Send { .. } | Collective::Recv { .. } => return,
        };
        Self::answer(st, parts.iter().zip(out).map(|(p, o)| (p.rank, p.post, Ok(o))).collect());
    }

    /// A rank's `split`: once every rank has called it, each color gets a new rendezvous, and
    /// each rank its id, its rank there (by key, then by rank here) and its size.
    fn split(st: &mut HubState, rank: usize, post: u64, color: Option<u32>, key: i32) {
        if let Some((code, msg)) = st.failed.clone() {
            return Self::send_to(st, rank, post, &Err((code, msg)));
        }
        if let Some(why) = st.left.values().next().cloned() {
            return Self::send_to(st, rank, post, &Err((REMOTE, why)));
        }
        st.splits.push((rank, post, color, key));
        if st.splits.len() < st.nranks.unwrap_or(1) {
            return;
        }
        let mut all = std::mem::take(&mut st.splits);
        all.sort_by_key(|&(r, _, c, k)| (c, k, r));
        let mut answers: Vec<(usize, u64, Reply)> = Vec::new();
        let mut at = 0;
        while at < all.len() {
            let color = all[at].2;
            let end = at + all[at..].iter().take_while(|s| s.2 == color).count();
            let group = &all[at..end];
            match color {
                None => answers.extend(group.iter().map(|&(r, p, _, _)| (r, p, Ok(Vec::new())))),
                Some(_) => match unique_id() {
                    Ok(id) => {
                        for (i, &(r, p, _, _)) in group.iter().enumerate() {
                            let mut out = id.to_vec();
                            out.extend_from_slice(&(i as u32).to_le_bytes());
                            out.extend_from_slice(&(group.len() as u32).to_le_bytes());
                            answers.push((r, p, Ok(out)));
                        }
                    }
                    Err(e) => answers.extend(group.iter().map(|&(r, p, _, _)| (r, p, Err((SYSTEM, e.message().to_string()))))),
                },
            }
            at = end;
        }
        Self::answer(st, answers);
    }

    /// One rank's connection: its hello, then its posts until it leaves.
    fn serve(self: &Arc<Self>, mut s: TcpStream) {
        let Ok(hello) = read_frame(&mut s) else { return };
        let mut r = Reader(&hello);
        let (Some(1), Some(nonce), Some(nranks), Some(rank), Some(device), Some(pid)) =
            (r.u8(), r.u64(), r.u32(), r.u32(), r.u32(), r.u32())
        else {
            return;
        };
        let (nranks, rank) = (nranks as usize, rank as usize);
        let node = String::from_utf8_lossy(r.0).into_owned();
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
                    st.local = vec![false; nranks];
                }
                Some(n) if n != nranks => {
                    return refuse(INVALID_ARGUMENT, format!("rank {rank} gave nranks {nranks}, but the communicator was begun with {n}"));
                }
                _ => {}
            }
            if st.conns[rank].is_some() {
                return refuse(INVALID_USAGE, format!("rank {rank} joined this communicator twice"));
            }
            // NCCL refuses two ranks on one GPU ("Duplicate GPU detected"); each process of a
            // node presents the same devices, so a device is the same GPU in each of them.
            if let Some((code, msg)) = st.failed.clone() {
                return refuse(code, msg);
            }
            let here = Some((node, device));
            if let Some(other) = st.devices.iter().position(|d| *d == here) {
                // The whole init fails, as NCCL's does: every rank that joined hears it too.
                let on = match here.as_ref().map(|h| h.0.as_str()) {
                    Some("") | None => String::new(),
                    Some(n) => format!(" of node {n}"),
                };
                let msg = format!("Duplicate GPU detected: rank {rank} and rank {other} both on device {device}{on}");
                let mut out = vec![2u8, INVALID_USAGE as u8];
                out.extend_from_slice(msg.as_bytes());
                for c in st.conns.iter().flatten() {
                    let _ = write_frame(&mut lock(c), &out);
                }
                st.failed = Some((INVALID_USAGE, msg.clone()));
                return refuse(INVALID_USAGE, msg);
            }
            st.devices[rank] = here;
            st.local[rank] = pid == std::process::id();
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
                Some(4) => {
                    let (Some(post), Some(color), Some(key)) = (r.u64(), r.u32(), r.u32()) else { break };
                    let color = (color != u32::MAX).then_some(color);
                    let mut st = lock(&self.st);
                    Self::split(&mut st, rank, post, color, key as i32);
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

/// A new unique id, and the hub that listens on the port it names.
pub(super) fn unique_id() -> Result<UniqueId> {
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
