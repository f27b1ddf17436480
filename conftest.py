# The root conftest only registers mqconform's pytest plugins; everything lives in fixtures/.
# fixtures/plugin/: one plugin a concern (fixtures/plugin/__init__.py says which, and lists the same
# for `-p fixtures.plugin`); each is registered after the ones it imports, and the run before its
# expectations, since pytest configures the plugin registered last first.
# The hypothesis profiles (quick, thorough) serve suites/properties/ as they serve tests/.
pytest_plugins = [
    "fixtures.plugin.expectations", "fixtures.plugin.run", "fixtures.plugin.vectors", "fixtures.plugin.targets",
    "fixtures.plugin.collect", "fixtures.plugin.outcomes", "fixtures.plugin.records", "fixtures.plugin.options",
    "fixtures.run.output", "fixtures.strategies.profiles",
]
