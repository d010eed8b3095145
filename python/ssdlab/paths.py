"""One place that checks every path a user hands ssdlab (issue 19).

- :func:`input_file`: an input must be a regular file (a folder, FIFO, device or socket is
  refused, naming what it is), readable, and within the format's size bound.
- :func:`output_file`: an output must not be a folder, a device or FIFO (``-`` means standard
  output where a command can write there), its folder must exist and be writable, and a file
  already there is replaced only when ssdlab wrote it (:func:`check_owned`: listed in the
  folder's ``.ssdlab-outputs``, which ``owned`` writes keep) or it is empty.
- :func:`check_distinct`: no output may be the same file as an input or another output.
- :func:`write_atomic`: outputs are written to a temporary file in the same folder, synced and
  renamed into place, so a failed write never leaves a half-written file or loses the old one.
- :func:`claim_socket`: a socket path may only replace a stale socket (nobody answers on it);
  anything else at the path is refused, never deleted.

Every message names the option and the path (non-UTF-8 bytes shown escaped) and is raised as an
:class:`~ssdlab.errors.InputOutputError`, which the command line prints as one line.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ssdlab.errors import InputOutputError

#: Largest text input read whole (profiles, job files, sweep specs are a few KiB).
MAX_TEXT_FILE_BYTES = 4 << 20


def shown(path: str | os.PathLike) -> str:
    """`path` for a message: bytes that are not UTF-8 shown as ``\\xNN`` escapes."""
    raw = os.fsencode(path)
    return raw.decode("utf-8", "backslashreplace")


def kind_of(mode: int) -> str:
    """What kind of file an ``st_mode`` describes, in words."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def why(error: OSError) -> str:
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno == errno.ELOOP:
        return "symbolic link loop"
    if error.errno == errno.ENAMETOOLONG:
        return "name too long for the file system"
    if error.errno == errno.EACCES:
        return "permission denied"
    if error.errno == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return error.strerror or str(error)


def stat_if_there(path: str | os.PathLike, refused: str, *, follow: bool = True) -> os.stat_result | None:
    """`path`'s stat (of a symbolic link itself unless `follow`), or None when nothing is
    there; any other failure is refused as ``{refused}: {why}``."""
    try:
        return os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputOutputError(f"{refused}: {why(error)}") from None


def text_path(option: str, path: str | os.PathLike) -> str:
    """The path as text the core accepts: refuse empty paths and bytes that are not UTF-8."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise TypeError(f"{option}: a path must be a string or path-like (got {type(path).__name__})") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text == "":
        raise InputOutputError(f"{option}: empty path; give a file name")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputOutputError(f"{option} {shown(text)}: the path is not valid UTF-8; rename the file") from None
    if "\0" in text:
        raise InputOutputError(f"{option}: the path contains a NUL byte")
    return text


def input_file(option: str, path: str | os.PathLike, max_bytes: int | None = None) -> str:
    """Check an input file and return its path as text. `max_bytes` bounds formats read whole."""
    text = text_path(option, path)
    try:
        info = os.stat(text)
    except OSError as error:
        raise InputOutputError(f"{option} {shown(text)}: {why(error)}") from None
    except ValueError as error:
        raise InputOutputError(f"{option} {shown(text)}: {error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputOutputError(f"{option} {shown(text)}: is {kind_of(info.st_mode)}; give a regular file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise InputOutputError(f"{option} {shown(text)}: {info.st_size:,} bytes; at most {max_bytes:,} are accepted")
    if not os.access(text, os.R_OK):
        raise InputOutputError(f"{option} {shown(text)}: not readable (permission denied)")
    return text


def read_stdin(option: str, max_bytes: int) -> bytes:
    """An input given as ``-``: standard input's bytes, at most `max_bytes` of them (an endless
    input such as ``< /dev/zero`` is refused after `max_bytes` + 1, not read forever). A
    terminal is refused rather than waited on: the input is to be piped in."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputOutputError(f"{option}: there is no standard input to read")
    try:
        if stream.isatty():
            raise InputOutputError(f"{option}: standard input is a terminal; pipe the input in (< FILE)")
        data = stream.read(max_bytes + 1)
    except OSError as error:
        raise InputOutputError(f"{option}: cannot read standard input: {why(error)}") from None
    except ValueError as error:  # standard input closed
        raise InputOutputError(f"{option}: cannot read standard input: {error}") from None
    if len(data) > max_bytes:
        raise InputOutputError(f"{option}: standard input gave more than {max_bytes:,} bytes; at most {max_bytes:,} are accepted")
    return data


