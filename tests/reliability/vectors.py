"""The inner sessions' workload: OpenMessaging vectors over AMQP 0-9-1 through garagemq (it starts in
about 2 s), named one by one so that vectors added later do not change the count. Only vectors
garagemq carries at once (its empty-body and persistent-publish cases each wait a 10 s bound)."""
QUICK_VECTORS = ("four-parts", "properties-unchanged", "empty-properties", "all-byte-values",
                 "json-looking-body-untouched", "integer-limits", "long-limits")
QUICK_GARAGEMQ = ("suites/openmessaging/test_openmessaging.py",
                  "--target", "garagemq", "-k", "amqp091 and (" + " or ".join(QUICK_VECTORS) + ")")
QUICK_COUNT = len(QUICK_VECTORS)

# Vectors that each talk to the broker in their own test call (the OpenMessaging ones above run in a
# pool started by the first): for a vector cut short by a signal while it runs.
SEQUENTIAL = ("suites/rabbitmq_address/test_address_4_0.py", "--target", "rabbitmq-4.0.5", "-k", "outcomes-receiver")
