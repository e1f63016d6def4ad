"""Line charts as SVG with Python's standard library alone.

The quickstart's plot uses this so that the first command of the README needs no plotting
stack (matplotlib pulls in about fifty Debian packages whose installation competes with the
build for the CPU). The figures for papers come from analysis/plot.py (PNG and PDF).
"""
import math
from xml.sax.saxutils import escape

PANEL_WIDTH, PANEL_HEIGHT, PANEL_GAP = 420, 300, 30
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 70, 20, 50, 55
COLOUR = "#1f77b4"


def nice_ticks(low, high, count=5):
    """Round tick values covering [low, high], about `count` of them (1, 2 or 5 times a power
    of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high <= low:
        pad = abs(low) * 0.05 or 0.5
        low, high = low - pad, high + pad
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    ticks = [round(first, 12)]
    while ticks[-1] < high:  # the last tick at or beyond the data, so nothing is drawn outside
        ticks.append(round(first + len(ticks) * step, 12))
    return ticks


def byte_unit(max_bytes):
    """(unit, bytes per unit) for an axis whose largest value is `max_bytes`."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if max_bytes >= scale:
            return unit, scale
    return "B", 1.0


def label(value):
    return f"{value:g}"


class Panel:
    """One x series against the shared y series, with its x-axis label."""

    def __init__(self, xs, xlabel):
        self.xs = [float(x) for x in xs]
        self.xlabel = xlabel


def _y_pixel(y, yticks):
    """The vertical position of `y` on the shared axis spanned by `yticks`."""
    return MARGIN_TOP + PANEL_HEIGHT - (y - yticks[0]) / (yticks[-1] - yticks[0]) * PANEL_HEIGHT


def _panel_svg(panel, ys, yticks, left):
    """The SVG elements of one panel whose plotting area starts at x = `left`."""
    xticks = nice_ticks(min(panel.xs), max(panel.xs))
    x0, x1 = xticks[0], xticks[-1]
    top, height = MARGIN_TOP, PANEL_HEIGHT
    width = PANEL_WIDTH

    def px(x):
        return left + (x - x0) / (x1 - x0) * width

    def py(y):
        return _y_pixel(y, yticks)

    out = [f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" '
           f'stroke="black"/>']
    for x in xticks:
        out.append(f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{top + height}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{px(x):.1f}" y="{top + height + 18}" text-anchor="middle">'
                   f'{label(x)}</text>')
    for y in yticks:
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + width}" y2="{py(y):.1f}" '
                   f'stroke="#ddd"/>')
    points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(panel.xs, ys))
    out.append(f'<polyline points="{points}" fill="none" stroke="{COLOUR}" stroke-width="1.5"/>')
    out.extend(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{COLOUR}"/>'
               for x, y in zip(panel.xs, ys))
    out.append(f'<text x="{left + width / 2}" y="{top + height + 42}" text-anchor="middle">'
               f'{escape(panel.xlabel)}</text>')
    return out


def write(path, title, ylabel, ys, panels):
    """Writes panels side by side, each plotting `ys` against its own x series, sharing the
    y axis (ticks on the left panel only)."""
    ys = [float(y) for y in ys]
    yticks = nice_ticks(min(ys), max(ys))
    total_width = (MARGIN_LEFT + len(panels) * PANEL_WIDTH + (len(panels) - 1) * PANEL_GAP
                   + MARGIN_RIGHT)
    total_height = MARGIN_TOP + PANEL_HEIGHT + MARGIN_BOTTOM
    body = []
    for i, panel in enumerate(panels):
        body.extend(_panel_svg(panel, ys, yticks, MARGIN_LEFT + i * (PANEL_WIDTH + PANEL_GAP)))
    for y in yticks:
        body.append(f'<text x="{MARGIN_LEFT - 6}" y="{_y_pixel(y, yticks) + 4:.1f}" '
                    f'text-anchor="end">{label(y)}</text>')
    middle = MARGIN_TOP + PANEL_HEIGHT / 2
    body.append(f'<text x="16" y="{middle}" text-anchor="middle" '
                f'transform="rotate(-90 16 {middle})">{escape(ylabel)}</text>')
    body.append(f'<text x="{total_width / 2}" y="24" text-anchor="middle" font-size="15">'
                f'{escape(title)}</text>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_width}" '
           f'height="{total_height}" font-family="sans-serif" font-size="12">\n'
           f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")
    with open(path, "w") as f:
        f.write(svg)
