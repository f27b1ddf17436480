"""The inner sessions' workload: ce-rabbitmq decode vectors over the wire through garagemq (it starts
in about 2 s), named one by one so that vectors added later do not change the count. Only vectors
garagemq carries at once: the empty-body ones are known deviations that each wait the full 10 s
bound for a message that never comes."""
QUICK_VECTORS = ("content-type-to-datacontenttype", "data-from-body", "modes.decode-structured-json", "modes.detect-case",
                 "detect-binary-by-default", "unknown-format-avro", "structured.decode-with-headers")
QUICK_GARAGEMQ = ("suites/cloudevents/test_ce_rabbitmq_wire.py", "--target", "garagemq",
                  "-k", "decode and (" + " or ".join(QUICK_VECTORS) + ")")
QUICK_COUNT = len(QUICK_VECTORS)
