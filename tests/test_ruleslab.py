"""``sim study rules``: planted effects are found or not as they should be, the
study resumes to the uninterrupted result, its JSON and its page. Tiny game counts."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from sim.runs.partial import Interrupted
from sim.studies.ruleslab.study import rules_lab
from sim.studies.ruleslab.variants import variants

SMALL = dict(players=4, games=1500, skill_deals=60, mc_deals=0, threads=2)


def _row(result, ident):
    return next(r for r in result["rulesets"] if r["ident"] == ident)


@pytest.fixture(scope="module")
def planted():
    # skip_per_card with no skip rank (H6) and jokers=never at 4 players (H13: jokers only
    # at six) change no game; hand_size=4 (H12) and count_rule=false (H1) shorten them
    return rules_lab(only=["skip_per_card", "jokers", "hand_size", "count_rule"], **SMALL)


def test_a_change_that_changes_nothing_is_reported_as_no_effect(planted):
    for ident in ("skip_per_card=true", "jokers=never"):
        row = _row(planted, ident)
        for key in ("turns", "endless", "first_mover", "skill_counting", "luck"):
            d = row[key]["diff"]
            assert d["estimate"] == 0 and d["effect"] == 0, (ident, key, d)
            assert d["ci_low"] <= 0 <= d["ci_high"]
    assert not any(t["ident"] in ("skip_per_card=true", "jokers=never")
                   for top in planted["top"].values() for t in top)


def test_a_change_that_plays_the_same_games_is_listed_once_as_no_effect(planted, tmp_path):
    """skip_per_card and jokers=never play every game as the base: found from the games,
    listed once as no effect (terminal and page), left out of the per-ruleset lines, the
    charts and the tables; a change with an effect is not so marked."""
    from reports.html import write_report
    from reports.lab_text import ruleslab_lines

    same = ["skip_per_card=true", "jokers=never"]
    assert planted["no_effect"] == same
    assert [_row(planted, i)["identical"] for i in same + ["hand_size=4"]] == [True, True,
                                                                                False]
    lines = ruleslab_lines(planted)
    assert ("No effect under this base (identical games): skip_per_card=true, jokers=never."
            in "\n".join(lines))
    table = lines[lines.index(next(x for x in lines if x.startswith("ruleset"))):]
    assert not any(x.startswith(tuple(same)) for x in table)
    assert any(x.startswith("hand_size=4") for x in table)
    out = tmp_path / "lab"
    rules_lab(out=out, only=["skip_per_card", "hand_size"], **dict(SMALL, games=300,
                                                                   skill_deals=20))
    files = write_report(out)
    html = files[0].read_text()
    assert "No effect under this base (identical games): skip_per_card=true." in html
    assert "lowest, counting, random, montecarlo<" in html        # each strategy once
    for name in ("ruleslab_length", "ruleslab_skill", "ruleslab_seats"):
        csv = next(f for f in files if f.name == f"{name}.csv").read_text()
        assert "hand_size=4" in csv and not any(i in csv for i in same), name


def test_every_measure_carries_its_meaning_and_scale(planted):
    """The terminal says, for each column, what it is and what 1, 0 and negative mean; the
    study's strategies are listed once each."""
    from reports.lab_text import ruleslab_lines
    from sim.studies.ruleslab.study import _config

    text = "\n".join(ruleslab_lines(planted))
    for line in ("skill C = skill (counting): one counting seat against random "
                 "seats", "1 = the strong seat always wins, 0 = no better than chance, "
                 "negative = worse than chance", "luck = luck:",
                 "1 = the deal alone decides the winning seat", "1st mover = first mover's edge"):
        assert line in text, line
    cfg = _config(dict(planted["plan"], ruleset="seed"))
    assert cfg["strategies"] == ["lowest", "counting", "random", "montecarlo"]


