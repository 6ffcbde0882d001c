"""The machinery every flow shares: commands in, events stored, state folded.

A flow is a state object (a plain dict, JSON-safe) plus explicit transition
functions. A command (``answer``, ``next``, ``submit``...) reads the state and
returns a ``Step``: the events that happened, and the rows that must be
written with them (responses, items drawn, what the student has now seen,
mastery per skill, ability per outcome). The runner writes all of it in one
transaction, checking that no one appended to the session meanwhile, and only
then applies the events to the state. So the database is the source of truth:
a reload, a second tab or another process rebuilds the same state from the
events and carries on.
"""
from __future__ import annotations

import copy
import dataclasses
import threading
import time
from typing import Any, Callable, Optional

from core.blueprints.library import Library
from core.items.generator import Item
from core.items.sources import QuestionSource, stem_key
from core.marking import item_key_problem
from core.store import Store, outcome_ability, repo, sessions
from core.store import responses as responses_store
from core.store.sessions import SequenceConflict

SESSION_ITEM_STATUS = "session"   # items drawn live into a session; the review queue holds "draft"


class FlowError(ValueError):
    """A command that cannot be carried out now; the message says why and what to do."""


@dataclasses.dataclass
class Context:
    store: Store
    library: Library
    source: QuestionSource
    clock: Callable[[], float] = time.time
    class_settings: dict = dataclasses.field(default_factory=dict)   # student -> (writes decimal commas, when read)

    @classmethod
    def create(cls, store: Store, library: Library, llm: Any = None, clock: Callable[[], float] = time.time) -> "Context":
        return cls(store=store, library=library, source=QuestionSource(library, store, llm), clock=clock)


@dataclasses.dataclass
class Step:
    events: list[tuple[str, dict]] = dataclasses.field(default_factory=list)
    responses: list[dict] = dataclasses.field(default_factory=list)
    items: list[Item] = dataclasses.field(default_factory=list)
    seen: list[tuple[Item, Optional[str]]] = dataclasses.field(default_factory=list)
    mastery: dict[str, float] = dataclasses.field(default_factory=dict)
    # Outcome id -> the student's new ability estimate on it ({theta, se, n, correct}), written like mastery.
    abilities: dict[str, dict] = dataclasses.field(default_factory=dict)
    status: Optional[str] = None
    # What the command says back without storing anything, merged into the view it returns
    # (an answer that could not be read: how it was read and why, at no cost to the student).
    reply: dict[str, Any] = dataclasses.field(default_factory=dict)
    # Write the events, then refuse the command with this message (an answer sent after time ran out: kept as
    # a record, but it does not count).
    refuse: Optional[str] = None
    # Marks of responses already recorded that change (a teacher's override, a re-mark): written with the events.
    rescored: list[dict] = dataclasses.field(default_factory=list)

    def add(self, type_: str, **payload: Any) -> "Step":
        self.events.append((type_, payload))
        return self


class Flow:
    """Base class: subclasses set ``kind`` and implement new_state, apply, view and ``cmd_*`` methods."""

    kind = ""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def new_state(self, session: dict) -> dict:
        raise NotImplementedError

    def apply(self, state: dict, event: dict) -> None:
        raise NotImplementedError

    def view(self, state: dict) -> dict:
        raise NotImplementedError

    def tick(self, state: dict) -> Optional[Step]:
        """A step the clock forces (a time limit passing); None when nothing is due."""
        return None

    def prepare(self, state: dict, pause: Callable[[], None]) -> None:
        """Do ahead, storing nothing, the slow part of starting a session in ``state`` (a new session's state), so
        that the start which follows finds it done, calling ``pause()`` between its small pieces. Nothing to do by
        default."""

    def to_mark(self, state: dict) -> list[str]:
        """The questions that handing in will mark (their answer keys can be checked ahead); none by default."""
        return []

    # helpers -----------------------------------------------------------
    def item(self, item_id: str) -> Item:
        item = repo.load_item(self.ctx.store, item_id)
        if item is None:
            raise FlowError(f"question {item_id} is missing from the database; start a new session")
        return item

    def decimal_comma(self, state: dict) -> bool:
        """Whether the student's class writes decimals with a comma (3,5), so answers are read that way.
        Looked up once a minute per student: a class's setting rarely changes mid-lesson."""
        from core.store import school
        student = state.get("student")
        if not student:
            return False
        now = time.monotonic()
        known = self.ctx.class_settings.get(student)
        if known is None or now - known[1] > 60:
            known = (school.decimal_comma_for(self.ctx.store, student), now)
            self.ctx.class_settings[student] = known
        return known[0]

    @staticmethod
    def see(step: Step, item: Item, outcome_id: Optional[str]) -> None:
        step.items.append(item)
        step.seen.append((item, outcome_id))


