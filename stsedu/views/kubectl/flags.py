"""kubectl's command line, parsed as cobra and pflag parse it.

A line is split like a POSIX shell splits it (:func:`shlex.split`: quotes, backslashes), then
the first word names the command (``get``, ``rollout status``, ``set image``...) and the rest
is read by pflag's rules:

* ``--name=value`` and ``--name value``; a boolean takes no separate value (``--force``,
  ``--force=false``);
* ``-n value``, ``-nvalue``, ``-n=value``; boolean shorthands may be grouped (``-it``);
* flags may come anywhere among the arguments (cobra's interspersed flags); ``--`` ends the
  flags and the words after it are kept apart (``exec web-0 -- hostname``).

Errors are pflag's and cobra's own sentences, with kubectl's ``error:`` prefix and, for a flag,
its ``See 'kubectl get --help' for usage.`` line (``FlagErrorFunc``): ``unknown flag:
--replica``, ``unknown shorthand flag: 'z' in -z``, ``flag needs an argument: --replicas``,
``invalid argument "x" for "--replicas" flag: strconv.ParseInt: parsing "x": invalid
syntax``, ``unknown command "gett" for "kubectl"`` with cobra's suggestions.  (The command line
itself never prints cobra's ``Run 'kubectl --help' for usage.``: kubectl silences cobra's errors
and prints them with ``CheckErr``.)
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

__all__ = ["Flag", "Parsed", "UsageError", "KubectlError", "Help", "split", "parse", "COMMANDS"]

MAX_LINE = 100_000
"""The longest command line read (characters); longer is refused before it is split."""
MAX_WORDS = 1_000
MAX_OUTPUT = 2_000_000
"""The most characters one command prints on stdout: past it the output is cut with a note, as a
terminal's scrollback would drop it (``exec … -- cat`` of one file 300 times, ``get -o yaml`` of
thousands of pods); the simulated shell stops producing output there too."""


class KubectlError(Exception):
    """What kubectl prints on stderr before it exits (the text, without a final newline), and the status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class Help(KubectlError):
    """``--help``, ``-h`` or ``help``: kubectl prints the help on stdout and exits 0 (the *message*)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=0)


class FlagError(KubectlError):
    """A flag pflag cannot read: kubectl's ``FlagErrorFunc`` (util/templates) adds ``See 'kubectl CMD
    --help' for usage.``"""

    def __init__(self, message: str, path: str = "kubectl") -> None:
        super().__init__(f"error: {message}\nSee '{path} --help' for usage.")


class UsageError(KubectlError):
    """A flag or argument error: kubectl adds ``See 'kubectl CMD -h' for help and examples``."""

    def __init__(self, message: str, path: str = "kubectl") -> None:
        super().__init__(f"error: {message}\nSee '{path} -h' for help and examples")


@dataclass(frozen=True)
class Flag:
    """One flag: long *name*, *short* letter, *kind* (``bool``, ``string``, ``int``, ``strings``:
    repeatable or comma-separated, ``array``: repeatable), *default*, and *bare*: the value a
    flag that is given without ``=value`` takes (pflag's ``NoOptDefVal``)."""

    name: str
    short: str = ""
    kind: str = "string"
    default: object = None
    bare: str | None = None


def _f(name, short="", kind="string", default=None, bare=None):
    return Flag(name, short, kind, default, bare)


GLOBAL = (_f("namespace", "n", default="default"), _f("request-timeout", default="0"),
          _f("context"), _f("kubeconfig"))
"""kubectl's persistent flags the kit honours: ``-n`` and ``--request-timeout`` (how long ``get -w``
watches); ``--context`` and ``--kubeconfig`` are accepted and mean nothing to the embedded cluster."""

_OUTPUT = (_f("output", "o", default=""), _f("template", default=""),
           _f("allow-missing-template-keys", kind="bool", default=True), _f("show-managed-fields", kind="bool"))
_FILES = (_f("filename", "f", kind="array", default=()), _f("recursive", "R", kind="bool"))
_SELECT = (_f("selector", "l", default=""), _f("all", kind="bool"))