def test_a_change_that_shortens_the_game_is_found_with_its_sign(planted):
    for ident in ("hand_size=4", "count_rule=false"):          # H12, H1
        d = _row(planted, ident)["turns"]["diff"]
        assert d["effect"] == -1 and d["ci_high"] < 0, (ident, d)
    assert planted["top"]["turns"][0]["ident"] == "count_rule=false"
    assert "game length: most changed by count_rule=false" in " ".join(
        __import__("sim.studies.ruleslab.study", fromlist=["headline"]).headline(planted))


def test_the_variants_are_those_11_3_allows():
    vs, refused, _ = variants("seed", 4)
    idents = [v.ident for v in vs]
    assert idents[0] == "base" and len(set(idents)) == len(idents)
    assert "transparent_rank=10" not in idents            # 10 has its own role (R21, §11.3)
    assert "forced_opening=true" in [r["ident"] for r in refused]      # H16 needs starter=hand
    assert {"choose_face_ups=true", "last_player_loses=true", "preset:classic"} <= set(idents)
    six, refused6, _ = variants("seed", 6)
    assert "hand_size=4" in [r["ident"] for r in refused6]            # the deal must fit (H12)
    assert "seven_lower=true" not in [v.ident for v in variants("masters-of-shithead", 4)[0]]


NEW = ["decks", "play_on", "out_before_burn", "faceup_pickup"]       # H18, H19, H20, H11


def _why(entries):
    return {x["ident"]: x["reason"] for x in entries}


def test_the_new_options_are_measured_refused_or_skipped_with_one_reason_each():
    """H18, H19, H20 and H11 one_then_rank are changes like any other; what §11.3 refuses is
    listed with its rule, and a change sure to replay measured games is skipped with why."""
    vs, refused, skipped = variants("seed", 4, only=NEW)
    assert [v.ident for v in vs] == [
        "base", "faceup_pickup=pile_only", "faceup_pickup=must_add_rank",
        "faceup_pickup=one_then_rank", "decks=2"]
    assert "H19" in _why(refused)["play_on=true"]               # needs count_rule=false
    why = _why(skipped)
    assert {k: why[k] for k in ("decks=masters", "decks=boothj5")} == {
        "decks=masters": "2 decks at 4 players: the games of decks=2 (H18)",
        "decks=boothj5": "1 deck at 4 players: the games of the base (H18)"}
    assert "(H20, V2)" in why["out_before_burn=true"]           # seed ends at the first out
    vs, refused, skipped = variants("classic", 6, ["jokers=six_players"], NEW)
    assert {"decks=2", "play_on=true", "out_before_burn=true",
            "faceup_pickup=one_then_rank"} <= {v.ident for v in vs} and not refused
    assert set(_why(skipped)) == {"decks=masters", "decks=boothj5"}      # 2 decks at 6 too
    _, _, skipped = variants("classic", 4, ["four_burns=false"], NEW)
    assert "(H20, H3)" in _why(skipped)["out_before_burn=true"]     # moot without H3
    vs, refused, skipped = variants("boothj5", 7, only=NEW)     # 7 players: two decks (H18)
    assert {"R1", "H18"} <= set(re.findall(r"[RH]\d+", _why(refused)["decks=1"]))
    assert "decks=masters" in _why(refused) and "decks=2" in _why(skipped)
    assert "play_on=true" in [v.ident for v in vs]


def test_a_skipped_change_plays_the_games_it_names():
    """H18: decks=masters at 4 players deals and plays exactly decks=2's games (so skipping
    it loses nothing), decks=boothj5 at 4 players the one-deck games; H20 without V2 the
    base's games (reference and counting tables)."""
    from sim.kernel.ruleset import Ruleset
    from sim.runs.backends import LocalBackend
    from sim.studies.ruleslab.study import COUNTING
    from sim.runs.workers import Group
    from sim.studies.ruleslab.tables import Table, start_block

    spec = dict(players=4, seed=3, max_turns=10_000, threads=2, batch=200, cycle_stop=True)

    def games(rule, base="seed", table=Table("reference", weak="lowest"), deals=200):
        rs = Ruleset.build(base, [rule])
        with Group(2) as group:
            block = start_block(table, rs, 0, deals, spec, LocalBackend(2), group)
            group.wait(block.jobs)
            return block.result()

    def same(a, b):
        return all((a[k] == b[k]).all() for k in a)
    two, one = games("decks=2"), games("decks=1")
    assert not same(two, one)                                   # two decks do change games
    assert same(games("decks=masters"), two) and same(games("decks=boothj5"), one)
    for table in (Table("reference", weak="lowest"), COUNTING):
        assert same(games("out_before_burn=false", table=table, deals=100),
                    games("out_before_burn=true", table=table, deals=100))
    assert not same(games("out_before_burn=false", "classic"),     # with V2 it matters
                    games("out_before_burn=true", "classic"))


