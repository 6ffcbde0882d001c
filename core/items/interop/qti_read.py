"""One QTI item read as a question: its answer box, its key and its feedback.

An item becomes a question when it has exactly one answer box we can mark:
a choice (one or several right options), a text entry (a number with its
tolerance, or short text answers) or an extended text (an essay). Anything
else (drop-down menus, matching grids, hotspots, ...), items with several
answer boxes and items that draw their numbers at random are skipped with a
reason a teacher can act on. The key comes from the response declaration
(correct response, mapping) and from the response processing, whether it is
a standard template (match_correct, map_response) or written out
(``qti-equal`` with its tolerance, ranges, string matches, one branch per
accepted answer). Feedback is matched to what it is for by ``qti_feedback``.

The stem is what a student sees, a shared passage (stimulus) first; how
markup, pictures and sounds become our text is ``qti_content``'s part.

``qti.read`` opens files and packages and hands each item here with its
tags already plain QTI 3.0 names (QTI 2.x items renamed).
"""
from __future__ import annotations

import math
import re
from typing import Optional, Union
from xml.etree.ElementTree import Element

from core.items.interop.model import (CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, NumericAnswer, Question, Skipped)
from core.items.interop.qti import (UNITS_CLASS, UNSUPPORTED, Branch, branches, child, children, snap, text_of)
from core.items.interop.qti_content import ContentReader, tidy_annotations
from core.items.interop.qti_feedback import FeedbackReader

_SUPPORTED = ("qti-choice-interaction", "qti-text-entry-interaction", "qti-extended-text-interaction")


