-- The values an alarm's message is made of, by name, as JSON ({"location": "…",
-- "plcState": 12}): a client words the alarm in its own language from its kind and
-- these (docs/events.md, "Alarms"). NULL for alarms raised before they were kept; a
-- client shows `message` for those.
ALTER TABLE alarms ADD COLUMN params TEXT;
