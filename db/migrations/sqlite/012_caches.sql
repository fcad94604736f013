-- Nothing paid for twice: pages read by URL and the facts extracted from sources are kept, so a second
-- run over the same sources neither fetches nor extracts them again (src/cache/).

-- A page as read (title, kind, text), keyed by the URL asked for, not the fetched bytes: the text is a
-- fraction of the HTML and a hit costs no parsing (a PDF's would take seconds). It is only as good as
-- the extractor that made it, so a row written by another EXTRACTOR_VERSION is a miss.
CREATE TABLE page_cache (
  url TEXT PRIMARY KEY,             -- the URL asked for, without its fragment
  final_url TEXT NOT NULL,          -- where redirects led: the page's own URL
  fetched_at INTEGER NOT NULL,      -- unix epoch ms of the fetch, or of the last 304 that confirmed it
  etag TEXT,                        -- the validators sent back when it is revalidated (also in policy)
  last_modified TEXT,
  policy TEXT NOT NULL,             -- http-cache-semantics CachePolicy.toObject(): headers, Cache-Control
  extractor INTEGER NOT NULL,       -- the EXTRACTOR_VERSION (src/formats/version.ts) that made the text
  title TEXT NOT NULL,
  kind TEXT NOT NULL,               -- html, pdf or text
  pages INTEGER,                    -- a PDF's page count
  body_hash TEXT NOT NULL           -- page_bodies.hash
);
CREATE INDEX page_cache_fetched ON page_cache (fetched_at);
-- Each distinct text once (two URLs that redirect to one page share it), zlib-compressed.
CREATE TABLE page_bodies (
  hash TEXT PRIMARY KEY,            -- SHA-256 of the UTF-8 text, hex
  chars INTEGER NOT NULL,           -- its length in characters
  body BLOB NOT NULL                -- the text, UTF-8, deflated with zlib
);
-- A text goes with the last page that uses it.
CREATE TRIGGER page_cache_ad AFTER DELETE ON page_cache BEGIN
  DELETE FROM page_bodies WHERE hash = old.body_hash
    AND NOT EXISTS (SELECT 1 FROM page_cache WHERE body_hash = old.body_hash);
END;
CREATE TRIGGER page_cache_au AFTER UPDATE OF body_hash ON page_cache BEGIN
  DELETE FROM page_bodies WHERE hash = old.body_hash
    AND NOT EXISTS (SELECT 1 FROM page_cache WHERE body_hash = old.body_hash);
END;

-- The facts one extraction call gave for one source, question, model and extraction prompt.
CREATE TABLE extraction_cache (
  source_hash TEXT NOT NULL,        -- SHA-256 of the source as the extraction prompt gives it
  question TEXT NOT NULL,           -- trimmed, runs of spaces made one; case as written
  model TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,  -- PROMPT_VERSION (src/research/prompts.ts)
  facts TEXT NOT NULL,
  created_at INTEGER NOT NULL,      -- unix epoch ms
  PRIMARY KEY (source_hash, question, model, prompt_version)
);
CREATE INDEX extraction_cache_created ON extraction_cache (created_at);
