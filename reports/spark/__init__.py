"""Starting Spark for the reports: the driver's settings (and log4j2.properties beside them), Delta
Lake's jars, the class data sharing archive, the session, a build's phases, and the paths a cluster's
executors must see. Knows nothing of what a build computes."""
