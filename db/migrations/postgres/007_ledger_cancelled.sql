-- A model call cancelled mid-stream is billed all the same, with the tokens known at the cancel.
ALTER TABLE usage_ledger ADD COLUMN cancelled boolean NOT NULL DEFAULT false;
