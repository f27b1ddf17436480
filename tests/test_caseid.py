"""A case's id (fixtures/run/caseid.py): made and parsed in one place, and the scope a worker is
handed (fixtures/run/scheduling.py) is its implementation."""
from fixtures.run.caseid import CaseId, of_nodeid
from fixtures.run.scheduling import scope_of


def test_a_case_id_is_the_vector_then_the_implementation():
    assert str(CaseId("ce-amqp.enc.1", "sdk-python")) == "ce-amqp.enc.1::sdk-python"
    assert str(CaseId("om.v1", "rabbitmq-4.0.5", "omp-1.2")) == "om.v1::omp-1.2::rabbitmq-4.0.5"


def test_parsing_gives_back_what_was_made():
    for case in (CaseId("v.1", "rabbitmq-4.0.5"), CaseId("v.1", "artemis-2.37", "omp-1.2")):
        assert CaseId.parse(str(case)) == case
        assert of_nodeid(f"suites/x/test_y.py::test_z[{case}]") == case


def test_a_test_that_names_no_implementation_has_no_case():
    assert CaseId.parse("v.1") is None
    assert of_nodeid("suites/x/test_y.py::test_z") is None
    assert of_nodeid("suites/x/test_y.py::test_z[v.1]") is None


def test_the_scope_is_the_implementation_else_the_module():
    assert scope_of("s/t.py::test[v.1::omp-1.2::rabbitmq-4.0.5]") == "impl:rabbitmq-4.0.5"
    assert scope_of("s/t.py::test[v.1::sdk-go]") == "impl:sdk-go"
    assert scope_of("s/t.py::test[v.1]") == "s/t.py"
