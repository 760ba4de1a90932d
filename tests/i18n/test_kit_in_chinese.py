"""Under stsedu.set_language("zh") the kit's own words are Chinese — lab titles, buttons, status lines,
reveals, "wrong form" messages, chart titles, axes and tooltips — while kubectl's text, the API server's
messages and the decision messages (upstream's log lines) stay English."""

from __future__ import annotations

import json
import re

import pytest

import stsedu
from stsedu.widgets import labs

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")  # ideographs and full-width punctuation


@pytest.fixture
def zh():
    stsedu.set_language("zh")
    yield
    stsedu.set_language("en")


LAB_CLASSES = [getattr(labs, n) for n in labs.__all__ if n.endswith("Lab") and n != "Lab"]


@pytest.mark.parametrize("cls", LAB_CLASSES, ids=lambda c: c.__name__)
def test_every_lab_draws_in_chinese(zh, cls):
    lab = cls()
    title = lab.header.value
    assert CJK.search(title), title
    assert "实验" in title                                  # "… lab" is 实验 in every title
    assert cls.title not in title                          # the English title is not shown
    assert CJK.search(lab.did_area.value) or not lab.did_area.value
    buttons = [w.description for w in _walk(lab.widget) if type(w).__name__ == "Button" and w.description]
    assert buttons and all(CJK.search(b) or b.startswith("kubectl") for b in buttons), buttons


def _walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


def test_a_lab_change_reports_in_chinese_with_kubectl_in_english(zh):
    lab = labs.ScalingLab()
    lab.scale(4)
    did = lab.did_area.value
    assert "你在 t=" in did and "<code>kubectl scale sts web --replicas=4</code>" in did
    assert "次同步" in did and "现在 t=" in did
    assert "<th>原因</th>" in lab.decisions.value
    # the decisions' messages are upstream's log lines: English, as on a real cluster
    assert "Pod web-3" in lab.decisions.value or "web-3" in lab.decisions.value
    assert "NAME" in lab.text.value and "READY" in lab.text.value  # kubectl get pods, as printed


def test_a_refused_change_keeps_the_api_servers_english(zh):
    lab = labs.ScalingLab()
    lab.scale(-1)
    # the API server's words stay English; only the kit's note around them is translated
    assert "spec.replicas" in lab.did_area.value and "must be greater than or equal to 0" in lab.did_area.value


@pytest.mark.parametrize("qid", ["03.a", "05.a", "06.a", "11.b"])
def test_reveals_speak_chinese(zh, qid):
    q = labs.question(qid)
    ask = labs.reveal(qid)
    assert ask.text.startswith(f"问题 {qid}：") and "还没有记录预测" in ask.text
    assert q.text not in ask.text                            # the English question is not shown
    got = q.act(q.setup())
    right = labs.reveal(qid, got)
    assert "✓ 正确" in right.text and "规则：" in right.text and q.why not in right.text


def test_wrong_form_message_is_chinese(zh):
    text = labs.reveal("06.a", "web-3").text
    assert "形式不对，而不是答案错了" in text and "要求的是一个列表" in text and "'web-3'" in text


