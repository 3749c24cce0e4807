"""One figure description, two renderers: Plotly JSON for the interactive HTML page and
matplotlib for PNG/SVG.  A figure is rows of panels sharing one x axis (one zoom for all)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
# viridis at 0, 1/4, 1/2, 3/4 and 1 (matplotlib's table): ordered series (ring sizes) get ordered colours
_VIRIDIS = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))


def sequential(i: int, n: int) -> str:
    """The i-th of n colours along viridis (dark to light), stopping short of its pale yellow end."""
    t = 0.9 * i / max(n - 1, 1)
    k = min(int(t * 4), 3)
    f = t * 4 - k
    a, b = _VIRIDIS[k], _VIRIDIS[k + 1]
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b))


@dataclass
class Trace:
    kind: str                     # line | step | markers | bar | hbar | spans | vlines | heatmap
    x: list = field(default_factory=list)
    y: list = field(default_factory=list)
    name: str = ""
    color: str | None = None
    z: list | None = None         # heatmap values, rows follow y
    x1: list | None = None        # spans: end of each [x, x1)
    width: float | None = None    # bar width in x units
    text: list | None = None      # hover text per point (heatmap: per cell, rows follow y)
    colorscale: str | None = None  # heatmap: a Plotly sequential scale name; None: red-beige-green around 0
    labels: bool = False          # heatmap: print each cell's text in the cell
    dash: bool = False            # line: dashed (a bound or ceiling beside its measured series)


@dataclass
class Row:
    y_label: str
    traces: list[Trace]
    height: float = 1.0
    y_log: bool = False
    y_ticks: list | None = None   # labels of y = 0, 1, 2, ... (a categorical axis, e.g. ring sizes)


@dataclass
class Figure:
    key: str
    title: str
    caption: str                  # what it shows, in words, with units
    x_label: str
    rows: list[Row]
    x_log: bool = False
    x_ticks: list | None = None   # labels of x = 0, 1, 2, ... (a categorical axis)
    half: bool = False            # half width: drawn beside the next half-width figure


def _clean(v):
    a = np.asarray(v, dtype=float)
    return [None if not np.isfinite(x) else float(x) for x in a.ravel()]


# -- Plotly -----------------------------------------------------------------------------
def to_plotly(fig: Figure) -> dict:
    n = len(fig.rows)
    total = sum(r.height for r in fig.rows)
    gap = 0.04 if n > 1 else 0.0
    data, shapes, layout = [], [], {}
    top = 1.0
    for i, row in enumerate(fig.rows):
        h = row.height / total * (1.0 - gap * (n - 1))
        ya = "yaxis" if i == 0 else f"yaxis{i + 1}"
        yref = "y" if i == 0 else f"y{i + 1}"
        layout[ya] = {"domain": [max(0.0, top - h), top], "title": {"text": row.y_label, "font": {"size": 11}},
                      "type": "log" if row.y_log else "linear", "zeroline": False}
        if row.y_ticks:
            layout[ya].update({"tickvals": list(range(len(row.y_ticks))), "ticktext": [str(t) for t in row.y_ticks]})
        top -= h + gap
        for t in row.traces:
            color = t.color
            base = {"name": t.name, "xaxis": "x", "yaxis": yref, "showlegend": bool(t.name)}
            if t.kind in ("line", "step", "markers"):
                base.update({"type": "scattergl" if len(t.x) > 5000 else "scatter", "x": _clean(t.x),
                             "y": _clean(t.y),
                             "mode": "markers" if t.kind == "markers" else "lines",
                             "line": {"shape": "hv" if t.kind == "step" else "linear", "color": color, "width": 1.5,
                                      "dash": "dash" if t.dash else "solid"},
                             "marker": {"color": color, "size": 6}})
                if t.text:
                    base["text"] = t.text
                data.append(base)
            elif t.kind in ("bar", "hbar"):
                base.update({"type": "bar", "x": _clean(t.x), "y": _clean(t.y), "marker": {"color": color},
                             "orientation": "h" if t.kind == "hbar" else "v"})
                if t.width:
                    base["width"] = t.width
                data.append(base)
            elif t.kind == "heatmap":
                base.update({"type": "heatmap", "x": _clean(t.x), "y": _clean(t.y),
                             "z": [_clean(r) for r in t.z], "showlegend": False,
                             "colorbar": {"title": {"text": t.name, "side": "right"}}})
                if t.colorscale:
                    base["colorscale"] = t.colorscale
                else:
                    base.update({"zmid": 0, "colorscale": [[0, "#d62728"], [0.5, "#f5f5dc"], [1, "#2ca02c"]]})
                if t.text:
                    base["text"] = t.text
                    if t.labels:
                        base.update({"texttemplate": "%{text}", "textfont": {"size": 10}})
                data.append(base)
            elif t.kind in ("spans", "vlines"):
                # drawn as one filled/line trace (thousands of shapes are slow); legend entry included
                xs, ys = [], []
                ymin, ymax = (t.y[0], t.y[1]) if len(t.y) == 2 else (0.0, 1.0)
                ends = t.x1 if t.kind == "spans" else t.x
                for a, b in zip(_clean(t.x), _clean(ends)):
                    if t.kind == "spans":
                        xs += [a, a, b, b, None]
                        ys += [ymin, ymax, ymax, ymin, None]
                    else:
                        xs += [a, a, None]
                        ys += [ymin, ymax, None]
                base.update({"type": "scatter", "x": xs, "y": ys, "mode": "lines", "hoverinfo": "x+name",
                             "line": {"color": color, "width": 1 if t.kind == "vlines" else 0.5}})
                if t.kind == "spans":
                    base.update({"fill": "toself", "opacity": 0.35})
                data.append(base)
    layout.update({
        "title": {"text": fig.title, "font": {"size": 14}, "x": 0.01},
        "xaxis": {"title": {"text": fig.x_label}, "type": "log" if fig.x_log else "linear",
                  "anchor": f"y{n}" if n > 1 else "y"},
        "height": int(190 + 170 * total) if n > 1 else 360,
        "margin": {"l": _left_margin(fig), "r": 20, "t": 60 if n == 1 else 40, "b": 50},
        # one panel: the legend right of the plot, outside it (never over the title or the data)
        "legend": ({"orientation": "v", "y": 1.0, "yanchor": "top", "x": 1.01, "xanchor": "left",
                    "font": {"size": 10}} if n == 1 else {"orientation": "h", "y": -0.08, "font": {"size": 10}}),
        "hovermode": "closest", "shapes": shapes, "template": None,
        **({"xaxis": {"title": {"text": fig.x_label}, "tickvals": list(range(len(fig.x_ticks))),
                      "ticktext": [str(t) for t in fig.x_ticks], "anchor": f"y{n}" if n > 1 else "y"}}
           if fig.x_ticks else {}),
        "paper_bgcolor": "white", "plot_bgcolor": "#fafafa",
    })
    if fig.x_ticks:                       # long category names are drawn slanted under the axis
        longest = max(len(str(t)) for t in fig.x_ticks)
        layout["margin"]["b"] = int(min(220, 50 + 4.5 * longest)) if longest > 6 else 50
    if fig.half and n == 1 and sum(1 for r in fig.rows for t in r.traces if t.name) > 1:
        # half width: the legend under the x axis title, so the plot keeps its width
        layout["legend"] = {"orientation": "h", "y": -0.25, "yanchor": "top", "x": 0, "font": {"size": 10}}
        layout["height"] = 460
        layout["margin"]["b"] = 140
    return {"data": data, "layout": layout}


def _left_margin(fig: Figure) -> int:
    """Room for the longest categorical y label (about 6.5 px a character at 12 px), at least 70 px."""
    longest = max((len(str(t)) for r in fig.rows for t in (r.y_ticks or [])), default=0)
    return int(min(360, max(70, 24 + 6.5 * longest)))


# -- matplotlib --------------------------------------------------------------------------
def to_matplotlib(fig: Figure, path, dpi: int = 110):
    """Write the figure as PNG or SVG (by suffix); matplotlib is imported only here."""
    from sgdma.output.plots import pyplot, save

    plt = pyplot()
    heights = [r.height for r in fig.rows]
    f, axes = plt.subplots(len(fig.rows), 1, figsize=(9, 2.2 + 1.9 * sum(heights)), sharex=True,
                           gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, row in zip(axes[:, 0], fig.rows):
        for t in row.traces:
            x, y = np.asarray(_clean(t.x), dtype=float), np.asarray(_clean(t.y), dtype=float)
            if t.kind == "line":
                ax.plot(x, y, "--" if t.dash else "-", color=t.color, lw=1, label=t.name or None)
            elif t.kind == "step":
                ax.step(x, y, where="post", color=t.color, lw=1, label=t.name or None)
            elif t.kind == "markers":
                ax.plot(x, y, "o", ms=3, color=t.color, label=t.name or None)
            elif t.kind == "bar":
                ax.bar(x, y, width=t.width or 0.8, color=t.color, label=t.name or None)
            elif t.kind == "hbar":
                ax.barh(y, x, height=t.width or 0.8, color=t.color, label=t.name or None)
            elif t.kind == "spans" and len(x):
                x1 = np.asarray(_clean(t.x1), dtype=float)
                ymin, ymax = (t.y[0], t.y[1]) if len(t.y) == 2 else (0, 1)
                ax.broken_barh(list(zip(x, x1 - x)), (ymin, ymax - ymin), color=t.color, alpha=0.3, lw=0,
                               label=t.name or None)
            elif t.kind == "vlines" and len(x):
                ymin, ymax = (t.y[0], t.y[1]) if len(t.y) == 2 else (0, 1)
                ax.vlines(x, ymin, ymax, color=t.color, lw=0.6, label=t.name or None)
            elif t.kind == "heatmap":
                z = np.array([_clean(r) for r in t.z], dtype=float)
                lim = float(np.nanmax(np.abs(z))) or 1.0
                if t.colorscale:
                    m = ax.pcolormesh(x, y, z, cmap="viridis", shading="nearest")
                else:
                    m = ax.pcolormesh(x, y, z, cmap="RdYlGn", shading="nearest", vmin=-lim, vmax=lim)
                f.colorbar(m, ax=ax, label=t.name)
                if t.labels and t.text:
                    for yi, cells in zip(y, t.text):
                        for xi, label in zip(x, cells):
                            ax.text(xi, yi, label, ha="center", va="center", fontsize=6)
        ax.set_ylabel(row.y_label, fontsize=8)
        if row.y_ticks:
            ax.set_yticks(range(len(row.y_ticks)), [str(t) for t in row.y_ticks])
        if row.y_log:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        if any(t.name for t in row.traces if t.kind != "heatmap"):
            named = sum(1 for t in row.traces if t.name and t.kind != "heatmap")
            if named > 4:                      # many series: outside the axes, right of them
                ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            else:
                ax.legend(fontsize=7, loc="upper right")
    if fig.x_log:
        axes[-1, 0].set_xscale("log", base=2)
    if fig.x_ticks:
        axes[-1, 0].set_xticks(range(len(fig.x_ticks)), [str(t) for t in fig.x_ticks])
    axes[-1, 0].set_xlabel(fig.x_label)
    axes[0, 0].set_title(fig.title, fontsize=10)
    return save(f, path, dpi=dpi)
