"""Build the real control plane (etcd, kube-apiserver, kube-controller-manager, kubectl) and KWOK.

The versions are pinned by the Go module in ``stsedu/live/controlplane/`` (its ``go.mod``
lists the four commands as ``tool`` directives). The binaries go to a cache folder outside
the repository, ``~/.cache/stsedu-live/<key>/`` (``$STSEDU_LIVE_CACHE`` overrides the base),
where ``<key>`` is a hash of go.mod, go.sum and the build flags, so a change of version builds
afresh and reruns reuse the cache. The first build takes about 9 minutes on two cores.

The same module builds the ``current`` upstream oracle of the test suite
(``tests/upstream_oracle.py``) with the same command (:func:`go_build_command`), so the two share
every compiled package in Go's build cache: what the control plane compiled, the oracle links.

:func:`kubectl_path` is for other parts of the kit that want the real kubectl: it returns
the path of a built one, or None, and never builds.

KWOK (``sigs.k8s.io/kwok``, the second kubelet: :mod:`.kwok`) is pinned by a module of its own,
``stsedu/live/kwok/``, and cached in ``~/.cache/stsedu-live/kwok-<key>/``: KWOK requires the k8s.io
client libraries at its own versions (v0.36), which in the control plane's module would be raised to
v0.37 (a combination KWOK was never built with), and any change there would change the control plane's
key and rebuild it (9+ minutes). :func:`build` builds both, the control plane first; KWOK takes about
3 minutes more the first time. :func:`kwok_path` and :func:`kwok_missing_reason` are KWOK's
:func:`kubectl_path` and :func:`missing_reason`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

MODULE = Path(__file__).resolve().parent / "controlplane"

COMMANDS = {
    # binary name -> Go package (all four are `tool` directives in controlplane/go.mod)
    "etcd": "go.etcd.io/etcd/server/v3",
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
    "kubectl": "k8s.io/kubernetes/cmd/kubectl",
}

KUBERNETES_VERSION = "v1.37.2"
ETCD_VERSION = "v3.7.0"

# What Kubernetes' own release build stamps with -X (hack/lib/version.sh): without it
# `kubectl version` reports v0.0.0-master+$Format:%H$ and the skew check fails. -s -w leaves out
# the symbol table and DWARF, which nothing here reads, and shortens each link.
_STAMPED = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")


def _ldflags() -> str:
    major, minor = KUBERNETES_VERSION.lstrip("v").split(".")[:2]
    stamps = [f"-X {pkg}.{var}={value}" for pkg in _STAMPED for var, value in (
        ("gitVersion", KUBERNETES_VERSION), ("gitMajor", major), ("gitMinor", minor),
        ("gitTreeState", "clean"))]
    return " ".join(["-s", "-w", *stamps])


def go_build_command(go: str, output: str, package: str = ".", ldflags: str | None = None) -> list[str]:
    """The one `go build` line of the kit's Go binaries (the control plane and the oracles): the
    same flags everywhere, so Go's build cache serves a package compiled for one to the others.
    *ldflags* replaces the control plane's stamps (KWOK, which stamps its version in its source)."""
    return [go, "build", "-p", "2", "-ldflags", _ldflags() if ldflags is None else ldflags, "-o", output, package]


KWOK_MODULE = Path(__file__).resolve().parent / "kwok"
KWOK_VERSION = "v0.8.0"
KWOK_PACKAGE = "sigs.k8s.io/kwok/cmd/kwok"
KWOK_LDFLAGS = "-s -w"  # pkg/consts.Version is "0.8.0" in the release's source already


class LiveUnavailable(Exception):
    """Go is missing, a build failed or the control plane cannot start; the message says why, in one line."""


# go_binary and cache_folder are the kit's one way to find Go and a build cache; the test
# suite's upstream oracle (tests/upstream_oracle.py) loads this file by path for them, as
# .ci/run does, so it must need nothing but the standard library.

