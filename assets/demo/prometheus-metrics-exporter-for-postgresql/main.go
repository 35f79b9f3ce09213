package main

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var (
	connections = prometheus.NewDesc("pg_connections", "Connections by state.", []string{"state"}, nil)
	lag         = prometheus.NewDesc("pg_replication_lag_seconds", "Replay lag per replica.", []string{"replica"}, nil)
	bloat       = prometheus.NewDesc("pg_table_bloat_bytes", "Estimated dead-tuple bytes per table.", []string{"table"}, nil)
	slow        = prometheus.NewDesc("pg_statement_mean_ms", "Mean time of the slowest statements.", []string{"query"}, nil)
)

type collector struct{ db *pgxpool.Pool }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{connections, lag, bloat, slow} {
		ch <- d
	}
}

// gauge runs a two-column query (label, value) and emits one gauge per row.
func (c collector) gauge(ctx context.Context, ch chan<- prometheus.Metric, desc *prometheus.Desc, query string) {
	rows, err := c.db.Query(ctx, query)
	if err != nil {
		log.Printf("%s: %v", desc, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var label string
		var value float64
		if rows.Scan(&label, &value) == nil {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, value, label)
		}
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.gauge(ctx, ch, connections, `select coalesce(state, 'unknown'), count(*)::float8 from pg_stat_activity group by 1`)
	c.gauge(ctx, ch, lag, `select coalesce(application_name, client_addr::text),
		coalesce(extract(epoch from replay_lag), 0)::float8 from pg_stat_replication`)
	c.gauge(ctx, ch, bloat, `select relname, (n_dead_tup * (pg_relation_size(relid) / greatest(n_live_tup + n_dead_tup, 1)))::float8
		from pg_stat_user_tables order by 2 desc limit 20`)
	c.gauge(ctx, ch, slow, `select left(query, 80), mean_exec_time from pg_stat_statements order by mean_exec_time desc limit 10`)
}

func main() {
	db, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	prometheus.MustRegister(collector{db})
	http.Handle("/metrics", promhttp.Handler())
	addr := os.Getenv("LISTEN_ADDR")
	if addr == "" {
		addr = ":9187"
	}
	log.Fatal(http.ListenAndServe(addr, nil))
}
