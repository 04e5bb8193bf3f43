"""What a run looks like to a reader: the HTML report, statistics and comparisons between runs."""
