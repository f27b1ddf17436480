"""`reports bench` and `reports cluster`: synthetic records and stores of N of them, the engines timed
against each other, and Spark standalone clusters in network namespaces. The top room: it runs the
engine and the baseline as commands, and imports the rooms below."""