def _float(value: Optional[str]) -> Optional[float]:
    """A finite number written in the file, or None."""
    try:
        number = float((value or "").strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


class _Skip(Exception):
    """The item cannot become a question; the message says why, for the teacher."""


class ItemReader(ContentReader, FeedbackReader):
    """Reads one item (tags already plain QTI 3.0 names) as a question: its content, then its answer box and key."""

    def __init__(self, root: Element, path: Optional[str], members: dict[str, bytes], depends: list[str],
                 qti2: bool):
        super().__init__(root, path, members, depends, qti2)
        self.choice_ids: list[str] = []
        self.answer_feedback: dict[str, tuple] = {}   # feedback identifier -> ("number" | "answer", index)

    # ---- the question

    def read(self) -> Union[Question, Skipped]:
        try:
            return self._read()
        except _Skip as exc:
            return Skipped(self.label, str(exc))

    def _read(self) -> Question:
        root = self.root
        tidy_annotations(root)
        body = child(root, "qti-item-body")
        if body is None:
            raise _Skip("it has no question body; it was left out.")
        hint_ids = {e.get("response-identifier") for e in body.iter("qti-end-attempt-interaction")}
        boxes = [e for e in body.iter() if isinstance(e.tag, str) and e.tag.endswith("-interaction")
                 and e.tag != "qti-end-attempt-interaction"]
        if not boxes:
            raise _Skip("it has no answer box for a student to fill in; it was left out.")
        if len(boxes) > 1:
            raise _Skip(f"it holds {len(boxes)} answer boxes; one answer per question is supported.")
        box = boxes[0]
        if box.tag not in _SUPPORTED:
            what = UNSUPPORTED.get(box.tag, "an answer box of a kind the workbench does not know")
            raise _Skip(f"it asks for {what} ({box.tag.removeprefix('qti-')}), which cannot be marked here; "
                        f"it was left out.")
        if root.findall("qti-template-processing"):
            raise _Skip("it makes its numbers at random each time it is shown (QTI template processing), "
                        "which cannot be brought in; bring it in as a fixed question instead.")
        self.resp_id = box.get("response-identifier") or ""
        self.decl = next((d for d in root.iter("qti-response-declaration")
                          if d.get("identifier") == self.resp_id), None)
        if self.decl is None:
            raise _Skip("its answer box has no response declaration, so it has no key; it was left out.")
        self.outcomes = {o.get("identifier"): o for o in root.iter("qti-outcome-declaration")}
        maxscore = self.outcomes.get("MAXSCORE")
        self.declared_max = _float(text_of(next(maxscore.iter("qti-value"), None))) if maxscore is not None else None
        score = self.outcomes.get("SCORE")
        self.normal_max = _float(score.get("normal-maximum")) if score is not None else None
        rp = child(root, "qti-response-processing")
        template = (rp.get("template") or "") if rp is not None else ""
        self.template = re.sub(r"\.xml$", "", template.rstrip("/").rsplit("/", 1)[-1]) if template else ""
        self.branches = branches(list(rp)) if rp is not None else []
        self.uses_map = self.template.startswith("map_response") or (
            rp is not None and any(m.get("identifier") == self.resp_id for m in rp.iter("qti-map-response")))
        correct = child(self.decl, "qti-correct-response")
        self.correct = [(v.text or "").strip() for v in children(correct, "qti-value")] if correct is not None else []
        mapping = child(self.decl, "qti-mapping")
        self.mapping = [(e.get("map-key") or "", _float(e.get("mapped-value")) or 0.0,
                         (e.get("case-sensitive") or "false").strip().lower() in ("true", "1"))
                        for e in (children(mapping, "qti-map-entry") if mapping is not None else [])]
        self.map_default = _float(mapping.get("default-value")) if mapping is not None else None
        self.map_upper = _float(mapping.get("upper-bound")) if mapping is not None else None

        q = Question(kind=ESSAY, name=root.get("title") or root.get("identifier") or "", stem="")
        if box.tag == "qti-choice-interaction":
            self.read_choice(q, box)
        elif box.tag == "qti-text-entry-interaction":
            base_type = (self.decl.get("base-type") or "string").lower()
            if base_type in ("float", "integer"):
                self.read_number(q)
            elif base_type == "string":
                self.read_short(q)
            else:
                raise _Skip(f"its text box expects a {base_type} value, which cannot be marked here; "
                            f"it was left out.")
        else:
            q.kind = ESSAY
            q.marks = self.marks(0.0)
        units = next((e for e in body.iter() if UNITS_CLASS in (e.get("class") or "").split()), None)
        if units is not None and q.kind == NUMERIC:
            q.units = text_of(units).strip() or None
        q.stem = "\n\n".join(p for p in (*self.passages(), self.stem(body)) if p)
        self.read_rubric(q, body)
        self.read_feedback(q, body, hint_ids)
        self.collect_media()
        q.media = self.media
        q.notes = list(dict.fromkeys(self.notes))
        return q

    def marks(self, best: float) -> float:
        if self.declared_max is not None:
            return self.declared_max
        if self.normal_max is not None:
            return self.normal_max
        return best if best > 0 else 1.0

    def denominator(self, best: float) -> float:
        if self.declared_max:
            return self.declared_max
        if best > 0:
            return best
        return self.normal_max or 1.0

    # ---- choices

    def read_choice(self, q: Question, box: Element) -> None:
        options = list(box.iter("qti-simple-choice"))
        if not options:
            raise _Skip("its choice has no options; it was left out.")
        ids = [o.get("identifier") or "" for o in options]
        cardinality = (self.decl.get("cardinality") or "single").lower()
        q.kind = MULTI if cardinality in ("multiple", "ordered") else CHOICE
        q.shuffle = (box.get("shuffle") or "false").strip().lower() in ("true", "1")
        self.choice_ids = ids
        mapped = {key: value for key, value, _ in self.mapping}
        if self.uses_map and self.mapping:
            default = self.map_default or 0.0
            values = [mapped.get(i, default) for i in ids]
            best = max(values) if q.kind == CHOICE else sum(v for v in values if v > 0)
            if q.kind == MULTI and self.map_upper is not None:
                best = min(best, self.map_upper)
            denominator = self.denominator(best)
            fractions = [snap(v / denominator) for v in values]
            q.marks = self.marks(best)
        elif self.correct:
            keyed = set(self.correct)
            if q.kind == CHOICE:
                fractions = [1.0 if i in keyed else 0.0 for i in ids]
            else:
                share = snap(1 / max(1, len(keyed & set(ids))))
                fractions = [share if i in keyed else -1.0 for i in ids]
                self.notes.append("the file marks this all or nothing; here each right option earns a share "
                                  "and a wrong pick loses the marks")
            q.marks = self.marks(self.branch_best(1.0))
        elif self.mapping:
            values = [mapped.get(i, 0.0) for i in ids]
            best = max(values) if q.kind == CHOICE else sum(v for v in values if v > 0)
            fractions = [snap(v / (best or 1.0)) for v in values]
            q.marks = self.marks(best)
        else:
            raise _Skip("it has no key: neither a correct response nor a mapping says which option is right; "
                        "it was left out.")
        if not any(f > 0 for f in fractions):
            raise _Skip("none of its options is keyed as right; it was left out.")
        for option, fraction in zip(options, fractions):
            feedback = ""
            for inline in option.iter("qti-feedback-inline"):
                feedback = "\n\n".join(p for p in (feedback, self.content_text(inline)) if p)
            q.choices.append(Choice(self.our_text(self.html(option)), fraction, feedback))

    def branch_best(self, fallback: float) -> float:
        """The highest score the processing gives (a number written in it), else ``fallback``."""
        scores = [s for b in self.branches for s in [self.score(b)] if isinstance(s, float)]
        return max(scores) if scores else fallback

    def score(self, branch: Branch) -> Union[float, str, None]:
        for action in branch.actions:
            if action.get("identifier") != "SCORE" or not len(action):
                continue
            expr = action[0]
            if expr.tag == "qti-base-value":
                return _float(expr.text)
            if expr.tag == "qti-variable" and expr.get("identifier") == "MAXSCORE":
                return "max"
            if expr.tag == "qti-map-response":
                return "map"
        return None

    def feedback_ids(self, branch: Branch) -> list[str]:
        ids = []
        for action in branch.actions:
            if action.get("identifier") in ("SCORE", "MAXSCORE", "completionStatus"):
                continue
            ids += [(v.text or "").strip() for v in action.iter("qti-base-value")
                    if (v.get("base-type") or "") == "identifier"]
        return ids

    def is_response(self, el: Element) -> bool:
        return el.tag == "qti-variable" and el.get("identifier") == self.resp_id

    # ---- numbers

    def numeric_test(self, test: Optional[Element]) -> Optional[tuple[str, str, list[float]]]:
        """(value as written, tolerance mode, tolerance) when ``test`` compares the answer with a number."""
        if test is None:
            return None
        operands = list(test)
        if test.tag in ("qti-equal", "qti-equal-rounded", "qti-match") and len(operands) == 2:
            mine = [o for o in operands if self.is_response(o)]
            other = [o for o in operands if not self.is_response(o)]
            if len(mine) != 1 or len(other) != 1:
                return None
            if other[0].tag == "qti-correct" and self.correct and _float(self.correct[0]) is not None:
                value = self.correct[0]
            elif other[0].tag == "qti-base-value" and _float(other[0].text) is not None:
                value = (other[0].text or "").strip()
            else:
                return None
            if test.tag == "qti-equal":
                mode = (test.get("tolerance-mode") or "exact").lower()
                tolerance = [t for t in (_float(x) for x in (test.get("tolerance") or "").split()) if t is not None]
                return value, mode, tolerance
            if test.tag == "qti-equal-rounded":
                return value, "absolute", [self.rounding_tolerance(value, test)]
            return value, "exact", []
        if test.tag == "qti-and":
            for part in operands:
                found = self.numeric_test(part)
                if found:
                    return found
            bounds = []
            for part in operands:
                if part.tag in ("qti-gte", "qti-lte", "qti-gt", "qti-lt") and any(self.is_response(o) for o in part):
                    bounds += [v for o in part if o.tag == "qti-base-value" for v in [_float(o.text)] if v is not None]
            if len(bounds) == 2:
                low, high = sorted(bounds)
                middle, half = (float(f"{x:.12g}") for x in ((low + high) / 2, (high - low) / 2))
                return _fmt(middle), "absolute", [half]
        return None

    def rounding_tolerance(self, value: str, test: Element) -> float:
        """Half a unit in the last place kept: "equal when rounded to 3 decimal places" as give or take 0.0005."""
        figures = int(_float(test.get("figures")) or 0)
        mode = (test.get("rounding-mode") or "significantFigures").lower()
        if mode == "decimalplaces":
            place = -figures
        else:
            number = abs(float(value))
            place = (math.floor(math.log10(number)) if number else 0) - max(figures, 1) + 1
        tolerance = float(f"{0.5 * 10.0 ** place:.12g}")
        self.notes.append(f"the answer {value} was marked by rounding ({test.get('figures')} "
                          f"{'decimal places' if mode == 'decimalplaces' else 'significant figures'}); "
                          f"it is now accepted give or take {tolerance:g}")
        return tolerance

    def read_number(self, q: Question) -> None:
        q.kind = NUMERIC
        found: list[tuple[str, str, list[float], Union[float, str, None], list[str]]] = []
        for branch in self.branches:
            test = self.numeric_test(branch.test)
            if test:
                found.append((*test, self.score(branch), self.feedback_ids(branch)))
        if not found and self.uses_map and self.mapping:
            found = [(key.strip(), "exact", [], value, []) for key, value, _ in self.mapping if _float(key) is not None]
        if not found and self.correct and _float(self.correct[0]) is not None:
            found = [(self.correct[0], "exact", [], "max", [])]
        if not found:
            raise _Skip("it has no key: no correct number is given; it was left out.")
        full = self.declared_max
        scores: list[Optional[float]] = []
        for value, _, _, score, _ in found:
            if isinstance(score, float):
                scores.append(score)
            elif score == "max" or (score is None and self.correct and value == self.correct[0]):
                scores.append(full)                     # None when the file declares no maximum
            else:
                scores.append(0.0)
        best = max([s for s in scores if s is not None], default=0.0)
        if best <= 0:
            best = 1.0
        scores = [best if s is None else s for s in scores]
        denominator = self.denominator(best)
        q.marks = self.marks(best)
        shares = []
        for n, ((value, mode, tolerance, _, ids), score) in enumerate(zip(found, scores)):
            if len(set(tolerance)) > 1:
                self.notes.append(f"the answer {value} had different tolerances below and above; the larger is kept")
            amount = max(tolerance) if tolerance else 0.0
            share = snap(amount / 100) if mode == "relative" and amount > 0 else None   # a percentage of the key
            shares.append(share)
            absolute = (float(f"{abs(float(value)) * share:.6g}") if share is not None    # as convert derives it
                        else amount if mode == "absolute" else 0.0)
            q.numbers.append(NumericAnswer(value, absolute, snap(score / denominator)))
            for ident in ids:
                self.answer_feedback.setdefault(ident, ("number", n))
        relative = {s for s in shares if s is not None}
        if len(relative) == 1 and all(s is not None for s in shares):
            q.relative_tolerance = relative.pop()
        elif relative:
            self.notes.append("tolerances given as a percentage were turned into fixed amounts either side")
        if not any(n.fraction > 0 for n in q.numbers):
            raise _Skip("none of its numbers earns marks; it was left out.")

    # ---- short answers

    def string_test(self, test: Optional[Element]) -> Optional[tuple[str, bool]]:
        if test is None or len(test) != 2 or test.tag not in ("qti-match", "qti-string-match"):
            return None
        mine = [o for o in test if self.is_response(o)]
        other = [o for o in test if not self.is_response(o)]
        if len(mine) != 1 or len(other) != 1 or other[0].tag != "qti-base-value":
            return None
        sensitive = test.tag == "qti-match" or (test.get("case-sensitive") or "true").lower() in ("true", "1")
        return other[0].text or "", sensitive

    def read_short(self, q: Question) -> None:
        q.kind = SHORT
        answers: list[tuple[str, float, bool]] = []
        if self.uses_map and self.mapping:
            answers = list(self.mapping)
        if not answers:
            for branch in self.branches:
                found = self.string_test(branch.test)
                score = self.score(branch)
                if not found:
                    continue
                if isinstance(score, float):
                    answers.append((found[0], score, found[1]))
                else:
                    answers.append((found[0], (self.declared_max or 1.0) if score == "max" else 0.0, found[1]))
        if not answers and self.correct:
            answers = [(c, 1.0, True) for c in self.correct]
        if not answers:
            raise _Skip("it has no key: no accepted answer is given; it was left out.")
        best = max(v for _, v, _ in answers)
        denominator = self.denominator(best)
        q.marks = self.marks(best)
        sensitivity = {cs for _, _, cs in answers}
        q.case_sensitive = True in sensitivity
        if len(sensitivity) > 1:
            self.notes.append("some answers were matched with capitals and some without; all now need the "
                              "capitals as written")
        q.answers = [Choice(key, snap(value / denominator)) for key, value, _ in answers]
        for branch in self.branches:
            found = self.string_test(branch.test)
            if not found:
                continue
            for n, a in enumerate(q.answers):
                same = a.text == found[0] if found[1] and q.case_sensitive else a.text.casefold() == found[0].casefold()
                if same:
                    for ident in self.feedback_ids(branch):
                        self.answer_feedback.setdefault(ident, ("answer", n))
                    break
        if not any(a.fraction > 0 for a in q.answers):
            raise _Skip("none of its answers earns marks; it was left out.")