def output_file(option: str, path: str | os.PathLike, *, stdout: bool = True) -> str:
    """Check an output path and return it as text. ``-`` is standard output where the command
    can write there (`stdout`), else refused. Whether a file already there may be replaced is
    :func:`check_owned` (outputs written whole; not a database appended to)."""
    text = text_path(option, path)
    if text == "-":
        if not stdout:
            raise InputOutputError(f"{option} -: this output cannot go to standard output; give a file name")
        return text
    info = stat_if_there(text, f"{option} {shown(text)}")
    if info is not None and not stat.S_ISREG(info.st_mode):
        hint = "give a file name" if stat.S_ISDIR(info.st_mode) else "give a regular file" + (" (- for standard output)" if stdout else "")
        raise InputOutputError(f"{option} {shown(text)}: is {kind_of(info.st_mode)}; {hint}")
    try:
        parent = Path(text).absolute().parent
        if not parent.is_dir():
            raise InputOutputError(f"{option} {shown(text)}: folder {shown(parent)} does not exist")
    except OSError as error:
        raise InputOutputError(f"{option} {shown(text)}: {why(error)}") from None
    if not os.access(parent, os.W_OK):
        raise InputOutputError(f"{option} {shown(text)}: folder {shown(parent)} is not writable")
    if len(os.fsencode(Path(text).name)) > 200:  # room for the temporary file's prefix and suffix
        raise InputOutputError(f"{option} {shown(text)}: name too long for the file system")
    return text


def written_target(path: str | os.PathLike) -> Path:
    """The file a write to `path` replaces (a symbolic link is written through)."""
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target.absolute()


def check_owned(option: str, path: str | os.PathLike) -> None:
    """An output file written whole may replace only what ssdlab wrote: nothing, an empty file
    (a name made with ``mktemp``), or a file listed in its folder's :data:`OUTPUTS_MANIFEST`.
    Anything else there (the user's own data) is refused before any work."""
    target = written_target(path)
    info = stat_if_there(target, f"{option} {shown(path)}")
    if info is None or not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        return
    if target.name not in written_outputs(target.parent):
        raise InputOutputError(
            f"{option} {shown(path)}: already exists and was not written by ssdlab (not listed in {OUTPUTS_MANIFEST} beside it); "
            "ssdlab does not replace files it did not write: move it away or give another name"
        )


def not_a_folder(out_dir: Path) -> None:
    """Refuse an output folder's name where something that is not a folder is, creating nothing
    (a command checks the rest of its inputs before it makes the folder)."""
    try:
        mode = out_dir.stat().st_mode
    except NotADirectoryError as error:
        raise InputOutputError(f"{shown(out_dir)}: {why(error)}; give the output folder's name (created if missing)") from None
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISDIR(mode):
        raise InputOutputError(f"{shown(out_dir)}: is {kind_of(mode)}, not a folder; give the output folder's name (created if missing)")


