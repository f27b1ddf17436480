# The root conftest only registers mqconform's pytest plugin; everything lives in fixtures/.
pytest_plugins = ["fixtures.plugin"]
