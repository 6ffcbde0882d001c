"""Diagrams printed with questions: a triangle drawn as inline SVG from an item's resolved ``diagram``.

The shape follows the item's numbers: two angles fix it; otherwise three
sides, two sides and the angle between them, or two sides and another angle
(the acute solution). Data that cannot make a triangle (angles adding to 180°
or more, sides breaking the triangle inequality) is set aside for the next
way of fixing the shape, and with too little to go on the triangle is a
plain scalene one. Like an SQA diagram it is marked "not drawn to scale".
"""
from __future__ import annotations

import html
import math
from typing import Any, Optional

from core.exams.typeset import typeset_plain

NOT_TO_SCALE = "not drawn to scale"
GENERIC = (58.0, 52.0, 70.0)       # the angles of a triangle the data says nothing about
BOX_W, BOX_H, MARGIN = 300.0, 190.0, 46.0


class DiagramError(ValueError):
    """A diagram this module cannot draw."""


def _valid(angles: list[float]) -> bool:
    return all(a > 0.5 for a in angles) and abs(sum(angles) - 180) < 1e-6


def _from_sides(s: list[float]) -> Optional[list[float]]:
    a, b, c = s
    if a + b <= c or a + c <= b or b + c <= a:
        return None
    A = math.degrees(math.acos(max(-1.0, min(1.0, (b * b + c * c - a * a) / (2 * b * c)))))
    B = math.degrees(math.acos(max(-1.0, min(1.0, (a * a + c * c - b * b) / (2 * a * c)))))
    return [A, B, 180 - A - B]


def solve(sides: list[Optional[float]], angles: list[Optional[float]]) -> list[float]:
    """The triangle's three angles (degrees; angle i is at vertex i, side i is opposite it) from what is known."""
    known_a = {i: a for i, a in enumerate(angles) if a is not None and 0 < a < 180}
    known_s = {i: s for i, s in enumerate(sides) if s is not None and s > 0}
    # Two angles fix the shape (a third given one is checked against them).
    if len(known_a) >= 2:
        pairs = sorted(known_a.items(), key=lambda kv: -kv[1])   # a right or obtuse angle is kept first
        for x in range(len(pairs)):
            for y in range(x + 1, len(pairs)):
                (i, ai), (j, aj) = pairs[x], pairs[y]
                if ai + aj < 179.5:
                    out = [0.0, 0.0, 0.0]
                    out[i], out[j] = ai, aj
                    out[3 - i - j] = 180 - ai - aj
                    if _valid(out):
                        return out
    if len(known_s) == 3:
        out = _from_sides([known_s[0], known_s[1], known_s[2]])
        if out and _valid(out):
            return out
    if len(known_s) == 2:
        (i, si), (j, sj) = sorted(known_s.items())
        k = 3 - i - j
        if k in known_a:          # the angle between the two sides: the third side by the cosine rule
            third = math.sqrt(max(si * si + sj * sj - 2 * si * sj * math.cos(math.radians(known_a[k])), 0))
            lengths = [0.0, 0.0, 0.0]
            lengths[i], lengths[j], lengths[k] = si, sj, third
            out = _from_sides(lengths)
            if out and _valid(out):
                return out
        for g, h in ((i, j), (j, i)):   # an angle opposite a known side: the sine rule, acute solution
            if g in known_a:
                ratio = sides[h] * math.sin(math.radians(known_a[g])) / sides[g]  # type: ignore[operator]
                if ratio <= 1:
                    other = math.degrees(math.asin(ratio))
                    out = [0.0, 0.0, 0.0]
                    out[g], out[h] = known_a[g], other
                    out[3 - g - h] = 180 - known_a[g] - other
                    if _valid(out):
                        return out
        if not known_a:           # two sides and nothing else: a comfortable angle between them
            lengths = [0.0, 0.0, 0.0]
            lengths[i], lengths[j] = si, sj
            lengths[k] = math.sqrt(si * si + sj * sj - 2 * si * sj * math.cos(math.radians(65)))
            out = _from_sides(lengths)
            if out and _valid(out):
                return out
    if known_a:
        i, a = max(known_a.items(), key=lambda kv: kv[1])
        rest = 180 - a
        out = [0.0, 0.0, 0.0]
        out[i] = a
        out[(i + 1) % 3], out[(i + 2) % 3] = rest * 0.45, rest * 0.55
        return out
    return list(GENERIC)


