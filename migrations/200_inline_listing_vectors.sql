-- Listing vectors stay inside their row. A row is about 2.5 kB (a 356-dimension vector is 1.4 kB),
-- over the 2 kB at which Postgres moves the largest value out of line, and `vector` is stored
-- EXTERNAL: every vector went to the TOAST table, so ranking a filtered set exactly, and scoring the
-- candidates, fetched each vector through the TOAST index (about 3x the cost of the distance).
-- Rows up to a page's 4 kB target now stay whole; a longer row still moves its largest values out.
alter table items set (toast_tuple_target = 4080);
-- Rewrite the vectors already stored out of line (a TOAST pointer is kept by an update unless the
-- value itself is new, hence the round trip through real[]).
update items set embedding = (embedding::real[])::vector where embedding is not null;