def test_the_new_options_measured_from_classic(tmp_path):
    """A tiny lab of H18-H20 and one_then_rank from classic (count rule off, so H19 is
    allowed; V2, so H20 matters): every measure for each, two decks lengthen the game, the
    skipped ones listed once (terminal and page)."""
    from reports.html import write_report
    from reports.lab_text import ruleslab_lines

    res = rules_lab(base="classic", only=NEW, out=tmp_path / "lab",
                    **dict(SMALL, games=400, skill_deals=20))
    html = write_report(tmp_path / "lab")[0].read_text()
    assert "Not measured, sure to play games measured already: decks=masters (2 decks" in html
    idents = [r["ident"] for r in res["rulesets"]]
    assert {"decks=2", "play_on=true", "out_before_burn=true",
            "faceup_pickup=one_then_rank"} <= set(idents)
    for ident in ("decks=2", "play_on=true", "out_before_burn=true",
                  "faceup_pickup=one_then_rank"):
        row = _row(res, ident)
        assert not row["identical"], ident
        for key in ("turns", "endless", "first_mover", "skill_counting", "luck"):
            assert row[key]["diff"]["estimate"] is not None, (ident, key)
    d = _row(res, "decks=2")["turns"]["diff"]
    assert d["effect"] == 1 and d["ci_low"] > 0                  # a stock of 68 more cards
    text = "\n".join(ruleslab_lines(res))
    assert ("Not measured, sure to play games measured already: decks=masters (2 decks at 4 "
            "players: the games of decks=2 (H18)); decks=boothj5" in text)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["reference", "montecarlo"])
def test_resume_after_an_interruption_gives_the_uninterrupted_result(tmp_path, monkeypatch,
                                                                     stage):
    """Ctrl-C in the cheap stage (past the base's tables) or in the montecarlo stage (whose
    stopping decisions are made again from the saved blocks): what ``--resume`` gives is
    the uninterrupted study, every field (the games played counted too) and the saved file."""
    from sim.studies.ruleslab import study

    from sim.studies.ruleslab.tables import Units

    kw = dict(SMALL, only=["count_rule", "classic"], skill_deals=30, mc_deals=4, mc_block=2)
    calls, play = [], study.start_block
    monkeypatch.setattr(study, "start_block", lambda *a, **k: calls.append(1) or play(*a, **k))
    whole = rules_lab(out=tmp_path / "whole", **kw)
    blocks, saved, save = len(calls), [], Units.save

    def interrupted(units, table, *args):     # Ctrl-C as a later block of `stage` is kept
        saved.append(table)
        if table == stage and saved.count(stage) == {"reference": 2, "montecarlo": 4}[stage]:
            raise KeyboardInterrupt
        return save(units, table, *args)

    monkeypatch.setattr(Units, "save", interrupted)
    with pytest.raises(Interrupted) as e:
        rules_lab(out=tmp_path / "lab", **kw)
    p = e.value.partial.result
    assert "partial" in p.lab and p.measured == p.lab["measured"] <= p.of
    monkeypatch.setattr(Units, "save", save)
    played = []
    monkeypatch.setattr(study, "start_block", lambda *a, **k: played.append(1) or play(*a, **k))
    resumed = rules_lab(out=tmp_path / "lab", resume=True, **kw)
    assert 0 < len(played) < blocks                               # some came from the folder
    assert json.dumps(resumed, sort_keys=True) == json.dumps(whole, sort_keys=True)
    assert resumed["games_played"] == whole["games_played"] > 0
    assert ((tmp_path / "lab" / "ruleslab.json").read_text()
            == (tmp_path / "whole" / "ruleslab.json").read_text())
    import sim                  # what sim report draws: the title's games, the seat table
    a, b = sim.load(tmp_path / "lab"), sim.load(tmp_path / "whole")
    assert a.summary == b.summary and a.summary["overall"]["games"] == whole["games_played"]
    mc = _row(whole, "count_rule=false")["skill_montecarlo"]
    assert mc["deals"] <= 4 and mc["stopped"] in ("clear", "precise", "most deals")


