"""patchconf record from a live server: every managedFields entry on the case's logical clock.

Offline: how the server's timestamps map back to step numbers and how long a step waits. Live
(the session's control plane, or ``$PATCHCONF_LIVE_KUBECONFIG``): the entries a real server writes,
in its order, timed by step, written by ``record`` and compared entry by entry by ``verify``.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.provenance.record import RECORDED, record_cases, write_recordings
from patchconf.harness.provenance.verify import verify
from patchconf.harness.running.runner import PASS, run_case
from patchconf.harness.targets import make_target
from patchconf.harness.targets.live import ssa_flow
from patchconf.harness.targets.live.placement import LogicalClock
from patchconf.harness.targets.live.ssa_flow import ServerLead, StepTimes

# --- offline: the server's seconds as step numbers ------------------------------------------------

NOW = datetime(2026, 11, 26, 17, 0, 0, tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _object(*entries: tuple[str, str | None]) -> dict:
    """An object read back with managedFields entries (manager, time)."""
    fields = []
    for manager, stamp in entries:
        entry = {"manager": manager, "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:data": {}}}
        if stamp is not None:
            entry["time"] = stamp
        fields.append(entry)
    return {"metadata": {"managedFields": fields}}


class FakeClock:
    """time.time and time.sleep of the test: sleeping moves the clock."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def clock() -> LogicalClock:
    logical = LogicalClock()
    logical.origin = NOW - timedelta(hours=1)
    return logical


def test_a_second_first_seen_after_a_step_is_that_steps_time(clock):
    times = StepTimes(clock, ServerLead())
    second = [_stamp(NOW + timedelta(seconds=n)) for n in range(10)]
    times.observe(1, _object(("alice", second[0])), NOW.timestamp() + 0.2)
    times.observe(2, _object(("alice", second[0]), ("bob", second[1])), NOW.timestamp() + 1.3)
    times.observe(3, _object(("bob", second[1]), ("alice", second[2])), NOW.timestamp() + 2.5)
    assert [times.time_of(stamp) for stamp in second[:3]] == [1, 2, 3]
    # a second no step stamped, and what is not a time
    assert times.time_of(second[9]) is None
    assert times.time_of("yesterday") is None and times.time_of(None) is None


def test_a_time_the_case_wrote_maps_back_through_its_logical_clock(clock):
    times = StepTimes(clock, ServerLead())
    # current's entries at 0 and -2, and an entry a step's object carries at time 5
    live = _object(("alice", clock.timestamp(0)), ("bob", clock.timestamp(-2)), ("carol", clock.timestamp(5)))
    times.observe(1, live, NOW.timestamp())
    assert [times.time_of(e["time"]) for e in live["metadata"]["managedFields"]] == [0, -2, 5]
    assert times.first_seen == {} and times.latest is None  # none of them is the server's


def test_each_step_waits_until_the_servers_clock_left_the_last_second_it_stamped(clock, monkeypatch):
    fake = FakeClock(NOW.timestamp() + 0.25)
    monkeypatch.setattr(ssa_flow, "time", fake)
    lead = ServerLead()
    times = StepTimes(clock, lead)
    times.wait_for_a_new_second()  # nothing stamped yet: no wait
    assert fake.slept == []
    # the server stamped 17:00:00 before our request returned at 17:00:00.25: its lead is at least -0.25 s
    times.observe(1, _object(("alice", _stamp(NOW))), fake.now)
    assert lead.floor == -0.25
    times.wait_for_a_new_second()  # until 17:00:01 on the server's clock: 17:00:01.25 on ours at worst
    assert fake.slept == [1.0]
    # a later answer (stamped 17:00:01, returned at 17:00:01.30) says less: the bound stays
    fake.now += 0.05
    times.observe(2, _object(("alice", _stamp(NOW)), ("bob", _stamp(NOW + timedelta(seconds=1)))), fake.now)
    assert lead.floor == -0.25
    times.wait_for_a_new_second()  # until 17:00:02 on the server's clock
    assert fake.slept == [1.0, pytest.approx(0.95)]
    # a step that stamped nothing new (failed, or a no-op): the next one waits for nothing more
    times.observe(3, _object(("alice", _stamp(NOW)), ("bob", _stamp(NOW + timedelta(seconds=1)))), fake.now)
    times.wait_for_a_new_second()
    assert len(fake.slept) == 2


