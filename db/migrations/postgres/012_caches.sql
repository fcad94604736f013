-- Pages read by URL and the facts extracted from sources (src/cache/). A body no page uses any more is
-- deleted by the store in the transaction that drops or replaces the page.
CREATE TABLE page_cache (
  url text PRIMARY KEY,              -- the URL asked for, without its fragment
  final_url text NOT NULL,           -- where redirects led
  fetched_at bigint NOT NULL,        -- unix epoch ms of the fetch, or of the last 304 that confirmed it
  etag text,
  last_modified text,
  policy json NOT NULL,              -- http-cache-semantics CachePolicy.toObject()
  extractor integer NOT NULL,        -- the EXTRACTOR_VERSION that made the text
  title text NOT NULL,
  kind text NOT NULL,                -- html, pdf or text
  pages integer,                     -- a PDF's page count
  body_hash text NOT NULL            -- page_bodies.hash
);
CREATE INDEX page_cache_fetched ON page_cache (fetched_at);
CREATE INDEX page_cache_body ON page_cache (body_hash);
CREATE TABLE page_bodies (
  hash text PRIMARY KEY,             -- SHA-256 of the UTF-8 text, hex
  chars integer NOT NULL,
  body bytea NOT NULL                -- the text, UTF-8, deflated with zlib
);
CREATE TABLE extraction_cache (
  source_hash text NOT NULL,
  question text NOT NULL,
  model text NOT NULL,
  prompt_version integer NOT NULL,
  facts text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (source_hash, question, model, prompt_version)
);
CREATE INDEX extraction_cache_created ON extraction_cache (created_at);
