"""`reports build`: results in, normalized Parquet and the report folder out."""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

from . import badges, clauses, model, render_html, render_md

OUTPUTS = ("index.html", "summary.md", "compliance.json", "badges/")


def write_outputs(report: dict, out: Path) -> None:
    """Render every output into a local folder."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "compliance.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(render_md.render(report), encoding="utf-8")
    (out / "index.html").write_text(render_html.render(report), encoding="utf-8")
    badges.write(report, out)


def _is_local(uri: str) -> bool:
    return urlparse(uri).scheme in ("", "file") or (len(uri) > 1 and uri[1] == ":")  # C:\...


def _local_path(uri: str) -> Path:
    return Path(urlparse(uri).path if uri.startswith("file:") else uri).resolve()


def _copy_to_hadoop(spark, local: Path, target: str) -> None:
    """Copy a rendered folder to a Hadoop file system (hdfs:, s3a:, ...)."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for path in sorted(local.rglob("*")):
        if path.is_file():
            dst = jvm.org.apache.hadoop.fs.Path(f"{target.rstrip('/')}/{path.relative_to(local).as_posix()}")
            src = jvm.org.apache.hadoop.fs.Path(path.as_uri())
            dst.getFileSystem(conf).copyFromLocalFile(False, True, src, dst)


def run(results: list[str], out: str, master: str | None = None, conf: dict | None = None,
        clause_dir: str | None = None, accumulate: bool = False, spark=None) -> int:
    # pyspark is imported only here, so that gate and --help stay light.
    from . import aggregate, read, session

    started = time.monotonic()
    local = _is_local(out)
    out_uri = str(_local_path(out)) if local else out.rstrip("/")
    store = f"{out_uri}/parquet"
    spark = spark or session.start(master, conf)
    inputs = list(results)
    if accumulate and read.exists(spark, store):
        inputs.append(store)
    try:
        found = read.classify(spark, inputs)
    except read.InputError as exc:
        print(f"reports build: {exc}", file=sys.stderr)
        return 2
    session.tune_for_input(spark, found.nbytes, conf)
    read.write_store(read.read_results(spark, found), store)
    agg = aggregate.compute(read.read_results(spark, [store]))
    if not agg.runs:
        print("reports build: no valid result records in the inputs", file=sys.stderr)
        return 2
    report = model.build_report(agg, clauses.load(clause_dir))
    if local:
        write_outputs(report, Path(out_uri))
    else:
        with tempfile.TemporaryDirectory(prefix="mqconform-report-") as tmp:
            write_outputs(report, Path(tmp))
            _copy_to_hadoop(spark, Path(tmp), out_uri)
    t = report["totals"]
    verdicts = ", ".join(f"{v['implementation']} {v['spec']}: {v['verdict']}" for v in report["verdicts"])
    print(f"reports build: {t['records']} records, {t['runs']} runs, {t['implementations']} implementations "
          f"in {time.monotonic() - started:.1f}s -> {out_uri}/{{{','.join(OUTPUTS)}}} and {store}")
    if verdicts:
        print(f"  {verdicts}")
    return 0

