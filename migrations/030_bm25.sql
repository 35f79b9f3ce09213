-- BM25 lexical ranking (issue 11). Postgres' ts_rank has no inverse document frequency, so "files"
-- and "python" outweighed "csv". Search now ranks lexical matches with BM25 over the same tsvector,
-- with the collection statistics it needs kept here, up to date as listings activate and leave.

-- One weight class per field, so BM25 can weigh them apart: title A, stack B, description C,
-- prompt summary D (the field weights themselves live in src/domain/search/search.ts).
drop index if exists items_fts;
alter table items drop column search_document;
alter table items add column search_document tsvector generated always as (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', tech_stack), 'B') ||
  setweight(to_tsvector('english', description), 'C') ||
  setweight(to_tsvector('english', coalesce(prompt_summary, '')), 'D')
) stored;
create index items_fts on items using gin (search_document) where status = 'active';
alter index items_fts set (fastupdate = off);

-- Document frequency of each lexeme over active listings, and the corpus size and total length
-- (length = distinct lexemes of a listing's search_document) for BM25's idf and length norm.
create table search_terms (
  lexeme text primary key,
  df     int  not null
);
create table search_corpus (
  id        boolean primary key default true check (id),
  docs      bigint not null,
  total_len bigint not null
);
insert into search_corpus (docs, total_len)
  select count(*), coalesce(sum(length(search_document)), 0) from items where status = 'active';
insert into search_terms (lexeme, df)
  select t.lexeme, count(*) from items i, unnest(tsvector_to_array(i.search_document)) t(lexeme)
  where i.status = 'active' group by t.lexeme;

-- Applies a signed set of documents (+1 entering the active set, -1 leaving it) to the statistics.
-- Statement-level triggers with transition tables: one upsert per statement, not per row, so bulk
-- loads and re-indexing stay cheap.
create function search_stats_apply(delta_docs tsvector[], signs int[]) returns void
language sql as $$
  insert into search_terms (lexeme, df)
    select t.lexeme, sum(d.sgn)
    from unnest(delta_docs, signs) d(doc, sgn), unnest(tsvector_to_array(d.doc)) t(lexeme)
    group by t.lexeme
    having sum(d.sgn) <> 0
    order by t.lexeme -- one lock order for every writer: concurrent activations cannot deadlock
  on conflict (lexeme) do update set df = search_terms.df + excluded.df;
  update search_corpus set
    docs = docs + (select coalesce(sum(s), 0) from unnest(signs) s),
    total_len = total_len + (select coalesce(sum(length(d.doc) * d.sgn), 0)
                             from unnest(delta_docs, signs) d(doc, sgn));
$$;

create function search_stats_insert() returns trigger language plpgsql as $$
begin
  perform search_stats_apply(array_agg(search_document), array_agg(1))
    from new_rows where status = 'active' having count(*) > 0;
  return null;
end $$;

create function search_stats_delete() returns trigger language plpgsql as $$
begin
  perform search_stats_apply(array_agg(search_document), array_agg(-1))
    from old_rows where status = 'active' having count(*) > 0;
  return null;
end $$;

-- An update counts when a row enters or leaves the active set, or an active row's text changes.
create function search_stats_update() returns trigger language plpgsql as $$
begin
  perform search_stats_apply(array_agg(d.doc), array_agg(d.sgn)) from (
    select n.search_document as doc, 1 as sgn
      from new_rows n join old_rows o on o.id = n.id
      where n.status = 'active'
        and (o.status <> 'active' or o.search_document is distinct from n.search_document)
    union all
    select o.search_document, -1
      from old_rows o join new_rows n on n.id = o.id
      where o.status = 'active'
        and (n.status <> 'active' or o.search_document is distinct from n.search_document)
  ) d having count(*) > 0;
  return null;
end $$;

create trigger items_search_stats_insert after insert on items
  referencing new table as new_rows for each statement execute function search_stats_insert();
create trigger items_search_stats_delete after delete on items
  referencing old table as old_rows for each statement execute function search_stats_delete();
create trigger items_search_stats_update after update on items
  referencing old table as old_rows new table as new_rows
  for each statement execute function search_stats_update();
