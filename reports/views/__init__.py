"""The report as data: the model (compliance.json) the engines' aggregates are turned into, and its
views (coverage of a verdict, across versions, fails in one / in all, faults, compare brokers, the
broker profile), with what stands beside the rows (clause files, expectations, measurements) and the
clause coverage command. Plain Python over reports.rows; nothing here renders or starts Spark."""
