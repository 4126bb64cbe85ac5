"""Sally's graphs and the tools that start them: environment, node processes, probe, runner."""
