"""Marking criteria with their own answers (steps): what a blueprint may say, and what validation refuses."""
from __future__ import annotations

import textwrap

import pytest

from core.blueprints.library import Library, check_skill
from core.blueprints.loader import BlueprintError, parse_text

# A 3-mark limit question: u(n+1) = a u(n) + b, L = b / (1 - a).
STEPPED = textwrap.dedent("""\
    skill_id: "TEST.LIMIT.STEPS"
    version: "1.0"
    metadata:
      domain: "Mathematics"
      skill_statement: "Find the limit of a recurrence relation"
    generation:
      item_type: "numeric"
      parameters:
        pct: {type: choice, values: [10, 15, 20, 25, 40]}
        b: {type: integer, min: 10, max: 90}
        context: {type: choice, values: ["pond", "tank"]}
      computed_values:
        a: "(100 - pct) / 100"
        limit: "b / (1 - a)"
      answer_formula: "dp(limit, 2)"
      answer_type: decimal
      difficulty_levels:
        easy:
          value: 0.4
    presentation:
      stem_templates:
        - "Each week {pct}% is lost and {b} is added ({context}). Find the limit."
    evaluation:
      method: "numeric_tolerance"
      tolerance: {absolute: 0.05}
      marks: 3
      marking_criteria:
        - step: "State that a limit exists"
          marks: 1
          gap_tag: "communication"
        - step: "Give the multiplier"
          marks: 1
          gap_tag: "strategy"
          answer: "a"
          name: "multiplier"
          tolerance: {absolute: 0.001}
        - step: "Calculate the limit"
          marks: 1
          gap_tag: "process"
          answer: "dp(limit, 2)"
          follow_through: "b / (1 - multiplier) if context == 'pond' else b * 1 / (1 - multiplier)"
    """)

LAST = '      follow_through: "b / (1 - multiplier) if context == \'pond\' else b * 1 / (1 - multiplier)"\n'


def issues_of(text: str) -> list:
    try:
        loaded = parse_text(text, "t.yaml")
    except BlueprintError as exc:
        return exc.issues
    return [i for i in check_skill(loaded)[1] if i.severity == "error"]


def one_issue(text: str):
    found = issues_of(text)
    assert found, "expected a validation error"
    return found[0]


def test_a_stepped_blueprint_validates():
    assert issues_of(STEPPED) == []


@pytest.mark.parametrize("old, new, path, message", [
    (LAST, '      follow_through: "b / (1 - later)"\n      name: "later"\n',
     "evaluation.marking_criteria[2].follow_through", "not an earlier step"),
    (LAST, '      follow_through: "b / (1 - nothing)"\n',
     "evaluation.marking_criteria[2].follow_through", "unknown name 'nothing'"),
    (LAST, '      follow_through: "b / (1 - a)"\n',
     "evaluation.marking_criteria[2].follow_through", "names no earlier step"),
    (LAST, '      follow_through: "round(b / (1 - multiplier), 2)"\n',
     "evaluation.marking_criteria[2].follow_through", "function 'round' cannot be used"),
    (LAST, '      follow_through: "b / (1 - multiplier) if multiplier > 0 else b"\n',
     "evaluation.marking_criteria[2].follow_through", "uses the step multiplier"),
    ('      name: "multiplier"\n', '      name: "limit"\n',
     "evaluation.marking_criteria[1].name", "already defined in computed_values"),
    ('      name: "multiplier"\n', '      name: "2nd"\n',
     "evaluation.marking_criteria.1.name", "plain identifier"),
    ('      gap_tag: "communication"\n', '      gap_tag: "communication"\n      name: "multiplier"\n',
     "evaluation.marking_criteria.1.name", "already the name of step 1"),
    ('      answer: "dp(limit, 2)"\n', '      answer: "dp(limit, 2)"\n      method: "exact_match"\n',
     "evaluation.marking_criteria.2.follow_through", "numeric_tolerance"),
    ('      gap_tag: "communication"\n', '      gap_tag: "communication"\n      follow_through: "b"\n',
     "evaluation.marking_criteria.0.follow_through", "only to a step with its own 'answer'"),
])
def test_bad_steps_are_refused_at_their_path(old, new, path, message):
    assert old in STEPPED
    issue = one_issue(STEPPED.replace(old, new))
    assert issue.path.replace("[", ".").replace("]", "") == path.replace("[", ".").replace("]", ""), issue
    assert message in issue.message, issue


def test_the_last_step_must_agree_with_the_answer_key():
    issue = one_issue(STEPPED.replace('      answer: "dp(limit, 2)"\n', '      answer: "dp(limit, 2) + 1"\n'))
    assert issue.path == "evaluation.marking_criteria"
    assert "gives" in issue.message or "does not agree" in issue.message


def test_a_follow_through_that_does_not_give_the_step_key_is_found_by_validation():
    issue = one_issue(STEPPED.replace(LAST, '      follow_through: "b / (2 - multiplier)"\n'))
    assert issue.path == "evaluation.marking_criteria"
    assert "follow-through" in issue.message


def test_a_choice_question_cannot_ask_for_steps():
    text = STEPPED.replace('item_type: "numeric"', 'item_type: "short_text"') \
                  .replace('method: "numeric_tolerance"', 'method: "short_text"') \
                  .replace("tolerance: {absolute: 0.05}", 'keywords: ["limit"]')
    assert 'keywords: ["limit"]' in text
    issue = one_issue(text)
    assert "cannot ask for steps" in issue.message


@pytest.mark.parametrize("skill", ["SQA.MATH.H.RECURRENCE_LIMIT", "SQA.MATH.N5.PYTHAGORAS",
                                   "SQA.PHYS.H.INTERNAL_RESISTANCE"])
def test_shipped_blueprints_with_steps(library: Library, skill):
    gen = library.generator(skill)
    assert gen.cs.steps, f"{skill} has no steps"
    last = gen.cs.steps[-1]
    assert last.follow_through is not None
    for level in gen.cs.levels:
        for seed in range(5):
            item = gen.generate(level, f"steps/{seed}")
            criteria = item.marking_scheme["criteria"]
            assert criteria[last.index]["answer_key"] == item.correct_answer