COMMANDS: dict[str, tuple[Flag, ...]] = {
    "apply": _FILES + _OUTPUT + (_f("selector", "l", default=""), _f("dry-run", default="none", bare="unchanged"),
                                 _f("server-side", kind="bool"), _f("force-conflicts", kind="bool"),
                                 _f("validate", default="strict", bare="strict")),
    "create": _FILES + _OUTPUT + (_f("dry-run", default="none", bare="unchanged"),
                                  _f("validate", default="strict", bare="strict")),
    "delete": _FILES + _SELECT + (
        _f("output", "o", default=""), _f("cascade", default="background", bare="background"),
        _f("wait", kind="bool", default=True), _f("grace-period", kind="int", default=-1),
        _f("force", kind="bool"), _f("now", kind="bool"), _f("ignore-not-found", kind="bool"),
        _f("timeout", kind="duration", default="0s")),
    "get": _OUTPUT + (
        _f("selector", "l", default=""), _f("label-columns", "L", kind="strings", default=()),
        _f("watch", "w", kind="bool"), _f("watch-only", kind="bool"), _f("output-watch-events", kind="bool"),
        _f("show-labels", kind="bool"), _f("no-headers", kind="bool"), _f("ignore-not-found", kind="bool")),
    "describe": (_f("selector", "l", default=""), _f("show-events", kind="bool", default=True)),
    "scale": _SELECT + (_f("replicas", kind="int", default=-1), _f("current-replicas", kind="int", default=-1),
                        _f("output", "o", default=""), _f("timeout", kind="duration", default="0s")),
    "set image": _SELECT + (_f("output", "o", default=""),),
    "patch": (_f("patch", "p", default=""), _f("type", default="strategic"), _f("patch-file", default=""),
              _f("output", "o", default=""), _f("subresource", default="")),
    "edit": (_f("output", "o", default=""), _f("filename", "f", kind="array", default=())),
    "rollout status": (_f("watch", "w", kind="bool", default=True), _f("revision", kind="int", default=0),
                       _f("timeout", kind="duration", default="0s")),
    "rollout history": (_f("revision", kind="int", default=0), _f("output", "o", default="")),
    "rollout undo": (_f("to-revision", kind="int", default=0), _f("output", "o", default="")),
    "rollout restart": (_f("output", "o", default=""),),
    "rollout pause": (_f("output", "o", default=""),),
    "rollout resume": (_f("output", "o", default=""),),
    "label": _SELECT + (_f("overwrite", kind="bool"), _f("output", "o", default=""), _f("list", kind="bool")),
    "annotate": _SELECT + (_f("overwrite", kind="bool"), _f("output", "o", default=""), _f("list", kind="bool")),
    "exec": (_f("stdin", "i", kind="bool"), _f("tty", "t", kind="bool"), _f("container", "c", default=""),
             _f("quiet", "q", kind="bool")),
    "run": (_f("image", default=""), _f("stdin", "i", kind="bool"), _f("tty", "t", kind="bool"),
            _f("restart", default="Always"), _f("rm", kind="bool"), _f("command", kind="bool"),
            _f("labels", "l", default=""), _f("quiet", "q", kind="bool")),
    "version": (_f("client", kind="bool"), _f("output", "o", default="")),
}
"""Each command the kit simulates and the flags kubectl's command of that name has that the kit reads."""

PARENTS = {"rollout": ("history", "pause", "restart", "resume", "status", "undo"), "set": ("image",)}
"""Commands whose first argument names a subcommand."""

KNOWN_ELSEWHERE = ("logs", "attach", "cp", "port-forward", "proxy", "top", "expose", "autoscale", "replace",
                   "diff", "wait", "explain", "events", "debug", "auth", "config", "cluster-info",
                   "api-resources", "api-versions", "certificate", "cordon", "drain", "taint", "uncordon",
                   "kustomize", "plugin", "completion", "alpha", "options")
"""kubectl commands that exist but that the kit does not simulate (a clear message, not ``unknown command``)."""


