"""The default round limit of a task, apart from ``scenarios.play`` so that a command can show it without loading the kernel."""

DEFAULT_ROUND_LIMIT = 20