def test_json_page_and_bad_input(cli, tmp_path):
    out = tmp_path / "lab"
    r = cli("study", "rules", "--only", "hand_size", "--games", "300", "--skill-deals", "20",
            "--mc-deals", "0", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["kind"] == "study-rules" and doc["version"] == 2
    assert doc["ruleset"]["base"] == "seed" and doc["options"]["only"] == ["hand_size"]
    assert [x["ident"] for x in doc["rulesets"]] == ["base", "hand_size=4"]
    from reports.html import write_report
    files = write_report(out)
    html = files[0].read_text()
    # the answer first, its charts and tables, and the options last
    assert re.findall(r'<section id="([^"]+)"', html) == ["answer", "effects", "run"]
    assert set(re.findall(r'data-layout="([^"]*)"', html)) == {"ok"}
    assert "game length: " in html and "hand_size=4" in html
    assert html.index("game length: ") < html.index("<img") < html.index('<section id="run"')
    assert "<h2>How this was run</h2>" in html
    for bad in (["--base", "nonsense"], ["--games", "0"], ["--resume"], ["--players", "7"],
                ["--only", "colour"], ["--mc-deals", "x"], ["--precision", "2"]):
        r = cli("study", "rules", *bad)
        assert r.exit_code == 2 and "error:" in r.output and "Traceback" not in r.output, bad
    r = cli("study", "rules", "--only", "hand_size", "--games", "300", "--out", out)
    assert r.exit_code == 2 and "--resume" in r.output          # a used folder is not mixed


def test_quiet_says_nothing_but_the_answer(cli):
    """--quiet: no bar and no estimate from another run or another time (the time left is
    the bar's, from this run's own speed); the answer on stdout."""
    r = cli("study", "rules", "--only", "hand_size", "--games", "300", "--skill-deals", "20",
            "--mc-deals", "2", "--quiet")
    assert r.exit_code == 0, r.output
    assert "(estimate)" not in r.stderr and "hand_size" in r.stdout


@pytest.mark.slow
def test_the_page_renders_in_a_headless_browser(tmp_path):
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(n)), None)
    if browser is None:
        pytest.skip("no Chromium found")
    rules_lab(out=tmp_path / "lab", only=["hand_size", "classic"], **dict(SMALL, games=300,
                                                                           skill_deals=20))
    from reports.html import write_report
    page = write_report(tmp_path / "lab")[0]
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={tmp_path / 'prof'}", "--virtual-time-budget=5000",
                          "--window-size=1280,900", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-rendered="ok"' in dom.stdout
    assert re.findall(r'data-overflow="([^"]*)"', dom.stdout) == ["none"]
    assert 'data-images="2/2"' in dom.stdout


@pytest.mark.slow
def test_the_same_study_on_dask():
    pytest.importorskip("distributed")
    from sim.runs.backends import DaskBackend

    kw = dict(SMALL, only=["hand_size"], games=300, skill_deals=10, mc_deals=2, mc_block=2)
    backend = DaskBackend(workers=2)
    try:
        on_dask = rules_lab(backend=backend, **kw)
    finally:
        backend.close()
    assert json.dumps(on_dask, sort_keys=True) == json.dumps(rules_lab(**kw), sort_keys=True)
