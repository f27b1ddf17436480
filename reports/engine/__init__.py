"""`reports build` and `reports diff` on Spark: results read and checked, the Delta store, the
aggregation, full and incremental builds, the early session of `--wait-for`, and the diff of two runs.
Over the session (reports.spark), the model and its renderers (reports.views, reports.render)."""
