"""The scheduling hint kept beside a results file (fixtures/scopetimes.py)."""
from fixtures import scopetimes


def test_the_last_runs_times_come_back(tmp_path):
    results = tmp_path / "results.jsonl"
    scopetimes.save(results, {"rabbitmq-4.0.5": 52.851, "rocketmq-5.3.3": 44.7})
    assert scopetimes.load(results) == {"rabbitmq-4.0.5": 52.85, "rocketmq-5.3.3": 44.7}
    assert scopetimes.path_for(results).name == "results.jsonl.scope-times.json"
    assert not list(tmp_path.glob("*.tmp"))


def test_no_file_or_a_bad_one_means_counting_tests(tmp_path):
    results = tmp_path / "results.jsonl"
    assert scopetimes.load(None) == {} and scopetimes.load(results) == {}
    for text in ("not json", "[1, 2]", '{"a": "slow", "b": -1, "c": 3}'):
        scopetimes.path_for(results).write_text(text)
        assert scopetimes.load(results) == ({"c": 3.0} if text.startswith("{") else {})


def test_a_target_the_file_does_not_know_is_estimated_from_its_tests():
    counts = {"known": 300, "new": 50}
    assert scopetimes.estimate(counts, {"known": 12.0, "gone": 99.0}) == {"known": 12.0, "new": 50 * scopetimes.PER_TEST_S}


def test_the_last_run_replaces_the_prior_target_by_target(tmp_path, monkeypatch):
    prior = tmp_path / "prior.json"
    prior.write_text('{"a": 10, "b": 20}')
    monkeypatch.setattr(scopetimes, "PRIOR", prior)
    results = tmp_path / "results.jsonl"
    assert scopetimes.known(results) == {"a": 10.0, "b": 20.0}
    scopetimes.save(results, {"b": 5.0})
    assert scopetimes.known(results) == {"a": 10.0, "b": 5.0}


def test_the_shipped_prior_names_catalog_targets():
    from fixtures.provision import load_catalog
    names = set(load_catalog().names())
    prior = scopetimes._read(scopetimes.PRIOR)
    assert prior and all(v > 0 for v in prior.values())
    assert {name.split("+")[0] for name in prior} <= names, set(prior)
