"""What every page shares: the page being built (:class:`Page`: its sections of blocks,
:class:`Section`, and PNG and CSV files written as they come), number formats, tables as
display strings, matplotlib figures on the Agg canvas (no pyplot, no global backend change),
and the options section every kind of saved folder ends with ("How this was run")."""
from __future__ import annotations

import base64
import datetime as _dt
import io
import math
import textwrap
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from reports.plain import cycle_stop_text
from sim.kernel.cards import CODE, NAMES
from sim.runs.saved import Loaded

DPI = 110
SPARSE = 30        # a rate from fewer games than this is drawn as sparse (hatched, grey)
SPARSE_COLOR = "#c8ccd4"
RATE_KEYS = ("win_rate", "place_share")
TEXT_COLUMNS = ("strategy", "swap", "seats", "triple", "position", "spec", "against",
                "policy", "")          # left-aligned when a table is formatted from its data
HOW = "How this was run"    # the closing section: the options, versions and date (run_section)


def as_float(x) -> float:
    return float("nan") if x is None else float(x)


def pct_text(x, digits=2) -> str:
    x = as_float(x)
    return "–" if math.isnan(x) else f"{100 * x:.{digits}f}%"


def points_text(x) -> str:
    """A share as signed percentage points: ``+1.23``."""
    x = as_float(x)
    return "–" if math.isnan(x) else f"{100 * x:+.2f}"


