"""A lesson card teaches what its question asks, hints escalate, remediation speaks to the mistake, and a
lesson stopped early says so: over every shipped skill and every shipped bank question."""
from __future__ import annotations

import pytest

from core.flows.base import Context, Runner, Step
from core.flows.lesson import LessonFlow
from core.flows.lesson_words import EXAMPLE_HINT, engagement, hint_ladder
from core.flows.remediation import diagnose
from core.items.banks.importing import import_shipped_banks
from core.items.skills import skill_for
from core.store import repo

@pytest.fixture(scope="module")
def banked(tmp_path_factory, library):
    from core.store import Store
    store = Store(tmp_path_factory.mktemp("lesson_teaching") / "workbench.duckdb")
    import_shipped_banks(store)
    yield store
    store.close()


def bank_items(store) -> list:
    ids = [r[0] for r in store.query("SELECT id FROM items WHERE source IN ('local', 'past') ORDER BY id")]
    return [repo.load_item(store, i) for i in ids]


def test_every_skill_is_taught_from_its_own_teaching(banked, library):
    runner = Runner(Context.create(banked, library), {"lesson": LessonFlow})
    for skill in sorted(library.generators):
        bp = library.generator(skill).bp
        sid = runner.start("lesson", f"s_{skill}", {"skills": [skill], "cards": 1, "seed": 7})
        card = runner.state(sid)["cards"][0]
        item = repo.load_item(banked, card["item_id"])
        assert card["skill_ids"] == [skill] == [skill_for(item, library)], skill
        assert bp.teaching is not None, f"{skill} has no teaching"
        assert card["teaching"]["text"] == bp.teaching.text.strip() and card["teaching"]["source"] == "skill"
        assert card["title"] == (bp.metadata.topic or bp.metadata.skill_statement)
        example = card["teaching"]["example"]
        if example:
            drawn = repo.load_item(banked, example["item_id"])
            assert drawn.blueprint_id == skill and example["stem"] != item.stem, skill
        assert card["hints"] and len(set(card["hints"])) == len(card["hints"]), skill


def test_a_worked_example_is_of_the_same_kind_as_its_question(banked, library):
    """A volume card about a sphere is taught from a sphere, not a cone: the skill's items differ in a worded
    parameter (the solid), and the example shares it with the question wherever a draw can."""
    skill = "SQA.MATH.N5.VOLUME_SOLIDS"
    assert skill in library.generators
    runner = Runner(Context.create(banked, library), {"lesson": LessonFlow})
    kinds = set()
    for seed in range(12):
        sid = runner.start("lesson", f"s_vol_{seed}", {"skills": [skill], "cards": 1, "seed": seed})
        card = runner.state(sid)["cards"][0]
        question = repo.load_item(banked, card["item_id"])
        example = repo.load_item(banked, card["teaching"]["example"]["item_id"])
        kind = question.generation_params["kind"]
        kinds.add(kind)
        assert example.generation_params["kind"] == kind, (seed, kind, example.stem)
        assert example.content_key != question.content_key and example.stem != question.stem
    assert len(kinds) > 2   # the seeds reach several solids


def test_every_bank_question_is_taught_from_its_own_skill_or_its_own_teaching(banked, library):
    flow = LessonFlow(Context.create(banked, library))
    items = bank_items(banked)
    assert len(items) >= 40
    for item in items:
        state = flow.new_state({"student": "bank", "config": {"subject": item.subject, "level": item.level},
                                "id": "plan"})
        outcome = item.outcome_ids[0]
        step = Step()
        card = flow._card(state, 0, item, outcome, "bank", f"bank/{item.id}", set(), step)
        drawn = {i.id: i for i in step.items}
        skill = skill_for(item, library)
        own = (item.computed_values.get("metadata") or {}).get("teaching")
        if skill:
            assert card["skill_ids"] == [skill] and card["teaching"]["source"] == "skill", item.id
            assert card["teaching"]["text"] == library.generator(skill).bp.teaching.text.strip(), item.id
            example = card["teaching"]["example"]
            if example:
                assert drawn[example["item_id"]].blueprint_id == skill, item.id
        else:
            # Shipped questions no blueprint fits carry their own teaching; never the outcome's first blueprint.
            assert own, f"{item.id} has neither a skill nor teaching of its own"
            assert card["skill_ids"] == [] and card["teaching"] == {"text": own, "example": None, "source": "bank"}
        assert card["teaching"]["source"] != "outcome", item.id


def test_a_bank_question_that_names_no_skill_is_matched_to_the_one_it_practises(library):
    from core.items.banks.files import parse_bank
    text = ("id,source,subject,level,outcome_id,item_type,text,answer,units,marks,explanation\n"
            "q1,local,Mathematics,Nat 5,MNU-5-03,numeric,A sector of a circle has radius 6 cm and the angle at the "
            "centre is 80°. Calculate the length of the arc.,8.38,cm,3,Arc = 80/360 × π × 12 = 8.38 cm.\n")
    item = parse_bank(text, fmt="csv").questions[0]
    assert item.skill_ids == [] and skill_for(item, library) == "SQA.MATH.N5.ARC_SECTOR"


def test_a_bank_question_without_hints_gets_the_method_then_the_example_then_the_key_concept(banked):
    item = next(i for i in bank_items(banked) if not i.hints and len(i.marking_scheme.get("criteria") or []) > 1)
    ladder = hint_ladder(item, "The key idea.", True)
    assert len(ladder) == 3 and ladder[1] == EXAMPLE_HINT and ladder[2] == "The key idea."
    assert ladder[0].startswith("Work through it in steps: 1. ")


