"""The review queue on a real DuckDB file: nothing is approved unless its answer key is sound."""
from __future__ import annotations

import dataclasses

import pytest

from core.items import review
from core.items.review import KeyDiffersError, ReviewError
from core.store import Store, repo

LINEAR = "SQA.MATH.N5.LINEAR_EQUATIONS"
PARAMS = {"a": 5, "b": -8, "c": 2, "d": -14, "bracket": 0}   # 5x - 8 = 2x - 14, so x = -2
MC_SKILL = "SQA.MATH.N5.CHANGE_SUBJECT"


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "workbench.duckdb")
    yield s
    s.close()


def linear_item(library, seed: str = "r1", **over):
    item = library.generator(LINEAR).generate("easy", seed, dict(PARAMS))
    return dataclasses.replace(item, **over) if over else item


def stored(store, item, status: str = "draft") -> str:
    repo.insert_items(store, [item], status=status)
    return item.id


def status_of(store, item_id: str) -> str:
    return repo.get_item(store, item_id)["status"]


def unreadable(library, seed: str = "bad"):
    """A blueprint item whose key the marker cannot read (marked as an expression, and not one)."""
    item = linear_item(library, seed)
    return dataclasses.replace(item, id=f"itm_bad_{seed}", correct_answer="2x +* 6", accepted_answers=[],
                               evaluation={**item.evaluation, "method": "algebraic_equivalence"})


def test_the_blueprint_key_is_found_in_the_generator(library):
    item = linear_item(library)
    assert item.correct_answer == "-2"
    assert library.generator(LINEAR).key_for(item.generation_params) == "-2"


def test_approve_refuses_an_unreadable_key_and_changes_nothing(store, library):
    good = stored(store, linear_item(library))
    bad = stored(store, unreadable(library))
    with pytest.raises(ReviewError) as err:
        review.approve(store, [good, bad], library=library)
    message = str(err.value)
    assert f"Item {bad} cannot be approved" in message and "2x +* 6" in message and good not in message
    assert status_of(store, good) == status_of(store, bad) == "draft"
    assert review.history(store, good) == review.history(store, bad) == []
    assert review.approve(store, [good], library=library) == 1
    assert status_of(store, good) == "approved"


def test_approve_recomputes_from_the_stored_blueprint_version(store, library):
    repo.sync_blueprints(store, library.all_loaded())
    good = stored(store, linear_item(library))
    wrong = stored(store, linear_item(library, "r2", id="itm_wrong_key", correct_answer="999"))
    with pytest.raises(ReviewError) as err:
        review.approve(store, [wrong])            # no library: the blueprint version comes from the database
    assert "The key 999 is not what the blueprint computes for these parameters (-2)" in str(err.value)
    assert "keep my key" in str(err.value)
    assert status_of(store, wrong) == "draft"
    assert review.approve(store, [good]) == 1


def test_a_blueprint_item_without_its_blueprint_cannot_be_approved_unchecked(store, library):
    item_id = stored(store, linear_item(library))
    with pytest.raises(ReviewError, match="in neither the library nor the database"):
        review.approve(store, [item_id])
    assert status_of(store, item_id) == "draft"


def test_edit_to_a_key_the_blueprint_does_not_compute_needs_confirmation_and_a_reason(store, library):
    item = linear_item(library)
    item_id = stored(store, item)
    with pytest.raises(KeyDiffersError) as err:
        review.edit_and_approve(store, item_id, item.stem, "999", item.explanation, library=library)
    assert str(err.value) == ("The key 999 is not what the blueprint computes for these parameters (-2). "
                              "Tick 'keep my key' and say why, or correct it.")
    assert err.value.difference.blueprint_key == "-2"
    with pytest.raises(ReviewError, match="Say why you keep your key"):
        review.edit_and_approve(store, item_id, item.stem, "999", item.explanation, library=library,
                                confirm_key_change=True, reason="  ")
    row = repo.get_item(store, item_id)
    assert row["status"] == "draft" and row["answer_key"] == "-2" and review.history(store, item_id) == []

    review.edit_and_approve(store, item_id, item.stem, "999", item.explanation, library=library,
                            confirm_key_change=True, reason="The printed paper uses a different equation")
    row = repo.get_item(store, item_id)
    assert row["status"] == "approved" and row["answer_key"] == "999"
    assert row["review_notes"] == "The printed paper uses a different equation"
    [entry] = review.history(store, item_id)
    assert entry["action"] == "edited and approved" and entry["note"] == "The printed paper uses a different equation"
    assert entry["changes"]["answer_key"] == {"from": "-2", "to": "999"}
    assert entry["changes"]["blueprint_key"] == {"from": "-2", "to": "999"}

    # The confirmation is kept: approving the same key again (after a rejection, say) needs no second one.
    review.reject(store, [item_id], "Not this term")
    assert review.approve(store, [item_id], library=library) == 1


def test_a_key_equal_in_value_to_the_blueprints_needs_no_confirmation(store, library):
    item = linear_item(library)
    item_id = stored(store, item)
    review.edit_and_approve(store, item_id, item.stem, "x = -2", item.explanation, library=library)
    row = repo.get_item(store, item_id)
    assert row["status"] == "approved" and row["answer_key"] == "x = -2"
    assert "blueprint_key" not in review.history(store, item_id)[0]["changes"]


