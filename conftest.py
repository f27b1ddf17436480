# The root conftest only registers mqconform's pytest plugins; everything lives in fixtures/.
# The hypothesis profiles (quick, thorough) serve suites/properties/ as they serve tests/.
pytest_plugins = ["fixtures.plugin", "fixtures.run_output", "fixtures.strategies.profiles"]
