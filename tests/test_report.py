"""The HTML report: built from real runs in a SQLite file by the real command, opened in a real
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, installed by ``make test``).

The browser tests skip, saying why, only where Chromium is not installed. Screenshots are saved
under pytest's temporary directory and their paths printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from campus.agents import make_agent
from campus.agents.llm import LLMConfig
from campus.events import AgentReplied, TaskEnded, TaskReleased, ToolCalled, ToolResult, Walked, WorldChanged, decode_events
from campus.kernel.clock import day_of
from campus.kernel.store import SQLiteStore
from campus.kernel.recorded import replies_of
from campus.kernel.tasks import iter_tasks
from campus.replays.diff import first_divergence
from campus.reports.map_layout import CANVAS, campus_layout
from campus.reports.report import render_page, write_report
from campus.reports.report_data import report_data
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from tests.chat_server import ChatServer
from tests.llm_support import as_text_answers, llm_agent

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
OUTCOME_MARKS = {"success": "\u2713", "failure": "\u2717", "unscored": "\u25cb"}
HOSTILE_REPLY = '<action>Answer: </script><img src=x onerror="window.pwned=1"><!-- A</action>'


def campus(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr
    return result


def play(store: SQLiteStore, world: WorldIndex, term: Any, agent: str) -> Run:
    run = new_run(store, world, term, agent_name=agent, seed=0)
    run.session(make_agent(agent, term, world)).run()
    return run


def events_of(run: Run) -> list[tuple[int, int, Any]]:
    rows = run.store.rows(run.branch.id)
    return list(zip((r.seq for r in rows), (r.t for r in rows), decode_events([r.payload for r in rows])))


# ---------------------------------------------------------------- runs, in a real SQLite file


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory, world: WorldIndex) -> dict[str, Any]:
    """A small term played by the oracle and the diligent control, plus a fork of the oracle
    that a hostile injected reply starts (made by ``campus fork``); the term without disruptions, as these views
    were written for (the report's firing marks have their own test)."""
    folder = tmp_path_factory.mktemp("report")
    db = folder / "runs.db"
    term = generate_term(world, 0, scale=0.05, disruptions=False)
    store = SQLiteStore(db)
    oracle = play(store, world, term, "oracle")
    play(store, world, term, "diligent")
    head = store.head(oracle.branch.id)[0]
    store.close()
    ok(campus("fork", "oracle-s0", "--db", str(db), "--at-step", str(head * 2 // 3), "--agent", "noop",
              "--reply", HOSTILE_REPLY, "--name", "hostile", "--json", cwd=folder))
    return {"folder": folder, "db": db, "term": term}


@pytest.fixture(scope="module")
def opened(small: dict[str, Any]) -> Iterator[dict[str, Run]]:
    store = SQLiteStore(small["db"])
    yield {name: open_run(store, name) for name in ("oracle-s0", "diligent-s0", "hostile")}
    store.close()


@pytest.fixture(scope="module")
def pages(small: dict[str, Any], opened: dict[str, Run]) -> dict[str, Path]:
    """The reports: the comparison with the hostile fork written by the real command line in a
    subprocess, the others by ``write_report`` in this process."""
    folder = small["folder"]
    written = {name: folder / f"{name}.html" for name in ("single", "vs", "agents")}
    summary = json.loads(ok(campus("report", "oracle-s0", "--vs", "hostile", "--html", str(written["vs"]),
                                   "--db", str(small["db"]), "--json", cwd=folder)).stdout)
    assert summary["bytes"] == written["vs"].stat().st_size > 0 and summary["runs"] == ["oracle-s0", "hostile"]
    assert write_report(written["single"], opened["oracle-s0"]) == written["single"].stat().st_size
    write_report(written["agents"], opened["oracle-s0"], opened["diligent-s0"])
    return written


# ---------------------------------------------------------------- the data, without a browser


def test_every_event_of_the_run_is_in_the_page_once(opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    data = msgspec.json.decode(msgspec.json.encode(report_data(run)))
    part = data["runs"][0]
    in_tasks = [entry[0] for entries in part["transcripts"].values() for entry in entries]
    seqs = sorted(in_tasks + [entry[0] for entry in part["between"]])
    assert seqs == list(range(1, run.store.head(run.branch.id)[0] + 1))
    ended = {e.task_id: e for _, _, e in events_of(run) if isinstance(e, TaskEnded)}
    assert {task_id: span[4] for task_id, span in part["spans"].items()} == {k: e.outcome for k, e in ended.items()}
    assert len(data["tasks"]) == len(run.term.tasks) and {row[0] for row in data["tasks"]} == set(run.term.by_id)
    for task_id, entries in part["transcripts"].items():
        assert entries[0][2] == msgspec.json.decode(msgspec.json.encode(_released(run, task_id)))
        assert entries[-1][2]["kind"] == "task_ended" and entries[-1][2]["task_id"] == task_id


def stopped(small: dict[str, Any], world: WorldIndex, path: Path) -> tuple[SQLiteStore, Run]:
    """The oracle's run of the small term stopped after seven replies, mid-task, in a file of its own."""
    store = SQLiteStore(path)
    run = new_run(store, world, small["term"], agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small["term"], world)).run(max_steps=7)
    return store, run


def shown(browser: Any, page: Path, run: Run) -> None:
    """``run``'s report written to ``page`` and opened, with no console error."""
    write_report(page, run)
    load(browser, page)
    assert console_errors(browser) == []


def test_a_run_stopped_mid_task_shows_that_task_unfinished(small: dict[str, Any], world: WorldIndex, tmp_path: Path) -> None:
    store, run = stopped(small, world, tmp_path / "stopped.db")
    part = msgspec.json.decode(msgspec.json.encode(report_data(run)))["runs"][0]
    unfinished = [task_id for task_id, span in part["spans"].items() if span[1] is None]
    assert len(unfinished) == 1 and part["finished"] is False
    entries = part["transcripts"][unfinished[0]]
    assert entries[-1][0] == store.head(run.branch.id)[0] and entries[0][2]["kind"] == "task_released"
    store.close()


def _released(run: Run, task_id: str) -> TaskReleased:
    return next(e for _, _, e in events_of(run) if isinstance(e, TaskReleased) and e.task_id == task_id)


def test_comparison_shares_transcripts_before_the_divergence_only(opened: dict[str, Run]) -> None:
    a, b = opened["oracle-s0"], opened["hostile"]
    data = report_data(a, b)
    seq = first_divergence(a.store, a.branch.id, b.branch.id)
    assert data["comparison"]["divergence"]["seq"] == seq
    spans_b = data["runs"][1]["spans"]
    shared = {task_id for task_id, entries in data["runs"][1]["transcripts"].items() if entries is None}
    assert shared and shared == {task_id for task_id, span in spans_b.items() if span[1] is not None and span[1] < seq}
    owner = next(task_id for task_id, span in spans_b.items() if span[0] <= seq <= (span[1] or 10**9))
    assert data["comparison"]["divergence"]["task"] == owner


def test_hostile_text_cannot_close_the_data_element(opened: dict[str, Run]) -> None:
    page = render_page(report_data(opened["oracle-s0"], opened["hostile"]))
    data_part = page.split('<script type="application/json" id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_part and "Answer: \\u003c/script>\\u003cimg" in data_part
    assert page.count("<script") == 2 and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page


def test_layout_is_deterministic_inside_the_canvas_and_spread_out(world: WorldIndex) -> None:
    points = campus_layout(world.world)
    assert set(points) == set(world.buildings)
    assert all(0 <= x <= CANVAS and 0 <= y <= CANVAS for x, y in points.values())
    assert len(set(points.values())) == len(points)
    script = ("import json; from campus.world.generate import generate_world; from campus.reports.map_layout import campus_layout;"
              "print(json.dumps(campus_layout(generate_world(0))))")
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT,
                           env=os.environ | {"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345"})
    assert {k: tuple(v) for k, v in json.loads(other.stdout).items()} == points


def test_command_errors_are_one_line_exit_2_and_write_nothing(small: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    cases = [
        ("report", "oracle-s0", "--vs", "no-such-run", "--html", str(target), "--db", str(small["db"])),
        ("report", "oracle-s0", "--html", str(target), "--db", str(tmp_path / "missing.db")),
        ("report", "oracle-s0", "--html", str(tmp_path / "nowhere" / "out.html"), "--db", str(small["db"])),
    ]
    for args in cases:
        result = campus(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.strip().startswith("error:") and len(result.stderr.strip().splitlines()) == 1
    assert not target.exists() and not (tmp_path / "missing.db").exists()


# ---------------------------------------------------------------- in headless Chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Chromium is not installed (/usr/bin/chromium, /usr/bin/chromedriver); "
                    "'make browser' installs Debian's chromium and chromium-driver as root")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.TemporaryDirectory(prefix="campus-chromium-")
    options.add_argument(f"--user-data-dir={profile.name}")
    options.add_argument("--window-size=1500,1200")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        profile.cleanup()


def load(driver: Any, page: Path, fragment: str = "") -> float:
    """Open the page from its file (at ``fragment``, e.g. ``#task=...``); the milliseconds until the report had drawn itself."""
    driver.get_log("browser")
    driver.get("about:blank")
    driver.get(page.resolve().as_uri() + fragment)
    deadline = time.monotonic() + 60
    while not driver.execute_script("return !!(window.campusReport && window.campusReport.ready)"):
        assert time.monotonic() < deadline, "the report never finished drawing"
        time.sleep(0.05)
    return float(driver.execute_script("return window.campusReport.readyAt"))


def console_errors(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def open_weeks(driver: Any) -> Iterator[int]:
    """Click each week of the pager that has tasks to show (the timeline shows one week at a time)."""
    weeks = driver.execute_script("return [...document.querySelectorAll('#week-pager button[data-week]')]"
                                  ".filter(b => !b.disabled).map(b => Number(b.dataset.week))")
    for week in weeks:
        driver.find_element("css selector", f'#week-pager button[data-week="{week}"]').click()
        yield week


def timeline_rows(driver: Any) -> list[tuple[str, str]]:
    """Every task row of the timeline, week by week, with the text of its outcome."""
    rows: list[tuple[str, str]] = []
    for _ in open_weeks(driver):
        rows += driver.execute_script(
            "return [...document.querySelectorAll('#timeline-scroll .task-row')]"
            ".map(r => [r.dataset.task, r.querySelector('.outcome').textContent])")
    return [tuple(row) for row in rows]


def shoot(driver: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
    print(f"screenshot: {path}")
    return path


def test_page_loads_with_no_console_error_and_no_network(browser: Any, pages: dict[str, Path], small: dict[str, Any]) -> None:
    load(browser, pages["single"])
    assert console_errors(browser) == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.find_element("css selector", "h1").text == "Campus report: oracle-s0"
    scenarios = {task.scenario for task in small["term"].tasks if not task.flags.delivery_only}
    labels = browser.execute_script("return [...document.querySelectorAll('#scenario-chart svg text')].map(t => t.textContent)")
    assert {s.replace("_", " ") for s in scenarios} <= set(labels)
    shoot(browser, small["folder"], "report-single")


def test_a_stopped_runs_days_without_events_show_nothing_stray(browser: Any, small: dict[str, Any], world: WorldIndex,
                                                               tmp_path: Path) -> None:
    """A day with walks but no event between tasks (or none at all, after the stop) printed "null" under it."""
    store, run = stopped(small, world, tmp_path / "stopped.db")
    shown(browser, tmp_path / "stopped.html", run)
    store.close()
    days = browser.find_elements("css selector", "#week-body section.day")
    assert days and not any("null" in day.text.split() for day in days)


def test_timeline_lists_every_task_with_its_outcome(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    load(browser, pages["single"])
    rows = timeline_rows(browser)
    assert len(rows) == len(run.term.tasks) and {task_id for task_id, _ in rows} == set(run.term.by_id)
    outcomes = {e.task_id: e.outcome for e in run.ended_tasks()}
    for task_id, chip in rows:
        assert chip.split(" ")[1] == outcomes[task_id], (task_id, chip)
    assert console_errors(browser) == []


def test_clicking_a_task_shows_its_transcript(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    events = events_of(run)
    calls = [(i, e) for i, (_, _, e) in enumerate(events) if isinstance(e, ToolCalled)]
    index, call = calls[len(calls) * 2 // 3]
    result = next(e for _, _, e in events[index:] if isinstance(e, ToolResult) and e.call_id == call.call_id)
    load(browser, pages["single"])
    week = day_of(run.term.by_id[call.task_id].release) // 7
    browser.find_element("css selector", f'#week-pager button[data-week="{week}"]').click()
    assert browser.find_elements("css selector", ".detail") == []
    browser.find_element("css selector", f'.task-row[data-task="{call.task_id}"]').click()
    detail = browser.find_element("css selector", f'.detail[data-detail="{call.task_id}"]')
    text = detail.get_attribute("textContent")
    assert f"Tool call {call.call_id}" in text and call.tool + "(" in text and result.message in text
    for value in call.args.values():
        assert json.dumps(value, separators=(",", ":"), ensure_ascii=False) in text
    outcome = next(e.outcome for e in run.ended_tasks() if e.task_id == call.task_id)
    assert f"Verdict: {OUTCOME_MARKS[outcome]} {outcome}" in text
    browser.find_element("css selector", f'.task-row[data-task="{call.task_id}"]').click()
    assert browser.find_elements("css selector", ".detail") == []
    assert console_errors(browser) == []


def test_a_days_walks_are_drawn_on_the_map(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    walks = [(t, e) for _, t, e in events_of(run) if isinstance(e, Walked)]
    day = day_of(walks[-1][1].depart)
    expected = [e for _, e in walks if day_of(e.depart) == day]
    load(browser, pages["single"])
    assert len(browser.find_elements("css selector", "#campus-map circle[data-building]")) == len(run.world.buildings)
    browser.execute_script("campusReport.showWeek(arguments[0])", day // 7)
    browser.find_element("css selector", f'.day-head[data-day="{day}"]').click()
    drawn = browser.execute_script("return [...document.querySelectorAll('#walk-layer .map-walk')].map(p => p.getAttribute('points').split(' ').length)")
    assert drawn == [len(e.path) for e in expected]
    listed = browser.find_element("id", "walk-list").text
    assert all(run.world.name_of(e.path[-1]) in listed for e in expected)
    assert console_errors(browser) == []


def test_vs_view_marks_and_scrolls_to_the_first_divergence(browser: Any, pages: dict[str, Path], opened: dict[str, Run], small: dict[str, Any]) -> None:
    a, b = opened["oracle-s0"], opened["hostile"]
    seq = first_divergence(a.store, a.branch.id, b.branch.id)
    assert seq is not None and seq > b.branch.fork_seq
    owner = next(e.task_id for s, _, e in reversed(events_of(b)) if s <= seq and isinstance(e, TaskReleased))
    load(browser, pages["vs"])
    assert console_errors(browser) == [] and not browser.execute_script("return window.pwned === 1")
    row = browser.find_element("css selector", ".task-row.diverged")
    assert row.get_attribute("data-task") == owner
    assert f"seq {seq}" in row.find_element("css selector", ".divergence-mark").text
    entries = browser.find_elements("css selector", ".entry.divergence")
    assert [e.get_attribute("data-seq") for e in entries] == [str(seq), str(seq)]
    assert HOSTILE_REPLY in entries[1].get_attribute("textContent")
    visible = "const s = document.getElementById('timeline-scroll').getBoundingClientRect();" \
              "const r = arguments[0].getBoundingClientRect(); return r.top >= s.top && r.top < s.bottom - 20;"
    assert all(browser.execute_script(visible, entry) for entry in entries), "the divergence is not scrolled into view"
    browser.execute_script("document.getElementById('timeline-scroll').scrollTop = 0; window.scrollTo(0, 0)")
    if browser.execute_script(visible, entries[0]):  # a divergence near the top: scroll away from it downwards
        browser.execute_script("const s = document.getElementById('timeline-scroll'); s.scrollTop = s.scrollHeight")
    assert not browser.execute_script(visible, entries[0]), "the button below would prove nothing"
    browser.find_element("css selector", "#divergence-banner button").click()
    assert all(browser.execute_script(visible, entry) for entry in entries)
    banner = browser.find_element("id", "divergence-banner").text
    assert f"seq {seq}" in banner and "Final state, B against A" in banner
    shoot(browser, small["folder"], "report-vs")


def test_vs_view_of_two_agents_shows_both_outcomes_and_the_flips(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    a, b = opened["oracle-s0"], opened["diligent-s0"]
    load(browser, pages["agents"])
    assert console_errors(browser) == []
    divergence = first_divergence(a.store, a.branch.id, b.branch.id)
    assert f"seq {divergence}" in browser.find_element("css selector", ".task-row.diverged .divergence-mark").text
    flipped = {e.task_id for e in b.ended_tasks() if e.outcome != "success" and e.outcome != "unscored"}
    assert flipped, "the diligent control should fail something the oracle solves"
    browser.find_element("css selector", "#filter-outcome option[value='flipped']").click()
    shown = set()
    for _ in open_weeks(browser):
        shown |= set(browser.execute_script("return campusReport.renderedTaskIds()"))
    assert shown == flipped
    assert console_errors(browser) == []


def test_a_run_compared_with_itself_is_identical_and_shares_every_transcript(browser: Any, opened: dict[str, Run], small: dict[str, Any]) -> None:
    run = opened["oracle-s0"]
    data = report_data(run, run)
    assert data["comparison"]["identical"] and data["comparison"]["divergence"] is None
    assert set(data["runs"][1]["transcripts"].values()) == {None}
    path = small["folder"] / "same.html"
    write_report(path, run, run)
    load(browser, path)
    assert "identical, event for event" in browser.find_element("id", "divergence-banner").text
    task_id = small["term"].tasks[0].id
    browser.find_element("css selector", f'.task-row[data-task="{task_id}"]').click()
    heads = browser.find_elements("css selector", f'.detail[data-detail="{task_id}"] .transcript-head')
    assert len(heads) == 2 and "Same events as A" in heads[1].text
    entries = [browser.find_elements("css selector", f'.detail[data-detail="{task_id}"] .step.{side} .entry') for side in "ab"]
    assert entries[0] and len(entries[0]) == len(entries[1])
    assert browser.find_elements("css selector", f'.detail[data-detail="{task_id}"] .step.gap') == []
    assert console_errors(browser) == []


@pytest.mark.slow
def test_full_term_vs_report_opens_fast_and_lists_every_task(browser: Any, world: WorldIndex, term: Any,
                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    """The default term (1,686 tasks), oracle vs diligent: file size and time to draw, printed."""
    folder = tmp_path_factory.mktemp("full-report")
    store = SQLiteStore(folder / "runs.db")
    a, b = play(store, world, term, "oracle"), play(store, world, term, "diligent")
    started = time.perf_counter()
    page = render_page(report_data(a, b))
    build_seconds = time.perf_counter() - started
    path = folder / "full.html"
    path.write_text(page, encoding="utf-8")
    seq = first_divergence(store, a.branch.id, b.branch.id)
    store.close()
    draw_ms = load(browser, path)
    print(f"full-term vs report: {path.stat().st_size / 1e6:.1f} MB, built in {build_seconds:.2f} s, drawn in {draw_ms:.0f} ms")
    assert console_errors(browser) == []
    assert browser.execute_script("return campusReport.tasks.length") == len(term.tasks) == 1686
    assert len(timeline_rows(browser)) == len(term.tasks)
    browser.execute_script("campusReport.goToDivergence(false)")
    assert f"seq {seq}" in browser.find_element("css selector", ".task-row.diverged .divergence-mark").text


def test_a_task_whose_world_changed_is_flagged_and_its_transcript_says_where(
        browser: Any, world: WorldIndex, tmp_path: Path) -> None:
    term = generate_term(world, 0, scale=0.05, disruptions=True)
    store = SQLiteStore(tmp_path / "runs.db")
    run = play(store, world, term, "oracle")
    firings = [(seq, e) for seq, _, e in events_of(run) if isinstance(e, WorldChanged) and e.rule]
    assert firings, "a term with disruption tasks has rules that fire"
    seq, firing = firings[0]
    task_id = next(t.task_id for t in iter_tasks(store, run.branch.id) if t.events[0][0] <= seq <= t.events[-1][0])
    page = tmp_path / "disrupted.html"
    write_report(page, run)
    store.close()
    load(browser, page)
    week = day_of(run.term.by_id[task_id].release) // 7
    browser.find_element("css selector", f'#week-pager button[data-week="{week}"]').click()
    row = browser.find_element("css selector", f'.task-row[data-task="{task_id}"]')
    assert "world changed" in row.get_attribute("textContent")
    row.click()
    text = browser.find_element("css selector", f'.detail[data-detail="{task_id}"]').get_attribute("textContent")
    assert "The world changed here" in text and f"rule {firing.rule}" in text
    assert console_errors(browser) == []


def test_the_ability_vector_is_shown_per_ability_and_per_distance_bin(
        browser: Any, world: WorldIndex, pages: dict[str, Path], tmp_path: Path) -> None:
    """A term with check-ins, answered by the reader that remembers nothing: abstention 50 % (its twins fail),
    every other ability asked 0 %, the same in every distance bin; a run asked nothing has no such panel."""
    from campus.agents.registry import playing, resolve
    from campus.scenarios.scorecard import scorecard

    term = generate_term(world, 0, scale=0.1, check_ins=True)
    store = SQLiteStore(tmp_path / "runs.db")
    run = new_run(store, world, term, agent_name="no-memory", seed=0)
    run.session(playing(resolve("no-memory", store=store, term=term, world=world)[0], run.branch.id)).run()
    memory = report_data(run)["runs"][0]["memory"]
    assert memory["abilities"] == scorecard(term, run.ended_tasks())["mps"]["abilities"]
    assert memory["abilities"]["abstention"] == 0.5 and memory["by_events"] and memory["by_days"]
    shown(browser, tmp_path / "memory.html", run)
    store.close()
    table = browser.find_element("css selector", "#memory-panel table")
    heads = [th.text for th in table.find_elements("css selector", "thead th")]
    distance_bins = [b for b in memory["by_days"] if b[0] in "<>0123456789"]
    assert heads[:2] == ["ability", "all"] and len(heads) == 2 + len(memory["by_events"]) + len(distance_bins)
    cells = {row.get_attribute("data-ability"): [td.text for td in row.find_elements("css selector", "td")][1:]
             for row in table.find_elements("css selector", "tbody tr")}
    assert cells["abstention"][0] == "50.0%" and cells["overall"][0] == f"{100 * memory['overall']:.1f}%"
    for ability, value in memory["abilities"].items():
        assert cells[ability][0] == ("n/a" if value is None else f"{100 * value:.1f}%")
        if value is not None and ability != "abstention":
            assert set(cells[ability]) <= {"0.0%", "n/a"}
    load(browser, pages["single"])
    assert browser.find_elements("css selector", "#memory-panel") == []
# ---------------------------------------------------------------- triage: filters, flips, steps, tools, links


def _steps(run: Run) -> dict[str, int]:
    """Per task: its steps in the report (what it was shown, then one per reply)."""
    return {t.task_id: 1 + sum(isinstance(e, AgentReplied) for _, _, e in t.events) for t in iter_tasks(run.store, run.branch.id)}


def _rendered(driver: Any) -> list[str]:
    return list(driver.execute_script("return campusReport.renderedTaskIds()"))


def test_filters_act_on_the_whole_term_and_every_flip_is_listed(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    a, b = opened["oracle-s0"], opened["diligent-s0"]
    outcomes = [{e.task_id: e.outcome for e in run.ended_tasks()} for run in (a, b)]
    flipped = [task_id for task_id in sorted(outcomes[0].keys() | outcomes[1].keys())
               if outcomes[0].get(task_id) != outcomes[1].get(task_id)]
    assert len({day_of(a.term.by_id[task_id].release) // 7 for task_id in flipped}) > 1, "flips in one week prove nothing"
    load(browser, pages["agents"])
    listed = browser.execute_script("return [...document.querySelectorAll('#flips .flip-chip')].map(c => [c.dataset.task, c.dataset.a, c.dataset.b])")
    assert listed == [[task_id, outcomes[0].get(task_id, "missing"), outcomes[1].get(task_id, "missing")] for task_id in flipped]
    browser.find_element("css selector", "#filter-outcome option[value='flipped']").click()
    assert sorted(_rendered(browser)) == sorted(flipped)
    assert browser.find_element("id", "timeline-count").text.startswith(f"{len(flipped)} of {len(a.term.tasks)} task(s) match")
    scenario = a.term.tasks[-1].scenario
    browser.find_element("css selector", "#filter-outcome option[value='']").click()
    browser.find_element("css selector", f"#filter-scenario option[value='{scenario}']").click()
    assert sorted(_rendered(browser)) == sorted(t.id for t in a.term.tasks if t.scenario == scenario)
    browser.find_element("css selector", "#week-pager button[data-all]").click()
    assert sorted(_rendered(browser)) == sorted(t.id for t in a.term.tasks if t.scenario == scenario)
    week = day_of(a.term.tasks[-1].release) // 7
    browser.find_element("css selector", f"#filter-week option[value='{week}']").click()
    assert sorted(_rendered(browser)) == sorted(t.id for t in a.term.tasks
                                                if t.scenario == scenario and day_of(t.release) // 7 == week)
    assert console_errors(browser) == []


def test_a_flip_opens_both_transcripts_aligned_step_by_step_with_gaps(browser: Any, pages: dict[str, Path], opened: dict[str, Run],
                                                                      small: dict[str, Any]) -> None:
    a, b = opened["oracle-s0"], opened["diligent-s0"]
    steps_a, steps_b = _steps(a), _steps(b)
    outcomes = {e.task_id: e.outcome for e in a.ended_tasks()}
    task_id = next(e.task_id for e in b.ended_tasks()
                   if e.outcome != outcomes.get(e.task_id) and steps_a[e.task_id] != steps_b[e.task_id])
    load(browser, pages["agents"])
    browser.find_element("css selector", f'#flips .flip-chip[data-task="{task_id}"]').click()
    assert browser.execute_script("return location.hash") == f"#task={task_id}"
    rows = browser.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .step-row:not(.heads)')].map(r => [...r.children].map(c => "
        "[c.dataset.run, Number(c.dataset.step), c.classList.contains('gap'), Math.round(c.getBoundingClientRect().top)]))",
        f'.detail[data-detail="{task_id}"]')
    assert len(rows) == max(steps_a[task_id], steps_b[task_id])
    for k, (left, right) in enumerate(rows):
        assert (left[0], right[0]) == ("oracle-s0", "diligent-s0") and left[1] == right[1] == k
        assert left[3] == right[3], f"step {k} of A and B do not start on one line"
        assert (left[2], right[2]) == (k >= steps_a[task_id], k >= steps_b[task_id])
    shoot(browser, small["folder"], "report-aligned")
    shown = f'.detail[data-detail="{task_id}"] .step.a[data-step="0"]'
    observation = _released(a, task_id).observation
    assert observation not in browser.find_element("css selector", shown).get_attribute("textContent")
    browser.find_element("css selector", shown + " button.more").click()
    assert observation in browser.find_element("css selector", shown).get_attribute("textContent")
    assert console_errors(browser) == []


def test_no_scroll_box_nests_in_another(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    load(browser, pages["agents"])
    longest = max(_steps(opened["diligent-s0"]).items(), key=lambda item: item[1])[0]
    browser.execute_script("campusReport.openTask(arguments[0])", longest)
    browser.execute_script("document.querySelectorAll('details.between').forEach(d => d.open = true)")
    scrolling = browser.execute_script(
        "return [...document.querySelectorAll('body *')].filter(n => { const s = getComputedStyle(n);"
        " return ['auto', 'scroll'].includes(s.overflowY) || ['auto', 'scroll'].includes(s.overflowX); }).map(n => n.id || n.className)")
    assert scrolling == ["timeline-scroll"]
    spilling = "return [...document.querySelectorAll('.panel')].filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.id)"
    assert browser.execute_script(spilling) == []
    load(browser, pages["single"])
    assert browser.execute_script(spilling) == []


def test_the_tool_table_counts_each_tools_calls_and_failures_per_run(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    expected: dict[str, list[int]] = {}
    for side, name in enumerate(("oracle-s0", "diligent-s0")):
        called: dict[str, str] = {}
        for _, _, e in events_of(opened[name]):
            if isinstance(e, ToolCalled):
                called[e.call_id] = e.tool
                expected.setdefault(e.tool, [0, 0, 0, 0])[2 * side] += 1
            elif isinstance(e, ToolResult) and e.status != "ok":
                expected[called[e.call_id]][2 * side + 1] += 1
    assert any(counts[1] or counts[3] for counts in expected.values()), "no failed call: the table would prove little"
    load(browser, pages["agents"])
    shown = browser.execute_script("return [...document.querySelectorAll('#tool-table tbody tr')].map(r => "
                                   "[r.dataset.tool, ...[...r.children].slice(1).map(c => c.textContent)])")
    assert {row[0]: [int(row[1]), int(row[2]), int(row[4]), int(row[5])] for row in shown} == expected
    first = shown[0]
    assert first[3] == f"{100 * int(first[2]) / int(first[1]):.1f}%" if int(first[1]) else first[3] == "n/a"
    assert console_errors(browser) == []


def test_a_link_to_a_task_opens_it_and_opening_a_task_updates_the_link(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    late = run.term.tasks[-1]
    load(browser, pages["single"], f"#task={late.id}")
    assert browser.find_elements("css selector", f'.detail[data-detail="{late.id}"]')
    visible = ("const s = document.getElementById('timeline-scroll').getBoundingClientRect();"
               "const r = arguments[0].getBoundingClientRect(); return r.top >= s.top && r.top < s.bottom;")
    assert browser.execute_script(visible, browser.find_element("css selector", f'.task-row[data-task="{late.id}"]'))
    other = run.term.tasks[0]
    browser.execute_script("campusReport.showWeek(arguments[0])", day_of(other.release) // 7)
    browser.find_element("css selector", f'.task-row[data-task="{other.id}"]').click()
    assert browser.execute_script("return location.hash") == f"#task={other.id}"
    browser.find_element("css selector", f'.task-row[data-task="{other.id}"]').click()
    assert browser.execute_script("return location.hash") == "" and not browser.find_elements("css selector", ".detail")
    browser.execute_script("location.hash = '#task=no-such-task'")
    assert "not in this report" in browser.find_element("id", "link-note").text
    assert console_errors(browser) == []


def test_the_map_caption_follows_the_week_shown(browser: Any, pages: dict[str, Path], opened: dict[str, Run]) -> None:
    run = opened["oracle-s0"]
    weeks = sorted({day_of(t.release) // 7 for t in run.term.tasks})
    load(browser, pages["single"])
    for week in (weeks[-1], weeks[len(weeks) // 2]):
        browser.find_element("css selector", f'#week-pager button[data-week="{week}"]').click()
        assert f"Week {week}," in browser.find_element("id", "map-caption").text
    assert console_errors(browser) == []


def test_a_model_runs_report_shows_each_replys_tokens_request_hash_and_cost(
        browser: Any, opened: dict[str, Run], small: dict[str, Any], world: WorldIndex, tmp_path: Path) -> None:
    oracle = opened["oracle-s0"]
    first_task = [json.loads(r.payload)["task_id"] for r in oracle.store.rows("oracle-s0") if r.kind == "agent_replied"]
    replies = [r.text for r in replies_of(oracle.store, "oracle-s0")[:first_task.count(first_task[0]) + 2]]  # one task ends
    db = tmp_path / "model.db"
    store = SQLiteStore(db)
    run = new_run(store, world, small["term"], agent_name=LLMConfig(model="script-model", base_url="http://127.0.0.1:9/v1").spec(),
                  seed=0, branch_id="model")
    with ChatServer(as_text_answers(replies)) as server:  # type: ignore[arg-type]
        run.session(llm_agent(server)).run(max_steps=len(replies))
    metas = [json.loads(r.meta) for r in store.rows("model") if r.kind == "agent_replied"]
    task_id = next(t.task_id for t in iter_tasks(store, "model"))
    store.close()
    prices = tmp_path / "prices.json"
    prices.write_text('{"script-model": {"input": 2.0, "output": 8.0}}')
    page = tmp_path / "model.html"
    ok(campus("report", "model", "--html", str(page), "--csv", str(tmp_path), "--db", str(db), "--prices", str(prices), cwd=tmp_path))
    with open(tmp_path / "tasks.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(float(row["cost_usd"]) == round(int(row["prompt_tokens"]) // 11 * 78 / 1e6, 6) for row in rows)
    load(browser, page, f"#task={task_id}")
    header = browser.find_element("css selector", ".run-card .usage").text
    assert header.startswith(f"{len(metas)} model replies \u00b7 {11 * len(metas)} prompt + {7 * len(metas)} completion tokens")
    assert f"cost ${len(metas) * 78 / 1e6:.4f} (at $2 / $8 per 1M tokens)" in header
    tables = browser.execute_script(
        "return [...document.querySelectorAll('.entry.agent_replied table.meta')].map(t => Object.fromEntries("
        "[...t.querySelectorAll('tr')].map(r => [r.dataset.key, r.querySelector('td').textContent])))")
    assert tables and [t["request_sha256"] for t in tables] == [m["request_sha256"] for m in metas[:len(tables)]]
    assert all(t["prompt_tokens"] == "11" and t["completion_tokens"] == "7" and t["cost"] == "$0.0001" for t in tables)
    detail = browser.find_element("css selector", f'.detail[data-detail="{task_id}"]').get_attribute("textContent")
    assert "[object Object]" not in detail and "Week 0, Monday 10:00\u201310:50" in detail  # a calendar event's time
    assert console_errors(browser) == []
    shoot(browser, small["folder"], "report-model")
def test_a_busy_day_opens_as_swim_lanes_of_its_errands_reminders_and_clues(
        browser: Any, small: dict[str, Any], opened: dict[str, Run], pages: dict[str, Path]) -> None:
    (day,) = [task for task in small["term"].tasks if task.scenario == "busy_days"]
    lanes = report_data(opened["oracle-s0"])["runs"][0]["lanes"][day.id]
    errands = day.ground_truth["errands"]
    releases = [lane["release"] for lane in lanes["lanes"]]
    assert releases == sorted(releases)
    assert {lane["id"] for lane in lanes["lanes"]} == {e["id"] for e in errands} and len(lanes["interrupts"]) == 2
    (follow_up,) = [lane for lane in lanes["lanes"] if lane["id"] in {e["id"] for e in errands if e.get("announced_by")}]
    assert follow_up["handed"] and day.release < follow_up["release"] <= follow_up["done"]  # arrived with the answer
    (at_meeting,) = [lane for lane in lanes["lanes"] if lane["id"] in {e["id"] for e in errands if e.get("announced_at")}]
    meeting = next(lane for lane in lanes["lanes"] if lane["kind"] == "appointment")
    assert at_meeting["handed"] and at_meeting["release"] == meeting["deadline"]  # handed out as the meeting ended
    load(browser, pages["single"])
    browser.find_element("css selector", f'#week-pager button[data-week="{day_of(day.release) // 7}"]').click()
    browser.find_element("css selector", f'.task-row[data-task="{day.id}"]').click()
    chart = browser.find_element("css selector", f'.detail[data-detail="{day.id}"] .swimlanes[data-task="{day.id}"]')
    drawn = chart.find_elements("css selector", ".lane")
    assert len(drawn) == len(errands) and len(chart.find_elements("css selector", ".interrupt")) == 2
    errand_count = sum(e["family"] != "appointment" for e in errands)
    assert len(chart.find_elements("css selector", ".done")) == errand_count and not chart.find_elements("css selector", ".done.late")
    clues = sum(1 for e in errands for c in e["checkpoints"] if c["check"]["check"] == "revealed")
    assert len(chart.find_elements("css selector", ".clue")) == clues > 0
    text = chart.get_attribute("textContent")
    assert all(e["title"] in text for e in errands) and "Reminder:" in text
    assert console_errors(browser) == []
