"""Integration: the broker round-trip property suite (suites/properties/) against a real
RabbitMQ 4.0.5, in an inner session under the quick profile, as the main job runs it."""
import pytest

from ..provision.conftest import engine  # noqa: F401 - the container engine fixture
from ..sessions import run_pytest

pytestmark = [pytest.mark.containers]


def test_drawn_events_survive_rabbitmq(engine, tmp_path):  # noqa: F811
    proc, _, seconds = run_pytest(["suites/properties", "--target", "rabbitmq-4.0.5",
                                   "--hypothesis-profile", "quick"], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    # two bindings (ce-amqp over 1.0, ce-rabbitmq over 0-9-1) x two modes
    assert "4 passed" in proc.stdout, proc.stdout[-2000:]
    print(f"broker property suite on rabbitmq-4.0.5: {seconds:.1f}s")
