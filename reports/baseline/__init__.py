"""The same aggregation in one DuckDB process, the yardstick of `reports bench` (results in, or a Delta
store read through its logs): it hands the model the engine's Aggregates and reads the engine's store."""
