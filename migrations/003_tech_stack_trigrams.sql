-- Stack filters are case-insensitive substring matches (ILIKE '%term%'). A trigram index lets the
-- planner read a selective stack filter through the index and rank those rows exactly, instead of
-- post-filtering the vector graph until enough rows match.
create extension if not exists pg_trgm;
create index items_tech_stack_trgm on items using gin (tech_stack gin_trgm_ops) where status = 'active';
