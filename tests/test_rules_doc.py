"""The rulebook ships with the package: docs/rules.md has an entry for every rule,
section, option and preset; `sim rules explain ID` prints it, from a checkout and from an
installed copy; every rule id a message or help text cites can be looked up that way."""
from __future__ import annotations

import ast
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reports import rules_text
from sim.kernel.ruleset import OPTIONS, PLAIN, PRESETS, Ruleset

ROOT = Path(__file__).resolve().parents[1]
RULE_IDS = ([f"R{i}" for i in range(1, 27)] + ["V1", "V2", "H0", "H0a"]
            + [f"H{i}" for i in range(1, 21)])
SECTIONS = [f"§{i}" for i in range(1, 12)] + [f"§11.{i}" for i in range(1, 8)]


def test_every_rule_section_and_preset_has_one_entry_with_an_anchor():
    """R1-R26, V1, V2, H0-H20, §1-§11.7 and the four presets (§11.4), each under a heading that
    starts with its id and carries a stable anchor."""
    entries = rules_text.entries()
    want = RULE_IDS + SECTIONS + list(PRESETS)
    assert sorted(entries) == sorted(want)
    for key, e in entries.items():
        assert re.match(rf"#+ {re.escape(key)}\b", e.text), key
        assert e.anchor, f"{key} has no <a id> anchor"
    anchors = [e.anchor for e in entries.values()]
    assert len(set(anchors)) == len(anchors)


def test_parse_refuses_an_id_given_twice():
    with pytest.raises(ValueError, match="R1 has two entries"):
        rules_text.parse("### R1 — a\ntext\n### R1 — b\n")


def test_a_rule_ends_at_the_next_heading_a_section_holds_its_subsections():
    e = rules_text.entries()
    assert "### R13" not in e["R12"].text and "R12" in e["R12"].text
    assert "### H0 " in e["§11.1"].text and "§11.2" not in e["§11.1"].text.splitlines()[0]
    assert "## §11.7" in e["§11"].text and "## §11.1" in e["§11"].text
    assert "## §2" not in e["§1"].text and "### R2" in e["§1"].text


def test_every_option_key_leads_to_its_rule_and_is_described_there():
    """§11.2: each key (and V1's, V2's) explains as its rule, whose text names the key and
    every value the code accepts for it."""
    for opt in OPTIONS:
        (entry,) = rules_text.lookup(opt.key)
        assert entry.id == opt.rule
        assert f"`{opt.key}" in entry.text, opt.key
        if isinstance(opt.kind, tuple):
            for value in opt.kind:
                assert f"`{value}`" in entry.text, (opt.key, value)
        assert rules_text.lookup(f"{opt.key}=x")[0].id == opt.rule


