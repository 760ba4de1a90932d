"""Reading the files the kit opens: one bounded, safe reader for YAML and JSON.

Every file kind (:data:`MANIFEST`, :data:`SCENARIO`, :data:`EXERCISE`,
:data:`ANSWERS`, :data:`TRACE_LINE`) has :class:`Limits`: its size in bytes,
the values a YAML document may expand to once aliases are followed (checked on
the composed node graph, *before* anything is expanded), and the nesting depth.
A file over a limit, with bytes that are not UTF-8, or that is not a regular file
(``/dev/zero``, a folder) is refused with :class:`FileReadError`, whose message
names the file kind and the limit; each reader turns it into its own error type
(``ScenarioError``, ``ExerciseError``, ``ValueError`` for answer sheets and
traces).  Nothing here recurses in Python once per level, so no nesting reaches
a ``RecursionError``.

The console and ``stsedu live`` read through it too, with their own limits: kubectl's
``-f`` and ``--patch-file`` files (:data:`stsedu.views.kubectl.objects_io.FILE`), the
``stsedu kubectl`` state file (:data:`stsedu.console.cli.STATE`), a kubeconfig
(:data:`stsedu.live.client.KUBECONFIG`) and the live control plane's state file.
"""

from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


MAX_NESTING_DEPTH = 100
"""Deepest nesting of maps and lists a loaded document (YAML, JSON or Python data) may
have.  Real manifests stay under 20 levels; Go's decoders stop at 10000 (go-yaml's
"exceeded max depth", encoding/json's "exceeded max depth"), far beyond what a
recursive reader in Python can follow, so stsedu stops at 100 with a clear error
instead of a ``RecursionError``."""


class _ComposeBounds:
    """Composer hook shared by the kit's loaders: at most :data:`MAX_NESTING_DEPTH` levels
    (checked before Python's stack runs out) and, when *max_nodes* is set, at most that
    many nodes composed (checked while composing, so a large file stops early)."""

    _depth = 0
    _nodes = 0
    max_nodes: int | None = None
    kind = "document"

    def compose_node(self, parent, index):
        # the composer recurses once per level: bound it before Python's stack does
        self._depth += 1
        self._nodes += 1
        try:
            if self._depth > MAX_NESTING_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"exceeded max depth of {MAX_NESTING_DEPTH} levels of maps and lists",
                    self.peek_event().start_mark)
            if self.max_nodes is not None and self._nodes > self.max_nodes:
                raise FileReadError(f"more than {self.max_nodes} values (the {self.kind} limit)",
                                    self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class BoundedLoader(_ComposeBounds, yaml.SafeLoader):
    """SafeLoader that refuses nesting deeper than :data:`MAX_NESTING_DEPTH` (with the
    line and column) before Python's stack runs out.  Every YAML reader of the kit uses
    it (manifests through a subclass), or its faster twin on libyaml's parser."""

    def fetch_flow_collection_start(self, TokenClass):
        # the scanner keeps a possible key per open ``[`` / ``{`` and rescans them all for
        # each token: stop flow nesting here too, before that grows quadratic
        if self.flow_level >= MAX_NESTING_DEPTH:
            raise yaml.scanner.ScannerError(
                None, None, f"exceeded max depth of {MAX_NESTING_DEPTH} levels of maps and lists",
                self.get_mark())
        return super().fetch_flow_collection_start(TokenClass)


try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:
    class FastLoader(_ComposeBounds, yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor,
                      yaml.resolver.Resolver):
        """:class:`BoundedLoader`'s rules on libyaml's parser (events from C, about four
        times faster); composing stays in Python, where the bounds are."""

        def __init__(self, stream):
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
else:  # pragma: no cover
    FastLoader = None


def refuse_duplicate_keys(loader, node: yaml.MappingNode, key=lambda k: k) -> None:
    """Raise a ConstructorError at the second of two equal keys of *node* (``key`` turns a
    constructed key into what is compared): a key set twice in one map is an error, as
    sigs.k8s.io/yaml makes it for manifests, not "the last one wins"."""
    seen: set = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        k = key(loader.construct_object(key_node, deep=True))
        try:
            if k in seen:
                raise yaml.constructor.ConstructorError(None, None, f'key "{k}" already set in map',
                                                        key_node.start_mark)
            seen.add(k)
        except TypeError:      # a list or map as a key: the constructor's own error says so
            continue


class UniqueKeys:
    """Loader mixin: :func:`refuse_duplicate_keys` for every map (exercise files use it)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            refuse_duplicate_keys(self, node)
        return super().construct_mapping(node, deep=deep)


class UniqueKeyLoader(UniqueKeys, BoundedLoader):
    """:class:`BoundedLoader` that refuses a key set twice in one map."""


_FAST_TWINS: dict = {}
if FastLoader is not None:
    _FAST_TWINS = {BoundedLoader: FastLoader,
                   UniqueKeyLoader: type("FastUniqueKeyLoader", (UniqueKeys, FastLoader), {})}


def _loader(text: str, limits: "Limits", loader: type):
    ldr = _FAST_TWINS.get(loader, loader)(text)
    ldr.max_nodes, ldr.kind = limits.max_nodes, limits.kind
    return ldr


@dataclass(frozen=True)
class Limits:
    """What one kind of file may be: at most *max_bytes* bytes, *max_nodes* values once
    YAML aliases are followed, *max_depth* levels of maps and lists."""

    kind: str
    max_bytes: int
    max_nodes: int = 20_000
    max_depth: int = MAX_NESTING_DEPTH

    @property
    def a_kind(self) -> str:
        """The kind with its article: "an exercise file"."""
        return ("an " if self.kind[0] in "aeiou" else "a ") + self.kind

    def size_text(self) -> str:
        mib = self.max_bytes / (1 << 20)
        return f"{self.max_bytes} bytes ({mib:g} MiB)" if mib >= 1 else f"{self.max_bytes} bytes"


MANIFEST = Limits("manifest", 1 << 20, 1_000_000)
SCENARIO = Limits("scenario file", 1 << 20, 20_000)
EXERCISE = Limits("exercise file", 1 << 20, 20_000)
ANSWERS = Limits("answer file", 1 << 20, 20_000)
TRACE_LINE = Limits("trace line", 1 << 20, 20_000)

MAX_INT_DIGITS = 100
"""Longest integer (in digits) a JSON file may hold; Python refuses more than 4300
anyway, and no count, time or answer of the kit has more than a few."""


class FileReadError(ValueError):
    """A file cannot be read within its kind's limits.  ``problem`` says why (naming the
    limit); ``line`` is the 1-based line where the reader stopped, if known."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        self.problem, self.line = problem, line
        super().__init__((f"line {line}: " if line else "") + problem)


