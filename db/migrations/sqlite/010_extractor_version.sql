-- Which version of the document extractor (src/formats) wrote the indexed text. When it differs from
-- the running one, every indexed document is read again once, so better text and real headings reach
-- documents indexed before (see src/research/documents/extractor.ts).
CREATE TABLE index_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
