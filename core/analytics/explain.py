"""What every figure on the Analytics page means, in words a teacher reads, and what to do about it.

Each term has a one-line ``short`` (a tooltip), a ``long`` explanation (an
expander beside a chart or table) and ``todo`` (what a teacher does about a
worrying value). The thresholds the advice uses are named here, with the
reason for each, so the words and the flags in the tables agree.
``COLUMN_HELP`` gives the tooltip of every column the page's tables show.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Iterable, Optional

from core.school.progress import DEVELOPING, SECURE

# Facility (share right). Below 0.3 most of the class is lost or the item is faulty; above 0.9 it tells you
# little about who knows what (nearly everyone gets it), though that is fine for a confidence-building warm-up.
FACILITY_HARD = 0.3
FACILITY_EASY = 0.9
# Discrimination (point-biserial or upper-lower). The usual classroom rule (Ebel): 0.3 and above works well,
# 0.2-0.3 is acceptable, below 0.2 the item hardly tells stronger from weaker students; below 0 stronger
# students do worse on it, which nearly always means a wrong key or an ambiguous stem.
DISCRIMINATION_GOOD = 0.3
DISCRIMINATION_LOW = 0.2
# Reliability (Cronbach's alpha / KR-20): 0.7 is the usual floor for a class test whose total is used to compare
# students; 0.8 and above is good enough to report grades on with some confidence.
RELIABILITY_FAIR = 0.7
RELIABILITY_GOOD = 0.8
# Infit and outfit mean squares: 1 is what the model expects. Above 1.3 the answers are noisier than the model
# (guessing, slips, a key that marks right answers wrong); below 0.7 they are more predictable than it (often
# an item that repeats another, or a cue that gives it away). The usual range for classroom tests.
FIT_LOW = 0.7
FIT_HIGH = 1.3


@dataclasses.dataclass(frozen=True)
class Term:
    name: str      # how the page names it
    short: str     # one or two sentences: a tooltip
    long: str      # the explanation, a paragraph
    todo: str      # what to do about a worrying value


TERMS: dict[str, Term] = {t.name.lower(): t for t in [
    Term("Logits",
         "The scale ability and difficulty share: 0 is an item of average difficulty; a student 1 logit above an "
         "item gets it right about 73% of the time, 2 above about 88%, level with it 50%.",
         "A logit is the log of the odds of a right answer. Because abilities and difficulties are on the same "
         "scale you can read them against each other: a student whose ability equals an item's difficulty has an "
         "even chance on it; each logit more makes a right answer about 2.7 times as likely in odds (50% becomes "
         "73%, then 88%, then 95%). Most students and items sit between -3 and +3. The numbers are only "
         "comparable within one calibration.",
         "Read differences, not single numbers: an item 1 logit above a student is one they will usually get wrong; "
         "one 1 logit below, usually right. Practice works best on items close to the student's ability."),
    Term("Ability",
         "How strong the student is, in logits: 0 means an even chance on an average item. The ± is the 95% "
         "interval; it shrinks as the student answers more.",
         "Ability is estimated from which items a student got right, allowing for how hard those items are (a "
         "Rasch or 2PL model), so two students who saw different questions can still be compared. With few answers "
         "the interval is wide: an ability from 5 answers can be a whole logit or more off.",
         "Compare students only where their intervals do not overlap much. For a student with a wide interval, "
         "get more answers (another practice set) before drawing conclusions."),
    Term("Difficulty",
         "How hard a question (or blueprint level) is, in logits on the same scale as ability: 0 is average, "
         "+1 is harder, -1 easier. The ± is its 95% interval.",
         "Measured difficulty comes from the calibration: the ability at which a student has an even chance on the "
         "item. It starts from the difficulty the blueprint declares and moves as answers come in, so with few "
         "answers it stays close to the declared value.",
         "Where a blueprint's levels measure in the wrong order or all alike, make the harder level harder (wider "
         "ranges, more steps) or relabel the levels."),
    Term("Rasch",
         "The Rasch (1PL) model: the chance of a right answer depends only on ability minus difficulty.",
         "In the Rasch model every question discriminates equally, so a question is described by one number, its "
         "difficulty. It needs fewer answers than 2PL and is the safer choice for a class's worth of data.",
         "Use Rasch unless you have hundreds of answers per unit; check infit and outfit for units that do not fit."),
    Term("2PL",
         "The two-parameter model: each question also gets its own discrimination (how sharply it separates "
         "stronger from weaker students).",
         "2PL adds a slope per question. A slope near 0 means the question hardly depends on ability; 1 is typical; "
         "2 or more is very sharp. Slopes need many answers (a few hundred per unit) to be trusted.",
         "Prefer Rasch with a class's worth of answers; use 2PL across several classes, and look at units whose "
         "slope is low."),
    Term("Facility",
         "The share of answers that were right (0 to 1). High means easy for this class, low means hard.",
         "Facility is the simplest difficulty figure: right answers divided by answers. It describes this class on "
         f"these items, not the item alone. Between {FACILITY_HARD} and {FACILITY_EASY} an item tells you most "
         "about who knows what. The interval beside it (Wilson 95%) shows how far it could move with other students.",
         f"Below {FACILITY_HARD}: reteach the skill, or check the item is fair (wording, key). Above "
         f"{FACILITY_EASY}: fine for confidence, but it tells you little; use a harder level to stretch the class."),
    Term("Discrimination",
         "How well the item separates stronger from weaker students: the facility of the top 27% minus the bottom "
         f"27%. {DISCRIMINATION_GOOD} or more is good; below {DISCRIMINATION_LOW} look at the item.",
         "Upper-lower discrimination ranks the students who answered the item by overall strength (calibrated "
         "ability, else overall accuracy) and compares the top and bottom 27%. An item everyone gets right or wrong "
         "cannot discriminate; a negative value means the weaker students did better.",
         f"Below {DISCRIMINATION_LOW}: look at the item; it may be ambiguous, keyed wrong, guessable, or have a "
         "shortcut that skips the skill. Negative: check the key first."),
    Term("Point-biserial",
         "The correlation between getting the item right and overall strength (-1 to 1). "
         f"{DISCRIMINATION_GOOD} or more is good; below {DISCRIMINATION_LOW} look at the item.",
         "The point-biserial correlation is another discrimination figure: how much the item's right answers go "
         "with the students' overall strength. It uses every student, not just the top and bottom groups.",
         f"Below {DISCRIMINATION_LOW}: the item may be ambiguous, keyed wrong or testing something else; negative: "
         "check the key first."),
    Term("Reliability",
         "How consistently the paper ranks students (0 to 1): Cronbach's alpha, and KR-20 when every question is "
         f"marked right or wrong. {RELIABILITY_FAIR} is the usual floor, {RELIABILITY_GOOD}+ is good.",
         "Reliability estimates how similar the ranking of students would be on another paper of the same kind. "
         "It rises with more questions and with questions that discriminate well, and it needs a fair number of "
         "students to be estimated at all.",
         f"Below {RELIABILITY_FAIR}: do not grade on this paper alone; add questions, or drop or fix those with low "
         "discrimination."),
    Term("Mastery",
         f"The app's running mastery score per skill (0 to 1): secure from {SECURE}, developing from {DEVELOPING}, "
         "else needs work.",
         "Mastery starts at 0.5; each right answer in practice moves it 10% of the way to 1, each wrong one 20% of "
         "the way to 0, so recent answers count most. It is what students see on their own progress page. After "
         "only a few answers it mostly reflects the starting value.",
         f"Skills below {DEVELOPING} for many students: reteach, then set practice on them. A blank cell means no "
         "answers on that skill yet."),
    Term("BKT mastery",
         "Bayesian Knowledge Tracing: the chance the student knows the skill now, from the order of their right and "
         "wrong answers, allowing for lucky guesses and slips.",
         "Bayesian Knowledge Tracing (for analysts: the notebooks, and core.analytics.mastery with method='bkt'; the "
         "page shows the app's own mastery score above) fits, per skill, "
         "how likely a student is to know it at the start, to learn it on each practice, to guess and to slip. "
         "It needs a class's worth of answers per skill to fit.",
         "Treat a BKT mastery above 0.95 as known; below 0.5 as a skill to practise next."),
    Term("Infit and outfit",
         "How well the model fits a unit's answers: 1 is as expected; above "
         f"{FIT_HIGH} noisier (guessing, slips, a bad key), below {FIT_LOW} too predictable.",
         "Both compare the answers with what the model predicts from each student's ability. Outfit reacts to "
         "surprises from students far from the item (a strong student getting an easy item wrong); infit weighs "
         "the students near the item's difficulty more.",
         f"Outfit above {FIT_HIGH}: look for stems that can be read two ways or keys that mark right answers wrong "
         f"(tolerance, units, forms). Below {FIT_LOW}: usually harmless; check the item does not give away its answer."),
    Term("Wright map",
         "Students (their abilities) and questions (their difficulties) side by side on one logit scale.",
         "Where the two histograms overlap, the questions suit the students: each student meets questions they get "
         "right about half the time. Questions far above every student are out of reach; far below, too easy to "
         "teach anything.",
         "If most questions sit below the students, set harder levels; if above, easier ones or reteaching first."),
    Term("Characteristic curve",
         "The chance of a right answer (up) at each ability (across): the curve passes 50% at the unit's "
         "difficulty; a steeper curve separates stronger from weaker students more sharply.",
         "Each curve is what the calibration predicts for one unit. In the Rasch model all curves have the same "
         "shape, shifted by difficulty; in 2PL flatter curves mean the unit depends less on ability.",
         "A flat curve (2PL) marks a unit to look at: it may be guessable or test something else."),
    Term("Distractor",
         "A wrong option of a multiple-choice item, written for one misconception: who chose it, and how strong "
         "they were.",
         "A good distractor is chosen by students who hold the misconception, who are usually the weaker ones. "
         "One nobody chooses does no work; one chosen by strong students (as strong as those choosing the key) "
         "may be defensible, or the key wrong.",
         "Rework distractors almost nobody chooses; check those marked suspect for a second right answer."),
    Term("Parameter effect",
         "How much a blueprint parameter's value changes the share of right answers: a large spread means that "
         "parameter drives difficulty.",
         "For each parameter of the blueprint, the facility of its items is compared across the parameter's "
         "values; r and the logit slope say whether larger values make items harder (negative) or easier.",
         "Use the parameters with a large spread to set the difficulty levels: narrow their range at easy, widen it "
         "at hard."),
    Term("Interval",
         "The 95% interval: the range the true value most likely lies in, given how many answers there are.",
         "Every figure here is estimated from a sample of answers. The interval says how far it could be off: "
         "narrow with many answers, wide with few.",
         "When two intervals overlap a lot, do not treat the two figures as different."),
]}

# The tooltips of the class's headline figures.
METRIC_HELP: dict[str, str] = {
    "students": "Students on the class roster.",
    "active_7d": "Students who answered at least one question in the last 7 days.",
    "responses": "First attempts that were marked, in practice, lessons, exams and evaluations.",
    "accuracy": "Share of those answers that were right. It depends on which questions were set, so compare it "
                "between students with care; ability (below) allows for how hard their questions were.",
    "activity": "Bars: answers per day; line: the share right that day. The line moves with which topics were set "
                "that day, not only with what students know: read the ability and mastery below for that.",
}

# The tooltip of every column the page's tables show (columns not named here get none).
COLUMN_HELP: dict[str, str] = {
    "family": "A blueprint at one difficulty level: all the items generated from it counted together.",
    "unit": "What the calibration gave its own difficulty: an item, a blueprint level (blueprint|level) or a skill.",
    "kind": "Whether the unit is an item, a blueprint level (family) or a skill.",
    "level": "The blueprint's difficulty level.",
    "strategy": "The misconception a wrong option stands for.",
    "parameter": "A value the blueprint's generator draws (a number in the question, a form, ...).",
    "hardest": "The parameter value (or range) with the lowest facility.",
    "easiest": "The parameter value (or range) with the highest facility.",
    "positions_left_out": "Question positions not every paper reached, left out of the reliability.",
    "n_dropped": "Students left out of the reliability because they missed a question.",
    "n": "How many answers the figures on this row rest on.",
    "responses": "Answers given (first attempts that were marked).",
    "accuracy": "Share of answers right (0 to 1).",
    "accuracy_low": "Lower end of the 95% (Wilson) interval of accuracy.",
    "accuracy_high": "Upper end of the 95% (Wilson) interval of accuracy.",
    "facility": TERMS["facility"].short,
    "facility_low": "Lower end of the 95% (Wilson) interval of facility.",
    "facility_high": "Upper end of the 95% (Wilson) interval of facility.",
    "p_correct": TERMS["facility"].short,
    "point_biserial": TERMS["point-biserial"].short,
    "upper_lower": TERMS["discrimination"].short,
    "discrimination": "Slope of the unit's curve (2PL); fixed at 1 in the Rasch model. " + TERMS["2pl"].short,
    "criterion": "What 'stronger student' means for discrimination: calibrated ability, or overall accuracy "
                 "before any calibration.",
    "difficulty": TERMS["difficulty"].short,
    "measured": TERMS["difficulty"].short,
    "declared": "The difficulty the blueprint declares for this level, on the logit scale.",
    "se": "Standard error: about half the width of the 95% interval (interval = value ± 1.96 × se).",
    "se_difficulty": "Standard error of the difficulty (interval = difficulty ± 1.96 × se).",
    "se_discrimination": "Standard error of the 2PL slope.",
    "low": TERMS["interval"].short + " (lower end)",
    "high": TERMS["interval"].short + " (upper end)",
    "theta": TERMS["ability"].short,
    "infit": TERMS["infit and outfit"].short,
    "outfit": TERMS["infit and outfit"].short,
    "flags": "Warnings the calibration raised about this unit's estimates.",
    "flag": "Where declared and measured difficulty disagree.",
    "alpha": "Cronbach's alpha. " + TERMS["reliability"].short,
    "kr20": "KR-20 (alpha for right/wrong marking; blank when questions have part marks). "
            + TERMS["reliability"].short,
    "n_students": "How many students the figure rests on.",
    "n_items": "How many questions.",
    "mastery": TERMS["mastery"].short,
    "mean_mastery": "The class's mean mastery of the skill. " + TERMS["mastery"].short,
    "share_below": f"Share of the class below {DEVELOPING} mastery (needs work) on the skill.",
    "n_responses": "The practice answers the figure rests on.",
    "band": f"secure from {SECURE}, developing from {DEVELOPING}, else needs work.",
    "share": "Share of the answers that chose this option (or strategy).",
    "offered": "How many answers had this option to choose.",
    "chosen": "How many answers chose it.",
    "mean_ability": "Mean ability (logits) of the students who chose it; above the key's choosers is suspicious.",
    "suspect": "Those choosing this wrong option are as strong as those choosing the key: the option may be "
               "defensible or the key wrong.",
    "suspect_items": "Items where this option's choosers are as strong as the key's: check the option is not right.",
    "spread": "Facility of the easiest value minus the hardest: how much this parameter changes difficulty.",
    "r": "Correlation of the parameter's value with right answers (negative: larger values are harder).",
    "logit_slope": "Change in log-odds of a right answer per unit of the parameter.",
    "few_answers": "Too few answers for this row's figures to mean much: read them as a rough guide.",
    "advice": "What the figures on this row suggest doing.",
}


def term(name: str) -> Term:
    """A term by its name (any case): ``term("facility")``. Unknown names raise ValueError listing the known."""
    found = TERMS.get(name.lower())
    if found is None:
        raise ValueError(f"no explanation for {name!r}; explained terms are {', '.join(t.name for t in TERMS.values())}")
    return found


def tooltip(*names: str) -> str:
    """The short help of one or more terms with what to do, for a ``help=`` tooltip."""
    return "\n\n".join(f"**{term(n).name}**: {term(n).short} *What to do:* {term(n).todo}" for n in names)


def explanation(*names: str) -> str:
    """The long explanations with what to do, as Markdown, for an expander beside a chart or table."""
    return "\n\n".join(f"**{term(n).name}.** {term(n).long}\n\n*What to do:* {term(n).todo}" for n in names)


def column_help(columns: Iterable[str]) -> dict[str, str]:
    """Tooltips for those of ``columns`` that have one."""
    return {c: COLUMN_HELP[c] for c in columns if c in COLUMN_HELP}


def _bad(value: Optional[float]) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def item_advice(facility: Optional[float], discrimination: Optional[float], outfit: Optional[float] = None) -> str:
    """What an item's (or blueprint level's) figures suggest, in one line ("" when nothing stands out)."""
    said = []
    if not _bad(discrimination) and discrimination < 0:
        said.append("stronger students do worse: check the key first")
    elif not _bad(discrimination) and discrimination < DISCRIMINATION_LOW:
        said.append("low discrimination: look at the item (ambiguous, keyed wrong, guessable?)")
    if not _bad(outfit) and outfit > FIT_HIGH:
        said.append("noisy answers: a stem read two ways or a key marking right answers wrong?")
    if not _bad(facility) and facility < FACILITY_HARD:
        said.append("hard for this class: reteach, or check the item is fair")
    elif not _bad(facility) and facility > FACILITY_EASY:
        said.append("nearly everyone gets it: use a harder level to stretch the class")
    return "; ".join(said)


def reliability_advice(alpha: Optional[float]) -> str:
    """What a paper's reliability suggests, in one line."""
    if _bad(alpha):
        return "could not be estimated"
    if alpha >= RELIABILITY_GOOD:
        return "good: the total ranks students consistently"
    if alpha >= RELIABILITY_FAIR:
        return "acceptable for a class test; do not grade on it alone"
    return "low: add questions, or fix those with low discrimination, before grading on this paper"