# ------------------------------------------------------------------- bytes


def read_bytes(path: str | Path, limits: Limits) -> bytes:
    """The bytes of the regular file *path*, refusing one over ``limits.max_bytes``
    before reading it (and reading at most one byte more, for files that grow)."""
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise FileReadError(f"is a folder, not {limits.a_kind}")
        if not stat.S_ISREG(st.st_mode):
            raise FileReadError(f"is not a regular file (a device or a pipe); {limits.a_kind} must be one")
        if st.st_size > limits.max_bytes:
            raise FileReadError(f"{st.st_size} bytes, over the limit of {limits.size_text()} for {limits.a_kind}")
        with p.open("rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    except FileReadError:
        raise
    except FileNotFoundError:
        raise FileReadError("no such file") from None
    except (OSError, ValueError) as exc:   # ValueError: a NUL byte in the name
        raise FileReadError(f"cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    if len(data) > limits.max_bytes:
        raise FileReadError(f"over the limit of {limits.size_text()} for {limits.a_kind}")
    return data


def decode(data: bytes, limits: Limits) -> str:
    """*data* as UTF-8 text; FileReadError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileReadError(f"not UTF-8 text (byte {exc.start}): {limits.a_kind} must be UTF-8", line) from None


def read_text(path: str | Path, limits: Limits) -> str:
    """:func:`read_bytes` then :func:`decode`."""
    return decode(read_bytes(path, limits), limits)


def check_size(text: str, limits: Limits) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise FileReadError(f"{size} bytes, over the limit of {limits.size_text()} for {limits.a_kind}")


# -------------------------------------------------------------------- YAML


def expanded_size(node: yaml.Node, limits: Limits) -> tuple[int, int]:
    """(values, depth) of a composed YAML node graph once its aliases are followed,
    computed without expanding anything (each node once, iteratively).  Raise
    FileReadError past ``limits.max_nodes`` / ``limits.max_depth`` or for an alias
    to a node that contains it."""
    size: dict[int, tuple[int, int]] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        key = id(n)
        if key in size:
            continue
        children = _children(n)
        if done:
            open_.discard(key)
            count = 1 + sum(size[id(c)][0] for c in children)
            depth = 1 + max((size[id(c)][1] for c in children), default=0) if children else 0
            if count > limits.max_nodes:
                raise FileReadError(f"more than {limits.max_nodes} values once YAML aliases are followed"
                                    f" (the {limits.kind} limit): excessive aliasing",
                                    n.start_mark.line + 1)
            if depth > limits.max_depth:
                raise FileReadError(f"exceeded max depth of {limits.max_depth} levels of maps and lists"
                                    f" once YAML aliases are followed (the {limits.kind} limit)",
                                    n.start_mark.line + 1)
            size[key] = (count, depth)
            continue
        if key in open_:
            raise FileReadError("an alias refers to a map or list that contains it (a cycle)",
                                n.start_mark.line + 1)
        open_.add(key)
        stack.append((n, True))
        for c in children:
            if id(c) in open_:
                raise FileReadError("an alias refers to a map or list that contains it (a cycle)",
                                    c.start_mark.line + 1)
            if id(c) not in size:
                stack.append((c, False))
    return size[id(node)]


def _children(n: yaml.Node) -> list[yaml.Node]:
    if isinstance(n, yaml.MappingNode):
        return [x for pair in n.value for x in pair]
    if isinstance(n, yaml.SequenceNode):
        return list(n.value)
    return []


def _yaml_problem(exc: yaml.YAMLError) -> FileReadError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    if problem == "exceeded maximum nesting depth":   # libyaml's own bound (1000), met first
        problem = f"exceeded max depth of {MAX_NESTING_DEPTH} levels of maps and lists"
    return FileReadError(f"not valid YAML: {problem}", mark.line + 1 if mark is not None else None)


def compose_yaml(text: str, limits: Limits, loader: type = BoundedLoader) -> tuple[Any, "yaml.Node | None"]:
    """The single YAML document of *text* and its composed node (for line numbers),
    within *limits*: size, depth (while composing) and values once aliases are
    followed (before constructing).  Raise FileReadError with the line."""
    if not isinstance(text, str):
        raise TypeError(f"{limits.a_kind} is YAML text (str), not {type(text).__name__}")
    check_size(text, limits)
    ldr = _loader(text, limits, loader)
    try:
        node = ldr.get_single_node()
        if node is None:
            return None, None
        expanded_size(node, limits)
        return ldr.construct_document(node), node
    except yaml.YAMLError as exc:
        raise _yaml_problem(exc) from None
    finally:
        ldr.dispose()


def load_yaml(text: str, limits: Limits, loader: type = BoundedLoader) -> Any:
    """The data of :func:`compose_yaml`."""
    return compose_yaml(text, limits, loader)[0]


def load_yaml_all(text: str, limits: Limits, loader: type = BoundedLoader, yaml_errors: bool = False) -> list[Any]:
    """Every document of *text* (``---``), within *limits* taken together.  With
    *yaml_errors*, PyYAML's own errors pass through (for callers that word them)."""
    check_size(text, limits)
    ldr = _loader(text, limits, loader)
    out, total = [], 0
    try:
        while ldr.check_node():
            node = ldr.get_node()
            if node is None:
                continue
            total += expanded_size(node, Limits(limits.kind, limits.max_bytes, limits.max_nodes - total,
                                                limits.max_depth))[0]
            out.append(ldr.construct_document(node))
        return out
    except yaml.YAMLError as exc:
        if yaml_errors:
            raise
        raise _yaml_problem(exc) from None
    finally:
        ldr.dispose()


def line_map(node: "yaml.Node | None") -> dict[tuple, int]:
    """(path) -> 1-based line of every key and list item of a composed document; each
    node is walked once (an alias is not followed again), iteratively."""
    out: dict[tuple, int] = {}
    if node is None:
        return out
    seen: set[int] = set()
    stack = [(node, ())]
    while stack:
        n, path = stack.pop()
        out.setdefault(path, n.start_mark.line + 1)
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else None
                out[path + (key,)] = k.start_mark.line + 1
                stack.append((v, path + (key,)))
        elif isinstance(n, yaml.SequenceNode):
            for i, v in enumerate(n.value):
                out[path + (i,)] = v.start_mark.line + 1
                stack.append((v, path + (i,)))
    return out


# -------------------------------------------------------------------- JSON

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")
_LONG_INT = re.compile(r"-?\d{%d,}" % (MAX_INT_DIGITS + 1))


def _json_depth(text: str, limits: Limits) -> None:
    """Refuse nesting deeper than ``limits.max_depth`` before ``json.loads`` recurses."""
    bare = _STRING.sub('""', text)
    depth = 0
    for m in _BRACKETS.finditer(bare):
        if m.group() in "[{":
            depth += 1
            if depth > limits.max_depth:
                raise FileReadError(f"nested deeper than {limits.max_depth} levels of objects and lists"
                                    f" (the {limits.kind} limit)", bare.count("\n", 0, m.start()) + 1)
        else:
            depth -= 1
    m = _LONG_INT.search(bare)
    if m:
        raise FileReadError(f"a number with more than {MAX_INT_DIGITS} digits (the {limits.kind} limit)",
                            bare.count("\n", 0, m.start()) + 1)


def load_json(text: str, limits: Limits) -> Any:
    """The JSON value of *text* within *limits* (size, depth, integer digits); FileReadError
    naming the line otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"{limits.a_kind} is JSON text (str), not {type(text).__name__}")
    check_size(text, limits)
    _json_depth(text, limits)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileReadError(f"not JSON (line {exc.lineno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # pragma: no cover - bounded above
        raise FileReadError(f"not JSON: {exc}") from None


# ------------------------------------------------------------------ writing


class OutputError(ValueError):
    """An output file cannot or must not be written; the message is one line naming it."""


def _named(label: str, path) -> str:
    return f"{label} {path}" if label else str(path)


def _check_folders(p: Path, path, label: str, example: str, make_parents: bool) -> None:
    if "\0" in str(path):   # Path.is_dir() and exists() answer False for it; open() raises ValueError
        raise OutputError(f"{_named(label, repr(str(path)))}: cannot write it: a file name cannot hold a NUL byte")
    if str(path) == "" or p.is_dir():
        raise OutputError(f"{_named(label, path)}: is a folder; give a file name such as {example}")
    parent = p.parent
    for folder in [parent, *parent.parents]:
        if folder.exists():
            if not folder.is_dir():
                raise OutputError(f"{_named(label, path)}: {folder} is a file, not a folder")
            break
        if not make_parents:
            raise OutputError(f"{_named(label, path)}: no such folder: {parent}")


def check_output(path: str | Path, label: str = "", example: str = "out.txt",
                 inputs: tuple = (), make_parents: bool = False) -> Path:
    """The path an output may be written to, checked before any work: not a folder, in a
    folder that exists (or, with *make_parents*, can be made: no file in the way), and
    not one of *inputs*.  Raise OutputError saying which."""
    p = Path(path)
    try:
        _check_folders(p, path, label, example, make_parents)
    except (OSError, ValueError) as exc:   # a name too long, a NUL byte, no permission to look
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"{_named(label, path)}: cannot write it: {getattr(exc, 'strerror', None) or exc}") from None
    for src in inputs:
        try:
            same = p.exists() and Path(src).exists() and p.samefile(src)
        except OSError:
            same = False
        if same:
            raise OutputError(f"{_named(label, path)}: is one of the input files; refusing to overwrite it")
    return p


def current_umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux's
    /proc/self/status); elsewhere set and restored at once."""
    import os
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(path: str | Path, data: str | bytes, label: str = "", example: str = "out.txt",
                 inputs: tuple = (), make_parents: bool = False) -> Path:
    """Write *data* to *path* after :func:`check_output`, through a temporary file in the
    same folder, so a failed write (a full device, no permission) leaves nothing half-written
    and any old file as it was.  The file's mode follows the umask, as ``open()``'s would (a
    release in a shared folder is readable by the class).  Raise OutputError (one line) otherwise."""
    import os
    import tempfile
    p = check_output(path, label, example, inputs, make_parents)
    tmp = None
    try:
        if make_parents:
            p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~current_umask())     # as open() would make it (mkstemp gives 0600)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise OutputError(f"{_named(label, path)}: cannot write it: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return p
