"""Choosing the kit's language (stsedu.i18n): set_language, STSEDU_LANG, the locale, English by default;
what stays English whatever the language (kubectl's output, the decision messages that mirror upstream's
log lines), as on a real cluster."""

from __future__ import annotations

import pytest

import stsedu
from stsedu.i18n import _, current_language, ngettext, set_language
from helpers import web

LOCALE_VARS = ("STSEDU_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def env(monkeypatch):
    """No language chosen anywhere: the test sets what it needs."""
    for var in LOCALE_VARS:
        monkeypatch.delenv(var, raising=False)
    set_language(None)
    yield monkeypatch
    set_language(None)


def test_english_when_nothing_chooses(env):
    assert current_language() == "en"
    assert _("Sync") == "Sync"


@pytest.mark.parametrize("name", ["zh", "zh_CN", "zh-CN", "zh-cn", "ZH"])
def test_set_language_speaks_chinese_and_en_goes_back(env, name):
    assert stsedu.set_language(name) == "zh_CN"
    assert _("Sync") == "同步"
    assert stsedu.set_language("en") == "en"
    assert _("Sync") == "Sync"


def test_unknown_language_is_a_clear_error_and_changes_nothing(env):
    stsedu.set_language("zh")
    with pytest.raises(ValueError, match=r"unknown language 'fr'.*'en'.*'zh'"):
        stsedu.set_language("fr")
    assert current_language() == "zh_CN"


def test_stsedu_lang_chooses_when_set_language_did_not(env):
    env.setenv("STSEDU_LANG", "zh-CN")
    env.setenv("LANG", "en_US.UTF-8")  # STSEDU_LANG wins over the locale
    assert _("Sync") == "同步"
    stsedu.set_language("en")  # and set_language over STSEDU_LANG
    assert _("Sync") == "Sync"


def test_unknown_stsedu_lang_warns_and_speaks_english(env):
    env.setenv("STSEDU_LANG", "klingon")
    with pytest.warns(UserWarning, match="STSEDU_LANG='klingon'"):
        assert current_language() == "en"


@pytest.mark.parametrize("var, value, want", [
    ("LANG", "zh_CN.UTF-8", "zh_CN"),
    ("LC_ALL", "zh_CN.utf8", "zh_CN"),
    ("LC_MESSAGES", "zh_CN", "zh_CN"),
    ("LANGUAGE", "fr:zh_CN:en", "zh_CN"),  # a priority list: the first the kit speaks
    ("LANG", "de_DE.UTF-8", "en"),  # a locale the kit does not speak: English
])
def test_the_locale_chooses_last(env, var, value, want):
    env.setenv(var, value)
    assert current_language() == want


def test_the_first_locale_variable_set_decides(env):
    env.setenv("LC_ALL", "en_US.UTF-8")
    env.setenv("LANG", "zh_CN.UTF-8")
    assert current_language() == "en"


def test_ngettext_has_one_form_in_chinese(env):
    assert ngettext("{n} pod", "{n} pods", 2) == "{n} pods"
    set_language("zh")
    # an untranslated plural falls back to English's forms; a translated one has Chinese's single form
    assert ngettext("{n} pod", "{n} pods", 1) == "{n} pod"


def test_switching_after_import_changes_what_is_made_afterwards(env):
    """A widget made after set_language speaks the new language; one made before keeps its labels."""
    from stsedu.widgets.stepper import SyncStepper
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    before = SyncStepper(c)
    set_language("zh")
    after = SyncStepper(c)
    assert (before.sync_button.description, after.sync_button.description) == ("Sync", "同步")


def test_kubectl_output_and_decision_messages_stay_english(env):
    """Upstream's log lines and kubectl's output are the same under zh as under en (a real cluster's are
    English whatever the reader's language)."""
    from stsedu.console.session import Session

    def run():
        s = Session(stsedu.Cluster(seed=0))
        applied = s.run("apply -f -", stdin=_manifest()).text
        c = s.cluster
        c.run()
        messages = list(c.trace.decisions()["message"])
        return applied, s.run("get pods,sts,pvc").text, s.run("describe sts web").text, messages

    english = run()
    set_language("zh")
    assert run() == english
    assert english[3], "the run made decisions"


def _manifest() -> str:
    import yaml
    return yaml.safe_dump(web(3, claims=True))
