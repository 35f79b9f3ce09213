-- The embedded database has no autovacuum to flush a GIN pending list, and every search would scan
-- that list linearly. Listings are written rarely and searched often: index them at insert time.
alter index items_fts set (fastupdate = off);