def test_an_edited_key_the_marker_cannot_read_is_refused_even_when_confirmed(store, library):
    item = unreadable(library)
    item = dataclasses.replace(item, correct_answer="2x + 6")
    item_id = stored(store, item)
    with pytest.raises(ReviewError, match="The key cannot be used") as err:
        review.edit_and_approve(store, item_id, item.stem, "2x +* 6", item.explanation, library=library,
                                confirm_key_change=True, reason="I am sure")
    assert not isinstance(err.value, KeyDiffersError) and "2x +* 6" in str(err.value)
    assert status_of(store, item_id) == "draft" and review.history(store, item_id) == []


def test_choosing_another_option_as_the_key_needs_confirmation(store, library):
    item = library.generator(MC_SKILL).generate("medium", "mc1")
    item_id = stored(store, item)
    other = next(o for o in item.options if o != item.correct_answer)
    with pytest.raises(KeyDiffersError):
        review.edit_and_approve(store, item_id, item.stem, other, item.explanation, list(item.options),
                                library=library)
    review.edit_and_approve(store, item_id, item.stem, other, item.explanation, list(item.options), library=library,
                            confirm_key_change=True, reason="The blueprint's rearrangement is wrong here")
    row = repo.get_item(store, item_id)
    assert row["status"] == "approved" and row["options"][row["correct_index"]] == other


def test_withdraw_unmarkable_sets_the_status_and_reason(store, library):
    good = stored(store, linear_item(library), status="approved")
    bad = stored(store, unreadable(library), status="approved")
    draft = stored(store, unreadable(library, "draft"))
    found = review.withdraw_unmarkable(store)
    assert [f["id"] for f in found] == [bad]
    assert status_of(store, bad) == "withdrawn" and status_of(store, good) == "approved"
    assert status_of(store, draft) == "draft"
    row = repo.get_item(store, bad)
    assert row["review_notes"].startswith("Withdrawn: ") and "2x +* 6" in row["review_notes"]
    [entry] = review.history(store, bad)
    assert entry["action"] == "withdrawn" and entry["note"] == row["review_notes"]
    assert [it["id"] for it in review.queue(store, status="withdrawn")] == [bad]
    assert bad in {it["id"] for it in review.queue(store, status=None)}
    assert review.count(store, "withdrawn") == 1
    assert review.withdraw_unmarkable(store) == []

    # Corrected under "Edit then approve", it is approved again and the withdrawal note goes.
    review.edit_and_approve(store, bad, row["stem"], "-2", row["explanation"], library=library)
    row = repo.get_item(store, bad)
    assert row["status"] == "approved" and not row["review_notes"]
    assert [h["action"] for h in review.history(store, bad)] == ["withdrawn", "edited and approved"]


def test_a_corrected_key_drops_alternatives_written_for_the_old_key(store, library):
    # A bank question keyed 11/6 that also accepts "1 5/6" and "1.83"; the teacher corrects the key to 7/6.
    item = linear_item(library, "alt", correct_answer="11/6", accepted_answers=["1 5/6", "1.83"],
                       source="local", blueprint_id="", evaluation={"method": "numeric_tolerance",
                                                                     "tolerance_absolute": 0.01})
    item_id = stored(store, item)
    review.edit_and_approve(store, item_id, item.stem, "7/6", item.explanation, library=library)
    row = repo.get_item(store, item_id)
    assert row["answer_key"] == "7/6" and row["accepted_answers"] == []
    assert review.history(store, item_id)[0]["changes"]["accepted_answers"] == {"from": ["1 5/6", "1.83"], "to": []}
    # An alternative that equals the new key stays.
    other = linear_item(library, "alt2", correct_answer="11/6", accepted_answers=["1 5/6", "1 1/6"],
                        source="local", blueprint_id="", evaluation={"method": "numeric_tolerance",
                                                                       "tolerance_absolute": 0.01})
    other_id = stored(store, other)
    review.edit_and_approve(store, other_id, other.stem, "7/6", other.explanation, library=library)
    assert repo.get_item(store, other_id)["accepted_answers"] == ["1 1/6"]


def test_a_question_is_placed_in_a_course_outcome_with_its_history(store, library):
    iid = stored(store, linear_item(library, "place"))
    with pytest.raises(ReviewError, match="MTH-XX is not an outcome of Mathematics Nat 5"):
        review.place(store, iid, "Mathematics", "Nat 5", "MTH-XX", library=library)
    with pytest.raises(ReviewError, match="No course spec for Cookery Nat 5"):
        review.place(store, iid, "Cookery", "Nat 5", "MTH-N5-01", library=library)
    outcome = library.spec("Mathematics", "Higher").outcomes[0].id
    review.place(store, iid, "Mathematics", "Higher", outcome, library=library)
    row = repo.get_item(store, iid)
    assert (row["level"], row["outcome_ids"]) == ("Higher", [outcome])
    [entry] = [h for h in review.history(store, iid) if h["action"] == "placed"]
    assert entry["changes"]["level"] == {"from": "Nat 5", "to": "Higher"}
