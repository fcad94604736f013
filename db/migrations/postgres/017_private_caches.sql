-- PostgreSQL only: the page and extraction caches are each person's own. A shared cache would let one
-- member decide what another's research reads (a planted page for a URL, planted facts for a source):
-- a row is seen and written only by the role that made it (row-level security, forced, so the tables'
-- owner too), and the keys hold the role, so two people cache the same URL side by side. Page bodies stay
-- shared: they are named by the SHA-256 of their text, which is checked on every read.
ALTER TABLE page_cache ADD COLUMN owner_role text NOT NULL DEFAULT session_user;
ALTER TABLE page_cache DROP CONSTRAINT page_cache_pkey;
ALTER TABLE page_cache ADD PRIMARY KEY (owner_role, url);
ALTER TABLE extraction_cache ADD COLUMN owner_role text NOT NULL DEFAULT session_user;
ALTER TABLE extraction_cache DROP CONSTRAINT extraction_cache_pkey;
ALTER TABLE extraction_cache ADD PRIMARY KEY (owner_role, source_hash, question, model, prompt_version);
ALTER TABLE page_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE extraction_cache ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON page_cache USING (owner_role = session_user) WITH CHECK (owner_role = session_user);
CREATE POLICY own ON extraction_cache USING (owner_role = session_user) WITH CHECK (owner_role = session_user);
ALTER TABLE page_cache FORCE ROW LEVEL SECURITY;
ALTER TABLE extraction_cache FORCE ROW LEVEL SECURITY;