@dataclasses.dataclass
class Loaded:
    session: dict
    state: dict
    seq: int


class Runner:
    """Starts sessions and runs commands on them, keeping a per-process cache of state."""

    def __init__(self, ctx: Context, flows: dict[str, type[Flow]]):
        self.ctx = ctx
        self.flows = {kind: cls(ctx) for kind, cls in flows.items()}
        self._cache: dict[str, Loaded] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, session_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(session_id, threading.Lock())

    def flow(self, kind: str) -> Flow:
        try:
            return self.flows[kind]
        except KeyError:
            raise FlowError(f"unknown session kind '{kind}'; kinds: {', '.join(sorted(self.flows))}") from None

    # ------------------------------------------------------------------
    def start(self, kind: str, student: str, config: dict, session_id: Optional[str] = None) -> str:
        self.flow(kind)  # an unknown kind fails here, before a session row exists
        if not student or not str(student).strip():
            raise FlowError("a session needs a student name")
        sid = sessions.create_session(self.ctx.store, kind, student, config, session_id, at=self.ctx.clock())
        try:
            self.command(sid, "start")
        except FlowError:
            # Nothing happened in it: leave no empty "active" session behind.
            self._cache.pop(sid, None)
            sessions.delete_empty_session(self.ctx.store, sid)
            raise
        return sid

    def prepare(self, kind: str, student: str, config: dict, pause: Callable[[], None] = lambda: None) -> None:
        """Do ahead what a ``start(kind, student, config)`` would do first (a mock exam's paper drawn), storing
        nothing: the start itself then takes a fraction of the time. ``pause()`` is called between small pieces
        (one question), so work in the background can give way to a click. A refusal is left for the start."""
        flow = self.flow(kind)
        try:
            flow.prepare(flow.new_state({"id": "", "student": student, "config": config}), pause)
        except FlowError:
            pass   # the start says it, when the student asks for it

    def prepare_marking(self, session_id: str, pause: Callable[[], None] = lambda: None) -> int:
        """Check ahead the answer keys of the questions a session will mark when handed in (marking checks the key
        of every question answered wrong), so handing in does not wait for it; ``pause()`` before each. Stops
        once the session is handed in (the work waiting behind it is for the student's next click). Returns how
        many were checked."""
        with self._lock(session_id):
            loaded = self._tick(session_id)
            ids = self.flow(loaded.session["kind"]).to_mark(loaded.state)
        items = repo.load_items(self.ctx.store, ids)
        checked = 0
        for item in items.values():
            pause()
            with self._lock(session_id):
                cached = self._cache.get(session_id)
                if cached is not None and not self.flow(cached.session["kind"]).to_mark(cached.state):
                    break
            item_key_problem(item)   # kept when accepted; a refusal is found again, and said, at marking
            checked += 1
        return checked

    def load(self, session_id: str) -> Loaded:
        cached = self._cache.get(session_id)
        if cached is None:
            session = sessions.get_session(self.ctx.store, session_id)
            if session is None:
                raise FlowError(f"no session {session_id}; start a new one")
            flow = self.flow(session["kind"])
            cached = Loaded(session, flow.new_state(session), 0)
        flow = self.flow(cached.session["kind"])
        for event in sessions.load_events(self.ctx.store, session_id, cached.seq):
            flow.apply(cached.state, event)
            cached.seq = event["seq"]
        self._cache[session_id] = cached
        return cached

    def state(self, session_id: str) -> dict:
        """The whole state, answers' correctness included: for tests and teacher tools, never for a student page."""
        with self._lock(session_id):
            return copy.deepcopy(self._tick(session_id).state)

    def read(self, session_id: str, reader: Callable[[dict], Any]) -> Any:
        """``reader(state)`` on the whole state without copying it (a class's gradebook reads thirty): the reader
        must only read, and return values of its own (a dict it builds), never a part of the state."""
        with self._lock(session_id):
            return reader(self._tick(session_id).state)

    def view(self, session_id: str) -> dict:
        with self._lock(session_id):
            loaded = self._tick(session_id)
            view = self.flow(loaded.session["kind"]).view(loaded.state)
            view["session_id"] = session_id
            return view

    def command(self, session_id: str, name: str, **kwargs: Any) -> dict:
        with self._lock(session_id):
            for _ in range(5):
                loaded = self._tick(session_id)
                flow = self.flow(loaded.session["kind"])
                handler = getattr(flow, f"cmd_{name}", None)
                if handler is None:
                    raise FlowError(f"a {flow.kind} session cannot '{name}'")
                step = handler(copy.deepcopy(loaded.state), **kwargs)
                try:
                    self._persist(loaded, step)
                except SequenceConflict:
                    self._cache.pop(session_id, None)  # someone else moved on: rebuild and decide again
                    continue
                if step.refuse:
                    raise FlowError(step.refuse)
                view = flow.view(loaded.state)
                view.update(step.reply)
                view["session_id"] = session_id
                return view
            raise FlowError("this session is being changed from somewhere else; reload the page")

    # ------------------------------------------------------------------
    def _tick(self, session_id: str) -> Loaded:
        loaded = self.load(session_id)
        flow = self.flow(loaded.session["kind"])
        step = flow.tick(loaded.state)
        if step is not None and step.events:
            try:
                self._persist(loaded, step)
            except SequenceConflict:
                self._cache.pop(session_id, None)
                loaded = self.load(session_id)
        return loaded

    def _persist(self, loaded: Loaded, step: Step) -> None:
        if not step.events:
            return
        sid = loaded.session["id"]
        student = loaded.session["student"]
        now = self.ctx.clock()
        events = [(t, {**p, "t": p.get("t", now)}) for t, p in step.events]

        def extra(cur) -> None:
            if step.items:
                repo.insert_items_in(cur, step.items, SESSION_ITEM_STATUS, sid)
            sessions.record_seen(cur, student, [(item.id, item.content_key, stem_key(item), outcome_id)
                                                for item, outcome_id in step.seen], sid)
            for skill, score in step.mastery.items():
                sessions.set_mastery(cur, student, skill, score)
            for outcome_id, ability in step.abilities.items():
                outcome_ability.set_ability(cur, student, outcome_id, ability)
            responses_store.rescore(cur, sid, student, step.rescored)

        responses = [{**r, "student": student} for r in step.responses]
        new_seq = sessions.append_events(self.ctx.store, sid, loaded.seq, events, responses, step.status, extra,
                                         at=now)
        if step.seen:
            self.ctx.source.note_seen(student, [item for item, _ in step.seen])
        flow = self.flow(loaded.session["kind"])
        for offset, (type_, payload) in enumerate(events, 1):
            flow.apply(loaded.state, {"seq": loaded.seq + offset, "type": type_, "payload": payload})
        loaded.seq = new_seq
        if step.status:
            loaded.session["status"] = step.status

    def forget(self, session_id: Optional[str] = None) -> None:
        """Drop cached state (another process may have written)."""
        if session_id is None:
            self._cache.clear()
        else:
            self._cache.pop(session_id, None)
