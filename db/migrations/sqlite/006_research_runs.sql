-- Every research run that answered, kept when it ends (a cancelled or failed run never is).
-- AUTOINCREMENT keeps a deleted run's number from ever naming another run.
CREATE TABLE research_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the number people type: agent reports --show 3
  created_at INTEGER NOT NULL,           -- unix epoch milliseconds
  question TEXT NOT NULL,
  mode TEXT NOT NULL,                    -- 'model' or 'extractive'
  answer TEXT NOT NULL,                  -- the answer or the report, as shown
  cost_usd REAL,                         -- NULL when a call had no known price
  result TEXT NOT NULL CHECK (json_valid(result))  -- the object `agent research --json` prints
);
CREATE INDEX research_runs_created ON research_runs (created_at);
CREATE VIRTUAL TABLE research_runs_fts USING fts5(
  question, answer, content='research_runs', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER research_runs_ai AFTER INSERT ON research_runs BEGIN
  INSERT INTO research_runs_fts(rowid, question, answer) VALUES (new.id, new.question, new.answer);
END;
CREATE TRIGGER research_runs_ad AFTER DELETE ON research_runs BEGIN
  INSERT INTO research_runs_fts(research_runs_fts, rowid, question, answer)
    VALUES ('delete', old.id, old.question, old.answer);
END;
CREATE TRIGGER research_runs_au AFTER UPDATE ON research_runs BEGIN
  INSERT INTO research_runs_fts(research_runs_fts, rowid, question, answer)
    VALUES ('delete', old.id, old.question, old.answer);
  INSERT INTO research_runs_fts(rowid, question, answer) VALUES (new.id, new.question, new.answer);
END;
