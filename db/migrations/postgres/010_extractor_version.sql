-- Which version of the document extractor (src/formats) wrote the indexed text.
CREATE TABLE index_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
