"""The driver's class data sharing archive (reports/spark/class_data_archive.py) is used only when it exists for this JVM
and these packages, and can be turned off."""
from __future__ import annotations

import pytest

from reports.spark import class_data_archive as cds


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(cds, "FOLDER", tmp_path)
    monkeypatch.delenv("MQCONFORM_SPARK_CDS", raising=False)
    return tmp_path


def test_no_archive_no_option(folder):
    if cds.archive() is None:
        pytest.skip("no java here")
    assert cds.java_options() == ""


def test_an_archive_for_this_jvm_is_mapped_quietly(folder, monkeypatch):
    where = cds.archive()
    if where is None:
        pytest.skip("no java here")
    assert where.parent == folder
    where.write_bytes(b"")
    assert cds.java_options() == f"-XX:SharedArchiveFile={where} {cds.QUIET}"
    monkeypatch.setenv("MQCONFORM_SPARK_CDS", "0")
    assert cds.java_options() == ""


def test_the_archive_name_follows_the_packages(folder, monkeypatch):
    if cds.archive() is None:
        pytest.skip("no java here")
    before = cds.archive()
    real = cds.metadata.version
    monkeypatch.setattr(cds.metadata, "version", lambda name: "0.0" if name == "pyspark" else real(name))
    assert cds.archive() != before