def test_the_lead_bound_learns_from_every_case_of_the_run(clock, monkeypatch):
    fake = FakeClock(NOW.timestamp() + 0.9)
    monkeypatch.setattr(ssa_flow, "time", fake)
    lead = ServerLead()
    first = StepTimes(clock, lead)
    first.observe(1, _object(("alice", _stamp(NOW))), NOW.timestamp() + 0.9)  # a late answer: lead >= -0.9
    second = StepTimes(clock, lead)
    # a prompt answer in another case: the server's clock read 17:00:05 by our 17:00:05.01
    second.observe(1, _object(("bob", _stamp(NOW + timedelta(seconds=5)))), NOW.timestamp() + 5.01)
    assert lead.floor == pytest.approx(-0.01)
    fake.now = NOW.timestamp() + 5.02
    second.wait_for_a_new_second()
    assert fake.slept == [pytest.approx(0.99)]


# --- live: a real server's entries, recorded and verified ---------------------------------------------

SSA_ORDER = {
    "description": "Entries in the server's order on the logical clock.",
    "defaults": {"type": "server-side-apply"},
    "cases": [{
        "name": "entries-ordered-by-step-not-by-manager",
        "description": "zed applies before alice: the server orders Apply entries by time, then manager.",
        "tags": ["SSA-OWNERSHIP"],
        "steps": [
            {"op": "apply", "manager": "zed",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}},
            {"op": "apply", "manager": "alice",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"b": "1"}}},
            {"op": "update", "manager": "bob",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                        "data": {"a": "1", "b": "1", "c": "1"}}},
            {"op": "apply", "manager": "zed",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "2"}}},
            {"op": "apply", "manager": "alice",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"b": "1"}}},
            {"op": "apply", "manager": "carol",
             "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"b": "1"}}},
        ],
    }],
}


def _entry(manager: str, operation: str, time: int, fields: dict) -> dict:
    return {"manager": manager, "operation": operation, "apiVersion": "v1", "time": time, "fieldsV1": fields}


@pytest.fixture(scope="module")
def kubeconfig(request: pytest.FixtureRequest) -> str:
    explicit = os.environ.get("PATCHCONF_LIVE_KUBECONFIG")
    if explicit:
        return explicit
    return str(request.getfixturevalue("live_kubeconfig"))


@pytest.fixture(scope="module")
def live(kubeconfig: str):
    target = make_target("live", kubeconfig=kubeconfig)
    yield target
    target.close()


def test_record_from_live_writes_every_entry_in_the_servers_order_timed_by_step(live, write_case_file):
    path = write_case_file("server-side-apply/order.json", json.dumps(SSA_ORDER))
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == []
    [recording] = record_cases(cases, [live])
    assert recording.status == RECORDED, recording.lines()
    a, b = {"f:data": {"f:a": {}}}, {"f:data": {"f:b": {}}}
    assert [step.get("expected_managed_fields") for step in recording.step_members] == [
        [_entry("zed", "Apply", 1, a)],
        # alice sorts before zed by name; zed applied first, and the server orders by time first
        [_entry("zed", "Apply", 1, a), _entry("alice", "Apply", 2, b)],
        [_entry("zed", "Apply", 1, a), _entry("alice", "Apply", 2, b),
         _entry("bob", "Update", 3, {"f:data": {"f:c": {}}})],
        # zed's apply moves it after alice
        [_entry("alice", "Apply", 2, b), _entry("zed", "Apply", 4, a),
         _entry("bob", "Update", 3, {"f:data": {"f:c": {}}})],
        # a no-op keeps every time
        [_entry("alice", "Apply", 2, b), _entry("zed", "Apply", 4, a),
         _entry("bob", "Update", 3, {"f:data": {"f:c": {}}})],
        # a co-owner of the same value changes only the managers: its entry has no time, and sorts first
        [{"manager": "carol", "operation": "Apply", "apiVersion": "v1", "fieldsV1": b},
         _entry("alice", "Apply", 2, b), _entry("zed", "Apply", 4, a),
         _entry("bob", "Update", 3, {"f:data": {"f:c": {}}})],
    ]
    assert [step["expected_changed"] for step in recording.step_members] == [True, True, True, True, False, True]
    [change] = write_recordings([recording])
    assert change.error == ""
    [written], errors = load_file(path)
    assert errors == []
    assert written.provenance[0]["implementation"] == "apiserver"
    # verify compares entry by entry: the recorded case passes, and a wrong time fails it
    assert verify([written], [live]).ok
    steps = [dict(step) for step in written.inputs["steps"]]
    steps[3] = {**steps[3], "expected_managed_fields": [
        {**entry, "time": 5 if entry["manager"] == "zed" else entry["time"]}
        for entry in steps[3]["expected_managed_fields"]]}
    result = run_case(written.with_members({"steps": steps}), live)
    assert result.status != PASS
    assert any(line.startswith("step 4: managedFields /1/time") for line in result.diff), result.diff