def _place(angles: list[float], right: Optional[int]) -> list[tuple[float, float]]:
    """Vertex coordinates (y down, as SVG) of a triangle with these angles: a right angle at the bottom left
    with its arms along the axes, otherwise the longest side along the bottom."""
    sides = [math.sin(math.radians(a)) for a in angles]       # proportional to the sides (sine rule)
    if right is not None:
        i, j = (right + 1) % 3, (right + 2) % 3
        # the longer arm along the bottom; the arm to vertex i is side j (opposite j)
        base_to, up_to = (i, j) if sides[j] >= sides[i] else (j, i)
        pts: list[tuple[float, float]] = [(0.0, 0.0)] * 3
        pts[right] = (0.0, 0.0)
        pts[base_to] = (sides[3 - right - base_to], 0.0)
        pts[up_to] = (0.0, -sides[3 - right - up_to])
        return pts
    apex = max(range(3), key=lambda k: angles[k])       # opposite the longest side
    left, rightv = sorted(k for k in range(3) if k != apex)
    base = sides[apex]
    # apex above the base, from the angle at the left end
    reach = sides[rightv]                                 # side from left to apex is opposite the right vertex
    theta = math.radians(angles[left])
    pts = [(0.0, 0.0)] * 3
    pts[left] = (0.0, 0.0)
    pts[rightv] = (base, 0.0)
    pts[apex] = (reach * math.cos(theta), -reach * math.sin(theta))
    return pts


def _unit(dx: float, dy: float) -> tuple[float, float]:
    n = math.hypot(dx, dy) or 1.0
    return dx / n, dy / n


def _text(x: float, y: float, text: str, size: float = 15, anchor: str = "middle", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" '
            f'dominant-baseline="central"{klass}>{html.escape(text)}</text>')


def _anchor(dx: float) -> str:
    return "start" if dx > 0.35 else "end" if dx < -0.35 else "middle"


def triangle_svg(diagram: dict) -> str:
    """The triangle as inline SVG: vertices named, sides and angles labelled, right angle marked."""
    names = [str(v) for v in diagram.get("vertices") or []]
    if len(names) != 3:
        raise DiagramError("a triangle diagram needs three vertices")
    index = {v: k for k, v in enumerate(names)}
    side_len: list[Optional[float]] = [None, None, None]
    side_label: list[Optional[str]] = [None, None, None]
    for s in diagram.get("sides") or []:
        ends = {s.get("from"), s.get("to")}
        if len(ends) != 2 or not ends <= index.keys():
            continue
        k = 3 - sum(index[e] for e in ends)              # the side is opposite the other vertex
        side_len[k], side_label[k] = s.get("length"), s.get("label")
    ang_size: list[Optional[float]] = [None, None, None]
    ang_label: list[Optional[str]] = [None, None, None]
    right: Optional[int] = None
    for a in diagram.get("angles") or []:
        if a.get("at") not in index:
            continue
        k = index[a["at"]]
        ang_size[k], ang_label[k] = (90.0 if a.get("right") else a.get("size")), a.get("label")
        if a.get("right"):
            right = k
    angles = solve(side_len, ang_size)
    if right is not None and abs(angles[right] - 90) > 1e-6:
        right = None          # the data could not keep the right angle: not marked as one
    pts = _place(angles, right)

    # Scale into the drawing box, leaving a margin for the labels.
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(BOX_W / w if w else 1e9, BOX_H / h if h else 1e9)
    pts = [((x - min(xs)) * scale + MARGIN, (y - min(ys)) * scale + MARGIN) for x, y in pts]
    width, height = w * scale + 2 * MARGIN, h * scale + 2 * MARGIN + 22
    cx, cy = sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3

    out = [f'<polygon points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}" fill="none" stroke="#000" '
           f'stroke-width="2" stroke-linejoin="round"/>']
    for k, (x, y) in enumerate(pts):          # vertex names, outside the corner
        ux, uy = _unit(x - cx, y - cy)
        out.append(_text(x + ux * 16, y + uy * 16, names[k], 16, "middle", "vertex"))
    for k in range(3):                        # side labels, outside the side's middle
        if not side_label[k]:
            continue
        (x1, y1), (x2, y2) = pts[(k + 1) % 3], pts[(k + 2) % 3]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        nx, ny = _unit(-(y2 - y1), x2 - x1)
        if nx * (mx - cx) + ny * (my - cy) < 0:
            nx, ny = -nx, -ny
        out.append(_text(mx + nx * 12, my + ny * 12, typeset_plain(side_label[k]), 15, _anchor(nx), "side"))
    for k in range(3):                        # angle arcs and labels, or the right-angle square
        x, y = pts[k]
        (ax, ay), (bx, by) = _unit(pts[(k + 1) % 3][0] - x, pts[(k + 1) % 3][1] - y), \
            _unit(pts[(k + 2) % 3][0] - x, pts[(k + 2) % 3][1] - y)
        shortest = min(math.dist(pts[k], pts[(k + 1) % 3]), math.dist(pts[k], pts[(k + 2) % 3]))
        if k == right:
            r = min(13.0, shortest / 4)
            out.append(f'<polyline points="{x + ax * r:.1f},{y + ay * r:.1f} {x + (ax + bx) * r:.1f},'
                       f'{y + (ay + by) * r:.1f} {x + bx * r:.1f},{y + by * r:.1f}" fill="none" stroke="#000" '
                       f'stroke-width="1.5"/>')
        if not ang_label[k]:
            continue
        r = min(24.0, shortest / 3)
        sweep = 1 if (ax * by - ay * bx) > 0 else 0
        if k != right:
            out.append(f'<path d="M{x + ax * r:.1f},{y + ay * r:.1f} A{r:.1f},{r:.1f} 0 0 {sweep} '
                       f'{x + bx * r:.1f},{y + by * r:.1f}" fill="none" stroke="#000" stroke-width="1.5"/>')
        ux, uy = _unit(ax + bx, ay + by)
        half = math.radians(max(angles[k], 1) / 2)
        reach = min(max(r + 16, 13 / math.sin(half)), max(shortest * 0.6, r + 16))
        out.append(_text(x + ux * reach, y + uy * reach, typeset_plain(ang_label[k]), 15, "middle", "angle"))
    out.append(_text(width - 6, height - 10, NOT_TO_SCALE, 12, "end", "note"))
    described = describe(diagram)
    return (f'<svg class="diagram" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{html.escape(described)}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width * 0.26:.0f}mm" '
            f'font-family="Arial, Helvetica, sans-serif">' + "".join(out) + "</svg>")


