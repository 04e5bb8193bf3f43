"""Convenience views over the log, for people who open ``runs.db`` in any SQLite browser.

A fork stores only the events after its fork point; its earlier events are its ancestors'
rows. ``run_events`` puts each run's whole history together (its own rows plus every
ancestor's rows up to the fork), and the other views read from it, so every view answers
for a fork exactly as for the run it was forked from. Views hold no data: dropping them
changes nothing, and the store re-creates them on open. (A call and its result always share
a step, and a fork never splits a step, so a result is looked up where its call is stored.)

``lineage`` joins its rows with ``UNION``, not ``UNION ALL``: a chain of forks never repeats a row, and in a file
edited so that a run is its own ancestor the repeated rows end the recursion (the kernel refuses such a lineage).
"""

from __future__ import annotations

VIEWS = """
CREATE VIEW IF NOT EXISTS lineage (run, owner, upto) AS
WITH RECURSIVE up (run, owner, upto) AS (
    SELECT id, id, NULL FROM branches
    UNION
    SELECT up.run, b.parent, MIN(COALESCE(up.upto, b.fork_seq), b.fork_seq)
    FROM up JOIN branches b ON b.id = up.owner
    WHERE b.parent IS NOT NULL
)
SELECT run, owner, upto FROM up;

CREATE VIEW IF NOT EXISTS run_events (run, seq, t, kind, payload, hash, meta, stored_in) AS
SELECT l.run, e.seq, e.t, e.kind, e.payload, e.hash, e.meta, e.branch
FROM lineage l JOIN events e ON e.branch = l.owner AND (l.upto IS NULL OR e.seq <= l.upto);

CREATE VIEW IF NOT EXISTS tool_calls (run, seq, t, task_id, call_id, tool, args, status, message, minutes) AS
SELECT run, seq, t, json_extract(payload, '$.task_id'), json_extract(payload, '$.call_id'),
       json_extract(payload, '$.tool'), json_extract(payload, '$.args'),
       json_extract(result, '$.status'), json_extract(result, '$.message'), json_extract(result, '$.minutes')
FROM (
    SELECT c.*, (SELECT r.payload FROM events r WHERE r.branch = c.stored_in AND r.seq > c.seq AND r.kind = 'tool_result'
                 ORDER BY r.seq LIMIT 1) AS result
    FROM run_events c WHERE c.kind = 'tool_called'
);

CREATE VIEW IF NOT EXISTS replies (run, seq, t, task_id, text, call, meta) AS
SELECT run, seq, t, json_extract(payload, '$.task_id'), json_extract(payload, '$.text'),
       json_extract(payload, '$.call'), meta
FROM run_events WHERE kind = 'agent_replied';

CREATE VIEW IF NOT EXISTS tasks (run, task_id, scenario, released_seq, released_t, ended_seq, ended_t, outcome, reason, turns, detail, marks) AS
SELECT s.run, json_extract(s.payload, '$.task_id'), json_extract(s.payload, '$.scenario'), s.seq, s.t,
       e.seq, e.t, json_extract(e.payload, '$.outcome'), json_extract(e.payload, '$.reason'),
       json_extract(e.payload, '$.turns'), json_extract(e.payload, '$.detail'), json_extract(e.payload, '$.marks')
FROM run_events s
LEFT JOIN run_events e ON e.run = s.run AND e.kind = 'task_ended'
    AND e.seq > s.seq AND json_extract(e.payload, '$.task_id') = json_extract(s.payload, '$.task_id')
WHERE s.kind = 'task_released';

CREATE VIEW IF NOT EXISTS scores (run, scenario, scored, succeeded, success_rate, avg_turns_when_solved) AS
SELECT run, scenario, COUNT(*), SUM(outcome = 'success'), ROUND(1.0 * SUM(outcome = 'success') / COUNT(*), 6),
       ROUND(AVG(CASE WHEN outcome = 'success' THEN turns END), 3)
FROM tasks WHERE outcome IN ('success', 'failure')
GROUP BY run, scenario;
"""