def _cell(value) -> str:
    """A value as the §11.4 table writes it."""
    if isinstance(value, (list, tuple)):
        return "3 … A" if tuple(value) == PLAIN else " ".join(value)
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _table(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\|(?:[^|`]*\|)?\s*`(\w+)`[^|]*\|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip().strip("*`") for c in m.group(2).split("|")]
    return rows


def test_the_preset_table_is_the_code_s_presets():
    """§11.4's table, cell by cell, against :data:`PRESETS` (the code decides)."""
    rows = _table(rules_text.entries()["§11.4"].text)
    names = list(PRESETS)
    for opt in OPTIONS:
        assert rows[opt.key] == [_cell(getattr(PRESETS[n], opt.key)) for n in names], opt.key


def test_the_option_table_has_the_seed_values():
    """§11.2's last column is each option's default, the ``seed`` value."""
    rows = _table(rules_text.entries()["§11.2"].text)
    seed = Ruleset()
    for opt in OPTIONS:
        want = getattr(seed, opt.key)
        want = " ".join(want) if isinstance(want, tuple) else _cell(want)
        assert rows[opt.key][-1] == want, opt.key


def test_the_seed_preset_is_not_the_seed_option():
    text = rules_text.entries()["seed"].text
    assert "--seed" in text and "--rules seed" in text


# -- every cited rule can be explained -------------------------------------------------------
_CITE = re.compile(r"(?<![\w§])(?:[RHV]\d+a?|§\d+(?:\.\d+)?)(?![\w])")


def cited_ids() -> dict[str, set[str]]:
    """Every rule id in a string of the package (messages, help texts, docstrings, f-string
    parts), with the files that cite it."""
    found: dict[str, set[str]] = {}
    for top in ("sim", "strategies", "reports"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for cite in _CITE.findall(node.value):
                        found.setdefault(cite, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_rule_the_code_cites_can_be_explained(cli):
    cited = cited_ids()
    # The scan itself works: these are cited in messages today (ruleset.py, position.py).
    assert {"R12", "R24", "H13", "H16", "§11.3", "§11.5", "V2"} <= set(cited)
    missing = {}
    for cite, files in cited.items():
        try:
            rules_text.lookup(cite)
        except KeyError:
            missing[cite] = sorted(files)
    assert not missing, f"cited but not in docs/rules.md: {missing}"
    for cite in ("R24", "H0a", "§11.3"):
        r = cli("rules", "explain", cite)
        assert r.exit_code == 0 and r.output.startswith("#"), r.output


def test_the_scan_would_see_an_unknown_citation():
    assert _CITE.findall("bad move (R27, H21; see §12.1)") == ["R27", "H21", "§12.1"]
    for cite in ("R27", "H21", "§12.1"):
        with pytest.raises(KeyError):
            rules_text.lookup(cite)


# -- the command ----------------------------------------------------------------------------
def test_explain_prints_the_rule_from_docs_rules_md(cli):
    r = cli("rules", "explain", "R12")
    assert r.exit_code == 0
    assert r.output.startswith("### R12 — ") and "(docs/rules.md#r12)" in r.output
    assert rules_text.entries()["R12"].text in r.output
    assert cli("rules", "R12").output == r.output                # the short form
    assert cli("rules", "explain", "r12").output == r.output     # any case


@pytest.mark.parametrize("word,rule", [("ten_anywhere", "H2"), ("skip_per_card", "H6"),
                                       ("starter_order", "H15"), ("last_player_loses", "V2"),
                                       ("jokers=always", "H13"), ("§11.5", "§11.5"),
                                       ("11.5", "§11.5"), ("h0a", "H0a"), ("classic", "classic")])
def test_explain_accepts_keys_sections_and_presets(cli, word, rule):
    r = cli("rules", "explain", word)
    assert r.exit_code == 0, r.output
    assert rules_text.entries()[rule].text in r.output


def test_explain_a_range_and_several_ids(cli):
    r = cli("rules", "explain", "R14-R16", "V1")
    assert r.exit_code == 0
    for key in ("R14", "R15", "R16", "V1"):
        assert f"### {key} — " in r.output
    assert "### R17" not in r.output


def test_explain_json(cli):
    r = cli("rules", "explain", "H14", "--json")
    data = json.loads(r.output)
    assert data["kind"] == "rules-explain"
    (rule,) = data["rules"]
    assert rule["id"] == "H14" and rule["link"] == "docs/rules.md#h14"
    assert rule["text"] == rules_text.entries()["H14"].text
    assert json.loads(cli("rules", "R12", "--json").output)["rules"][0]["id"] == "R12"


@pytest.mark.parametrize("args,message", [
    (("rules", "explain", "R27"), "unknown rule 'R27'"),
    (("rules", "explain", "nosuch"), "unknown rule 'nosuch'"),
    (("rules", "R99"), "unknown rules preset or rule 'R99'"),
    (("rules", "house"), "unknown rules preset or rule 'house'"),
    (("rules", "explain"), "needs what to explain"),
])
def test_an_unknown_id_is_one_error_line_listing_what_is_accepted(cli, args, message):
    r = cli(*args)
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    for accepted in ("R1-R26", "H1-H20", "V1", "§1-§11.7", "ten_anywhere", "boothj5"):
        assert accepted in lines[0]


def test_rules_and_rules_preset_still_list(cli):
    r = cli("rules")
    assert r.exit_code == 0 and "Presets (--rules NAME)" in r.output and "H17" in r.output
    r = cli("rules", "boothj5")
    assert r.exit_code == 0 and "boothj5" in r.output and "masters-of" not in r.output
    assert json.loads(cli("rules", "classic", "--json").output)["presets"]["classic"][
        "jokers"] == "never"


# -- one source, shipped ----------------------------------------------------------------------
def test_the_package_reads_docs_rules_md_itself():
    """reports/rules.md is a link to docs/rules.md, not a copy, and it is package data."""
    shipped = ROOT / "reports" / "rules.md"
    assert shipped.is_symlink() and shipped.resolve() == (ROOT / "docs" / "rules.md").resolve()
    assert rules_text.rulebook_text() == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    data = re.search(r'^"reports" = \[(.*)\]$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert any(fnmatch.fnmatch("rules.md", p) for p in re.findall(r'"([^"]+)"', data[1]))


@pytest.mark.slow
def test_a_built_wheel_holds_the_rulebook(tmp_path):
    """What `pip install .` installs: the wheel carries docs/rules.md's text as
    reports/rules.md (setuptools follows the link). Needs setuptools from the index or cache."""
    tree = tmp_path / "tree"                 # a copy, links kept: no build/ in the checkout
    for name in ("pyproject.toml", "README.md"):
        tree.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, tree / name)
    for name in ("sim", "strategies", "reports", "docs"):
        shutil.copytree(ROOT / name, tree / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(tmp_path), str(tree)], capture_output=True, text=True)
    if p.returncode:
        pytest.skip(f"cannot build a wheel here: {p.stderr.strip().splitlines()[-1:]}")
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert z.read("reports/rules.md") == (ROOT / "docs" / "rules.md").read_bytes()


def test_a_link_checked_out_as_a_plain_file_is_followed(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("### R1 — x\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    assert rules_text.follow_link_stub("../docs/rules.md\n", tmp_path / "pkg") == "### R1 — x\n"
    assert rules_text.follow_link_stub("### R1 — y\n", tmp_path / "pkg") == "### R1 — y\n"


# -- the README and docs link only files of the repository -----------------------------------
@pytest.mark.parametrize("name", ["README.md", "docs/rules.md", "docs/position.md"])
def test_links_stay_inside_the_repository(name):
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    assert "../shared" not in text
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (path.parent / target).exists(), f"{name} links {target}, which is missing"
