-- Who holds a job's lease: the worker (host and process id) that claimed it last. When a lease
-- runs out and another worker claims the job again, its log line names the worker that died.
-- Kept after the job ends (the last worker that ran it); null for leases taken before 456.
alter table jobs add column locked_by text;
