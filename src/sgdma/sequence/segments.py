"""Segments: named waveform/parameter data, stored once per content.

A segment is a whole number of stream words (``board.axi_dma.data_bytes``: 32 bytes
on the ZCU111).  Storage is content-addressed: equal bytes are stored once, so
several names may alias one buffer (the pulse table of Sandia's Octet, done with
BD indirection).  Names are independent: recalibrating one alias moves it to new
bytes and leaves the others where they were.

A segment longer than the BD length limit (``2^length_width - 1``) is played as a
multi-BD piece list: every piece but the last is the largest multiple of the word
size under the limit (PG021: non-last BDs of a packet are whole stream words).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from sgdma.sequence.arrays import distinct
from sgdma.sequence.errors import SegmentLimitError, UnknownSegmentError, WordSizeError
from sgdma.sequence.memory import Region


@dataclass(eq=False)
class _Blob:
    """One stored buffer and the names that alias it."""

    key: bytes
    buffer: np.ndarray
    names: set[str] = field(default_factory=set)

    @property
    def address(self) -> int:
        return self.buffer.physical_address

    @property
    def nbytes(self) -> int:
        return self.buffer.nbytes


@dataclass(frozen=True)
class Segment:
    """What a name refers to right now."""

    name: str
    sid: int
    address: int
    nbytes: int
    word_bytes: int
    n_pieces: int
    aliases: tuple[str, ...]        # other names sharing the stored bytes

    @property
    def n_words(self) -> int:
        return self.nbytes // self.word_bytes


@dataclass(frozen=True)
class PieceTable:
    """Per segment id: where its bytes are and how many BDs play them."""

    address: np.ndarray     # uint64
    nbytes: np.ndarray      # uint64
    n_pieces: np.ndarray    # int64 (0: no such segment)
    piece_bytes: int


def digest(raw: np.ndarray) -> bytes:
    return hashlib.blake2b(memoryview(raw), digest_size=20).digest()


class SegmentStore:
    """Named segments in the segment region, deduplicated by content."""

    def __init__(self, region: Region, word_bytes: int, max_bd_bytes: int):
        self.region = region
        self.word_bytes = word_bytes
        self.max_bd_bytes = max_bd_bytes
        #: Largest legal non-last piece: whole words under the BD length limit.
        self.piece_bytes = max_bd_bytes - max_bd_bytes % word_bytes
        self._blobs: dict[bytes, _Blob] = {}
        self._sid: dict[str, int] = {}
        self._names: list[str | None] = []
        self._blob_of: list[_Blob | None] = []
        self._address = np.zeros(16, np.uint64)
        self._nbytes = np.zeros(16, np.uint64)
        self.version = 0                 # bumps whenever an address or length changes
        self._table: PieceTable | None = None

    # -- validation ----------------------------------------------------------------
    def as_words(self, data, name: str = "?") -> np.ndarray:
        """``data`` as a (n_words, word_bytes) uint8 array; refuses partial words."""
        w = self.word_bytes
        if isinstance(data, (bytes, bytearray, memoryview)):
            arr = np.frombuffer(data, np.uint8)
        else:
            arr = np.asarray(data)
            if arr.ndim == 2 and arr.dtype == np.uint8 and arr.shape[1] != w:
                raise WordSizeError(f"segment {name!r}: rows of {arr.shape[1]} bytes, but a stream word on this "
                                    f"board is {w} bytes (board.axi_dma.data_bytes)",
                                    f"reshape the data to (-1, {w}) bytes or pack it with waveforms.pack_words()")
            arr = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
        if arr.size == 0:
            raise WordSizeError(f"segment {name!r} is empty: a BD cannot carry 0 bytes",
                                f"give at least one {w}-byte word")
        if arr.size % w:
            raise WordSizeError(f"segment {name!r}: {arr.size} bytes is not a whole number of {w}-byte stream words "
                                f"({arr.size % w} bytes over)",
                                f"pad to {arr.size + w - arr.size % w} bytes (the stream moves whole words)")
        self.check_pieces(arr.size, name)
        return arr.reshape(-1, w)

    def check_pieces(self, nbytes: int, name: str = "?") -> int:
        """Number of BDs ``nbytes`` need; refuses when no legal piece exists."""
        if self.piece_bytes <= 0:
            raise SegmentLimitError(
                f"segment {name!r} ({nbytes} bytes): the BD length limit {self.max_bd_bytes} bytes is smaller than "
                f"one {self.word_bytes}-byte stream word, so no multi-BD piece can be formed",
                "rebuild the AXI DMA with a wider buffer-length register (length_width)")
        return -(-nbytes // self.piece_bytes)

    # -- names -----------------------------------------------------------------------
    def __contains__(self, name: str) -> bool:
        return name in self._sid

    def __len__(self) -> int:
        return len(self._sid)

    @property
    def names(self) -> list[str]:
        return list(self._sid)

    def sid(self, name: str) -> int:
        try:
            return self._sid[name]
        except KeyError:
            raise UnknownSegmentError(name, list(self._sid)) from None

    def name_of(self, sid: int) -> str:
        return self._names[sid]

    def __getitem__(self, name: str) -> Segment:
        sid = self.sid(name)
        blob = self._blob_of[sid]
        return Segment(name, sid, blob.address, blob.nbytes, self.word_bytes, self.check_pieces(blob.nbytes, name),
                       tuple(sorted(blob.names - {name})))

    def data(self, name: str) -> np.ndarray:
        """The stored words of a segment: a read-only view of board memory (the bytes may be
        shared with other names; change them with Sequencer.recalibrate)."""
        view = self._blob_of[self.sid(name)].buffer.reshape(-1, self.word_bytes)
        view.flags.writeable = False
        return view

    # -- storing ----------------------------------------------------------------------
    def add(self, name: str, data) -> Segment:
        """Store ``data`` under ``name`` (equal bytes already stored are shared).
        Re-adding a name with the same bytes is a no-op; with other bytes it is refused."""
        words = self.as_words(data, name)
        key = digest(words)
        if name in self._sid:
            if self._blob_of[self._sid[name]].key != key:
                raise ValueError(f"segment {name!r} exists with other bytes; change it with Sequencer.recalibrate()")
            return self[name]
        blob = self._intern(words, key)
        sid = len(self._names)
        self._grow(sid + 1)
        self._sid[name] = sid
        self._names.append(name)
        self._blob_of.append(None)
        self._attach(sid, blob)
        return self[name]

    def _intern(self, words: np.ndarray, key: bytes) -> _Blob:
        blob = self._blobs.get(key)
        if blob is not None and np.array_equal(blob.buffer, words.reshape(-1)):
            return blob
        buf = self.region.allocate(words.nbytes)
        buf[:] = words.reshape(-1)
        buf.flush()                       # the DMA reads DDR, not the CPU cache
        blob = _Blob(key, buf)
        self._blobs[key] = blob
        return blob

    def _grow(self, n: int) -> None:
        if n > len(self._address):
            cap = max(n, 2 * len(self._address))
            self._address = np.resize(self._address, cap)
            self._nbytes = np.resize(self._nbytes, cap)

    def _attach(self, sid: int, blob: _Blob) -> None:
        name = self._names[sid]
        old = self._blob_of[sid]
        if old is not None:
            old.names.discard(name)
            if not old.names and self._blobs.get(old.key) is old:
                del self._blobs[old.key]          # its buffer dies with the last reference
        blob.names.add(name)
        self._blob_of[sid] = blob
        self._address[sid] = blob.address
        self._nbytes[sid] = blob.nbytes
        self.version += 1
        self._table = None

    def replace(self, name: str, data) -> str:
        """Point ``name`` at new bytes.  Returns how: ``"same"`` nothing changed;
        ``"in-place"`` the buffer was rewritten (same address and length, no BD changes);
        ``"moved"`` the name now has another buffer or length (BDs that play it must be
        patched).  The buffer is rewritten in place only when no other name shares it."""
        sid = self.sid(name)
        words = self.as_words(data, name)
        key = digest(words)
        blob = self._blob_of[sid]
        if key == blob.key:
            return "same"
        if blob.names == {name} and blob.nbytes == words.nbytes and key not in self._blobs:
            del self._blobs[blob.key]
            blob.buffer[:] = words.reshape(-1)
            blob.buffer.flush()                 # the DMA reads DDR, not the CPU cache
            blob.key = key
            self._blobs[key] = blob
            return "in-place"
        self._attach(sid, self._intern(words, key))   # _intern may raise: nothing changed yet
        return "moved"

    def remove(self, name: str) -> None:
        """Forget a name (its bytes go when no other name shares them).  The Sequencer
        refuses this while a resident ring plays the segment."""
        sid = self.sid(name)
        blob = self._blob_of[sid]
        blob.names.discard(name)
        if not blob.names:
            self._blobs.pop(blob.key, None)
        del self._sid[name]
        self._names[sid] = None
        self._blob_of[sid] = None
        self._nbytes[sid] = 0
        self.version += 1
        self._table = None

    # -- tables and counters --------------------------------------------------------------
    def table(self) -> PieceTable:
        """Arrays indexed by segment id, for the compiler (cached until something moves)."""
        if self._table is None:
            n = len(self._names)
            nbytes = self._nbytes[:n].copy()
            pieces = -(-nbytes.astype(np.int64) // max(self.piece_bytes, 1))
            self._table = PieceTable(self._address[:n].copy(), nbytes, pieces, self.piece_bytes)
        return self._table

    def blob_bytes(self, sids: np.ndarray) -> int:
        """Bytes stored for the distinct buffers behind these segment ids."""
        blobs = {id(self._blob_of[s]): self._blob_of[s].nbytes for s in distinct(sids).tolist()}
        return sum(blobs.values())

    def counters(self) -> dict:
        """unique (buffers stored), referenced (names pointing at them), bytes stored,
        bytes named (what storing every name separately would take), bytes saved."""
        stored = sum(b.nbytes for b in self._blobs.values())
        named = int(self._nbytes[:len(self._names)].sum())
        return {"unique": len(self._blobs), "referenced": len(self._sid), "bytes_stored": stored,
                "bytes_named": named, "bytes_saved": named - stored}