def describe(diagram: dict) -> str:
    """The diagram in words (for a screen reader): "Triangle ABC: AC = 10 cm, angle A = 78°, right angle at B"."""
    names = "".join(str(v) for v in diagram.get("vertices") or [])
    parts = [f"{s['from']}{s['to']} = {typeset_plain(s['label'])}" for s in diagram.get("sides") or []
             if s.get("label")]
    for a in diagram.get("angles") or []:
        if a.get("right"):
            parts.append(f"right angle at {a['at']}")
        elif a.get("label"):
            parts.append(f"angle {a['at']} = {typeset_plain(a['label'])}")
    return f"Triangle {names}" + (": " + ", ".join(parts) if parts else "") + f" ({NOT_TO_SCALE})"


def diagram_svg(diagram: Optional[dict]) -> str:
    """The SVG for a question's diagram, or "" when it has none (or one of a kind not drawn here)."""
    if not diagram or diagram.get("kind") != "triangle":
        return ""
    return triangle_svg(diagram)


def diagram_file(diagram: Optional[dict]) -> Optional[bytes]:
    """A question's diagram as a standalone SVG file (to travel with an exported question); None when it has none."""
    svg = diagram_svg(diagram)
    if not svg:
        return None
    if "xmlns=" not in svg[:300]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    return svg.encode("utf-8")


def fill_diagrams(paper: dict, library: Any) -> dict:
    """The paper with each question's diagram worked out from its blueprint where it has none yet
    (questions read back from the database carry their parameters but not their diagram)."""
    from core.blueprints.library import LibraryError
    from core.items.sampler import GenerationError
    for section in paper.get("sections") or []:
        for q in section.get("questions") or []:
            if q.get("diagram") or not q.get("blueprint_id") or not q.get("generation_params"):
                continue
            try:
                q["diagram"] = library.generator(q["blueprint_id"]).diagram_for(q["generation_params"])
            except (LibraryError, GenerationError):
                q["diagram"] = None      # a blueprint since removed or changed: the question prints without one
    return paper
