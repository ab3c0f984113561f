//! The frames between a rank and the hub, and the NCCL result codes they carry.
//!
//! A frame is a little-endian `u32` length and a body whose first byte says what it is: from a
//! rank, 1 hello (nonce, nranks, rank, device, process id, node), 2 a post (its number, its [`Tag`], the data),
//! 3 abort; from the hub, 1 "everyone joined", 2 a refused join (code, message), 3 a post's
//! answer (its number, then 1 and the data, or 0, a code and a message).

use crate::error::Error;
use crate::ops::nccl::{result_name, Call, Collective, DataType, RedOp};
use std::io::{Read, Write};
use std::net::TcpStream;

/// The first bytes of a unique id made by the simulator (then the hub's port and its nonce).
pub(super) const MAGIC: &[u8; 10] = b"cnsimnccl1";

pub(super) const SYSTEM: i32 = 2;
pub(super) const INTERNAL: i32 = 3;
pub(super) const INVALID_ARGUMENT: i32 = 4;
pub(super) const INVALID_USAGE: i32 = 5;
pub(super) const REMOTE: i32 = 6;

pub(super) fn nccl_error(code: i32, message: impl Into<String>) -> Error {
    Error::named(result_name(code), message)
}

/// The hub's answer to a post: the rank's part of the result, or an NCCL code and why.
pub(super) type Reply = std::result::Result<Vec<u8>, (i32, String)>;

pub(super) fn write_frame(s: &mut TcpStream, body: &[u8]) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    s.write_all(&out)
}

pub(super) fn read_frame(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut body)?;
    Ok(body)
}

pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    pub(super) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }
}

/// What a rank posts: which match it belongs to, and what it agrees to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tag {
    /// 0 collective, 1 send, 2 receive.
    pub(super) class: u8,
    pub(super) seq: u64,
    pub(super) call: Call,
}

/// A call's kind number, reduction and root or peer on the wire (`Collective::kind`).
fn kind_code(c: Collective) -> (u8, u8, u32) {
    let (kind, op, rank) = c.kind();
    (kind as u8, op as u8, rank as u32)
}

fn from_kind(k: u8, op: u8, r: u32) -> Option<Collective> {
    Collective::from_kind(k as u32, RedOp::from_code(op as u32).ok()?, r as usize)
}

pub(super) fn encode_tag(out: &mut Vec<u8>, t: &Tag) {
    let (k, op, r) = kind_code(t.call.coll);
    out.push(t.class);
    out.extend_from_slice(&t.seq.to_le_bytes());
    out.extend_from_slice(&[k, op, t.call.dtype as u8]);
    out.extend_from_slice(&t.call.count.to_le_bytes());
    out.extend_from_slice(&r.to_le_bytes());
}

pub(super) fn decode_tag(r: &mut Reader) -> Option<Tag> {
    let class = r.u8()?;
    let seq = r.u64()?;
    let (k, op, dt) = (r.u8()?, r.u8()?, r.u8()?);
    let count = r.u64()?;
    let root = r.u32()?;
    Some(Tag { class, seq, call: Call { coll: from_kind(k, op, root)?, count, dtype: DataType::from_code(dt as u32).ok()? } })
}

pub(super) fn describe(c: &Call) -> String {
    format!("{:?} of {} x {:?}", c.coll, c.count, c.dtype)
}
