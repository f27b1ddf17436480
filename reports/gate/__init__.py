"""The checks of a run's rows in plain Python, without Spark or the report: the CI gate (`python -m
reports gate`) with its reader of JSON Lines and stores (read_plain), and the auditor of rows that
contradict each other (`python -m reports.gate.audit`). Over reports.rows only."""
