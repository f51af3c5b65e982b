//! Bounds-checked big-endian reader and writer. Every access returns a
//! `Result`; nothing here can panic.

use crate::WireError;

/// Reads big-endian fields from a byte slice, never past its end.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }
    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
    /// Current offset from the start.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// The next `n` bytes, advancing past them.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self.pos.checked_add(n).ok_or(WireError::Truncated)?;
        let s = self.buf.get(self.pos..end).ok_or(WireError::Truncated)?;
        self.pos = end;
        Ok(s)
    }
    /// All remaining bytes.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = self.buf.get(self.pos..).unwrap_or(&[]);
        self.pos = self.buf.len();
        s
    }
    /// Skip `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), WireError> {
        self.take(n).map(|_| ())
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        let s = self.take(1)?;
        s.first().copied().ok_or(WireError::Truncated)
    }
    /// Big-endian u16.
    pub fn u16(&mut self) -> Result<u16, WireError> {
        let s = self.take(2)?;
        let a: [u8; 2] = s.try_into().map_err(|_| WireError::Truncated)?;
        Ok(u16::from_be_bytes(a))
    }
    /// Big-endian 24-bit unsigned value.
    pub fn u24(&mut self) -> Result<u32, WireError> {
        let s = self.take(3)?;
        let a: [u8; 3] = s.try_into().map_err(|_| WireError::Truncated)?;
        Ok(u32::from_be_bytes([0, a[0], a[1], a[2]]))
    }
    /// Big-endian u32.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        let s = self.take(4)?;
        let a: [u8; 4] = s.try_into().map_err(|_| WireError::Truncated)?;
        Ok(u32::from_be_bytes(a))
    }
}

/// Writes big-endian fields into a mutable byte slice, never past its end.
#[derive(Debug)]
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    /// A writer at the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, pos: 0 }
    }
    /// Bytes written so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// Copy `s`.
    pub fn put(&mut self, s: &[u8]) -> Result<(), WireError> {
        let end = self
            .pos
            .checked_add(s.len())
            .ok_or(WireError::BufferTooSmall)?;
        let dst = self
            .buf
            .get_mut(self.pos..end)
            .ok_or(WireError::BufferTooSmall)?;
        dst.copy_from_slice(s);
        self.pos = end;
        Ok(())
    }
    /// `n` zero bytes.
    pub fn zeros(&mut self, n: usize) -> Result<(), WireError> {
        for _ in 0..n {
            self.u8(0)?;
        }
        Ok(())
    }
    /// One byte.
    pub fn u8(&mut self, v: u8) -> Result<(), WireError> {
        self.put(&[v])
    }
    /// Big-endian u16.
    pub fn u16(&mut self, v: u16) -> Result<(), WireError> {
        self.put(&v.to_be_bytes())
    }
    /// Low 24 bits of `v`, big-endian.
    pub fn u24(&mut self, v: u32) -> Result<(), WireError> {
        let b = v.to_be_bytes();
        self.put(&[b[1], b[2], b[3]])
    }
    /// Big-endian u32.
    pub fn u32(&mut self, v: u32) -> Result<(), WireError> {
        self.put(&v.to_be_bytes())
    }
    /// Overwrite a byte already written at `at` (for length fields filled in late).
    pub fn patch_u16(&mut self, at: usize, v: u16) -> Result<(), WireError> {
        let end = at.checked_add(2).ok_or(WireError::BufferTooSmall)?;
        let dst = self.buf.get_mut(at..end).ok_or(WireError::BufferTooSmall)?;
        dst.copy_from_slice(&v.to_be_bytes());
        Ok(())
    }
}

/// Round `n` up to a multiple of 4.
pub const fn pad4(n: usize) -> usize {
    n.saturating_add(3) & !3
}
