-- How many passages each document has. The keyword ranking weighs a term by how many of the passages
-- searched hold it, out of all of them: that total is now a sum over the folder's documents, where it
-- was a count of the folder's passages at every search (45 ms of a 73 ms search at 100,000 passages).
ALTER TABLE documents ADD COLUMN passages integer NOT NULL DEFAULT 0;
UPDATE documents d SET passages = (SELECT count(*) FROM passage_spans p WHERE p.document_id = d.id);
