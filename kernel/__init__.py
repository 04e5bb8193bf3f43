"""The machinery: log store, clock, projection, tools, runner."""
