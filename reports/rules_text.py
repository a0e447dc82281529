"""The rulebook (docs/rules.md) looked up by rule id: what `sim rules explain ID` prints.

docs/rules.md is the one source. The package reads it as ``reports/rules.md``, a symlink to
it that setuptools copies into a wheel as package data, so an installed copy and a checkout
read the same text. Every entry starts at a heading whose first word is its id (``R12``,
``H0a``, ``V2``, ``§11.5`` or a preset name); an option key (``ten_anywhere``) finds the
rule that defines it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from sim.kernel.ruleset import BY_KEY, PRESETS

SOURCE = "docs/rules.md"
_HEADING = re.compile(r"^(#{2,4}) (\S+)(?: — (.*))?$")
_ANCHOR = re.compile(r'^<a id="([^"]+)"></a>$')
_ID = re.compile(r"^(?:[RHV]\d+a?|§\d+(?:\.\d+)?)$")
_RANGE = re.compile(r"^([RH])(\d+)\s*(?:-|–|\.\.)\s*\1?(\d+)$")


@dataclass(frozen=True)
class Entry:
    """One rule, section or preset of the rulebook: its id, title, anchor and text."""

    id: str
    title: str
    anchor: str
    text: str

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "link": f"{SOURCE}#{self.anchor}",
                "text": self.text}


def rulebook_text() -> str:
    """docs/rules.md as shipped with the package (``reports/rules.md``)."""
    here = resources.files("reports")
    return follow_link_stub(here.joinpath("rules.md").read_text(encoding="utf-8"), here)


def follow_link_stub(text: str, folder) -> str:
    """``text``, or the file it names when it is a symlink checked out as a plain file (git
    on a file system without links writes the target path as the file's text)."""
    target = text.strip()
    if "\n" not in target and target.endswith(".md"):
        return folder.joinpath(target).read_text(encoding="utf-8")
    return text


def parse(text: str) -> dict[str, Entry]:
    """Every entry of the rulebook by id. A rule or preset runs to the next heading; a section
    (``§11``) runs to the next section that is not inside it (``§11.1`` is inside ``§11``)."""
    lines = text.splitlines()
    heads = []                                   # (line index, id, title, anchor)
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if not m:
            continue
        key = m.group(2).strip("`")
        if not (_ID.match(key) or key in PRESETS):
            continue
        anchor = _ANCHOR.match(lines[i - 1]) if i else None
        heads.append((i, key, (m.group(3) or "").strip(), anchor.group(1) if anchor else ""))
    entries = {}
    for k, (start, key, title, anchor) in enumerate(heads):
        end = len(lines)
        for later, other, _, _ in heads[k + 1:]:
            if not key.startswith("§") or (other.startswith("§")
                                            and not other.startswith(key + ".")):
                end = later
                break
        body = [ln for ln in lines[start:end] if not _ANCHOR.match(ln)]
        if key in entries:
            raise ValueError(f"{SOURCE}: {key} has two entries")
        entries[key] = Entry(key, title, anchor, "\n".join(body).strip())
    return entries


_ENTRIES: dict[str, Entry] | None = None


def entries() -> dict[str, Entry]:
    """The shipped rulebook's entries (parsed once)."""
    global _ENTRIES
    if _ENTRIES is None:
        _ENTRIES = parse(rulebook_text())
    return _ENTRIES


def accepted() -> str:
    """What `sim rules explain` accepts, in one line (for error messages)."""
    return ("a rule R1-R26, V1, V2, H0, H0a, H1-H20 (or a range such as R14-R16), a section "
            "§1-§11.7 (or 11.5), an option key such as ten_anywhere, or a preset: "
            + ", ".join(PRESETS))


def normalize(word: str) -> list[str]:
    """The entry ids that ``word`` names, best guess at spelling; [] when none fits."""
    raw = word.strip()
    key = raw.partition("=")[0].strip()
    if key in BY_KEY:                                      # an option key (or key=value)
        return [BY_KEY[key].rule]
    if raw in PRESETS:
        return [raw]
    m = _RANGE.match(raw.upper())
    if m and int(m.group(2)) <= int(m.group(3)):
        return [f"{m.group(1)}{n}" for n in range(int(m.group(2)), int(m.group(3)) + 1)]
    section = re.fullmatch(r"(?:§|S|SEC|SECTION)?\s*(\d+(?:\.\d+)?)", raw.upper())
    if section:
        return ["§" + section.group(1)]
    upper = raw.upper()
    return [upper[:-1] + "a" if upper.endswith("A") else upper]


def lookup(word: str) -> list[Entry]:
    """The entries ``word`` names (an id, range, section, option key or preset);
    ``KeyError(word)`` when the rulebook has none (:func:`accepted` says what it has)."""
    found = entries()
    ids = normalize(word)
    if not ids or any(i not in found for i in ids):
        raise KeyError(word)
    return [found[i] for i in ids]


def explain_lines(word: str) -> list[str]:
    """What `sim rules explain WORD` prints: the entries' text, then where it comes from."""
    out = []
    key = word.strip().partition("=")[0].strip()
    if key in BY_KEY:
        out.append(f"{key} is an option of {BY_KEY[key].rule} (--rule {key}=...):\n")
    for e in lookup(word):
        out += [e.text, f"({SOURCE}#{e.anchor})", ""]
    return out[:-1]
