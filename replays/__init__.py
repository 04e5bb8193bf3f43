"""Time travel over the log: seek, fork, verify, diff, export and import, and re-judging by replay."""
