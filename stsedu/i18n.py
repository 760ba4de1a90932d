"""The kit's own words in the learner's language: English, or Simplified Chinese.

The language is, in this order: the one given to :func:`set_language` (``"zh"``, ``"zh_CN"``,
``"zh-CN"``; ``"en"`` goes back to English), else the ``STSEDU_LANG`` environment variable, else
the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them), else
English.  Texts are looked up with Python's :mod:`gettext` in the catalogue shipped in
``stsedu/locale/<lang>/LC_MESSAGES/stsedu.mo`` (compiled from the ``.po`` beside it by Babel:
``python tools/kit_catalogue.py``).

:func:`_` and :func:`ngettext` look the language up at every call, so after
``stsedu.set_language("zh")`` every lab, reveal, exercise, table and chart made from then on speaks
Chinese.  A lab already on screen keeps the words it was drawn with until it draws them again:
its labels and buttons were made in the old language, while the status lines it writes after
the switch (a step, a reveal) come in the new one.  Run its cell again to see it all in the new
language.

What stays English whatever the language, as on a real cluster: kubectl's output, the API
server's messages, the decision messages that mirror upstream's log lines, event reasons, field
names and upstream's function names.  Those strings are never wrapped in :func:`_`.

Only the standard library is used here; Babel is needed to extract and compile the catalogue
(a development tool), not to run the kit.
"""

from __future__ import annotations

import gettext as _gettext
import os
import warnings
from functools import lru_cache
from pathlib import Path

DOMAIN = "stsedu"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENGLISH = "en"
#: The languages the kit speaks, as catalogue folder names.
LANGUAGES = (ENGLISH, "zh_CN")
#: What a learner may type for each of them (compared in lower case, "-" read as "_").
_ALIASES = {"en": ENGLISH, "en_us": ENGLISH, "en_gb": ENGLISH, "c": ENGLISH, "posix": ENGLISH,
            "zh": "zh_CN", "zh_cn": "zh_CN", "zh_hans": "zh_CN", "zh_hans_cn": "zh_CN", "zh_sg": "zh_CN"}
_LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_chosen: str | None = None  # set_language's choice; None: the environment decides


def _normalize(name: str) -> str | None:
    """The catalogue name for *name* (``"zh-CN"`` -> ``"zh_CN"``), or None when the kit does not
    speak it.  An encoding or modifier (``zh_CN.UTF-8``, ``en_US@euro``) is ignored."""
    key = name.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    return _ALIASES.get(key)


def set_language(language: str | None) -> str:
    """Speak *language* from now on: ``"zh"`` (also ``"zh_CN"``, ``"zh-CN"``) for Simplified
    Chinese, ``"en"`` for English; ``None`` lets ``STSEDU_LANG`` or the locale decide again.
    Returns the language now spoken.  An unknown language raises ``ValueError`` and changes
    nothing.  Labs already on screen keep the words they were drawn with (see the module's text)."""
    global _chosen
    if language is None:
        _chosen = None
        return current_language()
    found = _normalize(str(language))
    if found is None:
        raise ValueError(f"unknown language {language!r}: stsedu speaks "
                         "'en' (English) and 'zh' (Simplified Chinese; also 'zh_CN', 'zh-CN')")
    _chosen = found
    return found


def current_language() -> str:
    """The language the kit speaks now (``"en"`` or ``"zh_CN"``), chosen as the module's text says."""
    if _chosen is not None:
        return _chosen
    wanted = os.environ.get("STSEDU_LANG", "").strip()
    if wanted:
        found = _normalize(wanted)
        if found is not None:
            return found
        _warn_unknown(wanted)
        return ENGLISH
    for var in _LOCALE_VARS:
        value = os.environ.get(var, "").strip()
        if not value:
            continue
        # LANGUAGE is a priority list (zh_CN:en); the others name one locale.  The first variable
        # that is set decides, as gettext does; a locale the kit does not speak means English.
        for name in value.split(":") if var == "LANGUAGE" else (value,):
            found = _normalize(name)
            if found is not None:
                return found
        return ENGLISH
    return ENGLISH


@lru_cache(maxsize=None)
def _warn_unknown(value: str) -> None:
    warnings.warn(f"STSEDU_LANG={value!r} is not a language stsedu speaks ('en', 'zh'); "
                  "speaking English", stacklevel=3)


@lru_cache(maxsize=None)
def translations(language: str) -> _gettext.NullTranslations:
    """The gettext catalogue of *language* (English: no catalogue, the texts as written)."""
    if language == ENGLISH:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[language])


def _(message: str) -> str:
    """*message* in the current language (the English text when it has no translation)."""
    return translations(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for *n*, in the current language (Chinese has one form)."""
    return translations(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """*message* in the current language, told apart by *context* from the same English text
    used elsewhere (a column title and a button, say)."""
    return translations(current_language()).pgettext(context, message)


def N_(message: str) -> str:
    """Marks *message* for the catalogue without translating it now (a module-level constant):
    translate it with :func:`_` where it is shown."""
    return message
