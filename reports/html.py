"""A saved run as one self-contained HTML page: ``sim report DIR`` / :func:`write_report`.

The page embeds every plot as a base64 PNG (it can be mailed or archived alone); the same
plots are written as PNG files, and every table as a CSV file, in ``<name>_files/`` beside
the page. Plots are drawn with matplotlib's Agg canvas (no pyplot, no GUI, no global backend
change), the page from a Jinja2 template.

Sections: the run (options, seed, versions); win rates with 95% intervals per strategy and
per seat; the seat effect (win rate by position after the starting player, and the starting
player's win share); game length and pick-ups; and, when the run folder holds them, the
tournament (``compare.json``: win rates, Bradley-Terry ratings, head-to-head) and the swap
study (``study.json``: the value of each face-up triple).

The per-game records are read one batch file at a time, a few columns each, so a report of
a run of any size needs little memory.
"""
from __future__ import annotations

import base64
import datetime as _dt
import io
import math
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from reports.load import Loaded, load
from sim.cards import CODE, NAMES

DPI = 110
RATE_KEYS = ("win_rate", "place_share")
_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #1d2433; background: #f5f6f8; line-height: 1.45; }
main { max-width: 1000px; margin: 0 auto; padding: 1.5rem 2rem 3rem; background: #fff; }
h1 { font-size: 1.7rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 2px solid #dfe3ea;
     padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
.lead { color: #4a5468; margin-top: 0; }
table.data { border-collapse: collapse; margin: 0.6rem 0 0.3rem; font-size: 0.88rem; }
table.data th, table.data td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #e3e6ec;
                               text-align: right; white-space: nowrap; }
table.data th { background: #eef1f5; font-weight: 600; }
table.data td.text, table.data th.text { text-align: left; }
table.data tbody tr:nth-child(even) { background: #fafbfc; }
table.kv th { text-align: left; }
table.kv td { text-align: left; white-space: normal; }
figure { margin: 1rem 0 1.4rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #e3e6ec; }
figcaption, .files { font-size: 0.85rem; color: #4a5468; }
.files a { color: #2f5fb3; }
.scroll { overflow-x: auto; max-width: 100%; }
.warn { background: #fff4e0; border-left: 4px solid #e39a1f; padding: 0.5rem 0.8rem; }
nav a { margin-right: 0.9rem; color: #2f5fb3; text-decoration: none; font-size: 0.9rem; }
footer { margin-top: 2.5rem; font-size: 0.8rem; color: #6b7487; }
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en" data-rendered="pending">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="shithead-sim {{ version }}">
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
<main>
<h1>{{ title }}</h1>
<p class="lead">{{ lead }}</p>
<nav>{% for s in sections %}<a href="#{{ s.id }}">{{ s.title }}</a>{% endfor %}</nav>
{% for w in warnings %}<p class="warn">{{ w }}</p>{% endfor %}
{% for s in sections %}
<section id="{{ s.id }}">
<h2>{{ s.title }}</h2>
{% for b in s.blocks %}
{% if b.kind == "text" %}<p>{{ b.text }}</p>
{% elif b.kind == "heading" %}<h3>{{ b.text }}</h3>
{% elif b.kind == "figure" %}<figure>
<img src="data:image/png;base64,{{ b.data }}" alt="{{ b.alt }}"
     width="{{ b.width }}" height="{{ b.height }}">
<figcaption>{{ b.caption }} <span class="files">(<a href="{{ b.href }}">PNG</a>)</span></figcaption>
</figure>
{% elif b.kind == "table" %}<div class="scroll">{{ b.html }}</div>
<p class="files">{{ b.caption }} <a href="{{ b.href }}">CSV</a></p>
{% endif %}
{% endfor %}
</section>
{% endfor %}
<footer>Written {{ written }} by <code>sim report</code> from <code>{{ run_dir }}</code>.
Every interval is a 95% interval; win rates count unfinished games (R25) as not won.</footer>
</main>
<script>
/* Marks the page once every plot has decoded (used by the tests' headless browser). */
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var root = document.documentElement;
  root.setAttribute("data-images", ok + "/" + imgs.length);
  root.setAttribute("data-rendered", ok === imgs.length ? "ok" : "broken");
});
</script>
</body>
</html>
"""


# -- small helpers ---------------------------------------------------------------------------
def _nan(x) -> float:
    return float("nan") if x is None else float(x)


def _pct(x, digits=2) -> str:
    x = _nan(x)
    return "–" if math.isnan(x) else f"{100 * x:.{digits}f}%"


def _int(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{int(x):,}"


def _wilson(wins: int, games: int):
    from reports.summary import wilson
    return wilson(int(wins), int(games))


def _rate_key(rows) -> str:
    """``win_rate`` (seed rules) or ``place_share`` (a V2 tournament)."""
    for key in RATE_KEYS:
        if rows and all(key in r for r in rows):
            return key
    return "win_rate"


def _yerr(rate, low, high):
    rate, low, high = (np.asarray([_nan(v) for v in a]) for a in (rate, low, high))
    return np.nan_to_num(np.vstack([rate - low, high - rate]).clip(min=0))


def _card_key(name) -> tuple:
    return (CODE.get(str(name), len(NAMES)), str(name))


def _rules_text(cfg: dict) -> str:
    base = cfg.get("rules", "seed")
    opts = cfg.get("options") or (base if isinstance(base, dict) else {})
    if isinstance(base, dict):
        base = base.get("base", "seed")
    text = f"{base} rules"
    if opts.get("choose_face_ups"):
        text += " + V1 (choose face-ups)"
    if opts.get("last_player_loses"):
        text += " + V2 (last player loses: a win is going out first)"
    return text


def _fmt_table(df: pd.DataFrame,
               text_cols=("strategy", "swap", "seats", "triple", "position")) -> str:
    """A DataFrame as an HTML table: rates as %, intervals as one column, counts with commas."""
    out = pd.DataFrame(index=df.index)
    cols = list(df.columns)
    rate = next((k for k in RATE_KEYS if k in cols), None)
    for c in cols:
        if c in ("ci_low", "ci_high"):
            if c == "ci_low":
                out["95% CI"] = [f"{_pct(lo)} – {_pct(hi)}" for lo, hi in
                                 zip(df["ci_low"], df.get("ci_high", df["ci_low"]))]
            continue
        if c in ("rating_low", "rating_high"):
            if c == "rating_low":
                out["rating 95% CI"] = [f"{_nan(lo):+.0f} – {_nan(hi):+.0f}" for lo, hi in
                                        zip(df["rating_low"], df["rating_high"])]
            continue
        s = df[c]
        if c == rate or c in ("win_share", "shithead_rate"):
            out[c.replace("_", " ")] = [_pct(v) for v in s]
        elif c == "rating":
            out[c] = [f"{_nan(v):+.0f}" for v in s]
        elif pd.api.types.is_bool_dtype(s) or pd.api.types.is_object_dtype(s):
            out[c.replace("_", " ")] = s.map(lambda v: "–" if v is None else str(v))
        elif pd.api.types.is_integer_dtype(s):
            out[c.replace("_", " ")] = [_int(v) for v in s]
        elif pd.api.types.is_float_dtype(s):
            whole = s.dropna()
            if len(whole) and (whole == whole.round()).all() and c in (
                    "games", "wins", "unfinished", "started", "shithead", "starter_wins"):
                out[c.replace("_", " ")] = [_int(v) for v in s]
            else:
                out[c.replace("_", " ")] = [("–" if pd.isna(v) else f"{v:,.3f}") for v in s]
        else:
            out[c.replace("_", " ")] = s.astype(str)
    text = [c for c in out.columns if c in text_cols]
    return _html_table(out, text)


def _html_table(df: pd.DataFrame, text_cols=(), index_name=None, header=True) -> str:
    """A DataFrame of display strings as a plain HTML table (text columns left-aligned)."""
    from html import escape

    def cell(tag, value, col):
        cls = ' class="text"' if col in text_cols else ""
        return f"<{tag}{cls}>{escape(str(value))}</{tag}>"
    head = ([cell("th", index_name, index_name)] if index_name is not None else []) + [
        cell("th", c, c) for c in df.columns]
    rows = []
    for idx, r in zip(df.index, df.itertuples(index=False)):
        first = [cell("th", idx, index_name)] if index_name is not None else []
        rows.append("<tr>" + "".join(first + [cell("td", v, c) for c, v in
                                              zip(df.columns, r)]) + "</tr>")
    thead = "<thead><tr>" + "".join(head) + "</tr></thead>\n" if header else ""
    return ('<table class="data">\n' + thead + "<tbody>\n" + "\n".join(rows)
            + "\n</tbody>\n</table>")


class _Page:
    """Collects the sections of the page and writes PNG and CSV files as they come."""

    def __init__(self, out_html: Path):
        self.files_dir = out_html.parent / f"{out_html.stem}_files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.written: list[Path] = []
        self.sections: list[dict] = []

    def section(self, ident: str, title: str) -> list:
        blocks: list = []
        self.sections.append({"id": ident, "title": title, "blocks": blocks})
        return blocks

    def _href(self, path: Path) -> str:
        return f"{self.files_dir.name}/{path.name}"

    def figure(self, name: str, fig, caption: str) -> dict:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        data = buf.getvalue()
        path = self.files_dir / f"{name}.png"
        path.write_bytes(data)
        self.written.append(path)
        w, h = (int(round(v * DPI)) for v in fig.get_size_inches())
        return {"kind": "figure", "data": base64.b64encode(data).decode("ascii"),
                "alt": fig.get_suptitle().replace("\n", " ") or caption,
                "caption": caption, "href": self._href(path), "width": w, "height": h}

    def table(self, name: str, df: pd.DataFrame, caption: str = "") -> dict:
        path = self.files_dir / f"{name}.csv"
        df.to_csv(path, index=False)
        self.written.append(path)
        return {"kind": "table", "html": _fmt_table(df),
                "caption": caption, "href": self._href(path)}


def _figure(w=8.0, h=4.2):
    """A figure on the Agg canvas (no pyplot: nothing global changes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _title(fig, text: str) -> None:
    """The figure's title, wrapped to the figure's width."""
    import textwrap
    text = text.replace("(n = ", "(n\u00a0=\u00a0")       # keep "n = 1,000" on one line
    fig.suptitle(textwrap.fill(text, max(30, int(fig.get_figwidth() * 10.5))))


def _percent_axis(ax, axis="y"):
    from matplotlib.ticker import PercentFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0))


def _rate_bars(ax, labels, rate, low, high, color, fair=None, fair_label=None):
    x = np.arange(len(labels))
    rate_f = np.array([_nan(v) for v in rate])
    ax.bar(x, np.nan_to_num(rate_f), color=color, width=0.6, zorder=2)
    ax.errorbar(x, np.nan_to_num(rate_f), yerr=_yerr(rate, low, high), fmt="none",
                ecolor="#1d2433", capsize=5, lw=1.2, zorder=3, label="95% CI")
    top = max([_nan(v) for v in high if not math.isnan(_nan(v))] + [0.01])
    for xi, r, hi in zip(x, rate_f, high):
        if not math.isnan(r):
            y = r if math.isnan(_nan(hi)) else max(r, _nan(hi))
            ax.annotate(_pct(r, 1), (xi, y), xytext=(0, 3), textcoords="offset points",
                        fontsize=8, ha="center", va="bottom")
    if fair is not None:
        ax.axhline(fair, color="#c0392b", ls="--", lw=1, zorder=1, label=fair_label)
        top = max(top, fair)
    ax.set_ylim(0, min(1.0, top * 1.18 + 0.005))
    ax.set_xticks(x, labels)
    _percent_axis(ax)
    ax.grid(axis="y", alpha=0.3, zorder=0)
    ax.legend(loc="upper right", fontsize=8)


# -- statistics from the per-game records, one batch file at a time --------------------------
def _game_stats(run: Loaded) -> dict:
    p = run.players
    cols = ["turns", "unfinished", "winner", "starter"] + [f"pickups_{s}" for s in range(p)]
    turns = np.zeros(1, np.int64)
    pick = np.zeros((p, 1), np.int64)
    games = unfinished = starter_wins = 0
    offset_wins = np.zeros(p, np.int64)
    for df in run.iter_parts(cols):
        done = ~df["unfinished"].to_numpy(bool)
        games += len(df)
        unfinished += int((~done).sum())
        t = df["turns"].to_numpy(np.int64)
        c = np.bincount(t[done], minlength=turns.size)
        turns = np.pad(turns, (0, c.size - turns.size)) + c
        winner = df["winner"].to_numpy(np.int64)
        starter = df["starter"].to_numpy(np.int64)
        off = (winner[done] - starter[done]) % p
        offset_wins += np.bincount(off, minlength=p)[:p]
        starter_wins += int((off == 0).sum())
        for s in range(p):
            c = np.bincount(df[f"pickups_{s}"].to_numpy(np.int64), minlength=pick.shape[1])
            if c.size > pick.shape[1]:
                pick = np.pad(pick, ((0, 0), (0, c.size - pick.shape[1])))
            pick[s, :c.size] += c
    return {"games": games, "unfinished": unfinished, "turns": turns, "pickups": pick,
            "starter_wins": starter_wins, "offset_wins": offset_wins}


def _hist_limit(counts: np.ndarray, q=0.999) -> int:
    """The smallest value below which a share ``q`` of the counted values lies."""
    total = counts.sum()
    if total == 0:
        return 1
    return int(np.searchsorted(np.cumsum(counts), q * total)) + 1


def _strategy_labels(run: Loaded) -> list[tuple[str, list[int]]]:
    """(label, seats) per row of the summary's strategy table."""
    bs = run.by_strategy
    if bs.empty:
        return []
    multi = bs["strategy"].value_counts()
    out = []
    for r in bs.to_dict(orient="records"):
        label = r["strategy"] if multi[r["strategy"]] == 1 else f"{r['strategy']} / {r['swap']}"
        out.append((str(label), [int(s) for s in str(r["seats"]).split(",") if s != ""]))
    return out


# -- the sections ----------------------------------------------------------------------------
KINDS = {"run": "The run", "compare": "The tournament", "swap-study": "The swap study"}


def _kind(run: Loaded) -> str:
    return str(run.manifest.get("kind", "run"))


def _value(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    if isinstance(v, dict):
        return ", ".join(f"{k} {_value(x)}" for k, x in v.items())
    return str(v)


def _run_section(page: _Page, run: Loaded) -> None:
    """What was simulated: every option of the run, whatever command saved it."""
    cfg, ov, man = dict(run.config), run.summary.get("overall", {}), run.manifest
    blocks = page.section("run", KINDS.get(_kind(run), "The run"))
    extra = run.compare or run.study or {}
    games = ov.get("games", cfg.get("games"))
    unf = ov.get("unfinished", extra.get("unfinished"))
    rows = [("players", cfg.pop("players", None)), ("rules", _rules_text(cfg)),
            ("seed", cfg.pop("seed", None)), ("games", _int(games))]
    for key in ("rules", "options", "games"):
        cfg.pop(key, None)
    if unf is not None:
        share = _pct(unf / games) if games else "–"
        cap = cfg.pop("max_turns", None)
        rows.append(("unfinished", f"{_int(unf)} ({share}"
                     + (f"; limit {_int(cap)} turns, R25)" if cap else ")")))
    if ov.get("mean_turns") is not None:
        rows.append(("mean turns per finished game", f"{_nan(ov['mean_turns']):.1f}"))
    if ov.get("burns_per_game") is not None:
        rows.append(("burns per game", f"{_nan(ov['burns_per_game']):.2f}"))
    if "swaps" in cfg and isinstance(cfg.get("strategies"), list):
        rows.append(("seats (strategy and swap policy)", ", ".join(
            f"{s}: {st} (swap {sw})" for s, (st, sw) in enumerate(
                zip(cfg.pop("strategies"), cfg.pop("swaps"))))))
    rows += [(k.replace("_", " "), _value(v)) for k, v in cfg.items() if v is not None]
    if run.parts:
        rows.append(("batch / record files", f"{_int(man.get('batch'))} games per file, "
                                             f"{len(run.parts)} file(s)"))
    versions = man.get("versions", {})
    rows += [("date", _date(run)),
             ("versions", ", ".join(f"{k} {v}" for k, v in versions.items()) or "–"),
             ("folder", str(run.path))]
    df = pd.DataFrame([(k, "–" if v is None else str(v)) for k, v in rows],
                      columns=["item", "value"])
    html = _html_table(df.set_index("item"), text_cols=("value",), index_name="item",
                       header=False)
    html = html.replace('class="data"', 'class="data kv"', 1)
    blocks.append({"kind": "table", "html": html, "caption": "The options:",
                   "href": page._href(_csv(page, "run", df))})


def _csv(page: _Page, name: str, df: pd.DataFrame) -> Path:
    path = page.files_dir / f"{name}.csv"
    df.to_csv(path, index=False)
    page.written.append(path)
    return path


def _date(run: Loaded) -> str:
    for key in ("finished", "created", "date"):
        if run.manifest.get(key) or run.summary.get(key):
            return str(run.manifest.get(key) or run.summary.get(key))
    ts = (run.path / "summary.json").stat().st_mtime
    when = _dt.datetime.fromtimestamp(ts).astimezone()
    return when.strftime("%Y-%m-%d %H:%M %Z") + " (summary written)"


def _strategy_section(page: _Page, run: Loaded) -> None:
    bs = run.by_strategy
    if bs.empty or "seats" not in bs:      # a tournament's table is drawn by its section
        return
    blocks = page.section("strategies", "Win rate by strategy")
    p = run.players
    labels = [f"{lab}\nseats {','.join(map(str, seats))}\nn={_int(g)}"
              for (lab, seats), g in zip(_strategy_labels(run), bs["games"])]
    fig = _figure(8, 4.4)
    ax = fig.add_subplot()
    _rate_bars(ax, labels, bs["win_rate"], bs["ci_low"], bs["ci_high"], "#4c78a8",
               fair=1 / p, fair_label=f"fair share 1/{p}")
    ax.set_xlabel("strategy (seats held; n = seat-games)")
    ax.set_ylabel("win rate (% of seat-games)")
    _title(fig, f"Win rate by strategy with 95% Wilson CI (n = {_int(bs['games'].sum())} "
                 f"seat-games)")
    blocks.append(page.figure("win_rate_by_strategy", fig,
                              "Each strategy's wins over the seat-games it played; the seats "
                              "of one game are not independent, so read the intervals as "
                              "indicative."))
    blocks.append(page.table("by_strategy", bs, "Win rate by strategy:"))


def _seat_section(page: _Page, run: Loaded, stats: dict) -> None:
    bs, p = run.by_seat, run.players
    if (bs.empty or "strategy" not in bs) and not stats["games"]:
        return                             # a tournament's seat effect is in its section
    blocks = page.section("seats", "Win rate by seat (seat effect)")
    if not bs.empty and "strategy" in bs:
        labels = [f"seat {s}\n{st}\nn={_int(g)}" for s, st, g in
                  zip(bs["seat"], bs["strategy"], bs["games"])]
        fig = _figure(8, 4.4)
        ax = fig.add_subplot()
        _rate_bars(ax, labels, bs["win_rate"], bs["ci_low"], bs["ci_high"], "#72b7b2",
                   fair=1 / p, fair_label=f"fair share 1/{p}")
        ax.set_xlabel("seat (strategy; n = games)")
        ax.set_ylabel("win rate (% of games)")
        _title(fig, f"Win rate by seat with 95% Wilson CI (n = {_int(bs['games'].iloc[0])} "
                     f"games)")
        blocks.append(page.figure("win_rate_by_seat", fig, "Each seat's share of all games "
                                  "won; the dealer is drawn at random (R3)."))
        blocks.append(page.table("by_seat", bs, "Win rate by seat:"))
        if "shithead" in bs:
            games = bs["games"].to_numpy()
            ci = [_wilson(k, n) for k, n in zip(bs["shithead"], games)]
            rate = bs["shithead"].to_numpy() / np.maximum(games, 1)
            fig = _figure(8, 4.2)
            ax = fig.add_subplot()
            _rate_bars(ax, labels, rate, [c[0] for c in ci], [c[1] for c in ci], "#e45756",
                       fair=1 / p, fair_label=f"fair share 1/{p}")
            ax.set_xlabel("seat (strategy; n = games)")
            ax.set_ylabel("Shithead rate (% of games)")
            _title(fig, f"V2: how often each seat is the Shithead, 95% Wilson CI "
                         f"(n = {_int(games[0])} games)")
            blocks.append(page.figure("shithead_by_seat", fig, "V2: the last player out "
                                      "(the Shithead) by seat."))
    # win rate by position after the starting player
    n = stats["games"]
    if n:
        wins = stats["offset_wins"]
        ci = [_wilson(w, n) for w in wins]
        share = stats["starter_wins"] / n
        lo, hi = _wilson(stats["starter_wins"], n)
        labels = ["starter"] + [f"starter +{k}" for k in range(1, p)]
        fig = _figure(8, 4.2)
        ax = fig.add_subplot()
        _rate_bars(ax, labels, wins / n, [c[0] for c in ci], [c[1] for c in ci], "#f58518",
                   fair=1 / p, fair_label=f"fair share 1/{p}")
        ax.set_xlabel("seat, counted in seat order from the player who started (R6)")
        ax.set_ylabel("win rate (% of games)")
        _title(fig, f"Win rate by position after the starting player, 95% Wilson CI "
                     f"(n = {_int(n)} games)")
        blocks.append({"kind": "text", "text": (
            f"The player who made the first move won {_pct(share)} of the games (95% CI "
            f"{_pct(lo)} – {_pct(hi)}, n = {n:,}); a fair share is {_pct(1 / p)}.")})
        blocks.append(page.figure("win_rate_by_start_position", fig, "Wins by where the "
                                  "winner sat relative to the starting player."))
        df = pd.DataFrame({"position": labels, "games": n, "wins": wins,
                           "win_rate": wins / n, "ci_low": [c[0] for c in ci],
                           "ci_high": [c[1] for c in ci]})
        blocks.append(page.table("start_position", df, "Win rate by position after the "
                                 "starting player:"))


def _length_section(page: _Page, run: Loaded, stats: dict) -> None:
    if not stats["games"]:
        return
    blocks = page.section("length", "Game length and pick-ups")
    if stats["unfinished"]:
        cap = run.config.get("max_turns")
        blocks.append({"kind": "text", "text": (
            f"{stats['unfinished']:,} of {stats['games']:,} games "
            f"({_pct(stats['unfinished'] / stats['games'])}) were unfinished: still going "
            f"after {_int(cap)} turns (R25). They are left out of the game-length histogram "
            f"and counted as not won in every win rate.")})
    turns = stats["turns"]
    finished = int(turns.sum())
    if finished:
        values = np.arange(turns.size)
        mean = float((values * turns).sum() / finished)
        median = int(np.searchsorted(np.cumsum(turns), finished / 2))
        limit = _hist_limit(turns)
        width = max(1, int(math.ceil(limit / 60)))
        edges = np.arange(0, limit + width, width)
        first = int(np.flatnonzero(turns)[0]) // width * width
        edges = edges[edges >= first]
        binned = np.add.reduceat(turns[:edges[-1]], edges[:-1]) if edges.size > 1 else turns
        over = int(turns[edges[-1]:].sum())
        fig = _figure(8, 4.2)
        ax = fig.add_subplot()
        ax.stairs(binned, edges, fill=True, color="#4c78a8", alpha=0.85)
        ax.axvline(mean, color="#c0392b", ls="--", lw=1.2, label=f"mean {mean:.1f}")
        ax.axvline(median, color="#1d2433", ls=":", lw=1.2, label=f"median {median}")
        ax.set_xlabel(f"turns per game (moves; bins of {width})")
        ax.set_ylabel("games (count)")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        note = []
        if over:
            note.append(f"{over:,} above {edges[-1]} not shown")
        if stats["unfinished"]:
            note.append(f"{stats['unfinished']:,} unfinished excluded")
        _title(fig, f"Game length of finished games (n = {finished:,} games"
                     + ("; " + ", ".join(note) if note else "") + ")")
        blocks.append(page.figure("turns_histogram", fig, "Turns (moves, pick-ups included) "
                                  "per finished game."))
        df = pd.DataFrame({"turns": values, "games": turns})
        _csv(page, "turns_counts", df[df["games"] > 0])
    pick = stats["pickups"]
    groups = _strategy_labels(run) or [("all seats", list(range(run.players)))]
    if pick.sum() or stats["games"]:
        fig = _figure(8, 4.2)
        ax = fig.add_subplot()
        limit = max(_hist_limit(pick.sum(axis=0)), 2)
        edges = np.arange(limit + 1) - 0.5
        colors = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#b279a2", "#9d755d"]
        rows = []
        total = 0
        for i, (label, seats) in enumerate(groups):
            counts = pick[seats].sum(axis=0)
            n = int(counts.sum())
            total += n
            if not n:
                continue
            mean = float((np.arange(counts.size) * counts).sum() / n)
            ax.stairs(counts[:limit] / n, edges, lw=1.8, color=colors[i % len(colors)],
                      label=f"{label}: mean {mean:.2f} (n={n:,})")
            for v, c in enumerate(counts):
                if c:
                    rows.append({"strategy": label, "pickups": v, "player_games": int(c)})
        _percent_axis(ax)
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("pick-ups per player per game (count)")
        ax.set_ylabel("share of player-games (%)")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        _title(fig, f"Pick-ups per player per game (n = {total:,} player-games)")
        blocks.append(page.figure("pickups_histogram", fig, "How often a player picked up "
                                  "the pile in a game (R16), by strategy."))
        _csv(page, "pickups_counts", pd.DataFrame(rows))


def _compare_section(page: _Page, run: Loaded) -> None:
    cmp = run.compare
    blocks = page.section("tournament", "Tournament (compare.json)")
    rows = cmp.get("per_strategy") or []
    key = _rate_key(rows)
    what = "win rate" if key == "win_rate" else "place share (V2: share of others beaten)"
    games = cmp.get("games") or (cmp.get("starter_effect") or {}).get("games")
    facts = [f"{len(cmp.get('strategies', rows))} strategies"]
    for k, label in (("players", "players"), ("games", "games"), ("deals", "deals"),
                     ("unfinished", "unfinished")):
        if cmp.get(k) is not None:
            facts.append(f"{_int(cmp[k])} {label}")
    blocks.append({"kind": "text", "text": "Every strategy in every seat equally often: "
                   + ", ".join(facts) + "."})
    if rows:
        df = pd.DataFrame(rows)
        labels = [f"{r['strategy']}\nn={_int(r.get('games'))}" for r in rows]
        has_rating = "rating" in df
        fig = _figure(9, 4.4)
        ax = fig.add_subplot(1, 2 if has_rating else 1, 1)
        p = cmp.get("players")
        _rate_bars(ax, labels, df[key], df["ci_low"], df["ci_high"], "#4c78a8",
                   fair=1 / p if p and key == "win_rate" else None,
                   fair_label=f"fair share 1/{p}" if p else None)
        ax.set_xlabel("strategy (n = seat-games)")
        ax.set_ylabel(f"{what.split(' (')[0]} (%)")
        ax.set_title(f"{what.split(' (')[0].capitalize()}, 95% CI", fontsize=10)
        if has_rating:
            ax2 = fig.add_subplot(1, 2, 2)
            r = df["rating"].astype(float).to_numpy()
            y = np.arange(len(rows))
            ax2.errorbar(r, y, xerr=_yerr(r, df.get("rating_low", r), df.get("rating_high", r)),
                         fmt="o", color="#54a24b", ecolor="#1d2433", capsize=4)
            ax2.axvline(0, color="#888", lw=0.8)
            ax2.set_yticks(y, [str(x["strategy"]) for x in rows])
            ax2.set_ylim(len(rows) - 0.5, -0.5)             # first strategy on top
            ax2.set_xlabel("Bradley-Terry rating (Elo points, mean 0)")
            ax2.set_title("Rating, 95% bootstrap interval", fontsize=10)
            ax2.grid(axis="x", alpha=0.3)
        _title(fig, f"Tournament: strategies compared (n = {_int(games)} games)")
        blocks.append(page.figure("tournament_strategies", fig, f"Per strategy: {what} "
                                  + ("and Bradley-Terry rating (Elo points, mean 0) "
                                     if has_rating else "") + "with 95% intervals."))
        blocks.append(page.table("tournament_strategies", df, "Per strategy:"))
    h2h = cmp.get("head_to_head") or {}
    names = h2h.get("strategies") or cmp.get("strategies") or []
    matrix = h2h.get("matrix")
    if matrix and names:
        m = np.array([[_nan(v) for v in row] for row in matrix], float)
        k = len(names)
        fig = _figure(max(5.5, 1.0 + 0.9 * k), max(4.5, 0.8 + 0.75 * k))
        ax = fig.add_subplot()
        dev = np.nanmax(np.abs(m - 0.5)) if np.isfinite(m).any() else 0.1
        dev = max(0.05, math.ceil(dev * 20) / 20)
        im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.5 - dev, vmax=0.5 + dev)
        for i in range(k):
            for j in range(k):
                v = m[i, j]
                text = "–" if math.isnan(v) else f"{100 * v:.1f}%"
                dark = not math.isnan(v) and abs(v - 0.5) > 0.6 * dev
                ax.text(j, i, text, ha="center", va="center", fontsize=9,
                        color="white" if dark else "#1d2433")
        ax.set_xticks(range(k), names, rotation=30, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("opponent (column)")
        ax.set_ylabel("strategy (row)")
        cb = fig.colorbar(im, ax=ax, shrink=0.85)
        cb.set_label("row finishes ahead of column (% of meetings)")
        _percent_axis(cb.ax)
        _title(fig, f"Head to head: share of meetings the row strategy won (n = "
                     f"{_int(games)} games)")
        blocks.append(page.figure("head_to_head", fig, "Row beats column, among the games "
                                  "where both were seated and one of them was ranked ahead."))
        df = pd.DataFrame(m, index=names, columns=names).reset_index(names="strategy")
        path = _csv(page, "head_to_head", df)
        blocks.append({"kind": "table", "html": _fmt_h2h(names, m),
                       "caption": "Head to head (row beats column):",
                       "href": page._href(path)})
    seat = cmp.get("seat_effect") or []
    start = cmp.get("starter_effect")
    if seat or start:
        blocks.append({"kind": "heading", "text": "Seat effect in the tournament"})
        rows = list(seat) + ([dict(start, seat="starter")] if start else [])
        labels = [f"seat {r['seat']}" if r["seat"] != "starter" else "starting\nplayer (R6)"
                  for r in rows]
        p = cmp.get("players") or len(seat)
        fig = _figure(8, 4.2)
        ax = fig.add_subplot()
        _rate_bars(ax, labels, [r.get("win_rate") for r in rows], [r.get("ci_low") for r in rows],
                   [r.get("ci_high") for r in rows],
                   ["#72b7b2"] * len(seat) + ["#f58518"] * (len(rows) - len(seat)),
                   fair=1 / p if p else None, fair_label=f"fair share 1/{p}")
        ax.set_xlabel("seat (strategies rotated through every seat)")
        ax.set_ylabel("win rate (% of games)")
        _title(fig, f"Tournament: win rate by seat and of the starting player, 95% Wilson CI "
                    f"(n = {_int(games)} games)")
        blocks.append(page.figure("tournament_seats", fig, "Over the rotations every "
                                  "strategy holds every seat equally often."))
        if seat:
            blocks.append(page.table("tournament_seats", pd.DataFrame(seat),
                                     "Win rate by seat:"))
        if start:
            blocks.append({"kind": "text", "text": (
                f"The starting player won {_pct(start.get('win_rate'))} of the tournament's "
                f"games (95% CI {_pct(start.get('ci_low'))} – {_pct(start.get('ci_high'))}, "
                f"n = {_int(start.get('games'))})" + (f"; a fair share is {_pct(1 / p)}."
                                                       if p else "."))})
            _csv(page, "tournament_starter", pd.DataFrame([start]))


def _fmt_h2h(names, m) -> str:
    df = pd.DataFrame([[("–" if math.isnan(v) else _pct(v, 1)) for v in row] for row in m],
                      index=names, columns=names)
    return _html_table(df, index_name="row beats column")


MIN_TRIPLE_GAMES = 100     # a triple ranks among the best/worst only if seen this often
MIN_CELL_GAMES = 30        # a heatmap cell seen less often is marked and left off the scale


def _study_section(page: _Page, run: Loaded) -> None:
    st = run.study
    blocks = page.section("study", "Swap study: face-up triples (study.json)")
    rows = st.get("triples") or []
    if not rows:
        blocks.append({"kind": "text", "text": "The study holds no triples."})
        return
    key = _rate_key(rows)
    what = key.replace("_", " ")
    df = pd.DataFrame(rows)
    cards = [sorted(map(str, t), key=_card_key) for t in df["triple"]]
    df["triple"] = [" ".join(c) for c in cards]
    df = df.sort_values(key, ascending=False, kind="stable").reset_index(drop=True)
    cards = [t.split(" ") for t in df["triple"]]
    n_all = df["games"].to_numpy(float)
    total = int(n_all.sum())
    mean = float((df[key].to_numpy(float) * n_all).sum() / total) if total else float("nan")
    intro = f"{len(df):,} face-up triples seen in {total:,} seat-games"
    if st.get("games"):
        intro += f", from {_int(st['games'])} games"
        if st.get("unfinished"):
            intro += f" ({_int(st['unfinished'])} unfinished, left out)"
    if st.get("strategy"):
        intro += f", move strategy {st['strategy']}"
    blocks.append({"kind": "text", "text": f"{intro}; mean {what} of a seat {_pct(mean)}."})

    # grid: rows = highest card, columns = lowest card, pooled over the middle card
    ranks = sorted({c for t in cards for c in t}, key=_card_key)
    idx = {r: i for i, r in enumerate(ranks)}
    k = len(ranks)
    g, v = np.zeros((k, k)), np.zeros((k, k))
    for t, r, n in zip(cards, df[key], n_all):
        if not pd.isna(r):
            g[idx[t[-1]], idx[t[0]]] += n
            v[idx[t[-1]], idx[t[0]]] += n * float(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        grid = np.where(g > 0, v / g, np.nan)
    # The colour scale follows the cells seen often enough; rarer ones are marked with *.
    rare = np.isfinite(grid) & (g < MIN_CELL_GAMES)
    scale = grid[np.isfinite(grid) & ~rare]
    if not scale.size:
        scale, rare = grid[np.isfinite(grid)], np.zeros_like(rare)
    fig = _figure(max(6.0, 1.5 + 0.6 * k), max(5.0, 1.0 + 0.5 * k))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis",
                   vmin=scale.min() if scale.size else None,
                   vmax=scale.max() if scale.size else None)
    mid = (scale.min() + scale.max()) / 2 if scale.size else 0
    for i in range(k):
        for j in range(k):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.1f}" + ("*" if rare[i, j] else ""),
                        ha="center", va="center", fontsize=7 if k > 9 else 9,
                        color="white" if grid[i, j] < mid else "#1d2433")
    ax.set_xticks(range(k), ranks)
    ax.set_yticks(range(k), ranks)
    ax.set_xlabel("lowest card of the face-up triple")
    ax.set_ylabel("highest card of the face-up triple")
    cb = fig.colorbar(im, ax=ax, shrink=0.85)
    _percent_axis(cb.ax)
    cb.set_label(f"{what} (%), pooled over the middle card")
    _title(fig, f"Value of the face-up triple: {what} (%) by lowest and highest card "
                f"(n = {total:,} seat-games)")
    blocks.append(page.figure("study_heatmap", fig, "Each cell pools the triples with that "
                              "lowest and highest card (whatever the middle card), weighted "
                              "by seat-games; cell values in %"
                              + (f"; * fewer than {MIN_CELL_GAMES} seat-games (outside the "
                                 "colour scale)" if rare.any() else "") + "."))

    # the best and worst 10, among the triples seen often enough to rank
    min_n = MIN_TRIPLE_GAMES if (n_all >= MIN_TRIPLE_GAMES).sum() >= 20 else 0
    ranked = df[n_all >= min_n]
    top = ranked.head(10)
    bottom = ranked.tail(min(10, max(0, len(ranked) - 10)))       # best first, like df
    if min_n:
        blocks.append({"kind": "text", "text": (
            f"Best and worst are ranked among the {len(ranked):,} triples seen in at least "
            f"{min_n} seat-games (the rarer ones have intervals too wide to rank); every "
            f"triple is in the CSV file.")})
    both = pd.concat([top, bottom])
    fig = _figure(8, max(3.5, 0.8 + 0.28 * len(both)))
    ax = fig.add_subplot()
    y = np.arange(len(both))
    rates = both[key].to_numpy(float)
    err = _yerr(rates, both.get("ci_low", rates), both.get("ci_high", rates))
    colors = ["#54a24b"] * len(top) + ["#e45756"] * len(bottom)
    for yi, r, e0, e1, col in zip(y, rates, err[0], err[1], colors):
        ax.errorbar([r], [yi], xerr=[[e0], [e1]], fmt="o", color=col, ecolor=col, capsize=3)
    if not math.isnan(mean):
        ax.axvline(mean, color="#1d2433", ls="--", lw=1, label=f"mean {_pct(mean, 1)}")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_yticks(y, [f"{t}  (n={int(n):,})" for t, n in zip(both["triple"], both["games"])])
    ax.invert_yaxis()
    _percent_axis(ax, "x")
    ax.set_xlabel(f"{what} (%), 95% CI")
    ax.set_ylabel("face-up triple (seat-games)")
    ax.grid(axis="x", alpha=0.3)
    _title(fig, f"Best (green) and worst (red) face-up triples (n = {int(both['games'].sum()):,}"
                f" seat-games shown of {total:,})")
    blocks.append(page.figure("study_best_worst", fig, "The best and worst triples with "
                              "their 95% intervals."))
    _csv(page, "study_triples", df)
    blocks.append({"kind": "heading", "text": "Top 10 triples"})
    blocks.append(page.table("study_top10", top.reset_index(drop=True), "Top 10:"))
    if len(bottom):
        blocks.append({"kind": "heading", "text": "Bottom 10 triples"})
        blocks.append(page.table("study_bottom10", bottom.iloc[::-1].reset_index(drop=True),
                                 "Bottom 10 (worst first):"))
    _study_policies(page, blocks, st)


def _study_policies(page: _Page, blocks: list, st: dict) -> None:
    """The value table as a swap policy against each built-in one (when the study has it)."""
    h2h = [r for r in st.get("head_to_head") or [] if isinstance(r, dict) and "policy" in r]
    if not h2h:
        return
    blocks.append({"kind": "heading", "text": "The value table against the other swap "
                                              "policies"})
    n = st.get("h2h_games_per_policy") or h2h[0].get("games")
    diff = np.array([_nan(r.get("diff")) for r in h2h])
    fig = _figure(8, max(3.0, 1.2 + 0.45 * len(h2h)))
    ax = fig.add_subplot()
    y = np.arange(len(h2h))
    err = _yerr(diff, [r.get("ci_low") for r in h2h], [r.get("ci_high") for r in h2h])
    ax.errorbar(100 * diff, y, xerr=100 * err, fmt="o", color="#4c78a8", ecolor="#1d2433",
                capsize=4)
    ax.axvline(0, color="#c0392b", ls="--", lw=1)
    ax.set_yticks(y, [str(r["policy"]) for r in h2h])
    ax.invert_yaxis()
    ax.set_xlabel("value table's margin (points of win rate per seat), 95% CI")
    ax.set_ylabel("built-in swap policy")
    ax.grid(axis="x", alpha=0.3)
    _title(fig, f"Value table vs each swap policy, duplicate deals (n = {_int(n)} games per "
                f"policy)")
    blocks.append(page.figure("study_policies", fig, "Right of the dashed line: the value "
                              "table wins more often than that policy."))
    if st.get("verdict"):
        blocks.append({"kind": "text", "text": str(st["verdict"])})
    df = pd.DataFrame(h2h)
    path = _csv(page, "study_policies", df)

    def pts(x):
        return "–" if math.isnan(_nan(x)) else f"{100 * _nan(x):+.2f}"
    shown = pd.DataFrame({
        "policy": df["policy"].astype(str),
        "games": [_int(r.get("games")) for r in h2h],
        "table's share of wins": [_pct(r.get("table_share")) for r in h2h],
        "margin (points per seat)": [pts(r.get("diff")) for r in h2h],
        "95% CI": [f"{pts(r.get('ci_low'))} – {pts(r.get('ci_high'))}" for r in h2h],
        "p": [f"{_nan(r.get('p_value')):.2g}" for r in h2h],
        "p (BH-adjusted)": [f"{_nan(r.get('p_adjusted')):.2g}" for r in h2h]})
    blocks.append({"kind": "table", "html": _html_table(shown, ("policy",)),
                   "caption": "Value table against each policy:", "href": page._href(path)})


@contextmanager
def _shape_of(path: Path):
    """A file of the run that is not shaped as expected is a ValueError naming it."""
    try:
        yield
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ValueError(f"{path} does not have the expected shape "
                         f"({type(e).__name__}: {e})") from None


def write_report(run_dir, out_html=None) -> list[Path]:
    """Write the HTML report of the run saved in ``run_dir`` to ``out_html`` (default
    ``run_dir/report.html``) and its PNG and CSV files to ``<name>_files/`` beside it.

    Returns the paths written, the page first. ``ValueError`` if ``run_dir`` is not a
    finished saved run (see :func:`reports.load.load`)."""
    from jinja2 import Environment

    run = load(run_dir)
    out_html = Path(out_html if out_html is not None else run.path / "report.html").expanduser()
    if out_html.is_dir():
        raise ValueError(f"{out_html} is a folder: give the name of the HTML file to write")
    page = _Page(out_html)
    import matplotlib

    stats = _game_stats(run)
    warnings = []
    ov_games = run.summary.get("overall", {}).get("games")
    if run.parts and ov_games is not None and stats["games"] != ov_games:
        warnings.append(f"The record files hold {stats['games']:,} games but the summary "
                        f"counts {ov_games:,}: the folder may have been changed after the run.")
    # Names come from users (strategy files, parameters): a "$" in them is not mathtext.
    with matplotlib.rc_context({"text.parse_math": False}):
        with _shape_of(run.path / "summary.json"):
            _run_section(page, run)
            _strategy_section(page, run)
            _seat_section(page, run, stats)
            _length_section(page, run, stats)
        if run.compare is not None:
            with _shape_of(run.path / "compare.json"):
                _compare_section(page, run)
        if run.study is not None:
            with _shape_of(run.path / "study.json"):
                _study_section(page, run)
    cfg = run.config
    what = {"compare": "tournament", "swap-study": "swap study"}.get(_kind(run), "simulation")
    title = (f"Shithead {what}: {_int(cfg.get('games'))} games, {cfg.get('players')} "
             f"players")
    names = cfg.get("strategies") or ([cfg["strategy"]] if cfg.get("strategy") else [])
    lead = (f"{_rules_text(cfg)}, seed {cfg.get('seed')}"
            + (f"; {'strategies' if len(set(names)) > 1 else 'strategy'} "
               f"{', '.join(dict.fromkeys(names))}" if names else "") + ".")
    env = Environment(autoescape=True)
    from markupsafe import Markup
    for s in page.sections:
        for b in s["blocks"]:
            if b["kind"] == "table":
                b["html"] = Markup(b["html"])
    html = env.from_string(_TEMPLATE).render(
        title=title, lead=lead, css=Markup(_CSS), sections=page.sections, warnings=warnings,
        run_dir=str(run.path), version=run.manifest.get("versions", {}).get("shithead-sim", ""),
        written=_dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(html, encoding="utf-8")
    return [out_html] + page.written
