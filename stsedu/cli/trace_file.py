"""``stsedu run --trace FILE``: the file checked before the run (exit status 3 if it cannot or must
not be written), and the trace written through a temporary file after it."""

from __future__ import annotations

import os
from pathlib import Path


class TraceFileError(Exception):
    """``--trace`` names a file that cannot or must not be written (exit status 3)."""


def check_trace_path(trace_path: str, inputs: list[Path], force: bool = False) -> Path:
    """The path ``--trace`` may write, checked before the run: not a directory, in a
    folder that exists, not one of *inputs* (the scenario file), and not an existing
    file unless *force*.  Raise TraceFileError saying which."""
    path = Path(trace_path)
    if path.is_dir():
        raise TraceFileError(f"--trace {trace_path}: is a directory; give a file name such as run.jsonl")
    if not path.parent.is_dir():
        raise TraceFileError(f"--trace {trace_path}: no such folder: {path.parent}")
    if path.exists() or path.is_symlink():
        for src in inputs:
            try:
                same = path.resolve() == src.resolve() or (src.exists() and path.samefile(src))
            except OSError:
                same = False
            if same:
                raise TraceFileError(f"--trace {trace_path}: is the scenario being run; "
                                     "refusing to overwrite an input (even with --force)")
        if not force:
            raise TraceFileError(f"--trace {trace_path}: file exists; add --force to replace it")
    return path


def write_trace(trace, path: Path) -> Path:
    """Save *trace* to *path* through a temporary file in the same folder, so a failed
    write (a full device, no permission) leaves no half-written trace and any old file as
    it was.  Raise TraceFileError with the reason."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        trace.save(tmp)
        os.replace(tmp, path)
    except ImportError as e:
        raise TraceFileError(f"--trace {path}: {e}") from None
    except OSError as e:
        raise TraceFileError(f"--trace {path}: cannot write the trace: {e.strerror or e}") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return path
