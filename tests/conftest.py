pytest_plugins = ["pytester", "fixtures.strategies.profiles"]
