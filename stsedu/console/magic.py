"""``%kubectl`` and ``%%kubectl``: kubectl in a notebook, against the kernel's embedded cluster.

* ``%kubectl get pods -l app=nginx``: one command; kubectl's stdout and stderr appear under the
  cell (the exit status is in :attr:`Result.status` of :func:`result`);
* ``%%kubectl apply -f -`` with a manifest as the cell's body: the body is the standard input;
* ``%%kubectl`` with one command per line in the body (a leading ``kubectl`` or ``$`` is fine,
  ``#`` starts a comment): the commands in order, as a script would run them;
* ``%kubectl --explain scale sts web --replicas=5``: the command, then the decisions of the
  syncs it caused (:func:`stsedu.last`);
* ``%kubectl --reset``: a new, empty cluster (``--seed N`` picks its seed).

The extension is loaded by ``import stsedu`` inside IPython, and by ``%load_ext stsedu``.  The
cluster (and the pandas and Kubernetes machinery behind it) is only made when the first command
runs.
"""

from __future__ import annotations

import sys

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

_SESSION = None
_RESULT = None


def session(reset: bool = False, seed: int = 0):
    """The kernel's kubectl session (made on first use; *reset* makes a new one with *seed*)."""
    global _SESSION
    if _SESSION is None or reset:
        from .session import Session
        _SESSION = Session(seed=seed)
    return _SESSION


def result():
    """The :class:`~stsedu.console.session.Result` of the last ``%kubectl`` command (None before one)."""
    return _RESULT


def _show(res) -> None:
    global _RESULT
    _RESULT = res
    streams = [(sys.stdout, res.stdout), (sys.stderr, res.stderr)]
    for stream, text in (streams[::-1] if getattr(res, "warned_first", False) else streams):
        if text:
            stream.write(text)
            stream.flush()


def _commands(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        out.append(line[1:].strip() if line.startswith("$") else line)
    return out


def run_magic(line: str, cell: str | None = None):
    """What ``%kubectl LINE`` (or ``%%kubectl LINE`` with *cell*) does; returns the last Result."""
    line = line.strip()
    explain = reset = False
    seed = 0
    while True:
        head, _, tail = line.partition(" ")
        if head == "--explain":
            explain, line = True, tail.strip()
        elif head == "--reset":
            reset, line = True, tail.strip()
        elif head == "--seed":
            from .cli import seed_value
            value, _, rest = tail.strip().partition(" ")
            try:
                seed, line = seed_value(value), rest.strip()
            except ValueError as e:
                sys.stderr.write(f"error: {e}\n")
                return None
        else:
            break
    if reset:
        session(reset=True, seed=seed)
        if not line and not (cell or "").strip():
            print(f"a new, empty cluster (seed {seed})")
            return None
    s = session()
    last = None
    if cell is not None and line and " -f -" in f" {line} ".replace("--filename=-", "-f -").replace("-f=-", "-f -"):
        last = s.run(line, stdin=cell)
        _show(last)
    elif cell is not None:
        for cmd in ([line] if line else []) + _commands(cell):
            last = s.run(cmd)
            _show(last)
    elif line:
        last = s.run(line)
        _show(last)
    else:
        print("usage: %kubectl COMMAND (e.g. %kubectl get pods), or %%kubectl apply -f - with a manifest below")
        return None
    if explain:
        from IPython.display import display
        table = s.last()
        if table.empty:
            from ..i18n import _
            print(_("(no sync: the command changed nothing the controller acts on)"))
        else:
            from ..views.tables import Explained
            display(Explained(table))  # readable: no None cells, pod names unwrapped, prose left-aligned
    return last


@magics_class
class KubectlMagics(Magics):
    """``%kubectl`` / ``%%kubectl`` (see the module's docstring)."""

    @no_var_expand  # a line is kubectl's: '{"spec":...}' and '{{$c.image}}' are not Python
    @line_cell_magic
    def kubectl(self, line: str, cell: str | None = None) -> None:
        run_magic(line, cell)


def load_ipython_extension(ip) -> None:
    """Register ``%kubectl`` and ``%%kubectl`` in the IPython shell *ip*."""
    ip.register_magics(KubectlMagics)