def test_wrong_answers_get_a_new_hint_each_time_never_the_same_twice(banked, library):
    runner = Runner(Context.create(banked, library), {"lesson": LessonFlow})
    sid = runner.start("lesson", "hints", {"skills": ["SQA.PHYS.H.PHOTON_ENERGY"], "cards": 1, "max_attempts": 5,
                                           "seed": 3})
    item = repo.load_item(banked, runner.view(sid)["card"]["question"]["id"])
    given = []
    for k in range(4):
        view = runner.command(sid, "answer", answer=str(900 + k))
        given.append(view["feedback"]["hint"])
        assert view["card"]["hint_level"] == k + 1
    assert len(set(given)) == 4 and given[:2] == item.hints[:2]


def test_the_key_concept_is_the_mistakes_explanation_and_try_this_is_easier_on_the_same_skill(banked, library):
    from core.items.sources import QuestionSource
    source = QuestionSource(library, banked)
    gen = library.generator("SQA.PHYS.H.PHOTON_ENERGY")
    item = gen.generate("hard", "remedy")
    strategy = next(t for t in item.option_strategies if t) if item.options else next(iter(item.misconceptions))
    wrong = item.misconceptions[strategy]
    diag = diagnose(item, f"{wrong} × 10^-19 J", source, seed=1)
    assert not diag.mark.correct and diag.mark.misconception == strategy
    explained = next(s.explanation for s in gen.bp.presentation.distractor_strategies if s.type == strategy)
    assert diag.remediation["key_concept"] == explained
    assert diag.remediation["what_went_wrong"].startswith("This looks like: ")
    assert diag.similar is not None and diag.similar.blueprint_id == item.blueprint_id
    assert diag.similar.difficulty_level == "medium"          # one level easier than the question
    assert diag.remediation["try_this"] == diag.similar.stem
    # A plain wrong answer: the skill's own key concept, never a row of gap-tag keywords.
    plain = diagnose(item, "1.00 × 10^-19 J", source, seed=2)
    assert plain.remediation["key_concept"] == gen.bp.teaching.concept


def test_engagement_counts_worked_cards_and_halves_rushed_or_skipped_ones():
    results = [{"result": "correct"}, {"result": "incorrect"}, {"result": "skipped"}, None]
    evidence = [{"card_index": 0, "time_ms": 20_000}, {"card_index": 1, "time_ms": 900},
                {"card_index": 1, "time_ms": 1200}, {"card_index": 2, "time_ms": 15_000}]
    assert engagement(results, evidence, 4) == round((1 + 0.5 + 0.5 + 0) / 4, 2)
    assert engagement(results, evidence, 0) == 0.0


def test_a_lesson_stopped_early_is_summarised_as_stopped_early(banked, library):
    runner = Runner(Context.create(banked, library), {"lesson": LessonFlow})
    sid = runner.start("lesson", "early", {"skills": ["MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.SUB.2DIGIT"],
                                           "cards": 5, "seed": 8})
    item = repo.load_item(banked, runner.view(sid)["card"]["question"]["id"])
    runner.command(sid, "answer", answer=item.typed_answer)
    runner.command(sid, "next")
    summary = runner.command(sid, "stop")["summary"]
    assert summary["stopped_early"] is True and summary["cards_shown"] == 2 and summary["cards_correct"] == 1
    assert summary["retry_recommended"] is True
    assert summary["summary"].startswith("You stopped after 2 cards of 5, with 1 right.")
    assert "Well done" not in summary["summary"] and "move on" not in summary["summary"]
    assert 0 < summary["engagement_score"] <= 1 and summary["summary_by"] == "lesson"


def test_a_cards_first_attempt_moves_the_outcomes_stored_ability_and_a_late_answer_counts_wrong(tmp_path, clock):
    import yaml
    from pathlib import Path
    from core.blueprints.library import Library
    from core.blueprints.loader import parse_text
    from core.store import Store
    from core.store.outcome_ability import get_ability
    root = Path(__file__).resolve().parents[2]
    data = yaml.safe_load((root / "blueprints/skills/math/arithmetic/add_2digit.yaml").read_text())
    data["skill_id"] = "TEST.TIMED.ADD"
    data["metadata"].update(subject="Testing", level="Timed", outcome_ids=["TT-01"])
    data["presentation"]["time_limit_seconds"] = 20
    lib = Library(exercise=False)
    lib.add_loaded(parse_text("spec_id: TT\nsubject: Testing\nlevel: Timed\noutcomes: [{id: TT-01, label: Adding, "
                              "weight: 1}]\nassessment_structure: [{section: P, outcome_ids: [TT-01], marks: 10, "
                              "time_allowed_minutes: 10}]\n", "tt.yaml"))
    lib.add_loaded(parse_text(yaml.safe_dump(data, sort_keys=False), "timed-add.yaml"))
    store = Store(tmp_path / "w.duckdb")
    runner = Runner(Context.create(store, lib, clock=clock), {"lesson": LessonFlow})
    sid = runner.start("lesson", "ivy", {"subject": "Testing", "level": "Timed", "cards": 2, "seed": 1})
    card = runner.view(sid)["card"]
    assert card["time_limit_seconds"] == 20 and card["time_left_seconds"] == 20
    item = repo.load_item(store, card["question"]["id"])
    runner.command(sid, "answer", answer=item.typed_answer)
    first = get_ability(store, "ivy", "TT-01")
    assert first is not None and first["n"] == 1 and first["correct"] == 1
    runner.command(sid, "next")
    late = repo.load_item(store, runner.view(sid)["card"]["question"]["id"])
    clock.advance(45)
    view = runner.command(sid, "answer", answer=late.typed_answer)
    assert view["feedback"]["correct"] is False and view["feedback"]["feedback"].startswith("Time's up")
    after = get_ability(store, "ivy", "TT-01")
    assert after["n"] == 2 and after["correct"] == 1 and after["theta"] < first["theta"]
    store.close()