def test_charts_titles_axes_and_tooltips_are_chinese(zh):
    from stsedu.views import charts
    c = stsedu.Cluster(seed=0)
    c.apply(stsedu.examples.web(3))
    c.run()
    spec = json.dumps(charts.pod_timeline(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "web 的 Pod 随时间的变化" in spec and "时间（秒）" in spec and "Pod 状态" in spec
    spec = json.dumps(charts.revision_map(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "web 的修订版本" in spec
    spec = json.dumps(charts.status_counters(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "web 的状态随时间的变化" in spec


def test_english_is_back_after_switching(zh):
    stsedu.set_language("en")
    assert labs.ScalingLab().header.value.count("Scaling lab") == 1
    assert labs.reveal("06.a").text.startswith("Question 06.a:")


def test_exercise_feedback_and_answer_sheet_speak_chinese(zh):
    """The kit's words around an exercise are Chinese (the situation table stays kubectl-like)."""
    ex = stsedu.exercises.get("03.1")
    assert ex.check(None, record=False).message == "练习 03.1：请先写下你的预测（" + ex.answer_format + "）。"
    wrong = ex.check([("create", "web-2")], record=False)
    assert wrong.message.startswith("✗ 练习 03.1：不完全对——你的答案是 ")
    right = ex.check(ex.expected_answer(), record=False)
    assert right.message.startswith("✓ 练习 03.1：正确。")
    assert CJK.search(right.message.split("。", 1)[1])  # the rule (why) from the YAML, translated
    sheet = stsedu.exercises.Handout([{"id": "T.1", "title": "", "points": 1, "question": "q1", "situation": "",
                                       "kind": "number", "format": "a number"}])
    try:
        assert sheet.answer("T.1", 3) == "练习 T.1：答案已记录（3）；交卷之后才会评分。"
    finally:
        from stsedu.lessons.exercises import modes
        modes._STATE["mode"] = modes.PRACTICE  # the handout turned assessed mode on (as tests/lessons do)


def test_playground_buttons_and_views_speak_chinese(zh):
    from stsedu.widgets import Playground
    pg = Playground()
    assert pg.sync_button.description == "同步一次" and pg.run_button.description == "运行到稳定"
    assert "Pod 时间线" in pg.tabs.titles
    pg.sync_once()
    headings = [w.value for w in _walk(pg.widget) if type(w).__name__ == "HTML"]
    assert any("上一次同步的决定" in h for h in headings)


def test_exercise_question_answer_form_and_hints_speak_chinese(zh, capsys):
    """The library's exercise texts (question, why, hints, the answer form) are in the catalogue and
    shown in Chinese; the exercise itself keeps its English (graders and handouts read that)."""
    ex = stsedu.exercises.get("09.2")
    ex.show()
    shown = capsys.readouterr().out
    assert "A Parallel set of" not in shown and "并行" in shown
    assert ex.question.startswith("A Parallel set of")
    pods = stsedu.exercises.get("01.4")
    assert pods.answer_format == 'Pod 名称的列表，例如 ["web-0"]'
    wrong = pods.check(["web-4"], record=False)
    assert "缩容" in wrong.message and "HIGHEST" not in wrong.message


def test_decisions_frame_shows_the_rule_in_chinese_and_the_message_in_english(zh):
    """The frame's rule column is translated (as the labs' tooltips are); the message mirrors
    upstream's log line and stays English, and so does the decision itself."""
    from stsedu import tables
    from stsedu.controller.decisions import Decision
    d = Decision(action="wait", pod="web-1", reason="terminating", message="web-1 is terminating; wait.",
                 rule="processReplica: wait for terminating pod")
    row = tables.decisions_frame([d], sync=3, time=1.0).iloc[0]
    assert row["rule"] == "processReplica：等待终止中的 Pod"
    assert row["message"] == "web-1 is terminating; wait."
    assert d.rule == "processReplica: wait for terminating pod"
    assert d.rule_text == "processReplica：等待终止中的 Pod"
    stsedu.set_language("en")
    assert tables.decisions_frame([d], sync=3, time=1.0).iloc[0]["rule"] == d.rule


def test_a_labs_decision_table_says_why_with_the_translated_rule(zh):
    """Under Chinese the labs' "why" column shows the rule translated; upstream's English message
    (which the catalogue's own sentences would otherwise echo) moves to the row's tooltip."""
    from types import SimpleNamespace
    from stsedu.controller.decisions import Decision
    from stsedu.widgets.lab_base import decisions_html
    d = Decision(action="wait", pod="web-1", reason="terminating", message="web-1 is terminating; wait.",
                 rule="processReplica: wait for terminating pod")
    html = decisions_html([SimpleNamespace(sync=2, time=1.0, decisions=[d])])
    cells = re.findall(r"<td>([^<]*)</td>", html)
    assert cells == ["processReplica：等待终止中的 Pod"]
    assert "web-1 is terminating; wait." in re.search(r"title='([^']*)'", html).group(1)
    stsedu.set_language("en")
    assert re.findall(r"<td>([^<]*)</td>", decisions_html([SimpleNamespace(sync=2, time=1.0, decisions=[d])])) \
        == ["web-1 is terminating; wait."]


def test_the_comparison_summary_and_the_answer_sheet_notice_speak_chinese(zh):
    """Notebook 15's summary of two controllers, and saving an empty answer sheet (notebook 13)."""
    cmp = stsedu.compare.compare(lambda c: c.settle("web"), stsedu.examples.web(3), kubelet="manual")
    text = cmp.summary()
    assert "两个控制器" in text and "The two controllers" not in text and "syncs" not in text
    stsedu.set_language("en")
    assert "The two controllers made the same decisions in every sync." in cmp.summary()


def test_a_decisions_table_has_its_caption_and_titles_in_chinese(zh):
    """The Styler a notebook shows (stsedu.tables.decisions_table): caption and column titles in
    Chinese; the frame under it keeps its column names (code reads them), the cells stay as recorded."""
    from stsedu import tables
    c = stsedu.Cluster(seed=0)
    c.apply(stsedu.examples.web(3))
    r = c.sync("web")
    styler = tables.decisions_table(r.decisions, sync=r.sync, time=r.time)
    page = styler.to_html()
    assert f"第 {r.sync} 次同步：{len(r.decisions)} 个决定" in page and "绿色 create" in page
    titles = re.findall(r"<th [^>]*class=\"col_heading[^>]*>([^<]*)</th>", page)
    assert titles[:3] == ["同步", "时间", "动作"] and "规则" in titles and "rule" not in titles
    assert list(styler.data.columns[:3]) == ["sync", "time", "action"]
    stsedu.set_language("en")
    page = tables.decisions_table(r.decisions, sync=r.sync, time=r.time).to_html()
    assert f"Sync {r.sync}: {len(r.decisions)} decision" in page and ">rule</th>" in page


def test_the_live_lessons_note_speaks_chinese_and_the_trace_keeps_it_english(zh):
    """Notebook 17 prints what the real cluster's trace says of itself (it holds writes, not decisions)."""
    from stsedu.live import lesson
    from stsedu.live.recorder import NOTE
    run = lesson.stored()
    assert run.note.startswith("这是真实集群的追踪记录") and "观察不到" in run.note
    assert run.live_trace.meta["note"] == NOTE  # as recorded and stored with the kit
    stsedu.set_language("en")
    assert run.note == NOTE


def test_the_claim_tables_fate_speaks_chinese(zh):
    """Notebook 02's claim table says what becomes of each claim in the learner's language; the
    owners stay as kubectl names them (pod/web-2)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(stsedu.examples.web(3, volumeClaimTemplates=[{
        "metadata": {"name": "www"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                              "resources": {"requests": {"storage": "1Gi"}}}}],
        persistentVolumeClaimRetentionPolicy={"whenScaled": "Delete", "whenDeleted": "Retain"}))
    c.settle("web")
    assert list(stsedu.claim_table(c, "web")["fate"]) == ["保留：没有属主，不会有谁删除它"] * 3
    c.scale("web", 2)
    c.sync("web")
    assert stsedu.claim_table(c, "web").iloc[2]["fate"] == "pod/web-2 不存在之后，由垃圾收集器删除"


def test_the_pod_charts_legends_and_aggregated_cells_speak_chinese(zh, monkeypatch):
    """The pod timeline legend's "Running, not Ready", the revision map's Ready / not Ready / terminating and, on a chart too big to draw pod by pod, the subtitle's
    coloured value and each cell's band of ordinals (tooltip); the phase names stay as kubectl writes them."""
    from stsedu.views import charts
    from stsedu.views.charts import common
    c = stsedu.Cluster(seed=0)
    c.apply(stsedu.examples.web(3))
    c.run()
    spec = json.dumps(charts.pod_timeline(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "'Running，未就绪'" in spec and "not Ready" not in spec
    spec = json.dumps(charts.revision_map(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "'就绪'" in spec and "'未就绪'" in spec and "'终止中'" in spec  # the legend of the pods' looks
    monkeypatch.setattr(common, "MAX_DRAWN_ORDINALS", 2)  # three pods outgrow it: aggregated
    spec = json.dumps(charts.pod_timeline(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "颜色 = 每格中最常见的 Pod 状态" in spec and "序号 0–" in spec and "ordinals" not in spec
    stsedu.set_language("en")
    spec = json.dumps(charts.pod_timeline(c.trace, "web").to_dict(), ensure_ascii=False)
    assert "colour = the commonest state in each cell" in spec and "'Running, not Ready'" in spec
