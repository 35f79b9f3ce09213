-- The tech_stack filter matches whole stack names, not substrings (issue 22: tech_stack=java
-- returned a JavaScript listing, c matched C++ and C#). `stack_words` holds a listing's stack as
-- the search code reads it (src/embeddings/builtin.ts `words`, lowercased): names whose
-- punctuation matters rewritten first ("C++" -> cpp, "C#" -> csharp, "Node.js" -> nodejs, ...),
-- then split at every character other than a-z and 0-9. A test keeps this expression and the
-- TypeScript one in step (test/integration/search-stack-filter.test.ts).
alter table items add column stack_words text[] generated always as (
  array_remove(regexp_split_to_array(lower(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(tech_stack,
      'c\+\+', ' cpp ', 'gi'),
      'c#', ' csharp ', 'gi'),
      'f#', ' fsharp ', 'gi'),
      '\.net\M', ' dotnet ', 'gi'),
      '\mnode\.?js\M', ' nodejs ', 'gi'),
      '\mnext\.?js\M', ' nextjs ', 'gi'),
      '\mvue\.?js\M', ' vue ', 'gi'),
      '\mreact\.?js\M', ' react ', 'gi')
  ), '[^a-z0-9]+'), '')
) stored;
-- A filter term is an overlap with the names that satisfy it (search.ts), read through this index.
create index items_stack_words on items using gin (stack_words) where status = 'active';
