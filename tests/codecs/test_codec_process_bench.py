"""fixtures.bench.codec_process runs both ways over the vectors and reports their ratio (no time is judged)."""
from __future__ import annotations

import json

from fixtures.bench import codec_process


def test_one_pass_each_way_gives_the_table_and_the_numbers(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert codec_process.main(["-n", "1", "--spec", "ce-rabbitmq", "--json", str(out)]) == 0
    (r,) = json.loads(out.read_text())
    assert r["spec"] == "ce-rabbitmq" and r["vectors"] > 0 and r["passes"] == 1
    assert set(r["median_vector_s"]) == {"in_process", "process"} and r["ratio_of_medians"] > 0
    assert "| ce-rabbitmq |" in capsys.readouterr().out
