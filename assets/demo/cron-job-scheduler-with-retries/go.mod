module example.com/scheduler

go 1.22

require (
	github.com/prometheus/client_golang v1.19.1
	github.com/robfig/cron/v3 v3.0.1
)
