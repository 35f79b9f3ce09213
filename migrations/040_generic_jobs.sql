-- Generic background work (src/jobs/): a job has a kind and a JSON payload and is run by the
-- handler registered for its kind; the scan is one kind. `key` keeps at most one open job per
-- (kind, key); `item_id` stays as an optional subject so a purged item takes its jobs with it.
alter table jobs drop constraint if exists jobs_kind_check;
alter table jobs add column payload jsonb not null default '{}';
alter table jobs add column key text;
update jobs set payload = jsonb_build_object('item_id', item_id), key = item_id::text where kind = 'scan';
drop index if exists jobs_one_open_scan;
create unique index jobs_one_open_per_key on jobs (kind, key)
  where key is not null and state in ('queued', 'running');