def output_folder(out_dir: Path) -> None:
    """Check an output folder (created if missing) before any work: refuse something there that
    is not a folder, or a folder that cannot be written."""
    not_a_folder(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        # A nameless temporary file: the probe never touches a file already in the folder.
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as error:
        raise InputOutputError(f"{out_dir}: output folder is not writable: {error.strerror or error}") from None


def _identity(path: str) -> tuple:
    """What makes two paths the same file: (device, inode) when it exists, else the resolved path."""
    try:
        info = os.stat(path)
        return ("inode", info.st_dev, info.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def check_distinct(inputs: dict[str, str | None], outputs: dict[str, str | None] | list[tuple[str, str | None]]) -> None:
    """Refuse an output that is the same file as an input or as another output; refuse two
    outputs on standard output. Keys are option names (``--json``), values paths or None;
    `outputs` may be ``(option, path)`` pairs when one option names several files."""
    pairs = list(outputs.items()) if isinstance(outputs, dict) else list(outputs)
    stdout = [name for name, path in pairs if path == "-"]
    if len(stdout) > 1:
        raise InputOutputError(f"{' and '.join(stdout)} cannot both write to standard output (-)")
    seen: dict[tuple, str] = {}
    for name, path in inputs.items():
        if path and path != "-":
            seen.setdefault(_identity(path), name)
    for name, path in pairs:
        if not path or path == "-":
            continue
        key = _identity(path)
        if key in seen:
            other = seen[key]
            raise InputOutputError(f"{name} {shown(path)}: is the same file as {other}; give another file name")
        seen[key] = name


def write_atomic(path: str | os.PathLike, data: str | bytes, option: str = "output", *, owned: bool = False) -> None:
    """Write `data` to `path` through a temporary file in the same folder, synced and renamed
    into place: the old file stays whole until the new one is complete (`owned`: as
    :func:`atomic_output`)."""
    with atomic_output(path, option, owned=owned) as temp:
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(temp, mode) as f:
            f.write(data)


def _output_mode(target: Path) -> int:
    """Permissions for a new version of `target`: those of the regular file there, else what
    ``open(target, "w")`` would give (0666 less the umask)."""
    try:
        info = os.stat(target)
        if stat.S_ISREG(info.st_mode):
            return stat.S_IMODE(info.st_mode)
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, option: str = "output", *, owned: bool = False) -> Iterator[str]:
    """Yield a temporary path next to `path`; when the block ends without an error the file is
    synced and renamed onto `path`, otherwise it is removed (and `path` untouched). A symbolic
    link is written through: the file it names is replaced, the link kept. With `owned` (a
    single-file output a later run may replace, :func:`check_owned`) the file is first listed in
    its folder's manifest."""
    target = written_target(path)
    if owned:
        record_outputs(target.parent, [target.name])
    try:
        # The temporary name keeps the last suffix (a writer may choose gzip by `.gz`).
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp" + target.suffix, dir=target.absolute().parent)
        try:
            # mkstemp makes the file 0600: give it the permissions the output would have had
            # written in place (an existing file's, else the umask's).
            os.fchmod(fd, _output_mode(target))
        finally:
            os.close(fd)
    except OSError as error:
        raise InputOutputError(f"{option} {shown(path)}: cannot create a file in its folder: {why(error)}") from None
    try:
        yield temp
        with open(temp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(temp, target)
    except OSError as error:
        raise InputOutputError(f"{option} {shown(path)}: cannot write: {why(error)}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def socket_state(path: str) -> str:
    """``missing``, ``stale`` (a socket nobody answers on), ``live`` (a socket that answers)
    or what else is at `path` (``a regular file``, ``a folder``, ...)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    if not stat.S_ISSOCK(info.st_mode):
        return "a symbolic link" if stat.S_ISLNK(info.st_mode) else kind_of(info.st_mode)
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        try:
            s.connect(path)
        except ConnectionRefusedError:
            return "stale"
        except OSError:
            return "live"  # cannot tell: treat as in use (never delete)
    return "live"


def claim_socket(option: str, path: str) -> None:
    """Make `path` free for a new socket: nothing there is fine, a stale socket is removed,
    anything else (a file, a folder, a socket a server answers on) is refused."""
    text = text_path(option, path)
    try:
        state = socket_state(text)
    except OSError as error:
        raise InputOutputError(f"{option} {shown(text)}: {why(error)}") from None
    if state == "missing":
        parent = Path(text).absolute().parent
        if not parent.is_dir():
            raise InputOutputError(f"{option} {shown(text)}: folder {shown(parent)} does not exist")
        if len(os.fsencode(os.path.abspath(text))) > 107:
            raise InputOutputError(f"{option} {shown(text)}: a Unix socket path must be at most 107 bytes long")
        return
    if state == "stale":
        os.unlink(text)  # a socket nobody answers on: left by a server that did not stop cleanly
        return
    if state == "live":
        raise InputOutputError(f"{option} {shown(text)}: a running server answers on this socket; stop it or give another path")
    raise InputOutputError(f"{option} {shown(text)}: is {state}; only a stale socket is replaced, give another path")


#: The file in an output folder listing the files ssdlab wrote there (one name a line): only
#: those are replaced by a later run; anything else at an output's name is refused.
OUTPUTS_MANIFEST = ".ssdlab-outputs"
#: The manifest's first line: a file of that name without it is not ssdlab's, and is refused.
_MANIFEST_HEADER = "# ssdlab outputs: the files ssdlab wrote in this folder (only these are replaced)"


def written_outputs(folder: str | os.PathLike) -> set[str]:
    """The names of the files ssdlab wrote in `folder` (its :data:`OUTPUTS_MANIFEST`; none
    when there is no manifest)."""
    manifest = Path(folder) / OUTPUTS_MANIFEST
    info = stat_if_there(manifest, shown(manifest), follow=False)
    if info is None:
        return set()
    if not stat.S_ISREG(info.st_mode):
        raise InputOutputError(f"{shown(manifest)}: is {kind_of(info.st_mode)}; ssdlab keeps the list of the files it wrote there")
    if info.st_size > MAX_TEXT_FILE_BYTES:
        raise InputOutputError(f"{shown(manifest)}: {info.st_size:,} bytes; not a list of the files ssdlab wrote")
    try:
        text = manifest.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = why(error) if isinstance(error, OSError) else "not UTF-8 text"
        raise InputOutputError(f"{shown(manifest)}: cannot read the list of the files ssdlab wrote: {reason}") from None
    lines = text.splitlines()
    if not lines or lines[0] != _MANIFEST_HEADER:
        raise InputOutputError(f"{shown(manifest)}: not the list of written files ssdlab keeps there (a file of yours?); move it away")
    return {line for line in lines[1:] if line and "/" not in line}


def check_replaceable(option: str, folder: str | os.PathLike, names: list[str], inputs: dict[str, str | None] | None = None) -> None:
    """Before any work: every file `names` (in `folder`) that a command will write may be
    written. Nothing there is fine; a regular file listed in the folder's manifest (written by
    ssdlab) is replaced; anything else is refused naming the file: a folder, FIFO or other
    non-file, a file ssdlab did not write, or one of the command's `inputs` (option -> path),
    which is never replaced even when ssdlab wrote it."""
    folder = Path(folder)
    taken = {_identity(path): name for name, path in (inputs or {}).items() if path and path != "-"}
    for name in [OUTPUTS_MANIFEST, *names]:
        what = taken.get(_identity(str(folder / name)))  # also an input not made yet (a database to create)
        if what is not None:
            raise InputOutputError(
                f"{option} {shown(folder)}: {name} is {what}, an input of this command; ssdlab never replaces an input: give another {option}"
            )
    owned = written_outputs(folder)
    for name in names:
        info = stat_if_there(folder / name, f"{option} {shown(folder)}: {name}", follow=False)
        if info is None:
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else kind_of(info.st_mode)
            raise InputOutputError(f"{option} {shown(folder)}: {name} is {kind}, where this command writes a file; move it away or give another {option}")
        if name not in owned:
            raise InputOutputError(
                f"{option} {shown(folder)}: {name} already exists and was not written by ssdlab (not listed in {OUTPUTS_MANIFEST}); "
                f"move it away or give another {option}"
            )


def record_outputs(folder: str | os.PathLike, names: list[str]) -> None:
    """Add `names` to the manifest of the files ssdlab wrote in `folder` (call it just before
    writing them, so a run stopped between the two never leaves an unlisted file of its own)."""
    owned = written_outputs(folder)
    if set(names) <= owned:
        return
    write_atomic(Path(folder) / OUTPUTS_MANIFEST, "".join(f"{n}\n" for n in [_MANIFEST_HEADER, *sorted(owned | set(names))]), "list of written files")
