-- A model call cancelled mid-stream is billed all the same: it is recorded with the tokens known at the
-- cancel (input from the stream's start where the API sends it, else estimated; output estimated from
-- what arrived) and marked here, so `agent cost` can say how many of its calls are such estimates.
ALTER TABLE usage_ledger ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
