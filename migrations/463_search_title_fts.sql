-- Candidates by task concept (issue 30, stop 42) are listings whose title names a concept word of
-- the query. They were found through items_fts, which indexes the whole search_document without
-- its weight classes: a title-only query ('word':A) read every listing holding the word anywhere
-- (up to the 500 a selective word is capped at, per word) and threw away those without it in the
-- title. This index holds the titles alone, as search_document's class A holds them, so the check
-- reads the listings that match and no other (src/domain/search/search.ts, con_pool).
create index items_title_fts on items using gin (to_tsvector('english', title)) where status = 'active';
alter index items_title_fts set (fastupdate = off);
