"""The term: the task model, task generators per scenario, evaluators and scores."""
