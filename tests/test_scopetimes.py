"""The scheduling hint kept beside a results file (fixtures/run/scopetimes.py)."""
from fixtures.run import scopetimes


def test_the_last_runs_times_come_back(tmp_path):
    results = tmp_path / "results.jsonl"
    scopetimes.save(results, {"rabbitmq-4.0.5": 52.851, "rocketmq-5.3.3": 44.7},
                    {"t.py::a[v::rocketmq-5.3.3]": 12.345, "t.py::b[w::rocketmq-5.3.3]": 0.01})
    assert scopetimes.last(results)["targets"] == {"rabbitmq-4.0.5": 52.85, "rocketmq-5.3.3": 44.7}
    assert scopetimes.last(results)["jobs"] == {"t.py::a[v::rocketmq-5.3.3]": 12.35}   # a quick job is not kept
    assert scopetimes.path_for(results).name == "results.jsonl.scope-times.json"
    assert not list(tmp_path.glob("*.tmp"))


def test_no_file_or_a_bad_one_means_counting_tests(tmp_path):
    results = tmp_path / "results.jsonl"
    assert scopetimes.last(None)["targets"] == {} and scopetimes.last(results)["targets"] == {}
    for text in ("not json", "[1, 2]", '{"a": 3}', '{"targets": [1], "jobs": 2}',
                 '{"targets": {"a": "slow", "b": -1, "c": 3, "d": true}, "jobs": {"x": 1.5, "y": null}}'):
        scopetimes.path_for(results).write_text(text)
        good = "slow" in text
        assert scopetimes.last(results)["targets"] == ({"c": 3.0} if good else {})
        assert scopetimes.last(results)["jobs"] == ({"x": 1.5} if good else {})


def test_a_target_the_file_does_not_know_is_estimated_from_its_tests():
    counts = {"known": 300, "new": 50}
    assert scopetimes.estimate(counts, {"known": 12.0, "gone": 99.0}) == {"known": 12.0, "new": 50 * scopetimes.PER_TEST_S}


def test_the_last_run_replaces_the_prior_target_by_target(tmp_path, monkeypatch):
    prior = tmp_path / "prior.json"
    prior.write_text('{"targets": {"a": 10, "b": 20}, "jobs": {"j1": 3, "j2": 4}}')
    monkeypatch.setattr(scopetimes, "PRIOR", prior)
    results = tmp_path / "results.jsonl"
    assert scopetimes.known(results) == {"a": 10.0, "b": 20.0}
    assert scopetimes.known(results, "jobs") == {"j1": 3.0, "j2": 4.0}
    scopetimes.save(results, {"b": 5.0}, {"j2": 1.0})
    assert scopetimes.known(results) == {"a": 10.0, "b": 5.0}
    assert scopetimes.known(results, "jobs") == {"j1": 3.0, "j2": 1.0}


def test_jobs_go_longest_first_and_unknown_ones_keep_their_order():
    ids = ["u1", "short", "u2", "long", "u3"]
    assert scopetimes.longest_first(ids, {"short": 0.5, "long": 9.0}) == ["long", "short", "u1", "u2", "u3"]


def test_the_shipped_prior_names_catalog_targets():
    from fixtures.provision import load_catalog
    names = set(load_catalog().names())
    prior = scopetimes._read(scopetimes.PRIOR)
    assert prior["targets"] and all(v > 0 for v in prior["targets"].values())
    assert {name.split("+")[0] for name in prior["targets"]} <= names, set(prior["targets"])
    from fixtures.run.scheduling import scope_of
    assert prior["jobs"] and all(scope_of(job).removeprefix("impl:") in prior["targets"] for job in prior["jobs"])


def test_a_runs_times_are_blended_with_the_last_ones():
    assert scopetimes.blend({"a": 10.0, "gone": 3.0}, {"a": 20.0, "new": 5.0}) == {"a": 15.0, "gone": 3.0, "new": 5.0}


def test_starts_add_to_a_targets_weight():
    assert scopetimes.estimate({"a": 10, "b": 10}, {"a": 30.0}, {"a": 20.0, "b": 5.0}) == \
        {"a": 50.0, "b": 10 * scopetimes.PER_TEST_S + 5.0}


def test_a_targets_own_time_leaves_out_the_wait_for_its_broker_and_keeps_job_times():
    from types import SimpleNamespace

    from fixtures.plugin.targets import JOB_PROPERTY, REACH_PROPERTY, _ScopeTimes
    times = _ScopeTimes(config=None)
    times._faulting = {"f1": "restart"}

    def report(nodeid, when, duration, props=()):
        times.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, when=when, duration=duration,
                                                       user_properties=list(props)))
    first = "x.py::t[v1::rocketmq-5.3.3]"
    report(first, "setup", 20.5, [(REACH_PROPERTY, 20.0)])
    report(first, "call", 1.0, [(REACH_PROPERTY, 20.0)])
    report(first, "teardown", 0.5, [(REACH_PROPERTY, "20.0")])      # JSON text, as the junit writer leaves it
    om = "om.py::t[v2::rocketmq-5.3.3]"
    report(om, "call", 3.0, [(JOB_PROPERTY, 12.5)])
    report(om, "teardown", 0.0, [(JOB_PROPERTY, 12.5)])
    assert times.times == {"rocketmq-5.3.3": 5.0} and times.jobs == {om: 12.5}


def test_a_fault_test_counts_its_jobs_time_not_its_wait_and_a_shared_fault_once():
    """A fault test waits for little of its target's fault stage (it runs in the background while the
    worker goes on), yet the stage ends the target: its job's time is what the target's weight counts;
    a restart the protocols share counts once (its longest run), and so does a cut, whose runs go side
    by side; a fault test with no job time counts its own."""
    from types import SimpleNamespace

    from fixtures.plugin.targets import JOB_PROPERTY, _ScopeTimes
    times = _ScopeTimes(config=None)
    times._faulting = {"om.restart": "restart", "om.cut": "cut"}

    def test(nodeid, job, durations=(0.1, 0.2, 0.0)):
        for when, duration in zip(("setup", "call", "teardown"), durations, strict=True):
            props = [(JOB_PROPERTY, job)] if job is not None else []
            times.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, when=when, duration=duration,
                                                           user_properties=props))
    test("om.py::test_amqp091[om.restart::rabbitmq]", 8.0)
    test("om.py::test_amqp10[om.restart::rabbitmq]", 8.5)
    test("om.py::test_amqp091[om.cut::rabbitmq]", 3.0)
    test("om.py::test_amqp10[om.cut::rabbitmq]", None, durations=(0.5, 1.5, 0.0))
    assert times.times == {} and times.stage_times() == {"rabbitmq": 8.5 + 3.0}
