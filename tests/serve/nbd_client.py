"""A minimal NBD client (fixed newstyle handshake, simple replies, one request at a time) for
the power-loss tests: they must know exactly which writes and flushes were acknowledged before
the server died, which a library client's buffering would hide."""

from __future__ import annotations

import socket
import struct

REQUEST_MAGIC = 0x25609513
REPLY_MAGIC = 0x67446698
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH, CMD_TRIM = 0, 1, 2, 3, 4
FLAG_FUA = 1
#: Transmission flags the server sends.
HAS_FLUSH, HAS_FUA = 1 << 2, 1 << 3


class NbdError(Exception):
    """The server answered an error, or the connection broke."""


class Client:
    """One connection to an NBD server on a Unix socket."""

    def __init__(self, path: str, timeout: float = 60.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.handle = 0
        if self._recv(8) != b"NBDMAGIC" or self._recv(8) != b"IHAVEOPT":
            raise NbdError("not a newstyle NBD server")
        (handshake_flags,) = struct.unpack(">H", self._recv(2))
        no_zeroes = handshake_flags & 2
        self.sock.sendall(struct.pack(">I", 1 | (2 if no_zeroes else 0)))
        # NBD_OPT_EXPORT_NAME with the default export.
        self.sock.sendall(b"IHAVEOPT" + struct.pack(">II", 1, 0))
        self.size, self.flags = struct.unpack(">QH", self._recv(10))
        if not no_zeroes:
            self._recv(124)

    def _recv(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise NbdError("connection closed")
            out += chunk
        return bytes(out)

    def _request(self, kind: int, offset: int, length: int, payload: bytes = b"", flags: int = 0) -> bytes:
        self.handle += 1
        try:
            self.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, flags, kind, self.handle, offset, length) + payload)
            magic, error, handle = struct.unpack(">IIQ", self._recv(16))
        except OSError as e:
            raise NbdError(f"connection broke: {e}") from None
        if magic != REPLY_MAGIC or handle != self.handle:
            raise NbdError("bad reply")
        if error:
            raise NbdError(f"server error {error}")
        return self._recv(length) if kind == CMD_READ else b""

    def read(self, offset: int, length: int) -> bytes:
        return self._request(CMD_READ, offset, length)

    def write(self, offset: int, data: bytes, fua: bool = False) -> None:
        self._request(CMD_WRITE, offset, len(data), data, FLAG_FUA if fua else 0)

    def flush(self) -> None:
        self._request(CMD_FLUSH, 0, 0)

    def trim(self, offset: int, length: int) -> None:
        self._request(CMD_TRIM, offset, length)

    def close(self) -> None:
        try:
            self.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_DISC, 0, 0, 0))
        except OSError:
            pass
        self.sock.close()