@dataclass
class Parsed:
    """A parsed line: *command* (``get``, ``rollout undo``), positional *args*, the words after
    ``--`` (*after_dash*), the flag *values* (every flag of the command, defaults included) and
    the names the line *set*."""

    command: str
    args: list[str]
    after_dash: list[str]
    values: dict[str, object]
    set: set[str] = field(default_factory=set)
    line: str = ""

    def __getitem__(self, name: str):
        return self.values[name]

    def path(self) -> str:
        return f"kubectl {self.command}"


def split(line: str) -> list[str]:
    """The words of *line* as a POSIX shell would pass them (a leading ``kubectl`` dropped)."""
    if len(line) > MAX_LINE:
        raise KubectlError(f"error: the command line is {len(line)} characters long; "
                           f"the kit reads at most {MAX_LINE}")
    try:
        words = shlex.split(line, comments=False, posix=True)
    except ValueError as e:  # an unclosed quote: what a shell would refuse
        raise KubectlError(f"error: the command line cannot be split into words: {e}") from None
    if len(words) > MAX_WORDS:
        raise KubectlError(f"error: the command line has {len(words)} words; the kit reads at most {MAX_WORDS}")
    if words and words[0] == "kubectl":
        words = words[1:]
    return words


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (cobra's ``ld``, case-insensitive)."""
    a, b = a.lower(), b.lower()
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


_ALL_COMMANDS = sorted(set(c.split()[0] for c in COMMANDS) | set(KNOWN_ELSEWHERE) | {"help"})


KUBECTL_ORDER = ("create", "expose", "run", "set", "explain", "get", "edit", "delete", "rollout", "scale",
                 "autoscale", "certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint",
                 "describe", "logs", "attach", "exec", "port-forward", "proxy", "cp", "auth", "debug", "events",
                 "diff", "apply", "patch", "replace", "wait", "kustomize", "label", "annotate", "completion",
                 "alpha", "config", "plugin", "version", "api-versions", "api-resources", "options", "help")
"""The order kubectl adds its commands in (its command groups, then the rest): cobra suggests in this order."""


def _kubectl_order(command: str) -> tuple[int, str]:
    return (KUBECTL_ORDER.index(command) if command in KUBECTL_ORDER else len(KUBECTL_ORDER), command)


def _unknown_command(name: str) -> KubectlError:
    """cobra's ``unknown command "x" for "kubectl"`` with its "Did you mean this?" list (commands within
    Levenshtein distance 2, or that start with what was typed; ``findSuggestions``), printed by
    kubectl's ``CheckErr`` with its ``error:`` prefix."""
    near = sorted((c for c in _ALL_COMMANDS if _distance(name, c) <= 2 or c.startswith(name.lower())),
                  key=_kubectl_order)
    text = f'error: unknown command "{name}" for "kubectl"'
    if near:
        text += "\n\nDid you mean this?\n" + "".join(f"\t{c}\n" for c in near)
    return KubectlError(text)


_INT = re.compile(r"[+-]?(0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]*|0[bB][01_]+|[1-9][0-9_]*|0)$")
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def _convert(flag: Flag, value: str, shown: str, path: str = "kubectl"):
    """*value* as pflag's typed flag takes it, or pflag's ``invalid argument`` error."""
    def bad(why: str) -> UsageError:
        return FlagError(f'invalid argument "{value}" for "{shown}" flag: {why}', path)
    if flag.kind == "bool":
        if value not in _BOOLS:
            raise bad(f'strconv.ParseBool: parsing "{value}": invalid syntax')
        return _BOOLS[value]
    if flag.kind == "duration":  # pflag's DurationVar: time.ParseDuration when the flag is read
        go_duration(value, shown, path)
        return value
    if flag.kind == "int":
        if not _INT.match(value) or "__" in value or value.endswith("_"):
            raise bad(f'strconv.ParseInt: parsing "{value}": invalid syntax')
        n = int(value.replace("_", ""), 0)
        if not -2**63 <= n < 2**63:
            raise bad(f'strconv.ParseInt: parsing "{value}": value out of range')
        return n
    return value


HELP_WORDS = ("-h", "--help", "--help=true")


def _flag_line(f: Flag) -> str:
    names = f"-{f.short}, --{f.name}" if f.short else f"    --{f.name}"
    if f.kind in ("array", "strings"):
        default = "=[]"
    elif f.kind == "bool":
        default = "=true" if f.default else "=false"
    else:
        default = f"='{f.default or ''}'" if f.kind == "string" else f"={f.default}"
    return f"    {names}{default}\n"


def help_text(command: str | None = None) -> str:
    """What ``kubectl --help`` (or ``kubectl CMD --help``) prints here: the commands the embedded
    cluster simulates, or the flags of *command* the kit reads."""
    if command is None:
        simulated = sorted({c.split()[0] for c in COMMANDS}, key=_kubectl_order)
        return ("kubectl controls the stsedu embedded cluster (a simulated API server, StatefulSet "
                "controller and kubelet).\n\n"
                "Commands simulated:\n" + "".join(f"  {c}\n" for c in simulated)
                + "\nkubectl commands not simulated here: " + ", ".join(KNOWN_ELSEWHERE) + "\n\n"
                "Usage:\n  kubectl [flags] [options]\n\n"
                'Use "kubectl <command> --help" for more information about a given command.\n')
    if command in PARENTS:
        return (f"kubectl {command}: one of its subcommands: " + ", ".join(PARENTS[command]) + "\n\n"
                f"Usage:\n  kubectl {command} SUBCOMMAND\n")
    flags = sorted(COMMANDS[command] + GLOBAL, key=lambda f: f.name)
    return (f"kubectl {command} (simulated by stsedu)\n\nOptions the embedded cluster reads:\n"
            + "".join(_flag_line(f) for f in flags)
            + f"\nUsage:\n  kubectl {command} [flags] [options]\n")


def _help_asked(words: list[str]) -> bool:
    head = words[:words.index("--")] if "--" in words else words
    return any(w in HELP_WORDS for w in head)


MAX_DURATION = (2 ** 63 - 1) / 1e9
"""Go's longest ``time.Duration`` in seconds (about 292 years); a longer one is ``invalid duration``."""

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def go_duration(text: str, shown: str, path: str = "kubectl", bare_seconds: bool = False) -> float:
    """*text* as Go's ``time.ParseDuration`` reads it (``30s``, ``1m30s``, ``500ms``, ``0``), in
    seconds; with *bare_seconds* a bare integer is seconds (kubectl's ``--request-timeout``).
    pflag's ``invalid argument ... time: invalid duration`` otherwise, overflow included."""
    def bad() -> FlagError:
        return FlagError(f'invalid argument "{text}" for "{shown}" flag: time: invalid duration "{text}"', path)
    t = str(text)
    if len(t) > 100:
        raise bad()
    if bare_seconds and re.fullmatch(r"[0-9]+", t):
        seconds = float(int(t))
    elif t in ("0", "+0", "-0"):
        return 0.0
    else:
        sign, body = (-1.0 if t[:1] == "-" else 1.0), t.lstrip("+-") if t[:1] in "+-" else t
        parts = _DURATION.findall(body)
        if not body or not parts or "".join(a + b for a, b in parts) != body or \
                any(a in ("", ".") for a, _ in parts):
            raise bad()
        seconds = sign * sum(float(a) * _UNITS[u] for a, u in parts)
    if abs(seconds) > MAX_DURATION:
        raise bad()
    return seconds


def parse(words: list[str]) -> Parsed:
    """Find the command and read its flags; raise :class:`KubectlError` as kubectl reports a bad line
    (:class:`Help`, status 0, for ``--help``)."""
    if not words or words[0] == "help":
        if words[1:2] and words[1] in COMMANDS or words[1:2] and words[1] in PARENTS:
            raise Help(help_text(words[1]))
        if words:
            raise Help(help_text())
        raise KubectlError("error: no command given; try %kubectl get pods\nRun 'kubectl --help' for usage.")
    # the command is the first word that is not a flag (global flags may come before it)
    globals_before: list[str] = []
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        globals_before.append(words[i])
        head = words[i].lstrip("-").split("=", 1)[0]
        if "=" not in words[i] and head in ("n", "namespace", "request-timeout", "context", "kubeconfig") \
                and i + 1 < len(words):
            globals_before.append(words[i + 1])
            i += 1
        i += 1
    if (i >= len(words) or words[i] == "--") and _help_asked(words[:i]):
        raise Help(help_text())
    if i >= len(words) or words[i] == "--":
        raise KubectlError("error: no command given; try %kubectl get pods\nRun 'kubectl --help' for usage.")
    name, rest = words[i], globals_before + words[i + 1:]
    if name in PARENTS:
        sub = next((w for w in rest if not w.startswith("-")), None)
        if _help_asked(rest):
            raise Help(help_text(f"{name} {sub}" if f"{name} {sub}" in COMMANDS else name))
        if sub is None:
            raise KubectlError(f"error: kubectl {name} needs a subcommand: "
                               + ", ".join(PARENTS[name]) + f"\nRun 'kubectl {name} --help' for usage.")
        if sub not in PARENTS[name]:  # DefaultSubCommandRun's RequireNoArguments
            extra = " ".join(w for w in rest if not w.startswith("-"))
            raise UsageError(f'unknown command "{extra}"', f"kubectl {name}")
        rest.remove(sub)
        name = f"{name} {sub}"
    elif name not in COMMANDS:
        if name in KNOWN_ELSEWHERE:
            raise KubectlError(f"error: stsedu does not simulate 'kubectl {name}'; the embedded cluster "
                               "answers: " + ", ".join(sorted(c for c in COMMANDS)))
        raise _unknown_command(name)
    if _help_asked(rest):
        raise Help(help_text(name))
    path = f"kubectl {name}"
    flags = COMMANDS[name] + GLOBAL
    by_long = {f.name: f for f in flags}
    by_short = {f.short: f for f in flags if f.short}
    values: dict[str, object] = {f.name: (list(f.default) if f.kind in ("array", "strings") else f.default)
                                 for f in flags}
    given: set[str] = set()
    args: list[str] = []
    after: list[str] = []

    def shown(f: Flag) -> str:
        return f"-{f.short}, --{f.name}" if f.short else f"--{f.name}"

    def store(f: Flag, value: str) -> None:
        if f.kind in ("array", "strings"):
            if f.name not in given:
                values[f.name] = []
            parts = value.split(",") if f.kind == "strings" else [value]
            values[f.name].extend(p for p in parts if p or f.kind == "array")
        else:
            values[f.name] = _convert(f, value, shown(f), path)
        given.add(f.name)

    def store_next(f: Flag, j: int, named: str) -> int:
        """A flag given without ``=value``: its bare value, else the next word (returns the next index)."""
        if f.bare is not None:
            store(f, f.bare)
            return j
        if j < len(rest):
            store(f, rest[j])
            return j + 1
        raise FlagError(f"flag needs an argument: {named}", path)

    j = 0
    while j < len(rest):
        w = rest[j]
        j += 1
        if w == "--":
            after = rest[j:]
            break
        if w.startswith("--") and len(w) > 2:
            key, eq, value = w[2:].partition("=")
            f = by_long.get(key)
            if f is None:
                raise FlagError(f"unknown flag: --{key}", path)
            if eq:
                store(f, value)
            elif f.kind == "bool":
                store(f, "true")
            else:
                j = store_next(f, j, f"--{key}")
        elif w.startswith("-") and len(w) > 1:
            letters = w[1:]
            k = 0
            while k < len(letters):
                c = letters[k]
                f = by_short.get(c)
                if f is None:
                    raise FlagError(f"unknown shorthand flag: '{c}' in -{letters}", path)
                tail = letters[k + 1:]
                if tail.startswith("="):
                    store(f, tail[1:])
                    break
                if f.kind == "bool":
                    store(f, "true")
                    k += 1
                    continue
                if tail:
                    store(f, tail)
                else:
                    j = store_next(f, j, f"'{c}' in -{letters}")
                break
        else:
            args.append(w)
    return Parsed(name, args, after, values, given, " ".join(words))
