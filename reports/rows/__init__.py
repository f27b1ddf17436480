"""The result row as every reader of the reports takes it: outcomes and verdict values, the schema
(Spark and Arrow), a row's implementation, profile and tally, RFC 3339 times, and the rules a row is
refused by (invalid: validate; untrusted: trust; one key with two outcomes: conflicts), the gate's and
the build's alike. The lowest room of reports/: it imports nothing of the others."""