def go_binary() -> str | None:
    """The Go command: ``go`` on PATH, else a standard install folder; None without Go."""
    found = shutil.which("go")
    if found:
        return found
    for candidate in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def cache_folder(env: str, name: str) -> Path:
    """A build cache folder: ``$env`` if set, else *name* in the user's cache folder
    (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    base = os.environ.get(env) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), name)
    return Path(base)


def cache_base() -> Path:
    return cache_folder("STSEDU_LIVE_CACHE", "stsedu-live")


def module_key(module: Path, ldflags: str) -> str:
    h = hashlib.sha256()
    for f in ("go.mod", "go.sum"):
        h.update((module / f).read_bytes())
    h.update(ldflags.encode())
    return h.hexdigest()[:16]


def source_key() -> str:
    return module_key(MODULE, _ldflags())


def bin_dir() -> Path:
    return cache_base() / source_key()


def binary(name: str) -> Path:
    return bin_dir() / name


def built() -> bool:
    return all(binary(n).exists() for n in COMMANDS)


def kubectl_path() -> str | None:
    """The path of the real kubectl built from the pinned k8s.io/kubernetes, or None if it is not built."""
    try:
        path = binary("kubectl")
    except OSError:
        return None
    return str(path) if path.exists() and os.access(path, os.X_OK) else None


def kwok_binary() -> Path:
    return cache_base() / f"kwok-{module_key(KWOK_MODULE, KWOK_LDFLAGS)}" / "kwok"


def kwok_path() -> str | None:
    """The path of the built KWOK, or None if it is not built (never builds)."""
    try:
        path = kwok_binary()
    except OSError:
        return None
    return str(path) if path.exists() and os.access(path, os.X_OK) else None


def kwok_missing_reason() -> str | None:
    """None when KWOK is built; otherwise one line saying how to build it."""
    if kwok_path():
        return None
    if go_binary() is None:
        return "KWOK is not built and Go is not installed (need go >= 1.26; then run `stsedu live build`)"
    return (f"KWOK {KWOK_VERSION} is not built yet: run `stsedu live build` (about 3 minutes the first time; "
            f"cache {kwok_binary().parent})")


def find_kubectl() -> str:
    path = kubectl_path() or shutil.which("kubectl")
    if not path:
        raise LiveUnavailable("kubectl is not built (`stsedu live build`) and not on PATH")
    return path


def missing_reason() -> str | None:
    """None when every binary is built; otherwise one line saying what is missing and how to build it."""
    if built():
        return None
    if go_binary() is None:
        return ("the live control plane is not built and Go is not installed "
                "(need go >= 1.26 on PATH or /usr/local/go/bin/go; then run `stsedu live build`)")
    return f"the live control plane is not built yet: run `stsedu live build` (about 9 minutes the first time on two cores; cache {bin_dir()})"


def build(names=None, log=None) -> Path:
    """Build the missing binaries (the four of the control plane and KWOK by default) into their cache
    folders; return the control plane's (:func:`bin_dir`).

    Each binary is written to ``NAME.partial-PID`` and renamed when complete, so an interrupted
    build leaves nothing that looks finished. Raise :class:`LiveUnavailable` without Go or
    when a build fails.
    """
    names = list(names or [*COMMANDS, "kwok"])
    todo = [(MODULE, bin_dir() / n, COMMANDS[n], None) for n in names if n in COMMANDS]
    if "kwok" in names:
        todo.append((KWOK_MODULE, kwok_binary(), KWOK_PACKAGE, KWOK_LDFLAGS))
    todo = [t for t in todo if not t[1].exists()]
    if not todo:
        return bin_dir()
    go = go_binary()
    if go is None:
        raise LiveUnavailable("Go is not installed (need go >= 1.26 on PATH or /usr/local/go/bin/go)")
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-mod=mod")
    for module in dict.fromkeys(t[0] for t in todo):
        with tempfile.TemporaryDirectory(prefix="stsedu-live-build-") as tmp:
            for f in ("go.mod", "go.sum", "doc.go"):
                shutil.copy(module / f, tmp)
            for _, target, package, ldflags in (t for t in todo if t[0] == module):
                name = target.name
                if log:
                    log(f"building {name} ({package}) ...")
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.parent / f"{name}.partial-{os.getpid()}"  # two builds at once never share a file
                cmd = go_build_command(go, str(partial), package, ldflags)
                proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
                if proc.returncode != 0:
                    tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
                    raise LiveUnavailable(f"building {name} failed: " + " | ".join(tail))
                os.replace(partial, target)
    return bin_dir()