def int_text(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{int(x):,}"


def rate_key(rows) -> str:
    """``win_rate`` (seed rules) or ``place_share`` (a V2 tournament)."""
    for key in RATE_KEYS:
        if rows and all(key in r for r in rows):
            return key
    return "win_rate"


def error_bars(rate, low, high):
    rate, low, high = (np.asarray([as_float(v) for v in a]) for a in (rate, low, high))
    return np.nan_to_num(np.vstack([rate - low, high - rate]).clip(min=0))


def card_key(name) -> tuple:
    return (CODE.get(str(name), len(NAMES)), str(name))


def rules_caption(cfg: dict) -> str:
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


def _fmt_table(df: pd.DataFrame) -> pd.DataFrame:
    """A DataFrame as display strings: rates as %, intervals as one column, counts with
    commas."""
    out = pd.DataFrame(index=df.index)
    cols = list(df.columns)
    rate = next((k for k in RATE_KEYS if k in cols), None)
    for c in cols:
        if c in ("ci_low", "ci_high"):
            if c == "ci_low":
                out["95% CI"] = [f"{pct_text(lo)} – {pct_text(hi)}" for lo, hi in
                                 zip(df["ci_low"], df.get("ci_high", df["ci_low"]))]
            continue
        if c in ("rating_low", "rating_high"):
            if c == "rating_low":
                out["rating 95% CI"] = [f"{as_float(lo):+.0f} – {as_float(hi):+.0f}" for lo, hi in
                                        zip(df["rating_low"], df["rating_high"])]
            continue
        s = df[c]
        if c == rate or c in ("win_share", "shithead_rate"):
            out[c.replace("_", " ")] = [pct_text(v) for v in s]
        elif c == "rating":
            out[c] = [f"{as_float(v):+.0f}" for v in s]
        elif pd.api.types.is_bool_dtype(s) or pd.api.types.is_object_dtype(s):
            out[c.replace("_", " ")] = s.map(lambda v: "–" if v is None else str(v))
        elif pd.api.types.is_integer_dtype(s):
            out[c.replace("_", " ")] = [int_text(v) for v in s]
        elif pd.api.types.is_float_dtype(s):
            whole = s.dropna()
            if len(whole) and (whole == whole.round()).all() and c in (
                    "games", "wins", "unfinished", "started", "shithead", "starter_wins"):
                out[c.replace("_", " ")] = [int_text(v) for v in s]
            else:
                out[c.replace("_", " ")] = [("–" if pd.isna(v) else f"{v:,.3f}") for v in s]
        else:
            out[c.replace("_", " ")] = s.astype(str)
    return out


class Page:
    """Collects the sections of the page and writes PNG and CSV files as they come."""

    def __init__(self, out_html: Path):
        self.files_dir = out_html.parent / f"{out_html.stem}_files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.written: list[Path] = []
        self.sections: list[dict] = []
        self.memo: dict = {}        # what a page's answer works out for its build too

    def section(self, ident: str, title: str) -> "Section":
        blocks = Section(self)
        self.sections.append({"id": ident, "title": title, "blocks": blocks})
        return blocks

    def csv(self, name: str, df: pd.DataFrame) -> str:
        """Write ``df`` as ``name.csv`` beside the page; its link from the page."""
        path = self.files_dir / f"{name}.csv"
        df.to_csv(path, index=False)
        self.written.append(path)
        return f"{self.files_dir.name}/{path.name}"

    def figure(self, name: str, fig, caption: str) -> dict:
        problems = layout_problems(fig)            # kept on the <img> as data-layout
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        data = buf.getvalue()
        path = self.files_dir / f"{name}.png"
        path.write_bytes(data)
        self.written.append(path)
        w, h = (int(round(v * DPI)) for v in fig.get_size_inches())
        return {"kind": "figure", "data": base64.b64encode(data).decode("ascii"),
                "alt": fig.get_suptitle().replace("\n", " ") or caption,
                "caption": caption, "href": f"{self.files_dir.name}/{path.name}", "width": w,
                "height": h, "layout": "; ".join(problems) or "ok"}


class Section(list):
    """The blocks of one section of the page, in order, as ``page.html.j2`` draws them: a
    paragraph, a heading, a plot, a table with its CSV file."""

    def __init__(self, page: Page):
        super().__init__()
        self.page = page

    def text(self, text: str) -> None:
        self.append({"kind": "text", "text": text})

    def heading(self, text: str) -> None:
        self.append({"kind": "heading", "text": text})

    def figure(self, name: str, fig, caption: str, title: str | None = None) -> None:
        """The plot ``fig`` (titled ``title``, wrapped to its width) as ``name.png``."""
        if title is not None:
            fig_title(fig, title)
        self.append(self.page.figure(name, fig, caption))

    def table(self, name: str, df: pd.DataFrame, caption: str, shown=None, text=(),
              kv: bool = False) -> None:
        """``df`` as ``name.csv``, shown as the display strings ``shown`` (columns ``text``
        left-aligned) or, without them, as :func:`_fmt_table` formats ``df``. ``kv``: a
        table of items and values, without a header."""
        href = self.page.csv(name, df)
        if shown is None:
            shown = _fmt_table(df)
            text = [c for c in shown.columns if c in TEXT_COLUMNS]
        head = None if kv else [(c, c in text) for c in shown.columns]
        rows = [[("th" if kv and i == 0 else "td", v, c in text)
                 for i, (c, v) in enumerate(zip(shown.columns, r))]
                for r in shown.itertuples(index=False)]
        self.append({"kind": "table", "kv": kv, "head": head, "rows": rows,
                     "caption": caption, "href": href})


def new_figure(w=8.0, h=4.2):
    """A figure on the Agg canvas (no pyplot: nothing global changes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def axes(w=8.0, h=4.2):
    """A figure (:func:`new_figure`) and its one axes."""
    fig = new_figure(w, h)
    return fig, fig.add_subplot()


def fig_title(fig, text: str) -> None:
    """The figure's title, wrapped to the figure's width."""
    text = text.replace("(n = ", "(n\u00a0=\u00a0")       # keep "n = 1,000" on one line
    fig.suptitle(textwrap.fill(text, max(30, int(fig.get_figwidth() * 10.5))))


def percent_axis(ax, axis="y"):
    from matplotlib.ticker import PercentFormatter
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0))


def rate_bars(ax, labels, rate, low, high, color, players=None, n=None, names_label="",
              rate_label="") -> None:
    """Bars of rates with their intervals and values, and with ``players`` the fair share
    1/players as a line. A bar from fewer than ``SPARSE`` games (``n``) is drawn hatched in
    grey, its value marked "(sparse)", and said so in the legend. When the labels side by
    side would not fit the axes' width (many or long strategy names), the bars lie
    horizontally, one label a line."""
    rate_f = np.array([as_float(v) for v in rate])
    sparse = (np.zeros(len(labels), bool) if n is None else
              np.array([as_float(v) < SPARSE for v in n]))
    colors = list(color) if isinstance(color, (list, tuple)) else [color] * len(labels)
    flat = _too_wide(ax, labels)
    if flat:
        labels = [str(lab).replace("\n", ", ") for lab in labels]
        fig = ax.figure
        if len(fig.axes) == 1:                 # room for every bar (8 seats and a starter)
            fig.set_figheight(max(fig.get_figheight(), 1.8 + 0.42 * len(labels)))
        # the names' axis label along the axes' height, wrapped to fit it
        inches = ax.get_position().height * fig.get_figheight()
        names_label = textwrap.fill(names_label, max(20, int(inches / 0.075)))
    x = np.arange(len(labels))
    bar = ax.barh if flat else ax.bar
    size = {"height" if flat else "width": 0.6}
    bar(x[~sparse], np.nan_to_num(rate_f[~sparse]),
        color=[c for c, s in zip(colors, sparse) if not s], zorder=2, **size)
    if sparse.any():
        bar(x[sparse], np.nan_to_num(rate_f[sparse]), color=SPARSE_COLOR, hatch="///",
            edgecolor="#6b7487", zorder=2, label=f"fewer than {SPARSE} games", **size)
    err = {("xerr" if flat else "yerr"): error_bars(rate, low, high)}
    ax.errorbar(*((np.nan_to_num(rate_f), x) if flat else (x, np.nan_to_num(rate_f))),
                fmt="none", ecolor="#1d2433", capsize=5 if not flat else 3, lw=1.2, zorder=3,
                label="95% CI", **err)
    top = max([as_float(v) for v in high if not math.isnan(as_float(v))] + [0.01])
    for xi, r, hi, sp in zip(x, rate_f, high, sparse):
        if not math.isnan(r):
            end = r if math.isnan(as_float(hi)) else max(r, as_float(hi))
            ax.annotate(pct_text(r, 1) + (" (sparse)" if sp else ""),
                        (end, xi) if flat else (xi, end), xytext=(3, 0) if flat else (0, 3),
                        textcoords="offset points", fontsize=8,
                        ha="left" if flat else "center", va="center" if flat else "bottom")
    if players:
        (ax.axvline if flat else ax.axhline)(1 / players, color="#c0392b", ls="--", lw=1,
                                             zorder=1, label=f"fair share 1/{players}")
        top = max(top, 1 / players)
    limit = min(1.0, top * (1.3 if flat else 1.18) + 0.005)
    if flat:
        ax.set_xlim(0, limit)
        ax.set_yticks(x, labels)
        ax.set_ylim(len(labels) - 0.5, -0.5)                  # the first label on top
        ax.set_ylabel(names_label)
        ax.set_xlabel(rate_label)
        percent_axis(ax, "x")
        ax.grid(axis="x", alpha=0.3, zorder=0)
    else:
        ax.set_ylim(0, limit)
        ax.set_xticks(x, labels)
        ax.set_xlabel(names_label)
        ax.set_ylabel(rate_label)
        percent_axis(ax)
        ax.grid(axis="y", alpha=0.3, zorder=0)
    _legend_below(ax)


def heatmap(ax, grid, sparse, what, labels, texts, *, dark, cmap, vmin=None, vmax=None,
            fontsize=9, bar_label="", rotate=False) -> None:
    """A square grid of rates, its rows and columns named ``labels``, coloured by ``cmap``
    over [vmin, vmax] and each cell's ``texts`` written on it (white where ``dark``); the
    ``sparse`` cells hatched grey instead (:func:`_mark_sparse`, ``what`` counted), a missing
    one left blank; beside it a colour bar in %, labelled ``bar_label``."""
    im = ax.imshow(np.ma.masked_where(~np.isfinite(grid) | sparse, grid), cmap=cmap,
                   vmin=vmin, vmax=vmax)
    _mark_sparse(ax, sparse, what)
    for (i, j), text in np.ndenumerate(texts):
        if text:
            ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, zorder=3,
                    color="white" if dark[i, j] else "#1d2433")
    ax.set_xticks(range(len(labels)), labels, **({"rotation": 30, "ha": "right"} if rotate
                                                 else {}))
    ax.set_yticks(range(len(labels)), labels)
    cb = ax.figure.colorbar(im, ax=ax, shrink=0.85)
    cb.set_label(bar_label)
    percent_axis(cb.ax)


def _too_wide(ax, labels) -> bool:
    """Would these tick labels, side by side under the axes, run into each other?"""
    longest = max((len(line) for lab in labels for line in str(lab).split("\n")), default=0)
    inches = ax.get_position().width * ax.figure.get_figwidth()
    return (longest + 2) * len(labels) * 0.075 > inches      # ~0.075 in a character at 10 pt


def _mark_sparse(ax, sparse, what="games") -> bool:
    """Cover the heat-map cells of ``sparse`` (a boolean grid) in hatched grey, so that a
    rate from a few games is never coloured like the best, and say so in a legend below."""
    from matplotlib.patches import Patch, Rectangle

    look = {"facecolor": SPARSE_COLOR, "hatch": "///", "edgecolor": "#6b7487"}
    for i, j in zip(*np.nonzero(sparse)):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, lw=0, zorder=2, **look))
    if sparse.any():
        _legend_below(ax, extra=[Patch(label=f"fewer than {SPARSE} {what}: too few to colour",
                                       **look)])
    return bool(sparse.any())


def _legend_below(ax, extra=(), **kw):
    """The axes' legend (and ``extra`` handles) below the plot, outside the axes, where it
    cannot cover the data."""
    handles, labels = ax.get_legend_handles_labels()
    handles += list(extra)
    labels += [h.get_label() for h in extra]
    if handles:
        ax.figure.legend(handles, labels, loc="outside lower center", fontsize=8,
                         ncols=min(len(handles), kw.pop("ncols", 3)), frameon=False, **kw)


def layout_problems(fig) -> list[str]:
    """What is wrong with a drawn figure's layout: anything cut at the figure's edge (a
    title too long, a label outside), a legend over an axes' plotting area or over a text
    (a bar's value), two titles over each other. Empty when the figure is clean."""
    from matplotlib.legend import Legend

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []
    box = fig.bbox
    tight = fig.get_tightbbox(r).transformed(fig.dpi_scale_trans)
    if (tight.x0 < box.x0 - 1 or tight.y0 < box.y0 - 1 or tight.x1 > box.x1 + 1
            or tight.y1 > box.y1 + 1):
        out.append(f"drawn outside the figure ({tight.x0:.0f}, {tight.y0:.0f}, "
                   f"{tight.x1:.0f}, {tight.y1:.0f} px of {box.x1:.0f} x {box.y1:.0f})")
    # What a legend must not cover: the plotting areas, every text drawn in them (a bar's
    # value, a cell's value), their titles, and their axes (tick labels and axis labels).
    marks = []
    for a in fig.axes:
        marks.append((f"the plot {a.get_title() or a.get_ylabel() or 'an axes'!r}", a.bbox))
        marks += [(f"the text {t.get_text()!r}", t.get_window_extent(r)) for t in
                  list(a.texts) + [a.title] if t.get_visible() and t.get_text().strip()]
        marks += [(f"the {n}-axis of {a.get_ylabel() or 'an axes'!r}", ax.get_tightbbox(r))
                  for n, ax in (("x", a.xaxis), ("y", a.yaxis)) if ax.get_visible()]
    for lg in (lg for lg in fig.findobj(Legend) if lg.get_visible()):
        lb = lg.get_window_extent(r)
        out += [f"a legend covers {what}" for what, bb in marks
                if bb is not None and lb.overlaps(bb)]
    return out


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


def run_section(page: Page, run: Loaded) -> None:
    """What was simulated: every option of the run, whatever command saved it, with the
    versions, the date and the folder. The page's last section (:data:`HOW`): every page
    leads with its answer, and this is how it was got."""
    cfg, ov, man = dict(run.config), run.summary.get("overall", {}), run.manifest
    blocks = page.section("run", HOW)
    extra = run.compare or run.study or {}
    games = ov.get("games", cfg.get("games"))
    unf = ov.get("unfinished", extra.get("unfinished"))
    rows = [("players", cfg.pop("players", None)), ("rules", rules_caption(cfg)),
            ("seed", cfg.pop("seed", None)), ("games", int_text(games))]
    for key in ("rules", "options", "games"):
        cfg.pop(key, None)
    if unf is not None:
        share = pct_text(unf / games) if games else "–"
        cap = cfg.pop("max_turns", None)
        text = f"{int_text(unf)} ({share}" + (f"; limit {int_text(cap)} turns, R25)" if cap else ")")
        if ov.get("unfinished_cycle") is not None:
            text += (f": {int_text(ov.get('unfinished_cap'))} at the turn limit, "
                     f"{int_text(ov['unfinished_cycle'])} stopped as endless (a position repeated)")
        rows.append(("unfinished", text))
    stop = cfg.pop("cycle_stop", None)
    if ov.get("cycle_stop"):
        rows.append(("stop endless games", cycle_stop_text(ov["cycle_stop"])))
    elif stop is not None:
        rows.append(("stop endless games", "on" if stop else "off"))
    if ov.get("mean_turns") is not None:
        rows.append(("mean turns per finished game", f"{as_float(ov['mean_turns']):.1f}"))
    if ov.get("burns_per_game") is not None:
        rows.append(("burns per game", f"{as_float(ov['burns_per_game']):.2f}"))
    if "swaps" in cfg and isinstance(cfg.get("strategies"), list):
        seats = list(zip(cfg.pop("strategies"), cfg.pop("swaps")))
        rows.append(("seats (strategy and swap policy)", (
            f"every seat: {seats[0][0]} (swap {seats[0][1]})" if len(set(seats)) == 1 and
            len(seats) > 1 else ", ".join(f"{s}: {st} (swap {sw})"
                                          for s, (st, sw) in enumerate(seats)))))
    rows += [(k.replace("_", " "), _value(v)) for k, v in cfg.items() if v is not None]
    if run.parts:
        rows.append(("batch / record files", f"{int_text(man.get('batch'))} games per file, "
                                             f"{len(run.parts)} file(s)"))
    versions = man.get("versions", {})
    rows += [("date", _date(run)),
             ("versions", ", ".join(f"{k} {v}" for k, v in versions.items()) or "–"),
             ("folder", str(run.path))]
    df = pd.DataFrame([(k, "–" if v is None else str(v)) for k, v in rows],
                      columns=["item", "value"])
    blocks.table("run", df, "The options:", shown=df, text=("value",), kv=True)


def _date(run: Loaded) -> str:
    for key in ("finished", "created", "date"):
        if run.manifest.get(key) or run.summary.get(key):
            return str(run.manifest.get(key) or run.summary.get(key))
    ts = (run.path / "summary.json").stat().st_mtime
    when = _dt.datetime.fromtimestamp(ts).astimezone()
    return when.strftime("%Y-%m-%d %H:%M %Z") + " (summary written)"


@contextmanager
def shape_of(path: Path):
    """A file of the run that is not shaped as expected is a ValueError naming it."""
    try:
        yield
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ValueError(f"{path} does not have the expected shape "
                         f"({type(e).__name__}: {e})") from None
